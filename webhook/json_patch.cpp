#include "webhook/json_patch.hpp"

#include <charconv>

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

// `doc` with the change applied at path[i..]; nullopt with `error` when the target is missing.
std::optional<Value> change(const Value& doc, const std::vector<std::string>& path, std::size_t i, Mode mode,
                            const Value& value, std::string& error) {
    if (i == path.size()) return value;  // replace/add of the whole document (remove handled by caller)
    const std::string& seg = path[i];
    bool last = i + 1 == path.size();
    if (doc.is_object()) {
        Value key = Value::string(seg);
        const Value* child = doc.find(key);
        if (!child && (!last || mode != Mode::Add)) {
            error = "document does not exist: " + json_pointer(std::vector<std::string>(path.begin(), path.begin() + static_cast<long>(i) + 1));
            return std::nullopt;
        }
        runtime::ObjectBuilder b(doc.size() + 1);
        for (const auto& e : doc.object_entries())
            if (e.key != key) b.insert(e.key, e.value);
        if (last) {
            if (mode != Mode::Remove) b.insert(key, value);
        } else {
            auto inner = change(*child, path, i + 1, mode, value, error);
            if (!inner) return std::nullopt;
            b.insert(key, std::move(*inner));
        }
        return b.build();
    }
    if (doc.is_array()) {
        auto items = doc.array_elements();
        std::vector<Value> out(items.begin(), items.end());
        bool insert = last && mode == Mode::Add;
        std::size_t index = 0;
        if (insert && seg == "-") index = out.size();
        else if (!parse_index(seg, index) || (insert ? index > out.size() : index >= out.size())) {
            error = "invalid array index " + seg;
            return std::nullopt;
        }
        if (!last) {
            auto inner = change(out[index], path, i + 1, mode, value, error);
            if (!inner) return std::nullopt;
            out[index] = std::move(*inner);
        } else if (mode == Mode::Add) {
            out.insert(out.begin() + static_cast<long>(index), value);
        } else if (mode == Mode::Remove) {
            out.erase(out.begin() + static_cast<long>(index));
        } else {
            out[index] = value;
        }
        runtime::ArrayBuilder builder(out.size());
        for (auto& v : out) builder.push_back(std::move(v));
        return builder.build();
    }
    error = "cannot patch below a " + std::string(doc.type_name());
    return std::nullopt;
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
        std::string_view kind = name->as_string();
        const Value* value = op.find("value");
        auto need_value = [&]() {
            if (!value) error = std::string(kind) + " needs a value";
            return value != nullptr;
        };
        std::optional<Value> next;
        if (kind == "add") {
            if (!need_value()) return std::nullopt;
            next = change(current, path, 0, Mode::Add, *value, error);
        } else if (kind == "replace") {
            if (!need_value()) return std::nullopt;
            if (!value_at(current, path)) {
                error = "document does not exist: " + json_pointer(path);
                return std::nullopt;
            }
            next = change(current, path, 0, Mode::Replace, *value, error);
        } else if (kind == "remove") {
            if (!value_at(current, path)) {
                error = "document does not exist: " + json_pointer(path);
                return std::nullopt;
            }
            next = path.empty() ? Value::empty_object() : change(current, path, 0, Mode::Remove, Value(), error);
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
            auto from_rel = from_text && from_text->is_string() ? parse_json_pointer(from_text->as_string()) : std::nullopt;
            if (!from_rel) {
                error = std::string(kind) + " needs a valid from pointer";
                return std::nullopt;
            }
            std::vector<std::string> from = base;
            from.insert(from.end(), from_rel->begin(), from_rel->end());
            const Value* at = value_at(current, from);
            if (!at) {
                error = "document does not exist: " + json_pointer(from);
                return std::nullopt;
            }
            Value moved = *at;
            Value source = current;
            if (kind == "move") {
                auto removed = change(current, from, 0, Mode::Remove, Value(), error);
                if (!removed) return std::nullopt;
                source = std::move(*removed);
            }
            next = change(source, path, 0, Mode::Add, moved, error);
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
