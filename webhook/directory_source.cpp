#include "webhook/directory_source.hpp"

#include <fnmatch.h>
#include <openssl/evp.h>

#include <algorithm>
#include <map>

#include "engine/directory_walk.hpp"
#include "runtime/file_read.hpp"
#include "engine/loader.hpp"
#include "runtime/json.hpp"
#include "runtime/yaml.hpp"
#include "webhook/large_json.hpp"
#include "webhook/log.hpp"

namespace gavel::webhook {

using runtime::Value;

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_loaded_file(const std::string& name) {
    return ends_with(name, ".rego") || ends_with(name, ".json") || ends_with(name, ".yaml") || ends_with(name, ".yml");
}

lang::Diagnostic read_error(const std::string& path, std::string message) {
    lang::Diagnostic d;
    d.file = path;
    d.message = std::move(message);  // names the path: "open DIR: too many open files"
    return d;
}

}  // namespace

DirectorySource::DirectorySource(std::vector<std::string> paths, std::shared_ptr<PolicyStore> store,
                                 std::shared_ptr<Metrics> metrics, SettleTiming settle, Options options)
    : dirs_(std::move(paths)), options_(std::move(options)), store_(std::move(store)), metrics_(std::move(metrics)),
      settle_(settle) {}

bool DirectorySource::skipped(std::string_view name) const {
    if (engine::configmap_volume_internal(name)) return true;
    std::string n(name);
    for (const auto& p : options_.ignore)
        if (fnmatch(p.c_str(), n.c_str(), 0) == 0) return true;
    return false;
}

DirectorySource::Reading DirectorySource::read_all() const {
    Reading r;
    engine::WalkOptions walk;
    walk.skip = [this](std::string_view name) { return skipped(name); };
    for (const auto& given : dirs_) {
        std::string dir = engine::load_path_without_prefix(given);
        for (auto& e : engine::walk_directory(dir, walk)) {
            using Kind = engine::WalkEntry::Kind;
            if (e.kind == Kind::Unreadable) {
                r.errors.add(read_error(e.path, std::move(e.message)));
                continue;
            }
            if (e.kind == Kind::Cycle) {
                r.cycles.push_back(std::move(e.message));
                continue;
            }
            // Only regular files: reading a FIFO named x.rego would block the reload for good.
            // A file named directly is loaded whatever its name (the loader tries Rego, JSON, YAML).
            if (e.kind == Kind::Other && e.depth == 0) {
                r.errors.add(read_error(e.path, e.path + ": not a regular file"));
                continue;
            }
            if (e.kind != Kind::File || (e.depth > 0 && !is_loaded_file(e.relative))) continue;
            r.newest_change_ns = std::max(r.newest_change_ns, e.changed_ns);
            // Refused if it became a FIFO since the walk saw a regular file: never wait on one.
            runtime::FileRead read =
                runtime::read_whole_file(e.path, runtime::kDefaultReadLimit, runtime::NonRegular::Refuse);
            if (!read.ok) {
                r.errors.add(read_error(e.path, std::move(read.message)));
                continue;
            }
            r.files.push_back(FileEntry{std::move(e.path), std::move(e.relative), std::move(read.text)});
        }
    }
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
    for (const auto& f : r.files) {
        EVP_DigestUpdate(ctx, f.path.data(), f.path.size() + 1);
        EVP_DigestUpdate(ctx, f.text.data(), f.text.size());
        EVP_DigestUpdate(ctx, "\0", 1);
    }
    // A reading that failed somewhere is told apart from every content: it must never
    // pass for the (partial, maybe empty) content that was read.
    for (const auto& d : r.errors) {
        EVP_DigestUpdate(ctx, "\0unreadable\0", 12);
        EVP_DigestUpdate(ctx, d.message.data(), d.message.size());
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx, digest, &n);
    EVP_MD_CTX_free(ctx);
    static constexpr char kHex[] = "0123456789abcdef";
    if (!r.errors.empty()) r.hash = "unreadable:";
    for (unsigned i = 0; i < n; ++i) {
        r.hash.push_back(kHex[digest[i] >> 4]);
        r.hash.push_back(kHex[digest[i] & 15]);
    }
    return r;
}

DirectorySource::Poll DirectorySource::poll(lang::Diagnostics& errors, bool force) {
    Reading reading = read_all();
    if (!force && (reading.hash == loaded_hash_ || reading.hash == failed_hash_)) {
        cycle_warnings_.report(reading.cycles);
        waiting_logged_ = false;
        return Poll::Unchanged;
    }
    // Something changed: take it only once it holds still.
    bool settled = wait_until_settled(
        {reading.hash, reading.newest_change_ns},
        [&] {
            reading = read_all();
            return ReadingStamp{reading.hash, reading.newest_change_ns};
        },
        settle_);
    cycle_warnings_.report(reading.cycles);
    if (!settled && loaded_hash_.empty()) {  // the first load: nothing to keep serving, so say why nothing loads
        errors.add(read_error("", still_changing_message(settle_)));
        metrics_->record_reload(false);
        return Poll::Failed;
    }
    if (!settled) {
        if (!waiting_logged_)
            log_line("info", "policy or data files are still being written; the reload waits until they are still",
                     {{"directories", Value::integer(static_cast<std::int64_t>(dirs_.size()))}});
        waiting_logged_ = true;
        return Poll::Unchanged;
    }
    waiting_logged_ = false;
    if (!force && (reading.hash == loaded_hash_ || reading.hash == failed_hash_)) return Poll::Unchanged;
    const std::string hash = reading.hash;
    std::vector<FileEntry>& files = reading.files;
    if (!reading.errors.empty()) {
        errors.append(reading.errors);
        failed_hash_ = hash;
        metrics_->record_reload(false);
        return Poll::Failed;
    }
    // What the files hold, and where, as OPA's loader places it; from the bytes read above.
    std::map<std::string, const FileEntry*> by_path;
    for (const auto& f : files) by_path[f.path] = &f;
    engine::LoadOptions lo;
    lo.v0_compatible = options_.v0_compatible;
    lo.skip = [this](std::string_view name) { return skipped(name); };
    lo.cycles_are_errors = false;
    lo.read_file = [&by_path](const std::string& path) {
        auto it = by_path.find(path);
        if (it == by_path.end())
            return runtime::read_whole_file(path, runtime::kDefaultReadLimit, runtime::NonRegular::Refuse);
        runtime::FileRead read;
        read.ok = true;
        read.text = it->second->text;
        return read;
    };
    engine::LoadResult loaded = engine::load_paths(dirs_, lo);
    errors.append(loaded.errors);
    std::map<std::string, std::string> policies;
    std::map<std::string, bool> dialects;
    Value data = std::move(loaded.data);
    for (auto& p : loaded.policies) {
        if (p.v0_compatible) dialects[p.file] = *p.v0_compatible;
        policies[p.file] = std::move(p.text);
    }
    WriteResult r;
    if (errors.empty()) {
        r = store_->replace_directory_content(std::move(policies), data, hash, dialects);
        if (!r.ok()) {
            errors.append(r.errors);
            if (r.errors.empty()) errors.add(lang::Diagnostic{"", r.message, "", 0, 0, "", nullptr, {}});
        }
    }
    if (!errors.empty()) {
        failed_hash_ = hash;
        metrics_->record_reload(false);
        return Poll::Failed;
    }
    loaded_hash_ = hash;
    failed_hash_.clear();
    metrics_->record_reload(true);
    return Poll::Reloaded;
}

}  // namespace gavel::webhook
