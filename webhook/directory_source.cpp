#include "webhook/directory_source.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <map>

#include "engine/directory_walk.hpp"
#include "engine/file_read.hpp"
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

bool is_data_file(const std::string& name) { return ends_with(name, ".json") || ends_with(name, ".yaml") || ends_with(name, ".yml"); }

lang::Diagnostic read_error(const std::string& path, std::string message) {
    lang::Diagnostic d;
    d.file = path;
    d.message = std::move(message);  // names the path: "open DIR: too many open files"
    return d;
}

// Merges `add` into `base` (objects key by key); false on a conflict.
bool merge_into(Value& base, const Value& add) {
    if (!base.is_object() || !add.is_object()) return false;
    runtime::ObjectBuilder b;
    for (const auto& e : base.object_entries()) {
        const Value* other = add.find(e.key);
        if (!other) {
            b.insert(e.key, e.value);
            continue;
        }
        Value merged = e.value;
        if (!merge_into(merged, *other)) return false;
        b.insert(e.key, merged);
    }
    for (const auto& e : add.object_entries())
        if (!base.find(e.key)) b.insert(e.key, e.value);
    base = b.build();
    return true;
}

}  // namespace

DirectorySource::DirectorySource(std::vector<std::string> dirs, std::shared_ptr<PolicyStore> store,
                                 std::shared_ptr<Metrics> metrics, SettleTiming settle)
    : dirs_(std::move(dirs)), store_(std::move(store)), metrics_(std::move(metrics)), settle_(settle) {}

DirectorySource::Reading DirectorySource::read_all() const {
    Reading r;
    engine::WalkOptions walk;
    walk.skip = engine::configmap_volume_internal;
    for (const auto& dir : dirs_) {
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
            if (e.depth == 0 && e.kind != Kind::Directory) {
                r.errors.add(read_error(dir, dir + ": not a directory"));
                continue;
            }
            // Only regular files: reading a FIFO named x.rego would block the reload for good.
            if (e.kind != Kind::File || !(ends_with(e.relative, ".rego") || is_data_file(e.relative))) continue;
            r.newest_change_ns = std::max(r.newest_change_ns, e.changed_ns);
            engine::FileRead read = engine::read_whole_file(e.path);
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
    bool settled = wait_until_settled({reading.hash, reading.newest_change_ns}, [&] {
        reading = read_all();
        return ReadingStamp{reading.hash, reading.newest_change_ns};
    }, settle_);
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
    std::map<std::string, std::string> policies;
    Value data = Value::empty_object();
    for (auto& f : files) {
        if (ends_with(f.relative, ".rego")) {
            policies[f.path] = std::move(f.text);
            continue;
        }
        runtime::ParseResult parsed = ends_with(f.relative, ".json") ? parse_json_document(f.text) : runtime::load_yaml_data(f.text);
        if (!parsed.ok) {
            lang::Diagnostic d;
            d.file = f.path;
            d.line = static_cast<uint32_t>(parsed.error.line);
            d.col = static_cast<uint32_t>(parsed.error.column);
            d.message = f.path + ": " + parsed.error.message;
            errors.add(std::move(d));
            continue;
        }
        Value placed = parsed.value;
        auto slash = f.relative.rfind('/');
        std::string dir_part = slash == std::string::npos ? "" : f.relative.substr(0, slash);
        std::vector<std::string> segs;
        for (std::size_t start = 0; !dir_part.empty() && start <= dir_part.size();) {
            auto next = dir_part.find('/', start);
            segs.push_back(dir_part.substr(start, next - start));
            if (next == std::string::npos) break;
            start = next + 1;
        }
        if (segs.empty() && !placed.is_object()) {
            errors.add(lang::Diagnostic{"", f.path + ": document must be of type object", f.path, 0, 0, "", nullptr});
            continue;
        }
        for (auto it = segs.rbegin(); it != segs.rend(); ++it) placed = Value::object({{Value::string(*it), placed}});
        if (!merge_into(data, placed)) errors.add(lang::Diagnostic{"", f.path + ": merge error", f.path, 0, 0, "", nullptr});
    }
    WriteResult r;
    if (errors.empty()) {
        r = store_->replace_directory_content(std::move(policies), data, hash);
        if (!r.ok()) {
            errors.append(r.errors);
            if (r.errors.empty()) errors.add(lang::Diagnostic{"", r.message, "", 0, 0, "", nullptr});
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
