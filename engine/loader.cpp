#include "engine/loader.hpp"

#include <algorithm>
#include <deque>
#include <cctype>
#include <filesystem>
#include <map>

#include "lang/parse.hpp"
#include "engine/bundle_manifest.hpp"
#include "engine/directory_walk.hpp"
#include "runtime/file_read.hpp"
#include "runtime/json.hpp"
#include "runtime/yaml.hpp"

namespace gavel::engine {

namespace fs = std::filesystem;
using runtime::append_json_string;
using runtime::Limits;
using runtime::load_yaml_data;
using runtime::ObjectBuilder;
using runtime::parse_json;
using runtime::ParseError;
using runtime::to_json;
using runtime::Value;

namespace {

// filepath.Ext: the suffix from the last dot of the last element (".json" for ".json").
std::string go_ext(const std::string& path) {
    auto slash = path.find_last_of('/');
    auto dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
    return path.substr(dot);
}

bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_identifier(std::string_view s) {
    if (s.empty()) return false;
    auto head = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
    if (!head(s[0])) return false;
    return std::all_of(s.begin(), s.end(),
                       [&](char c) { return head(c) || std::isdigit(static_cast<unsigned char>(c)); });
}

std::string key_text(const Value& key) { return key.is_string() ? std::string(key.as_string()) : to_json(key); }

// OPA's SplitPrefix: "a.b:path" loads path below data.a.b; URLs
// ("file://...") and paths without a prefix are left alone.
void split_prefix(const std::string& given, std::vector<std::string>& prefix, std::string& path) {
    auto colon = given.find(':');
    if (colon == std::string::npos || colon == 0) return;
    if (given.find("://") == colon) return;
    std::string head = given.substr(0, colon);
    path = given.substr(colon + 1);
    std::size_t start = 0;
    while (true) {
        auto dot = head.find('.', start);
        prefix.push_back(head.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
}

// The data tree while loading. A node is either a value (possibly an object
// that was never merged into, kept whole) or an expanded object whose children
// can be merged into. `origin` is the file that first put the node there.
struct DataNode {
    bool expanded = false;
    Value value;
    std::map<std::string, DataNode> children;
    std::string origin;

    bool is_object() const { return expanded || value.is_object(); }

    void expand() {
        if (expanded) return;
        for (const auto& e : value.object_entries()) {
            DataNode child;
            child.value = e.value;
            child.origin = origin;
            children.emplace(key_text(e.key), std::move(child));
        }
        value = Value();
        expanded = true;
    }

    Value build() const {
        if (!expanded) return value;
        if (children.empty()) return Value::empty_object();
        ObjectBuilder b(children.size());
        for (const auto& [k, c] : children) b.insert(Value::string(k), c.build());
        return b.build();
    }
};

class Loader {
public:
    explicit Loader(const LoadOptions& options) : options_(options) { root_.expanded = true; }

    void load_root(const std::string& given) {
        std::vector<std::string> prefix;
        std::string path = given;
        split_prefix(given, prefix, path);
        if (path.rfind("file://", 0) == 0) path = path.substr(7);  // fileurl.Clean
        root_prefix_ = prefix;
        // Where the data of each directory being walked goes, and the bundle it is in, by depth.
        struct Level {
            std::vector<std::string> dir_path;
            const BundleManifest* bundle = nullptr;
        };
        std::vector<Level> levels;
        WalkOptions walk;
        walk.skip = options_.skip;
        for (const WalkEntry& e : walk_directory(path, walk)) {
            const Level enclosing = e.depth == 0 ? Level{prefix, nullptr} : levels[e.depth - 1];
            switch (e.kind) {
                case WalkEntry::Kind::Cycle:
                    // OPA fails on a cycle too (its walk ends in "too many levels of symbolic links").
                    if (options_.cycles_are_errors) error(e.path, e.message);
                    break;
                case WalkEntry::Kind::Unreadable: error(e.path, e.message); break;
                case WalkEntry::Kind::Directory: {
                    Level level = enclosing;
                    if (e.depth > 0) level.dir_path.push_back(e.relative.substr(e.relative.rfind('/') + 1));
                    // A bundle root: its data is placed relative to it (below the root's prefix).
                    if (auto manifest = read_bundle_manifest(e.path, result_.errors)) {
                        manifests_.push_back(std::move(*manifest));
                        level.bundle = &manifests_.back();
                        level.dir_path = root_prefix_;
                    }
                    levels.resize(static_cast<std::size_t>(e.depth));
                    levels.push_back(std::move(level));
                    break;
                }
                case WalkEntry::Kind::File:
                case WalkEntry::Kind::Other: load_file(e.path, enclosing.dir_path, e.depth, enclosing.bundle); break;
            }
        }
    }

    LoadResult finish() {
        result_.data = root_.build();
        return std::move(result_);
    }

private:
    void error(std::string file, std::string message, uint32_t line = 0, uint32_t col = 0) {
        lang::Diagnostic d;
        d.file = std::move(file);
        d.message = std::move(message);
        d.line = line;
        d.col = col;
        result_.errors.add(std::move(d));
    }

    bool read(const std::string& path, std::string& text) {
        // Bounded as the documents are: a larger file could not be parsed anyway.
        runtime::FileRead r = options_.read_file ? options_.read_file(path)
                                                 : runtime::read_whole_file(path, options_.limits.max_input_bytes);
        if (!r.ok) {
            error(path, r.message);
            return false;
        }
        text = std::move(r.text);
        return true;
    }

    void parse_error(const std::string& path, const ParseError& e) {
        error(path, path + ": " + e.message, static_cast<uint32_t>(e.line), static_cast<uint32_t>(e.column));
    }

    void load_file(const std::string& path, const std::vector<std::string>& dir_path, int depth,
                   const BundleManifest* bundle) {
        const std::string ext = go_ext(path);
        const bool rego = ext == ".rego", json = ext == ".json", yaml = ext == ".yaml" || ext == ".yml";
        if (bundle && (json || yaml) && depth > 0) {
            // In a bundle only data.json / data.yaml / data.yml are data (OPA's bundle reader).
            const std::string name = fs::path(path).filename().string();
            if (name != "data.json" && name != "data.yaml" && name != "data.yml") return;
        }
        std::optional<bool> v0 = bundle ? bundle->v0_compatible_for(path) : std::nullopt;
        if (!rego && !json && !yaml) {
            if (ends_with(path, ".tar.gz")) {
                error(path, path + ": a bundle archive: load it with -b/--bundle");
                return;
            }
            if (depth > 0) return;  // other files found while walking are ignored
        }
        std::string text;
        if (!read(path, text)) return;

        if (rego) {
            result_.policies.push_back({path, std::move(text), v0});
            return;
        }
        if (json) {
            auto r = parse_json(text, options_.limits);
            if (!r) return parse_error(path, r.error);
            return merge(path, dir_path, r.value);
        }
        if (yaml) {
            auto r = load_yaml_data(text, options_.limits);
            // OPA's loader: "%v: error converting YAML to JSON: %v" over go-yaml's text, no location.
            if (!r) return error(path, path + ": error converting YAML to JSON: " + r.error.message);
            return merge(path, dir_path, r.value);
        }
        // A file named directly whose extension says nothing: Rego, JSON or YAML?
        lang::ParseOptions po;
        po.v0_compatible = v0.value_or(options_.v0_compatible);
        if (lang::parse_module(path, text, po).ok()) {
            result_.policies.push_back({path, std::move(text), v0});
            return;
        }
        if (auto r = parse_json(text, options_.limits)) return merge(path, dir_path, r.value);
        if (auto r = load_yaml_data(text, options_.limits)) return merge(path, dir_path, r.value);
        error(path, path + ": can't recognize file type");
    }

    void conflict(const std::string& file, const std::vector<std::string>& at, const DataNode& existing) {
        std::string msg = file + ": merge error: " + data_path_text(at);
        if (existing.origin.empty() || existing.origin == file) msg += " is defined twice in " + file;
        else msg += " is also defined by " + existing.origin;
        error(file, std::move(msg));
    }

    void merge(const std::string& file, const std::vector<std::string>& dir_path, const Value& doc) {
        if (dir_path.empty() && !doc.is_object()) {
            error(file, file + ": document must be of type object");
            return;
        }
        result_.data_files.push_back(file);
        DataNode* node = &root_;
        std::vector<std::string> at;
        for (std::size_t i = 0; i < dir_path.size(); ++i) {
            if (!node->is_object()) return conflict(file, at, *node);
            node->expand();
            at.push_back(dir_path[i]);
            auto [it, inserted] = node->children.try_emplace(dir_path[i]);
            DataNode& child = it->second;
            if (inserted) {
                child.origin = file;
                if (i + 1 == dir_path.size()) {
                    child.value = doc;
                    return;
                }
                child.expanded = true;
            }
            node = &child;
        }
        merge_into(*node, doc, file, at);
    }

    void merge_into(DataNode& node, const Value& doc, const std::string& file, std::vector<std::string>& at) {
        if (!node.is_object() || !doc.is_object()) return conflict(file, at, node);
        node.expand();
        for (const auto& e : doc.object_entries()) {
            std::string key = key_text(e.key);
            auto [it, inserted] = node.children.try_emplace(key);
            if (inserted) {
                it->second.value = e.value;
                it->second.origin = file;
                continue;
            }
            at.push_back(key);
            merge_into(it->second, e.value, file, at);
            at.pop_back();
        }
    }

    const LoadOptions& options_;
    LoadResult result_;
    DataNode root_;
    std::vector<std::string> root_prefix_;  // the current root's `prefix:` path
    std::deque<BundleManifest> manifests_;  // stable addresses: load_root() points into it
};

}  // namespace

std::string load_path_without_prefix(const std::string& given) {
    std::vector<std::string> prefix;
    std::string path = given;
    split_prefix(given, prefix, path);
    if (path.rfind("file://", 0) == 0) path = path.substr(7);
    return path;
}

LoadResult load_paths(const std::vector<std::string>& paths, const LoadOptions& options) {
    try {
        Loader loader(options);
        for (const auto& p : paths) loader.load_root(p);
        return loader.finish();
    } catch (const std::exception& e) {  // bad_alloc, filesystem surprises: still an error value
        LoadResult r;
        lang::Diagnostic d;
        d.message = std::string("loading failed: ") + e.what();
        r.errors.add(std::move(d));
        return r;
    }
}

std::string describe(const lang::Diagnostic& d) {
    if (d.code.empty()) return d.message;
    std::string out;
    if (!d.file.empty()) out = d.file + ":" + std::to_string(d.line) + ": ";
    else if (d.line > 0) out = std::to_string(d.line) + ":" + std::to_string(d.col) + ": ";
    out += d.code + ": " + d.message;
    if (!d.source_line.empty() && d.code == "rego_parse_error") {
        // OPA's parse error details: the line without leading tabs, a caret under the column.
        std::size_t tabs = d.source_line.find_first_not_of('\t');
        if (tabs == std::string::npos) tabs = d.source_line.size();
        uint32_t col = d.col > tabs ? d.col - static_cast<uint32_t>(tabs) : 1;
        lang::LineExcerpt shown = lang::excerpt_line(std::string_view(d.source_line).substr(tabs), col);
        out += "\n\t" + shown.text + "\n\t" + std::string(shown.caret, ' ') + "^";
    }
    return out;
}

std::string data_path_text(const std::vector<std::string>& path) {
    std::string out = "data";
    for (const auto& seg : path) {
        if (is_identifier(seg)) {
            out += '.';
            out += seg;
        } else {
            out += '[';
            append_json_string(out, seg);
            out += ']';
        }
    }
    return out;
}

}  // namespace gavel::engine
