// Stage check_undefined_funcs: calls name known functions with the right number of operands.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;

TEST_CASE("check_undefined_funcs: unknown functions") {
    CHECK(errors_of("package p\np if { f(1) }\n") == "2:8 rego_type_error: undefined function f\n");
    CHECK(errors_of("package p\np if { x := foo.bar(1); x }\n") ==
          "2:13 rego_type_error: undefined function foo.bar\n");
}

TEST_CASE("check_undefined_funcs: calls inside a comprehension that a known call holds are checked too") {
    // Not reported as "var x is unsafe" by the safety stage after it.
    CHECK(errors_of("package p\np if { y := [x | foo.bar(1, x)]; y }\n") ==
          "2:18 rego_type_error: undefined function foo.bar\n");
    CHECK(
        errors_of("package p\ns := [x | x := count(1, 2, 3)]\n").find("2:16 rego_type_error: count: arity mismatch") ==
        0);
}

TEST_CASE("check_undefined_funcs: too many or too few operands (one more is the output)") {
    CHECK(errors_of("package p\np if { count(1, 2, 3) }\n") ==
          "2:8 rego_type_error: count: arity mismatch\n\thave: (number, number, number)\n"
          "\twant: (collection: any<string, array[any], object[any: any], set[any]>)\n");
    CHECK(errors_of("package p\nx := abs(-9, 10)\n").find("abs: arity mismatch") != std::string::npos);
    CHECK(errors_of("package p\nf(a, b) := a\np if { f(1) }\n") ==
          "3:8 rego_type_error: function data.p.f has arity 2, got 1 argument\n");
    CHECK(errors_of("package p\np if { count([1], n); n == 1 }\n").empty());
}

TEST_CASE("check_undefined_funcs: a builtin the capabilities leave out is undefined (OPA's WithCapabilities)") {
    gavel::compiler::CompileOptions pinned;
    pinned.allowed_builtins = std::set<std::string>{"count", "eq", "assign"};
    const std::string module = "package p\nx := count([1])\ny := strings.count(\"aa\", \"a\")\n";
    CHECK(gavel::test::compile_text(module).errors.empty());
    CHECK(gavel::test::compile_text(module, pinned).errors ==
          "3:6 rego_type_error: undefined function strings.count\n");
}
