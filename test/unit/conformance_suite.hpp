#pragma once
// OPA's conformance suite lives outside this repository (../shared/conformance/opa, or
// GAVEL_CONFORMANCE_DIR at configure time). Tests that read it skip, saying so, when it is absent.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

inline bool conformance_suite_present() {
    const std::filesystem::path root = GAVEL_CONFORMANCE_DIR;
    if (std::filesystem::is_directory(root / "v1")) return true;
    MESSAGE("SKIPPED: OPA's conformance suite is not at "
            << root.string() << " (it lives outside this repository, in ../shared/conformance/opa)");
    return false;
}
