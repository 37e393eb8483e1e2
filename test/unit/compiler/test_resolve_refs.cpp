// Stage resolve_refs: rule names and imports become full refs; locals shadow them.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::compile_text;
using gavel::test::rules_of;

TEST_CASE("resolve_refs: a rule of the package, in this module or another, becomes data.<pkg>.<name>") {
    CHECK(rules_of("package p\nx := 1\ny := x\n") ==
          "x = 1 if { true }\ny = __local0__ if { __local0__ = data.p.x }\n");
    auto two = compile_text(std::vector<std::string>{"package p\ny := x\n", "package p\nx := 1\n"});
    CHECK(two.errors.empty());
    CHECK(two.rules.find("data.p.x") != std::string::npos);
}

TEST_CASE("resolve_refs: imports resolve wherever they are written, even after the rules using them") {
    CHECK(
        rules_of("package p\nz := y + x\nimport data.q.y\nx := 1\n") ==
        "z = __local0__ if { __local1__ = data.q.y; __local2__ = data.p.x; plus(__local1__, __local2__, __local0__) }\n"
        "x = 1 if { true }\n");
    CHECK(rules_of("package p\nimport input.req as r\nok if r.ok\n") == "ok = true if { input.req.ok }\n");
}

TEST_CASE("resolve_refs: locals, arguments and comprehension locals shadow rules and imports") {
    CHECK(rules_of("package p\nx := 1\nf(x) := x\n") == "x = 1 if { true }\nf(__local0__) = __local0__ if { true }\n");
    CHECK(rules_of("package p\nx := 1\ny if { x := 2; x > 1 }\n") ==
          "x = 1 if { true }\ny = true if { __local0__ = 2; gt(__local0__, 1) }\n");
    CHECK(rules_of("package p\nx := 1\ns := {x | some x in [5]}\n").find("data.p.x") == std::string::npos);
}

TEST_CASE("resolve_refs: an unused import is an error only in strict mode") {
    const std::string module = "package p\nimport data.a.b\nx := 1\n";
    CHECK(compile_text(module).errors.empty());
    gavel::compiler::CompileOptions strict;
    strict.strict = true;
    CHECK(compile_text(module, strict).errors == "2:1 rego_compile_error: import data.a.b unused\n");
}
