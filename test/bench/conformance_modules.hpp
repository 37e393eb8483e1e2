#pragma once
// Loads every module of OPA's conformance suite once, with its dialect, for benchmarks.

#include <string>
#include <vector>

#include "test/conformance/suite.hpp"

namespace gavel::bench {

struct SampleModule {
    std::string text;
    bool v0 = false;
    bool experimental = false;
};

inline std::vector<SampleModule> load_conformance_modules() {
    std::vector<SampleModule> out;
    for (const auto& c : conformance::load_suite(GAVEL_CONFORMANCE_DIR))
        for (const auto& m : c.modules) out.push_back({m, c.v0, c.experimental_keywords});
    return out;
}

}  // namespace gavel::bench
