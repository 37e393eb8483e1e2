// Builtins of the encoding families: edge cases beyond the conformance suite.

#include <doctest/doctest.h>

#include "stdlib/registry.hpp"

TEST_CASE("stdlib encoding: base64.encode is registered") {
    CHECK(gavel::stdlib::Registry::standard().find("base64.encode") != nullptr);
}
