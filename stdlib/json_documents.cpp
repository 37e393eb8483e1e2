// Editing JSON documents by path: json.filter, json.remove and json.patch
// (RFC 6902). Paths are JSON pointers ("/a/b", "~1" is "/", "~0" is "~"; OPA
// also accepts them without the leading slash) or arrays of path segments of
// any type. Like OPA, the documents may contain sets: a set is entered by its
// element.

#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "runtime/value_depth.hpp"
#include "stdlib/builtin_helpers.hpp"
#include "stdlib/object_family.hpp"

namespace gavel::stdlib {

namespace {

using Path = std::vector<Value>;

// Every occurrence of `from` replaced by `to`, left to right.
std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
    std::string out;
    out.reserve(s.size());
    std::size_t pos = 0;
    while (true) {
        std::size_t hit = s.find(from, pos);
        out.append(s.substr(pos, hit == std::string_view::npos ? std::string_view::npos : hit - pos));
        if (hit == std::string_view::npos) break;
        out.append(to);
        pos = hit + from.size();
    }
    return out;
}

// OPA's parsePath: a string is a pointer (leading slashes trimmed, "" is the
// root), an array is the segments themselves.
std::optional<Path> parse_path(const Value& v) {
    Path out;
    if (v.is_string()) {
        std::string_view s = v.as_string();
        if (s.empty()) return out;
        while (!s.empty() && s.front() == '/') s.remove_prefix(1);
        std::size_t start = 0;
        while (true) {
            std::size_t slash = s.find('/', start);
            std::string_view raw =
                s.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
            std::string part = replace_all(replace_all(raw, "~1", "/"), "~0", "~");
            out.push_back(Value::string(part));
            if (slash == std::string_view::npos) break;
            start = slash + 1;
        }
        return out;
    }
    if (v.is_array()) {
        out.assign(v.array_elements().begin(), v.array_elements().end());
        return out;
    }
    return std::nullopt;
}

std::string bad_path_message(const Value& v) {
    return "operand 2 must be one of {set, array} containing string paths or array of path segments but got " +
           std::string(v.type_name());
}

// ---- json.filter / json.remove ---------------------------------------------------

// The paths merged into a tree; a leaf (OPA's null) selects a whole subtree.
struct PathTree {
    bool leaf = false;
    std::map<Value, PathTree> children;
};

PathTree paths_to_tree(const std::vector<Path>& paths) {
    PathTree root;
    for (const auto& path : paths) {
        if (path.empty()) continue;
        PathTree* node = &root;
        bool done = false;
        for (std::size_t i = 0; i + 1 < path.size() && !done; ++i) {
            auto it = node->children.find(path[i]);
            if (it == node->children.end()) {
                node = &node->children[path[i]];
                continue;
            }
            if (it->second.leaf) done = true;
            else node = &it->second;
        }
        if (!done) {
            PathTree& last = node->children[path.back()];
            last.leaf = true;
            last.children.clear();
        }
    }
    return root;
}

const PathTree* child(const PathTree& t, const Value& key) {
    auto it = t.children.find(key);
    return it == t.children.end() ? nullptr : &it->second;
}

// Arrays are addressed by their index written as a string ("0"), as OPA does.
Value index_key(std::size_t i) { return Value::string(std::to_string(i)); }

Value filter_value(const Value& v, const PathTree& filter) {
    if (filter.leaf) return v;
    if (v.is_array()) {
        runtime::ArrayBuilder b;
        const auto elems = v.array_elements();
        for (std::size_t i = 0; i < elems.size(); ++i)
            if (const PathTree* sub = child(filter, index_key(i))) b.push_back(filter_value(elems[i], *sub));
        return b.build();
    }
    if (v.is_set()) {
        runtime::SetBuilder b;
        for (const auto& e : v.set_elements())
            if (const PathTree* sub = child(filter, e)) b.insert(filter_value(e, *sub));
        return b.build();
    }
    if (v.is_object()) {
        runtime::ObjectBuilder b;
        for (const auto& e : v.object_entries())
            if (const PathTree* sub = child(filter, e.key)) b.insert(e.key, filter_value(e.value, *sub));
        return b.build();
    }
    return v;
}

// nullopt: the value is removed.
std::optional<Value> remove_value(const Value& v, const PathTree* paths) {
    if (!paths) return v;
    if (paths->leaf) return std::nullopt;
    if (v.is_object()) {
        runtime::ObjectBuilder b;
        for (const auto& e : v.object_entries())
            if (auto kept = remove_value(e.value, child(*paths, e.key))) b.insert(e.key, std::move(*kept));
        return b.build();
    }
    if (v.is_set()) {
        runtime::SetBuilder b;
        for (const auto& e : v.set_elements())
            if (auto kept = remove_value(e, child(*paths, e))) b.insert(std::move(*kept));
        return b.build();
    }
    if (v.is_array()) {
        runtime::ArrayBuilder b;
        const auto elems = v.array_elements();
        for (std::size_t i = 0; i < elems.size(); ++i)
            if (auto kept = remove_value(elems[i], child(*paths, index_key(i)))) b.push_back(std::move(*kept));
        return b.build();
    }
    return v;
}

// The paths operand of json.filter / json.remove; an error message on failure.
std::optional<std::string> collect_paths(const Value& operand, std::vector<Path>& out) {
    std::span<const Value> items;
    if (operand.is_array()) items = operand.array_elements();
    else if (operand.is_set()) items = operand.set_elements();
    else return operand_type_error({}, 2, "one of {set, array}", operand);
    for (const auto& item : items) {
        auto p = parse_path(item);
        if (!p) return bad_path_message(item);
        out.push_back(std::move(*p));
    }
    return std::nullopt;
}

// ---- json.patch --------------------------------------------------------------------

// OPA's toIndex: integers, "-" (one past the end) or decimal strings without
// leading zeros (Go's strconv.ParseInt syntax: optional sign, digits).
std::optional<int64_t> to_index(std::size_t length, const Value& key) {
    if (key.is_number()) {
        int64_t i;
        if (key.as_int64(i)) return i;
        return std::nullopt;
    }
    if (!key.is_string()) return std::nullopt;
    std::string_view s = key.as_string();
    if (s == "-") return static_cast<int64_t>(length);
    std::string_view digits = s;
    bool negative = false;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
        negative = digits[0] == '-';
        digits.remove_prefix(1);
    }
    if (digits.empty() || digits.size() > 18) return std::nullopt;
    int64_t n = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + (c - '0');
    }
    if (s != "0" && s.front() == '0') return std::nullopt;  // leading zeros are not allowed
    return negative ? -n : n;
}

