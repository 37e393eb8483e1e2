#include "webhook/directory_source.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/json.hpp"
#include "runtime/yaml.hpp"
#include "webhook/large_json.hpp"
#include "webhook/log.hpp"

namespace gavel::webhook {

namespace fs = std::filesystem;
using runtime::Value;

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_data_file(const std::string& name) { return ends_with(name, ".json") || ends_with(name, ".yaml") || ends_with(name, ".yml"); }

void walk(const fs::path& dir, const std::string& relative, std::vector<std::pair<fs::path, std::string>>& out, int depth) {
    if (depth > 32) return;  // a link cycle
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e);
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
    for (const auto& e : entries) {
        std::string name = e.path().filename().string();
        if (name.rfind("..", 0) == 0) continue;
        std::string rel = relative.empty() ? name : relative + "/" + name;
        if (fs::is_directory(e.path(), ec)) walk(e.path(), rel, out, depth + 1);
        else if (ends_with(name, ".rego") || is_data_file(name)) out.emplace_back(e.path(), rel);
    }
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
                                 std::shared_ptr<Metrics> metrics)
    : dirs_(std::move(dirs)), store_(std::move(store)), metrics_(std::move(metrics)) {}

bool DirectorySource::read_all(std::vector<FileEntry>& files, std::string& hash, lang::Diagnostics& errors) const {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
    for (const auto& dir : dirs_) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) {
            lang::Diagnostic d;
            d.message = dir + ": not a directory";
            errors.add(std::move(d));
            continue;
        }
        std::vector<std::pair<fs::path, std::string>> found;
        walk(dir, "", found, 0);
        for (auto& [path, rel] : found) {
            std::ifstream in(path, std::ios::binary);
            std::ostringstream ss;
            ss << in.rdbuf();
            FileEntry f{(fs::path(dir) / rel).lexically_normal().string(), rel, ss.str()};
            EVP_DigestUpdate(ctx, f.path.data(), f.path.size() + 1);
            EVP_DigestUpdate(ctx, f.text.data(), f.text.size());
            EVP_DigestUpdate(ctx, "\0", 1);
            files.push_back(std::move(f));
        }
    }
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx, digest, &n);
    EVP_MD_CTX_free(ctx);
    static constexpr char kHex[] = "0123456789abcdef";
    hash.clear();
    for (unsigned i = 0; i < n; ++i) {
        hash.push_back(kHex[digest[i] >> 4]);
        hash.push_back(kHex[digest[i] & 15]);
    }
    return errors.empty();
}

DirectorySource::Poll DirectorySource::poll(lang::Diagnostics& errors, bool force) {
    std::vector<FileEntry> files;
    std::string hash;
    if (!read_all(files, hash, errors)) {
        if (hash == failed_hash_ && !force) {
            errors = {};
            return Poll::Unchanged;
        }
        failed_hash_ = hash;
        metrics_->record_reload(false);
        return Poll::Failed;
    }
    if (!force && (hash == loaded_hash_ || hash == failed_hash_)) return Poll::Unchanged;
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
