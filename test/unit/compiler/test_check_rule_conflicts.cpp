// Stage check_rule_conflicts: rules that cannot live together, and rules where base data is.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::compile_text;
using gavel::test::errors_of;

TEST_CASE("check_rule_conflicts: kinds, arities and extents") {
    CHECK(errors_of("package p\nx := 1\nx.y := 2\n") ==
          "2:1 rego_type_error: rule data.p.x conflicts with [data.p.x.y]\n");
    CHECK(errors_of("package p\na := 1\na contains 2\n") == "2:1 rego_type_error: conflicting rules data.p.a found\n");
    CHECK(errors_of("package p\nf(x) := 1\nf(x, y) := 2\n") ==
          "2:1 rego_type_error: conflicting rules data.p.f found\n");
    CHECK(errors_of("package p\nq[x] := 1 if { x := \"a\" }\nq.b.c := 2\n").empty());
}

TEST_CASE("check_rule_conflicts: more than one default rule") {
    CHECK(errors_of("package p\ndefault a := 1\ndefault a := 2\n") ==
          "1:1 rego_type_error: multiple default rules data.p.a found at m0.rego:2, m0.rego:3\n");
}

TEST_CASE("check_rule_conflicts: a rule at another module's package") {
    auto out = compile_text(std::vector<std::string>{"package p\nq := 1\n", "package p.q\nr := 2\n"});
    // Both conflicts are reported, as OPA does: the rule's extent, then the package.
    CHECK(out.errors ==
          "2:1 rego_type_error: rule data.p.q conflicts with [data.p.q.r]\n"
          "1:1 rego_type_error: package p.q conflicts with rule q defined at m0.rego:2\n");
}

TEST_CASE("check_rule_conflicts: base data at a rule's path") {
    gavel::compiler::CompileOptions options;
    options.path_exists = [](const std::vector<std::string>& path) {
        return path == std::vector<std::string>{"p", "allow"};
    };
    CHECK(compile_text("package p\nallow := true\n", options).errors ==
          "2:1 rego_compile_error: conflicting rule for data path p/allow found\n");
    CHECK(compile_text("package p\ndeny := true\n", options).errors.empty());
}
