// Builtins of the strings families: edge cases beyond the conformance suite.

#include <doctest/doctest.h>

#include "stdlib/registry.hpp"

TEST_CASE("stdlib strings: sprintf is registered") {
    CHECK(gavel::stdlib::Registry::standard().find("sprintf") != nullptr);
}
