// Stage check_imports: two imports binding one name.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::compile_text;
using gavel::test::errors_of;

TEST_CASE("check_imports: a v1 module may not import one name twice") {
    CHECK(errors_of("package p\nimport data.a\nimport data.b.a\nx := a\n") ==
          "3:1 rego_compile_error: import must not shadow import data.a\n");
    CHECK(errors_of("package p\nimport data.a as c\nimport data.b as c\nx := c\n") ==
          "3:1 rego_compile_error: import must not shadow import data.a as c\n");
}

TEST_CASE("check_imports: v0 allows it, unless strict") {
    const std::string module = "package p\nimport data.a\nimport data.b.a\nx := a\n";
    CHECK(errors_of(module, true).empty());
    gavel::compiler::CompileOptions strict;
    strict.strict = true;
    CHECK(compile_text(module, strict, true).errors ==
          "3:1 rego_compile_error: import must not shadow import data.a\n");
}
