// Builtins of the crypto families: edge cases beyond the conformance suite.

#include <doctest/doctest.h>

#include "stdlib/registry.hpp"

TEST_CASE("stdlib crypto: crypto.sha256 is registered") {
    CHECK(gavel::stdlib::Registry::standard().find("crypto.sha256") != nullptr);
}
