// Every module, query and input term of OPA's conformance suite parses in its
// dialect: v0/ in v0 mode, v1/ in v1 mode, experimental keywords where a case asks.

#include <doctest/doctest.h>

#include "conformance_suite.hpp"
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "lang/parse.hpp"

namespace fs = std::filesystem;

TEST_CASE("all conformance modules parse") {
    if (!conformance_suite_present()) return;
    const fs::path root = GAVEL_CONFORMANCE_DIR;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.path().extension() == ".yaml") files.push_back(e.path());
    std::sort(files.begin(), files.end());

    std::size_t cases = 0, modules = 0, failures = 0;
    for (const auto& file : files) {
        const bool v0 = file.parent_path().parent_path().filename() == "v0";
        YAML::Node doc = YAML::LoadFile(file.string());
        std::size_t index = 0;
        for (const auto& c : doc["cases"]) {
            ++cases;
            gavel::lang::ParseOptions options;
            options.v0_compatible = v0;
            options.experimental_keywords = c["experimental_keywords"] && c["experimental_keywords"].as<bool>();
            auto fail = [&](const std::string& what, const gavel::lang::Diagnostics& ds) {
                ++failures;
                FAIL_CHECK(file.string() << " case " << index << " " << what << ":\n" << ds.format());
            };
            std::size_t m = 0;
            for (const auto& mod : c["modules"]) {
                ++modules;
                auto r = gavel::lang::parse_module("test-" + std::to_string(m++) + ".rego", mod.as<std::string>(), options);
                if (!r.ok()) fail("module", r.diagnostics);
            }
            auto q = gavel::lang::parse_query(c["query"].as<std::string>(), options);
            if (!q.ok()) fail("query", q.diagnostics);
            if (c["input_term"]) {
                auto t = gavel::lang::parse_term(c["input_term"].as<std::string>(), options);
                if (!t.ok()) fail("input_term", t.diagnostics);
            }
            ++index;
        }
    }
    MESSAGE(cases << " cases, " << modules << " modules, " << failures << " failures");
    CHECK(cases == 4227);
    CHECK(failures == 0);
}
