#include "engine/bundle/bundle.hpp"
#include "engine/bundle/merge_data.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "engine/bundle/file_hash.hpp"
#include "engine/bundle/roots.hpp"
#include "engine/directory_walk.hpp"
#include "runtime/file_read.hpp"
#include "engine/loader.hpp"
#include "lang/parse.hpp"
#include "runtime/json.hpp"
#include "runtime/yaml.hpp"

namespace gavel::engine::bundle {

namespace fs = std::filesystem;
using engine::configmap_volume_internal;
using engine::WalkEntry;
using engine::WalkOptions;
using runtime::Value;

namespace {

lang::Diagnostic plain(std::string message) {
    lang::Diagnostic d;
    d.message = std::move(message);
    return d;
}

BundleReadResult failure(const std::string& name, const std::string& message) {
    BundleReadResult r;
    r.errors.add(plain("bundle " + name + ": " + message));
    return r;
}

std::string_view base_name(std::string_view path) {
    auto slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string join(const std::string& dir, const std::string& rel) {
    if (dir.empty()) return rel;
    return (fs::path(dir) / rel).lexically_normal().generic_string();
}

// OPA's getNormalizedPath: the directory of a data file, leading '/' and '.' trimmed.
std::vector<std::string> data_key(const std::string& path) {
    auto slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : path.substr(0, slash);
    std::size_t start = dir.find_first_not_of("/.");
    dir = start == std::string::npos ? "" : dir.substr(start);
    return path_parts(dir);
}

// "a/b" for `package a.b` (OPA's Package.Path.Ptr()).
std::string package_path_of(const lang::Module& m) {
    std::string path;
    // The parser keeps the parts after `package` (a Ref, or one term for `package a`).
    const auto& p = m.package.path;
    if (!p) return path;
    if (p->kind != lang::TermKind::Ref) return p->text;
    for (const auto& part : p->elems) path += (path.empty() ? "" : "/") + part->text;
    return path;
}

// What the reader does with each file, decided before it is read (tar_reader.hpp):
// policies and data are kept, unless larger than their parsers take (refused at once,
// with the parser's words, instead of after inflating them); files the reader does not
// use are only digested when the bundle is to be verified, else skipped, as ignored ones are.
EntryPolicy entry_policy(const BundleReadOptions& options) {
    return [&options](const std::string& path, std::uint64_t size) -> EntryDecision {
        if (options.stop && options.stop->load()) return {EntryAction::Skip, kReadStopped};
        if (options.ignore && options.ignore(path)) return {EntryAction::Skip, {}};
        auto base = base_name(path);
        auto json_limit = [&](const std::string& what) -> EntryDecision {
            const auto limit = runtime::kDefaultLimits.max_input_bytes;
            if (size <= limit) return {};
            return {EntryAction::Keep, what + ": JSON input too large: " + std::to_string(size) + " bytes (limit " +
                                           std::to_string(limit) + ")"};
        };
        if (ends_with(path, "signatures.json")) {
            if (options.skip_verify) return {EntryAction::Skip, {}};
            return json_limit("bundle load failed on signatures decode");
        }
        if (ends_with(path, ".rego")) {
            const auto limit = lang::ParseOptions{}.max_bytes;
            if (size <= limit) return {};
            return {EntryAction::Keep, "bundle load failed on " + path + ": module is " + std::to_string(size) +
                                           " bytes, more than the limit of " + std::to_string(limit)};
        }
        if (base == "data.json") return json_limit("bundle load failed on " + path);
        if (base == "data.yaml" || base == "data.yml") {
            const auto limit = runtime::kDefaultLimits.max_input_bytes;
            if (size <= limit) return {};
            return {EntryAction::Keep, "bundle load failed on " + path + ": YAML input too large: " +
                                           std::to_string(size) + " bytes (limit " + std::to_string(limit) + ")"};
        }
        if (ends_with(path, ".manifest")) return json_limit("bundle load failed on manifest decode");
        // Only a verified bundle needs their digests (a signed one without a key is refused).
        const bool verifying = options.verification && !options.skip_verify;
        return {verifying ? EntryAction::Digest : EntryAction::Skip, {}};
    };
}

// One file of a bundle directory, read as the entry policy says, within the limits.
bool read_directory_file(const WalkEntry& e, const ArchiveLimits& limits, const EntryPolicy& policy,
                         std::uint64_t& total, std::vector<ArchiveFile>& out, std::string& error) {
    std::error_code ec;
    auto size = fs::file_size(e.path, ec);
    if (ec) return error = "stat " + e.path + ": " + ec.message(), false;
    if (size > limits.max_file_bytes) {
        std::string shown = e.path;
        while (shown.starts_with('/')) shown.erase(0, 1);
        return error = file_size_limit_error(shown, size, limits.max_file_bytes), false;
    }
    total += size;
    if (total > limits.max_total_bytes) return error = total_size_limit_error(limits.max_total_bytes), false;
    if (out.size() >= limits.max_entries)
        return error = "more than " + std::to_string(limits.max_entries) + " files", false;
    EntryDecision decision = policy(e.relative, size);
    if (!decision.error.empty()) return error = std::move(decision.error), false;
    if (decision.action == EntryAction::Skip) return true;
    ArchiveFile f;
    f.path = e.relative;
    f.kept = decision.action == EntryAction::Keep;
    if (f.kept) {
        // Refusing what is no longer a regular file: a FIFO put in its place must not block.
        runtime::FileRead read = runtime::read_whole_file(e.path, limits.max_file_bytes, runtime::NonRegular::Refuse);
        if (!read.ok) return error = std::move(read.message), false;
        f.bytes = std::move(read.text);
        out.push_back(std::move(f));
        return true;
    }
    // Only its digest: streamed, never held.
    std::ifstream in(e.path, std::ios::binary);
    DigestStream digest(kDefaultHashAlgorithm);
    char buffer[64 * 1024];
    for (std::uint64_t left = size; left > 0 && in;) {
        in.read(buffer, static_cast<std::streamsize>(std::min<std::uint64_t>(left, sizeof buffer)));
        digest.update(std::string_view(buffer, static_cast<std::size_t>(in.gcount())));
        left -= static_cast<std::uint64_t>(in.gcount());
    }
    f.sha256 = digest.hex();
    if (!in) return error = "read " + e.path + ": read error", false;
    out.push_back(std::move(f));
    return true;
}

// A bundle directory's regular files, in walk order (engine/directory_walk: byte order
// of names, cycle-safe), with the archive's limits and entry policy. Links are followed
// only when they stay inside the bundle; ".."-prefixed names (ConfigMap internals) are skipped.
bool read_directory(const std::string& root, const ArchiveLimits& limits, const EntryPolicy& policy,
                    std::vector<ArchiveFile>& out, std::string& error) {
    WalkOptions walk_options;
    walk_options.skip = configmap_volume_internal;
    std::error_code ec;
    const fs::path base = fs::weakly_canonical(root, ec);
    std::uint64_t total = 0;
    for (const WalkEntry& e : walk_directory(root, walk_options)) {
        if (e.depth == 0) continue;
        if (e.kind == WalkEntry::Kind::Unreadable || e.kind == WalkEntry::Kind::Cycle) return error = e.message, false;
        if (fs::is_symlink(fs::symlink_status(e.path, ec))) {
            auto inside = fs::weakly_canonical(e.path, ec).lexically_relative(base);
            if (ec || inside.empty() || *inside.begin() == "..")
                return error = "symbolic link " + e.relative + " points outside the bundle", false;
        }
        if (e.kind == WalkEntry::Kind::File && !read_directory_file(e, limits, policy, total, out, error)) return false;
    }
    return true;
}

}  // namespace

std::string BundleReadResult::error_text() const {
    std::string out;
    for (const auto& d : errors) {
        if (!out.empty()) out += "\n";
        out += describe(d);
    }
    return out;
}

std::string package_text_of(const std::string& package_path) {
    std::string out = package_path;
    std::replace(out.begin(), out.end(), '/', '.');
    return "package " + out;
}

BundleReadResult read_bundle_files(std::vector<ArchiveFile> files, const std::string& name,
                                   const std::string& signature_prefix, const BundleReadOptions& options) {
    Bundle b;
    b.name = name;
    // Signatures first: every other file is checked against them as it is read.
    std::vector<const ArchiveFile*> descriptors;
    SignaturesFile signatures;
    for (const auto& f : files) {
        if (options.ignore && options.ignore(f.path)) continue;
        if (ends_with(f.path, "signatures.json")) {
            if (options.skip_verify) continue;
            std::string error;
            auto parsed = parse_signatures(f.bytes, error);
            if (!parsed) return failure(name, error);
            signatures = std::move(*parsed);
            continue;
        }
        descriptors.push_back(&f);
    }
    b.signatures = signatures.tokens;
    std::map<std::string, FileDigest> signed_files;
    const bool check = !options.skip_verify && signatures.signed_bundle;
    if (!options.skip_verify) {
        if (!signatures.signed_bundle && options.verification && !options.verification->key_id.empty())
            return failure(name, "bundle missing .signatures.json file");
        if (check) {
            if (!options.verification) return failure(name, "verification key not provided");
            std::string error;
            auto verified = verify_bundle_signature(signatures, *options.verification, error);
            if (!verified) return failure(name, error);
            signed_files = std::move(*verified);
        }
    }
    std::vector<const ArchiveFile*> rego;
    DataTreeBuilder data;
    for (const ArchiveFile* f : descriptors) {
        if (check) {
            std::string signed_name = join(signature_prefix, f->path);
            bool excluded = false;
            for (const auto& pattern : options.verification->exclude_files)
                if (go_path_match(pattern, signed_name)) excluded = true;
            std::string error;
            if (excluded) signed_files.erase(signed_name);
            else if (f->kept ? !verify_bundle_file(signed_name, f->bytes, signed_files, error)
                             : !verify_bundle_file_sha256(signed_name, f->sha256, signed_files, error))
                return failure(name, error);
        }
        auto base = base_name(f->path);
        if (ends_with(f->path, ".rego")) {
            rego.push_back(f);
        } else if (base == "data.json" || base == "data.yaml" || base == "data.yml") {
            auto parsed = base == "data.json" ? runtime::parse_json(f->bytes) : runtime::load_yaml_data(f->bytes);
            if (!parsed) return failure(name, "bundle load failed on " + f->path + ": " + parsed.error.message);
            auto key = data_key(f->path);
            const Value& tree = parsed.value;
            if (key.empty() && !tree.is_object())
                return failure(name, "bundle load failed on " + f->path + ": root value must be object");
            if (!data.insert(key, tree)) {
                std::string joined;
                for (const auto& k : key) joined += (joined.empty() ? "" : "/") + k;
                return failure(name,
                               "bundle load failed on " + f->path + ": failed to insert data file from path " + joined);
            }
            b.data_files.push_back(f->path);
        } else if (ends_with(f->path, ".manifest")) {
            std::string error;
            auto m = parse_manifest(f->bytes, error);
            if (!m) return failure(name, error);
            b.manifest = std::move(*m);
            b.has_manifest = true;
        }
    }
    if (check && !signed_files.empty()) {
        std::vector<std::string> missing;
        for (const auto& [n, d] : signed_files) missing.push_back(n);
        return failure(name, "file(s) " + go_string_list(missing) +
                                 " specified in bundle signatures but not found in the target bundle");
    }
    b.data = data.build();
    // Modules are parsed once the manifest (their dialect) is known.
    BundleReadResult result;
    for (const ArchiveFile* f : rego) {
        if (options.stop && options.stop->load()) return failure(name, kReadStopped);
        BundleModule m;
        m.path = f->path;
        m.name = join(name, f->path);
        m.text = f->bytes;
        m.v0_compatible = b.manifest.v0_for(f->path).value_or(options.v0_compatible);
        lang::ParseOptions po;
        po.v0_compatible = m.v0_compatible;
        auto parsed = lang::parse_module(m.name, m.text, po);
        if (!parsed.ok()) {
            result.errors.append(parsed.diagnostics);
            continue;
        }
        m.package_path = package_path_of(*parsed.module);
        b.modules.push_back(std::move(m));
    }
    if (!result.errors.empty()) return result;
    auto effective_roots = b.manifest.effective_roots();
    if (auto e = check_manifest_roots(effective_roots)) return failure(name, *e);
    RootTrie roots(std::move(effective_roots));
    for (const auto& m : b.modules)
        if (auto e = check_module_root(roots, m.package_path, package_text_of(m.package_path), m.name))
            return failure(name, *e);
    if (auto e = check_data_roots(roots, b.data)) return failure(name, *e);
    result.bundle = std::move(b);
    return result;
}

BundleReadResult read_bundle_archive(std::string_view bytes, const std::string& name,
                                     const BundleReadOptions& options) {
    auto archive = read_tar_gz(bytes, options.limits, entry_policy(options));
    if (!archive.ok()) return failure(name, archive.error);
    return read_bundle_files(std::move(archive.files), name, "", options);
}

BundleReadResult read_bundle(const std::string& given, const BundleReadOptions& options) {
    std::string path = given.starts_with("file://") ? given.substr(7) : given;
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) return failure(given, "stat " + path + ": no such file or directory");
    if (fs::is_directory(status)) {
        std::vector<ArchiveFile> files;
        std::string error;
        if (!read_directory(path, options.limits, entry_policy(options), files, error)) return failure(given, error);
        std::string prefix = fs::path(path).lexically_normal().generic_string();
        if (prefix == ".") prefix.clear();
        while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
        return read_bundle_files(std::move(files), prefix.empty() ? "." : prefix, prefix, options);
    }
    // A compressed archive is at most as large as what it may unpack to (plus framing), and
    // at most as large as any file gavel reads: policy and data compress several times over,
    // so an archive of 256 MiB unpacks past the 1 GiB limit anyway; /dev/zero stops there.
    const std::uint64_t most =
        std::min<std::uint64_t>(options.limits.max_total_bytes + (1u << 20), runtime::kDefaultReadLimit);
    runtime::FileRead read = runtime::read_whole_file(path, most);
    if (!read.ok) return failure(given, read.message);
    return read_bundle_archive(read.text, given, options);
}

}  // namespace gavel::engine::bundle
