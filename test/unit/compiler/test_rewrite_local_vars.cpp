// Stage rewrite_local_vars: declared variables renamed per scope; redeclarations refused.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::compile_text;
using gavel::test::errors_of;
using gavel::test::rules_of;

TEST_CASE("rewrite_local_vars: redeclarations are errors with OPA's words") {
    CHECK(errors_of("package p\np if { x := 1; x := 2 }\n") == "2:16 rego_compile_error: var x assigned above\n");
    CHECK(errors_of("package p\np if { x = 1; x := 2 }\n") == "2:15 rego_compile_error: var x referenced above\n");
    CHECK(errors_of("package p\np if { some x; x := 1 }\n") == "2:16 rego_compile_error: var x declared above\n");
    CHECK(errors_of("package p\nf(x) := 1 if { x := 2 }\n") == "2:16 rego_compile_error: arg x redeclared\n");
    CHECK(errors_of("package p\np if { 1 := x }\n") == "2:8 rego_compile_error: cannot assign to number\n");
    // A with value counts as a reference.
    CHECK(errors_of("package p\np if { x := 1 with input as {\"a\": y}; y := 2 }\n") ==
          "2:39 rego_compile_error: var y referenced above\n");
}

TEST_CASE("rewrite_local_vars: each scope gets its own names; a comprehension may redeclare an outer name") {
    CHECK(rules_of("package p\np if { x := 1; [x | x := 2] }\n") ==
          "p = true if { __local0__ = 1; [__local1__ | __local1__ = 2] }\n");
}

TEST_CASE("rewrite_local_vars: some x in xs iterates xs") {
    CHECK(rules_of("package p\nr contains v if { some v in input }\n") ==
          "r contains __local2__ if { __local2__ = input[__local1__] }\n");
    CHECK(rules_of("package p\nr contains k if { some k, \"a\" in input }\n") ==
          "r contains __local0__ if { \"a\" = input[__local0__] }\n");
}

TEST_CASE("rewrite_local_vars: unused declarations; strict mode also refuses unused assignments and arguments") {
    CHECK(errors_of("package p\np if { some x; true }\n") == "2:8 rego_compile_error: declared var x unused\n");
    const std::string module = "package p\np if { x := 1; true }\nf(a) := 1\n";
    CHECK(errors_of(module).empty());
    gavel::compiler::CompileOptions strict;
    strict.strict = true;
    CHECK(compile_text(module, strict).errors ==
          "2:8 rego_compile_error: assigned var x unused\n"
          "3:1 rego_compile_error: unused argument a. (hint: use _ (wildcard variable) instead)\n");
}

TEST_CASE("rewrite_local_vars: a comprehension in a function's argument has a scope of its own, as in the head") {
    // OPA walks the whole head (arguments, key, value): `x := 1` there declares x.
    CHECK(errors_of("package p\nf([x | x := 1]) := 1\n").empty());
    CHECK(errors_of("package p\nf([x | x := 1; x := 2]) := 1\n") == "2:16 rego_compile_error: var x assigned above\n");
    CHECK(errors_of("package p\nf([x | y := 1]) := 1\n") == "2:3 rego_unsafe_var_error: var x is unsafe\n");
}
