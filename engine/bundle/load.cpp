#include "engine/bundle/load.hpp"
#include "engine/bundle/merge_data.hpp"

#include "engine/bundle/roots.hpp"

namespace gavel::engine::bundle {

using runtime::Value;

namespace {}  // namespace

void merge_load_results(LoadResult& into, LoadResult more) {
    into.errors.append(more.errors);
    for (auto& p : more.policies) into.policies.push_back(std::move(p));
    for (auto& f : more.data_files) into.data_files.push_back(std::move(f));
    if (more.data.size() == 0) return;
    if (into.data.size() == 0) {
        into.data = std::move(more.data);
        return;
    }
    Value merged;
    if (!merge_data(into.data, more.data, merged)) {
        lang::Diagnostic d;
        d.message = "merge error: bundle data conflicts with other data";
        into.errors.add(std::move(d));
        return;
    }
    into.data = std::move(merged);
}

LoadResult load_bundles(const std::vector<std::string>& paths, const BundleReadOptions& options,
                        std::vector<Bundle>* out) {
    LoadResult result;
    std::vector<Bundle> bundles;
    for (const auto& path : paths) {
        auto read = read_bundle(path, options);
        if (!read.ok()) {
            result.errors.append(read.errors);
            continue;
        }
        bundles.push_back(std::move(*read.bundle));
    }
    if (!result.errors.empty()) return result;
    if (bundles.size() > 1) {
        std::vector<std::pair<std::string, std::vector<std::string>>> roots;
        for (const auto& b : bundles) roots.emplace_back(b.name, b.manifest.effective_roots());
        if (auto e = check_bundle_roots_overlap(roots)) {
            lang::Diagnostic d;
            d.message = *e;
            result.errors.add(std::move(d));
            return result;
        }
    }
    for (const auto& b : bundles) {
        LoadResult one;
        for (const auto& m : b.modules) one.policies.push_back({m.name, m.text, m.v0_compatible});
        one.data = b.data;
        one.data_files.push_back(b.name);
        merge_load_results(result, std::move(one));
    }
    if (out) *out = std::move(bundles);
    return result;
}

}  // namespace gavel::engine::bundle

namespace gavel::engine::bundle {

LoadResult load_paths_and_bundles(const std::vector<std::string>& data_paths,
                                  const std::vector<std::string>& bundle_paths, const LoadOptions& load_options,
                                  const BundleReadOptions& bundle_options) {
    LoadResult result = data_paths.empty() ? LoadResult{} : load_paths(data_paths, load_options);
    if (!bundle_paths.empty()) {
        BundleReadOptions options = bundle_options;
        options.v0_compatible = options.v0_compatible || load_options.v0_compatible;
        merge_load_results(result, load_bundles(bundle_paths, options));
    }
    return result;
}

}  // namespace gavel::engine::bundle