// The outcome of one step: the updated parent (nullopt: the operation
// failed) and, for remove/get, the value found at the path.
struct Step {
    std::optional<Value> updated;
    std::optional<Value> found;
};

template <typename Worker>
Step traverse(const Value& target, std::span<const Value> path, const Worker& worker) {
    if (path.empty()) return {};
    const Value& key = path[0];
    if (path.size() == 1) return worker(target, key);
    auto rest = path.subspan(1);
    if (target.is_object()) {
        const Value* v = target.find(key);
        if (!v) return {};
        Step s = traverse(*v, rest, worker);
        if (!s.updated) return {};
        runtime::ObjectBuilder b(target.size());
        for (const auto& e : target.object_entries()) b.insert(e.key, e.key == key ? *s.updated : e.value);
        return {b.build(), std::move(s.found)};
    }
    if (target.is_array()) {
        auto idx = to_index(target.size(), key);
        if (!idx || *idx < 0 || static_cast<std::size_t>(*idx) >= target.size()) return {};
        const auto elems = target.array_elements();
        Step s = traverse(elems[static_cast<std::size_t>(*idx)], rest, worker);
        if (!s.updated) return {};
        runtime::ArrayBuilder b(elems.size());
        for (std::size_t i = 0; i < elems.size(); ++i)
            b.push_back(i == static_cast<std::size_t>(*idx) ? *s.updated : elems[i]);
        return {b.build(), std::move(s.found)};
    }
    if (target.is_set()) {
        if (!target.contains(key)) return {};
        Step s = traverse(key, rest, worker);
        if (!s.updated) return {};
        runtime::SetBuilder b(target.size());
        for (const auto& e : target.set_elements()) b.insert(e == key ? *s.updated : e);
        return {b.build(), std::move(s.found)};
    }
    return {};
}

std::optional<Value> patch_get(const Value& target, std::span<const Value> path) {
    if (path.empty()) return target;
    Step s = traverse(target, path, [](const Value& parent, const Value& key) -> Step {
        if (parent.is_object()) {
            if (const Value* v = parent.find(key)) return {parent, *v};
        } else if (parent.is_array()) {
            auto idx = to_index(parent.size(), key);
            if (idx && *idx >= 0 && static_cast<std::size_t>(*idx) < parent.size())
                return {parent, parent.array_elements()[static_cast<std::size_t>(*idx)]};
        } else if (parent.is_set()) {
            if (parent.contains(key)) return {parent, key};
        }
        return {};
    });
    return s.found;
}

