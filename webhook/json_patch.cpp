#include "webhook/json_patch.hpp"

#include <algorithm>
#include <charconv>

#include "webhook/path_limits.hpp"

namespace gavel::webhook {

using runtime::Value;

std::optional<std::vector<std::string>> parse_json_pointer(std::string_view pointer) {
    std::vector<std::string> out;
    if (pointer.empty() || pointer == "/") return out;
    if (pointer.front() != '/') return std::nullopt;
    std::size_t i = 1;
    std::string seg;
    for (; i <= pointer.size(); ++i) {
        if (i == pointer.size() || pointer[i] == '/') {
            out.push_back(std::move(seg));
            seg.clear();
            continue;
        }
        char c = pointer[i];
        if (c == '~') {
            if (i + 1 >= pointer.size()) return std::nullopt;
            char n = pointer[++i];
            if (n == '0') seg.push_back('~');
            else if (n == '1') seg.push_back('/');
            else return std::nullopt;
        } else {
            seg.push_back(c);
        }
    }
    return out;
}

std::string escape_pointer_segment(std::string_view segment) {
    std::string out;
    for (char c : segment) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out.push_back(c);
    }
    return out;
}

std::string json_pointer(const std::vector<std::string>& segments) {
    std::string out;
    for (const auto& s : segments) {
        out.push_back('/');
        out += escape_pointer_segment(s);
    }
    return out;
}

const Value* value_at(const Value& doc, const std::vector<std::string>& path) {
    const Value* at = &doc;
    for (const auto& seg : path) {
        if (at->is_object()) {
            at = at->find(seg);
        } else if (at->is_array()) {
            std::size_t index = 0;
            auto [p, ec] = std::from_chars(seg.data(), seg.data() + seg.size(), index);
            if (ec != std::errc() || p != seg.data() + seg.size() || index >= at->size()) return nullptr;
            at = &at->array_elements()[index];
        } else {
            return nullptr;
        }
        if (!at) return nullptr;
    }
    return at;
}

namespace {

enum class Mode { Add, Remove, Replace };

bool parse_index(const std::string& seg, std::size_t& out) {
    if (seg.empty() || (seg.size() > 1 && seg[0] == '0')) return false;
    auto [p, ec] = std::from_chars(seg.data(), seg.data() + seg.size(), out);
    return ec == std::errc() && p == seg.data() + seg.size();
}

std::string pointer_prefix(const std::vector<std::string>& path, std::size_t n) {
    return json_pointer(std::vector<std::string>(path.begin(), path.begin() + static_cast<long>(n)));
}

// The child of a container along a path (not its last segment); null with `error` when absent.
const Value* step(const Value& at, const std::vector<std::string>& path, std::size_t i, std::string& error) {
    const std::string& seg = path[i];
    if (at.is_object()) {
        const Value* child = at.find(Value::string(seg));
        if (!child) error = "document does not exist: " + pointer_prefix(path, i + 1);
        return child;
    }
    if (at.is_array()) {
        std::size_t index = 0;
        if (!parse_index(seg, index) || index >= at.size()) {
            error = "invalid array index " + seg;
            return nullptr;
        }
        return &at.array_elements()[index];
    }
    error = "cannot patch below a " + std::string(at.type_name());
    return nullptr;
}

// `container` with the child at `seg` (known to exist) replaced.
Value with_child(const Value& container, const std::string& seg, Value child) {
    if (container.is_object()) {
        Value key = Value::string(seg);
        runtime::ObjectBuilder b(container.size());
        for (const auto& e : container.object_entries())
            if (e.key != key) b.insert(e.key, e.value);
        b.insert(key, std::move(child));
        return b.build();
    }
    std::size_t index = 0;
    parse_index(seg, index);
    auto items = container.array_elements();
    runtime::ArrayBuilder b(items.size());
    for (std::size_t k = 0; k < items.size(); ++k) b.push_back(k == index ? std::move(child) : items[k]);
    return b.build();
}

// `parent` with the change applied at its child `path.back()`.
std::optional<Value> change_last(const Value& parent, const std::vector<std::string>& path, Mode mode,
                                 const Value& value, std::string& error) {
    const std::string& seg = path.back();
    if (parent.is_object()) {
        Value key = Value::string(seg);
        if (!parent.find(key) && mode != Mode::Add) {
            error = "document does not exist: " + json_pointer(path);
            return std::nullopt;
        }
        runtime::ObjectBuilder b(parent.size() + 1);
        for (const auto& e : parent.object_entries())
            if (e.key != key) b.insert(e.key, e.value);
        if (mode != Mode::Remove) b.insert(key, value);
        return b.build();
    }
    if (parent.is_array()) {
        auto items = parent.array_elements();
        std::vector<Value> out(items.begin(), items.end());
        bool insert = mode == Mode::Add;
        std::size_t index = 0;
        if (insert && seg == "-") index = out.size();
        else if (!parse_index(seg, index) || (insert ? index > out.size() : index >= out.size())) {
            error = "invalid array index " + seg;
            return std::nullopt;
        }
        if (mode == Mode::Add) out.insert(out.begin() + static_cast<long>(index), value);
        else if (mode == Mode::Remove) out.erase(out.begin() + static_cast<long>(index));
        else out[index] = value;
        runtime::ArrayBuilder builder(out.size());
        for (auto& v : out) builder.push_back(std::move(v));
        return builder.build();
    }
    error = "cannot patch below a " + std::string(parent.type_name());
    return std::nullopt;
}

// `doc` with the change applied at `path`; nullopt with `error` when the target is
// missing. A loop down to the parent and back up: paths may be long, stacks are not.
std::optional<Value> change(const Value& doc, const std::vector<std::string>& path, Mode mode, const Value& value,
                            std::string& error) {
    if (path.empty()) return value;   // replace/add of the whole document (remove handled by caller)
    std::vector<const Value*> chain;  // chain[i] holds path[i]
    chain.reserve(path.size());
    const Value* at = &doc;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        chain.push_back(at);
        at = step(*at, path, i, error);
        if (!at) return std::nullopt;
    }
    auto updated = change_last(*at, path, mode, value, error);
    if (!updated) return std::nullopt;
    for (std::size_t i = chain.size(); i-- > 0;) updated = with_child(*chain[i], path[i], std::move(*updated));
    return updated;
}

