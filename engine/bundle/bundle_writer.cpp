#include "engine/bundle/bundle_writer.hpp"
#include "engine/bundle/merge_data.hpp"

#include <map>

#include "engine/bundle/file_hash.hpp"
#include "engine/bundle/roots.hpp"
#include "engine/bundle/tar_writer.hpp"
#include "runtime/json.hpp"

namespace gavel::engine::bundle {

using runtime::Value;

namespace {

// The value at `key` below `data`, or null when absent.
const Value* value_at(const Value& data, const std::vector<std::string>& key) {
    const Value* node = &data;
    for (const auto& k : key) {
        if (!node->is_object()) return nullptr;
        node = node->find(k);
        if (!node) return nullptr;
    }
    return node;
}

// bundleRegoVersions: the modules whose dialect differs from `global`, keyed "/path".
void record_file_versions(const Bundle& b, int global, std::vector<std::pair<std::string, int>>& out) {
    for (const auto& m : b.modules) {
        int v = m.v0_compatible ? 0 : 1;
        if (v != global) out.emplace_back("/" + m.path, v);
    }
}

}  // namespace

std::vector<FileDigest> bundle_digests(const Bundle& bundle) {
    std::vector<FileDigest> files;
    std::string error;
    for (const auto& m : bundle.modules)
        files.push_back({m.path, *hash_file(m.path, m.text, kDefaultHashAlgorithm, error), "SHA-256"});
    files.push_back({"data.json", *hash_value(bundle.data, kDefaultHashAlgorithm, error), "SHA-256"});
    if (!bundle.manifest.empty())
        files.push_back(
            {".manifest", *hash_value(manifest_value(bundle.manifest), kDefaultHashAlgorithm, error), "SHA-256"});
    return files;
}

std::optional<std::string> write_bundle(Bundle& bundle, const WriteOptions& options, std::string& error) {
    if (options.signing) {
        auto token = sign_files(bundle_digests(bundle), *options.signing, options.key_id, error);
        if (!token) return std::nullopt;
        bundle.signatures = {*token};
    }
    TarWriter tar;
    tar.add_file("/data.json", runtime::to_json(bundle.data) + "\n");
    for (const auto& m : bundle.modules) tar.add_file("/" + m.path, m.text);
    if (!bundle.signatures.empty()) tar.add_file("/.signatures.json", signatures_json(bundle.signatures.front()));
    if (!bundle.manifest.empty()) tar.add_file("/.manifest", manifest_json(bundle.manifest) + "\n");
    return tar.finish_gz();
}

std::optional<Bundle> merge_bundles(std::vector<Bundle> bundles, bool v0_default, std::string& error) {
    const int global_default = v0_default ? 0 : 1;
    if (bundles.empty()) return error = "expected at least one bundle", std::nullopt;
    if (bundles.size() == 1) {
        Bundle result = std::move(bundles[0]);
        int global = result.manifest.rego_version.value_or(global_default);
        result.manifest.rego_version = global;
        result.manifest.file_rego_versions.clear();
        record_file_versions(result, global, result.manifest.file_rego_versions);
        return result;
    }
    Bundle result;
    result.name = "merged";
    std::vector<std::string> roots;
    std::map<std::string, std::string> module_owner;
    DataTreeBuilder data;
    for (auto& b : bundles) {
        auto own = b.manifest.effective_roots();
        roots.insert(roots.end(), b.manifest.roots ? b.manifest.roots->begin() : own.begin(),
                     b.manifest.roots ? b.manifest.roots->end() : own.end());
        for (auto& m : b.modules) {
            auto [it, inserted] = module_owner.emplace(m.path, b.name);
            if (!inserted)
                return error =
                           "bundle merge failed: module " + m.path + " is in bundles " + it->second + " and " + b.name,
                       std::nullopt;
            result.modules.push_back(m);
        }
        for (const auto& root : own) {
            auto key = path_parts(root);
            const Value* v = value_at(b.data, key);
            if (!v || (key.empty() && v->size() == 0)) continue;
            if (!data.insert(key, *v))
                return error = "bundle merge failed: failed to insert data file from path " + root, std::nullopt;
        }
        if (b.manifest.rego_version || !b.manifest.file_rego_versions.empty())
            record_file_versions(b, global_default, result.manifest.file_rego_versions);
    }
    result.data = data.build();
    std::sort(result.manifest.file_rego_versions.begin(), result.manifest.file_rego_versions.end());
    result.manifest.rego_version = global_default;
    result.manifest.roots = roots;
    auto effective_roots = result.manifest.effective_roots();
    if (auto e = check_manifest_roots(effective_roots)) return error = "bundle merge failed: " + *e, std::nullopt;
    RootTrie trimmed(std::move(effective_roots));
    for (const auto& m : result.modules)
        if (auto e = check_module_root(trimmed, m.package_path, package_text_of(m.package_path), m.name))
            return error = "bundle merge failed: " + *e, std::nullopt;
    if (auto e = check_data_roots(trimmed, result.data)) return error = "bundle merge failed: " + *e, std::nullopt;
    return result;
}

}  // namespace gavel::engine::bundle
