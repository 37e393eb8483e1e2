// Stage check_deprecated_builtins: deprecated builtins in v1 modules and in strict mode.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::compile_text;
using gavel::test::errors_of;

TEST_CASE("check_deprecated_builtins: refused in v1, allowed in v0 unless strict") {
    CHECK(errors_of("package p\np if { any([true]) }\n") ==
          "2:8 rego_type_error: deprecated built-in function calls in expression: any\n");
    CHECK(errors_of("package p\np { any([true]) }\n", true).empty());
    gavel::compiler::CompileOptions strict;
    strict.strict = true;
    CHECK(compile_text("package p\np { re_match(\"a\", \"a\") }\n", strict, true).errors ==
          "2:5 rego_type_error: deprecated built-in function calls in expression: re_match\n");
}

TEST_CASE("check_deprecated_builtins: only once the type checker met a deprecated call, as OPA's Required.Builtins") {
    // The type checker never reaches `every` bodies, so a deprecated call there alone goes unnoticed ...
    CHECK(errors_of("package p\np if {\n\tevery x in [1] { x == cast_string(1) }\n}\n").empty());
    // ... but once one is met elsewhere, every deprecated call in the module is reported.
    CHECK(errors_of("package p\np if {\n\tevery x in [1] { x == cast_string(1) }\n}\nq if any([true])\n") ==
          "3:24 rego_type_error: deprecated built-in function calls in expression: cast_string\n"
          "5:6 rego_type_error: deprecated built-in function calls in expression: any\n");
}