// How deep `v` nests (a scalar is 0), without recursion.
std::size_t value_depth(const Value& v) {
    std::size_t deepest = 0;
    std::vector<std::pair<const Value*, std::size_t>> todo{{&v, 0}};
    while (!todo.empty()) {
        auto [at, depth] = todo.back();
        todo.pop_back();
        deepest = std::max(deepest, depth);
        if (at->is_array())
            for (const auto& e : at->array_elements()) todo.emplace_back(&e, depth + 1);
        else if (at->is_set())
            for (const auto& e : at->set_elements()) todo.emplace_back(&e, depth + 1);
        else if (at->is_object())
            for (const auto& e : at->object_entries()) todo.emplace_back(&e.value, depth + 1);
    }
    return deepest;
}

bool path_too_deep(const std::vector<std::string>& path, std::string& error) {
    if (path.size() <= kMaxPathSegments) return false;
    error = "path too deep: " + std::to_string(path.size()) + " segments (the limit is " +
            std::to_string(kMaxPathSegments) + ")";
    return true;
}

}  // namespace

std::optional<Value> apply_json_patch(const Value& doc, const Value& ops, const std::vector<std::string>& base,
                                      std::string& error) {
    if (!ops.is_array()) {
        error = "a JSON Patch must be an array of operations";
        return std::nullopt;
    }
    Value current = doc;
    for (const Value& op : ops.array_elements()) {
        const Value* name = op.find("op");
        const Value* path_text = op.find("path");
        if (!name || !name->is_string() || !path_text || !path_text->is_string()) {
            error = "each operation needs string fields op and path";
            return std::nullopt;
        }
        auto rel = parse_json_pointer(path_text->as_string());
        if (!rel) {
            error = "invalid JSON pointer " + std::string(path_text->as_string());
            return std::nullopt;
        }
        std::vector<std::string> path = base;
        path.insert(path.end(), rel->begin(), rel->end());
        if (path_too_deep(path, error)) return std::nullopt;
        std::string_view kind = name->as_string();
        const Value* value = op.find("value");
        auto need_value = [&]() {
            if (!value) error = std::string(kind) + " needs a value";
            return value != nullptr;
        };
        std::optional<Value> next;
        if (kind == "add") {
            if (!need_value()) return std::nullopt;
            next = change(current, path, Mode::Add, *value, error);
        } else if (kind == "replace") {
            if (!need_value()) return std::nullopt;
            if (!value_at(current, path)) {
                error = "document does not exist: " + json_pointer(path);
                return std::nullopt;
            }
            next = change(current, path, Mode::Replace, *value, error);
        } else if (kind == "remove") {
            if (!value_at(current, path)) {
                error = "document does not exist: " + json_pointer(path);
                return std::nullopt;
            }
            next = path.empty() ? Value::empty_object() : change(current, path, Mode::Remove, Value(), error);
        } else if (kind == "test") {
            if (!need_value()) return std::nullopt;
            const Value* at = value_at(current, path);
            if (!at || *at != *value) {
                error = "test failed at " + json_pointer(path);
                return std::nullopt;
            }
            next = current;
        } else if (kind == "move" || kind == "copy") {
            const Value* from_text = op.find("from");
            auto from_rel =
                from_text && from_text->is_string() ? parse_json_pointer(from_text->as_string()) : std::nullopt;
            if (!from_rel) {
                error = std::string(kind) + " needs a valid from pointer";
                return std::nullopt;
            }
            std::vector<std::string> from = base;
            from.insert(from.end(), from_rel->begin(), from_rel->end());
            if (path_too_deep(from, error)) return std::nullopt;
            const Value* at = value_at(current, from);
            if (!at) {
                error = "document does not exist: " + json_pointer(from);
                return std::nullopt;
            }
            // Copies could otherwise stack a document ever deeper, one patch at a time.
            if (path.size() + value_depth(*at) > kMaxDataDepth) {
                error = "the document would nest deeper than " + std::to_string(kMaxDataDepth) + " levels";
                return std::nullopt;
            }
            Value moved = *at;
            Value source = current;
            if (kind == "move") {
                auto removed = change(current, from, Mode::Remove, Value(), error);
                if (!removed) return std::nullopt;
                source = std::move(*removed);
            }
            next = change(source, path, Mode::Add, moved, error);
        } else {
            error = "unknown JSON Patch operation " + std::string(kind);
            return std::nullopt;
        }
        if (!next) return std::nullopt;
        current = std::move(*next);
    }
    return current;
}

}  // namespace gavel::webhook