std::optional<Value> patch_add(const Value& target, std::span<const Value> path, const Value& value) {
    if (path.empty()) return value;
    return traverse(target, path,
                    [&](const Value& parent, const Value& key) -> Step {
                        if (parent.is_object()) {
                            runtime::ObjectBuilder b(parent.size() + 1);
                            for (const auto& e : parent.object_entries()) b.insert(e.key, e.value);
                            b.insert(key, value);  // the later insertion wins
                            return {b.build(), std::nullopt};
                        }
                        if (parent.is_array()) {
                            auto idx = to_index(parent.size(), key);
                            if (!idx || *idx < 0 || static_cast<std::size_t>(*idx) > parent.size()) return {};
                            const auto elems = parent.array_elements();
                            runtime::ArrayBuilder b(elems.size() + 1);
                            for (std::size_t i = 0; i < elems.size(); ++i) {
                                if (i == static_cast<std::size_t>(*idx)) b.push_back(value);
                                b.push_back(elems[i]);
                            }
                            if (static_cast<std::size_t>(*idx) == elems.size()) b.push_back(value);
                            return {b.build(), std::nullopt};
                        }
                        if (parent.is_set()) {
                            if (key != value) return {};  // a set member's path names the member itself
                            runtime::SetBuilder b(parent.size() + 1);
                            for (const auto& e : parent.set_elements()) b.insert(e);
                            b.insert(key);
                            return {b.build(), std::nullopt};
                        }
                        return {};
                    })
        .updated;
}

// The document without the value at `path`, and that value.
Step patch_remove(const Value& target, std::span<const Value> path) {
    if (path.empty()) return {};
    Step s = traverse(target, path, [](const Value& parent, const Value& key) -> Step {
        if (parent.is_object()) {
            const Value* v = parent.find(key);
            if (!v) return {parent, std::nullopt};
            runtime::ObjectBuilder b(parent.size());
            for (const auto& e : parent.object_entries())
                if (e.key != key) b.insert(e.key, e.value);
            return {b.build(), *v};
        }
        if (parent.is_array()) {
            auto idx = to_index(parent.size(), key);
            if (!idx || *idx < 0 || static_cast<std::size_t>(*idx) >= parent.size()) return {};
            const auto elems = parent.array_elements();
            runtime::ArrayBuilder b(elems.size());
            for (std::size_t i = 0; i < elems.size(); ++i)
                if (i != static_cast<std::size_t>(*idx)) b.push_back(elems[i]);
            return {b.build(), elems[static_cast<std::size_t>(*idx)]};
        }
        if (parent.is_set()) {
            if (!parent.contains(key)) return {parent, std::nullopt};
            runtime::SetBuilder b(parent.size());
            for (const auto& e : parent.set_elements())
                if (e != key) b.insert(e);
            return {b.build(), key};
        }
        return {};
    });
    if (s.updated && s.found) return s;
    return {};
}

// The document under patch. As in OPA's edit tree, removing "" (also the
// first half of a move from "") deletes the root; only an add at "" brings it
// back, every other operation on a deleted root fails. Each operation returns
// false when it fails, which makes the whole patch undefined.
class PatchedDocument {
public:
    explicit PatchedDocument(Value root) : root_(std::move(root)) {}

    bool add(std::span<const Value> path, const Value& value) {
        if (path.empty()) {
            root_ = value;
            return true;
        }
        if (root_) root_ = patch_add(*root_, path, value);
        return root_.has_value();
    }
    bool remove(std::span<const Value> path) {
        if (!root_) return false;
        if (path.empty()) {
            root_.reset();
            return true;
        }
        Step removed = patch_remove(*root_, path);
        if (!removed.updated) return false;
        root_ = std::move(removed.updated);
        return true;
    }
    std::optional<Value> get(std::span<const Value> path) const {
        if (!root_) return std::nullopt;
        return patch_get(*root_, path);
    }
    // nullopt when the last operation left the root deleted (OPA has no value then).
    const std::optional<Value>& root() const { return root_; }

private:
    std::optional<Value> root_;
};

