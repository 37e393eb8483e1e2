#include "engine/bundle_manifest.hpp"

#include <filesystem>

#include "runtime/file_read.hpp"
#include "runtime/json.hpp"

namespace gavel::engine {

namespace fs = std::filesystem;
using runtime::Value;
using runtime::parse_json;
using runtime::to_json;

namespace {

void manifest_error(lang::Diagnostics& errors, const std::string& file, std::string message) {
    lang::Diagnostic d;
    d.file = file;
    d.message = file + ": " + std::move(message);
    errors.add(std::move(d));
}

// A rego_version value: the integer 0 or 1.
std::optional<int> version_of(const Value& v) {
    std::int64_t n = -1;
    if (!v.is_number() || !v.as_int64(n) || (n != 0 && n != 1)) return std::nullopt;
    return static_cast<int>(n);
}

std::string relative_to(const std::string& file, const std::string& root) {
    fs::path rel = fs::path(file).lexically_normal().lexically_relative(fs::path(root).lexically_normal());
    return rel.generic_string();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
    if (pattern.empty()) return path.empty();
    if (pattern.substr(0, 2) == "**") {
        std::string_view rest = pattern.substr(2);
        if (!rest.empty() && rest[0] == '/') {
            // "**/x" also matches "x" at this level.
            if (glob_match(rest.substr(1), path)) return true;
        }
        for (std::size_t i = 0; i <= path.size(); ++i)
            if (glob_match(rest, path.substr(i))) return true;
        return false;
    }
    if (pattern[0] == '*') {
        for (std::size_t i = 0; i <= path.size(); ++i) {
            if (glob_match(pattern.substr(1), path.substr(i))) return true;
            if (i < path.size() && path[i] == '/') break;
        }
        return false;
    }
    if (path.empty()) return false;
    if (pattern[0] == '?') return path[0] != '/' && glob_match(pattern.substr(1), path.substr(1));
    return pattern[0] == path[0] && glob_match(pattern.substr(1), path.substr(1));
}

std::optional<bool> BundleManifest::v0_compatible_for(const std::string& file) const {
    std::string rel = relative_to(file, root);
    for (const auto& [pattern, version] : file_rego_versions) {
        // OPA writes these keys with or without a leading '/' (bundle-absolute).
        std::string_view p = pattern;
        while (!p.empty() && p[0] == '/') p.remove_prefix(1);
        if (glob_match(p, rel)) return version == 0;
    }
    if (rego_version) return *rego_version == 0;
    return std::nullopt;
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
    auto parsed = parse_json(read.text);
    if (!parsed) {
        lang::Diagnostic d;
        d.file = file;
        d.line = static_cast<uint32_t>(parsed.error.line);
        d.col = static_cast<uint32_t>(parsed.error.column);
        d.message = file + ": bundle manifest: " + parsed.error.message;
        errors.add(std::move(d));
        return std::nullopt;
    }
    const Value& doc = parsed.value;
    if (!doc.is_object()) {
        manifest_error(errors, file, "bundle manifest must be a JSON object");
        return std::nullopt;
    }
    BundleManifest m;
    m.root = fs::path(dir).lexically_normal().generic_string();
    bool ok = true;
    if (const Value* v = doc.find("rego_version")) {
        m.rego_version = version_of(*v);
        if (!m.rego_version) {
            manifest_error(errors, file, "bundle manifest: rego_version must be 0 or 1, got " + to_json(*v));
            ok = false;
        }
    }
    if (const Value* v = doc.find("file_rego_versions")) {
        if (!v->is_object()) {
            manifest_error(errors, file, "bundle manifest: file_rego_versions must be an object");
            ok = false;
        } else {
            for (const auto& e : v->object_entries()) {
                auto version = version_of(e.value);
                if (!version || !e.key.is_string()) {
                    manifest_error(errors, file, "bundle manifest: file_rego_versions[" + to_json(e.key) +
                                                     "] must be 0 or 1, got " + to_json(e.value));
                    ok = false;
                    continue;
                }
                m.file_rego_versions.emplace_back(std::string(e.key.as_string()), *version);
            }
        }
    }
    if (const Value* v = doc.find("roots")) {
        bool strings = v->is_array();
        if (strings)
            for (const auto& r : v->array_elements()) {
                if (!r.is_string()) strings = false;
                else m.roots.emplace_back(r.as_string());
            }
        if (!strings) {
            manifest_error(errors, file, "bundle manifest: roots must be an array of strings");
            ok = false;
        }
    }
    if (!ok) return std::nullopt;
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
