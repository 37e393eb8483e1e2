// Stage rewrite_print_calls: each print operand in a comprehension of its own.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;
using gavel::test::rules_of;

TEST_CASE("rewrite_print_calls: an undefined operand prints <undefined> instead of ending the body") {
    CHECK(rules_of("package p\np if { print(\"x is\", input.x) }\n") ==
          "p = true if { __local2__ = {__local0__ | __local0__ = \"x is\"}; __local3__ = {__local1__ | __local1__ = "
          "input.x}; "
          "internal.print([__local2__, __local3__]) }\n");
}

TEST_CASE("rewrite_print_calls: an operand using a variable nothing binds before it is undeclared") {
    CHECK(errors_of("package p\np if { print(y) }\n") == "2:14 rego_compile_error: var y is undeclared\n");
    // Declared after the print: rewrite_local_vars, which runs first, finds it referenced above.
    CHECK(errors_of("package p\np if { print(x); x := 1 }\n") == "2:18 rego_compile_error: var x referenced above\n");
    CHECK(errors_of("package p\np if { x := 1; print(x) }\n").empty());
}

TEST_CASE("rewrite_print_calls: what is safe before the print is what binds it, as OPA's outputVarsForBody") {
    // `some x in {1, [y | y := 1]}` is `x = {1, [...]}[k]`: a ref whose head holds a variable local
    // to a comprehension, which OPA's isRefSafe (Term.Vars) counts, so the ref binds nothing and x
    // is undeclared for print (comprehension terms are lifted out only later).
    CHECK(errors_of("package p\np if {\n\tsome x in {1, [y | y := 1]}\n\tprint(x)\n}\n") ==
          "4:8 rego_compile_error: var x is undeclared\n");
    CHECK(errors_of("package p\np if {\n\tsome x in {1, [2]}\n\tprint(x)\n}\n").empty());
    CHECK(errors_of("package p\nf(z) if {\n\tsome x in {1, [z | true]}\n\tprint(x)\n}\n").empty());
}