// Whether placing `value` at `path` would nest deeper than a built value may:
// copies of the document into itself would otherwise double its depth per
// operation, past what the recursive code that prints and frees values survives.
bool too_deep_at(const Path& path, const Value& value) {
    return path.size() > runtime::kMaxBuiltDepth || runtime::deeper_than(value, runtime::kMaxBuiltDepth - path.size());
}

enum class PatchOutcome { Applied, Failed, TooDeep };

// RFC 6902 section 4: move and replace are a remove followed by an add, in that
// order, so a move to its own location is a no-op and a move into its own child fails.
PatchOutcome apply_patch_operation(PatchedDocument& doc, std::string_view op, const Path& path, const Path& from,
                                   const Value* value) {
    auto outcome = [](bool applied) { return applied ? PatchOutcome::Applied : PatchOutcome::Failed; };
    if (op == "remove") return outcome(doc.remove(path));
    if (op == "test") {
        auto actual = doc.get(path);
        return outcome(actual && *actual == *value);
    }
    if (op == "add" || op == "replace") {
        if (too_deep_at(path, *value)) return PatchOutcome::TooDeep;
        return outcome((op == "add" || doc.remove(path)) && doc.add(path, *value));
    }
    auto moved = doc.get(from);
    if (!moved) return PatchOutcome::Failed;
    if (too_deep_at(path, *moved)) return PatchOutcome::TooDeep;
    if (op == "move" && !doc.remove(from)) return PatchOutcome::Failed;
    return outcome(doc.add(path, *moved));
}

BuiltinResult json_patch(Args a, BuiltinContext& ctx) {
    if (!a[1].is_array()) return type_error(2, "array", a[1]);
    PatchedDocument doc(a[0]);
    for (const auto& op_value : a[1].array_elements()) {
        // As OPA's builtinJSONPatch: a malformed operation (not an object, no or an unknown
        // `op`, a missing or bad `path`, `from` or `value`) makes the result undefined, no error.
        if (!op_value.is_object()) return BuiltinResult::undefined();
        auto attribute = [&](std::string_view name) { return op_value.find(name); };
        const Value* op = attribute("op");
        if (!op || !op->is_string()) return BuiltinResult::undefined();
        auto path_attribute = [&](std::string_view name, Path& out) {
            const Value* v = attribute(name);
            if (!v) return false;
            auto p = parse_path(*v);
            if (!p) return false;
            out = std::move(*p);
            return true;
        };
        Path path;
        if (!path_attribute("path", path)) return BuiltinResult::undefined();
        std::string_view name = op->as_string();
        const Value* value = nullptr;
        Path from;
        if (name == "add" || name == "replace" || name == "test") {
            value = attribute("value");
            if (!value) return BuiltinResult::undefined();
        } else if (name == "move" || name == "copy") {
            if (!path_attribute("from", from)) return BuiltinResult::undefined();
        } else if (name != "remove") {
            return BuiltinResult::undefined();
        }
        // Patches apply atomically: the first failing operation makes the result undefined.
        switch (apply_patch_operation(doc, name, path, from, value)) {
            case PatchOutcome::Applied: break;
            case PatchOutcome::Failed: return BuiltinResult::undefined();
            case PatchOutcome::TooDeep:
                return BuiltinResult::error(
                    fmt::format("the patched document would nest more than {} levels", runtime::kMaxBuiltDepth));
        }
        // Each operation may copy a large part of the document: the deadline bounds a long patch.
        if (ctx.expired()) return BuiltinResult::cancelled();
    }
    // OPA has no result for a deleted root (its edit tree renders nothing).
    if (!doc.root()) return BuiltinResult::undefined();
    return BuiltinResult::of(*doc.root());
}

}  // namespace

void register_json_documents(Registry& r) {
    declare(r, "json.filter", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_object()) return type_error(1, "object", a[0]);
        std::vector<Path> paths;
        if (auto err = collect_paths(a[1], paths)) return BuiltinResult::type_error(*err);
        return BuiltinResult::of(filter_value(a[0], paths_to_tree(paths)));
    });
    declare(r, "json.remove", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_object()) return type_error(1, "object", a[0]);
        std::vector<Path> paths;
        if (auto err = collect_paths(a[1], paths)) return BuiltinResult::type_error(*err);
        PathTree tree = paths_to_tree(paths);
        auto kept = remove_value(a[0], &tree);
        if (!kept) return BuiltinResult::undefined();
        return BuiltinResult::of(std::move(*kept));
    });
    declare(r, "json.patch", 2, [](Args a, BuiltinContext& ctx) { return json_patch(a, ctx); });
}

}  // namespace gavel::stdlib
