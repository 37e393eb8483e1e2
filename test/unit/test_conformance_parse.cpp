// Every module, query and input term of OPA's conformance suite parses in its
// dialect: v0/ in v0 mode, v1/ in v1 mode, experimental keywords where a case asks.

#include <doctest/doctest.h>

#include "conformance_suite.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "lang/parse.hpp"
#include "test/conformance/suite.hpp"

namespace fs = std::filesystem;

TEST_CASE("all conformance modules parse") {
    if (!conformance_suite_present()) return;
    const fs::path root = GAVEL_CONFORMANCE_DIR;
    std::size_t cases = 0, modules = 0, failures = 0;
    for (const auto& c : gavel::conformance::load_suite(root)) {
        ++cases;
        gavel::lang::ParseOptions options;
        options.v0_compatible = c.v0;
        options.experimental_keywords = c.experimental_keywords;
        auto fail = [&](const std::string& what, const gavel::lang::Diagnostics& ds) {
            ++failures;
            FAIL_CHECK(c.id << " " << what << ":\n" << ds.format());
        };
        if (!c.load_error.empty()) {
            ++failures;
            FAIL_CHECK(c.id << ": " << c.load_error);
            continue;
        }
        std::size_t m = 0;
        for (const auto& mod : c.modules) {
            ++modules;
            auto r = gavel::lang::parse_module("test-" + std::to_string(m++) + ".rego", mod, options);
            if (!r.ok()) fail("module", r.diagnostics);
        }
        auto q = gavel::lang::parse_query(c.query, options);
        if (!q.ok()) fail("query", q.diagnostics);
        if (c.input_term) {
            auto t = gavel::lang::parse_term(*c.input_term, options);
            if (!t.ok()) fail("input_term", t.diagnostics);
        }
    }
    MESSAGE(cases << " cases, " << modules << " modules, " << failures << " failures");
    CHECK(cases == 4227);
    CHECK(failures == 0);
}
