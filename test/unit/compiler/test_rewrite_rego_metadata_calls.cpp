// Stage rewrite_rego_metadata_calls: rego.metadata.rule()/chain() become constants.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::rules_of;

TEST_CASE("rewrite_rego_metadata_calls: no annotations: rule() is {}") {
    CHECK(rules_of("package p\nm := rego.metadata.rule()\n") ==
          "m = __local0__ if { __local1__ = {}; __local0__ = __local1__ }\n");
}

TEST_CASE("rewrite_rego_metadata_calls: the rule's METADATA block is read where the rule is written") {
    auto out = rules_of("package p\n\n# METADATA\n# title: T\nm := rego.metadata.rule()\n");
    CHECK(out.find("rego.metadata.rule") == std::string::npos);
    CHECK(out.find("internal.rego_annotation") != std::string::npos);
    CHECK(out.find("title: T") != std::string::npos);
    auto chain = rules_of("package p\n\n# METADATA\n# title: T\nm := rego.metadata.chain()\n");
    CHECK(chain.find("rego.metadata.chain") == std::string::npos);
    CHECK(chain.find("\"path\"") != std::string::npos);
}
