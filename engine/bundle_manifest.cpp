#include "engine/bundle_manifest.hpp"

#include <filesystem>

#include "runtime/file_read.hpp"

namespace gavel::engine {

namespace fs = std::filesystem;

namespace {

void manifest_error(lang::Diagnostics& errors, const std::string& file, std::string message) {
    lang::Diagnostic d;
    d.file = file;
    d.message = file + ": " + std::move(message);
    errors.add(std::move(d));
}

}  // namespace

std::optional<bool> BundleManifest::v0_compatible_for(const std::string& file) const {
    fs::path rel = fs::path(file).lexically_normal().lexically_relative(fs::path(root).lexically_normal());
    return manifest.v0_for(rel.generic_string());
}

std::optional<BundleManifest> read_bundle_manifest(const std::string& dir, lang::Diagnostics& errors) {
    const std::string file = (fs::path(dir) / kManifestName).lexically_normal().generic_string();
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return std::nullopt;
    runtime::FileRead read = runtime::read_whole_file(file, runtime::kDefaultReadLimit, runtime::NonRegular::Refuse);
    if (!read.ok) {
        manifest_error(errors, file, "cannot read bundle manifest: " + read.message);
        return std::nullopt;
    }
    // The reader `-b` uses: the same fields, errors and file_rego_versions globs as a bundle's.
    std::string error;
    auto manifest = bundle::parse_manifest(read.text, error);
    if (!manifest) {
        manifest_error(errors, file, error);
        return std::nullopt;
    }
    BundleManifest m;
    m.root = fs::path(dir).lexically_normal().generic_string();
    m.manifest = std::move(*manifest);
    return m;
}

std::optional<BundleManifest> find_bundle_manifest(const std::string& file, const std::string& stop_at,
                                                   lang::Diagnostics& errors) {
    fs::path stop = fs::path(stop_at).lexically_normal();
    fs::path dir = fs::path(file).lexically_normal().parent_path();
    if (stop.filename().empty()) stop = stop.parent_path();  // "examples/" -> "examples"
    // Only directories at or below the one the user named are looked at.
    auto below_stop = [&](const fs::path& d) {
        auto rel = d.lexically_relative(stop);
        return !rel.empty() && *rel.begin() != "..";
    };
    while (below_stop(dir)) {
        if (auto m = read_bundle_manifest(dir.empty() ? "." : dir.generic_string(), errors)) return m;
        if (dir == stop || dir.empty() || !dir.has_parent_path()) break;
        dir = dir.parent_path();
    }
    return std::nullopt;
}

}  // namespace gavel::engine
