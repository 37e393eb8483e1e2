#pragma once
// Loads every module of OPA's conformance suite once, with its dialect, for benchmarks.

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace gavel::bench {

struct SampleModule {
    std::string text;
    bool v0 = false;
    bool experimental = false;
};

inline std::vector<SampleModule> load_conformance_modules() {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(GAVEL_CONFORMANCE_DIR))
        if (e.path().extension() == ".yaml") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::vector<SampleModule> out;
    for (const auto& f : files) {
        bool v0 = f.parent_path().parent_path().filename() == "v0";
        for (const auto& c : YAML::LoadFile(f.string())["cases"]) {
            bool experimental = c["experimental_keywords"] && c["experimental_keywords"].as<bool>();
            for (const auto& m : c["modules"]) out.push_back({m.as<std::string>(), v0, experimental});
        }
    }
    return out;
}

}  // namespace gavel::bench
