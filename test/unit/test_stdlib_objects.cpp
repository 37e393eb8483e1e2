// Builtins of the objects families: edge cases beyond the conformance suite.

#include <doctest/doctest.h>

#include "stdlib/registry.hpp"

TEST_CASE("stdlib objects: object.get is registered") {
    CHECK(gavel::stdlib::Registry::standard().find("object.get") != nullptr);
}
