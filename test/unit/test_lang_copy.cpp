// lang/copy: deep copies keep every field of the nodes they copy.

#include <doctest/doctest.h>

#include "lang/copy.hpp"
#include "lang/normalize_module.hpp"
#include "lang/parse.hpp"

using namespace gavel::lang;

TEST_CASE("copy_module: a deep copy that keeps every flag") {
    auto r = parse_module("m.rego", "package p\nq := (1 + 2) if input.x\nr := 1\n");
    REQUIRE(r.ok());
    Module m = std::move(*r.module);
    normalize_module(m);
    m.rules[0].body[0].call_value = true;
    Module c = copy_module(m);
    CHECK(c.rules[0].head.value != m.rules[0].head.value);  // no term shared
    CHECK(c.rules[0].head.value->parens == 1);
    CHECK(c.rules[0].literal_body);
    CHECK(c.rules[0].body[0].call_value);
    CHECK(c.rules[1].generated_body);
    CHECK_FALSE(c.rules[1].head.generated_value);
}
