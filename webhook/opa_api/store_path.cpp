#include "webhook/opa_api/store_path.hpp"

#include <charconv>

#include "webhook/opa_api/url_query.hpp"

namespace gavel::webhook::opa_api {

namespace {

using runtime::Value;

StoreError not_found(const StorePath& path, std::string_view hint = "document does not exist") {
    return {StoreError::Code::NotFound, store_path_text(path) + ": " + std::string(hint)};
}

// Go's strconv.Atoi: optional sign, decimal digits, fits an int.
bool go_atoi(std::string_view s, long long& out) {
    if (s.empty()) return false;
    std::string_view digits = s;
    bool negative = false;
    if (digits[0] == '+' || digits[0] == '-') {
        negative = digits[0] == '-';
        digits.remove_prefix(1);
    }
    if (digits.empty()) return false;
    unsigned long long v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size()) return false;
    if (v > static_cast<unsigned long long>(INT64_MAX) + (negative ? 1 : 0)) return false;
    out = negative ? -static_cast<long long>(v) : static_cast<long long>(v);
    return true;
}

// ptr.ValidateArrayIndex: the position, or a not-found error with its hint.
bool array_index(const Value& array, const std::string& key, const StorePath& path, std::size_t& pos,
                 StoreError& error) {
    long long i = 0;
    if (!go_atoi(key, i)) {
        error = not_found(path, "array index must be integer");
        return false;
    }
    if (i < 0 || static_cast<std::size_t>(i) >= array.array_elements().size()) {
        error = not_found(path, "array index out of range");
        return false;
    }
    pos = static_cast<std::size_t>(i);
    return true;
}

Value with_member(const Value& object, const std::string& key, const Value* value) {
    runtime::ObjectBuilder b;
    for (const auto& e : object.object_entries())
        if (!(e.key.is_string() && e.key.as_string() == key)) b.insert(e.key, e.value);
    if (value) b.insert(Value::string(key), *value);
    return b.build();
}

std::optional<Value> write_at(const Value& node, PatchOp op, const StorePath& path, std::size_t idx, const Value& value,
                              StoreError& error) {
    const std::string& key = path[idx];
    bool last = idx + 1 == path.size();
    if (node.is_object()) {
        const Value* child = node.find(key);
        if (last) {
            if (op != PatchOp::Add && !child) {
                error = not_found(path);
                return std::nullopt;
            }
            return with_member(node, key, op == PatchOp::Remove ? nullptr : &value);
        }
        if (!child) {
            error = not_found(path);
            return std::nullopt;
        }
        auto updated = write_at(*child, op, path, idx + 1, value, error);
        if (!updated) return std::nullopt;
        return with_member(node, key, &*updated);
    }
    if (node.is_array()) {
        auto items = node.array_elements();
        if (last) {
            if (key == "-" || key == std::to_string(items.size())) {
                if (op != PatchOp::Add) {
                    error = {StoreError::Code::InvalidPatch, store_path_text(path) + ": invalid patch path"};
                    return std::nullopt;
                }
                runtime::ArrayBuilder b(items.size() + 1);
                for (const auto& v : items) b.push_back(v);
                b.push_back(value);
                return b.build();
            }
            std::size_t pos = 0;
            if (!array_index(node, key, path, pos, error)) return std::nullopt;
            runtime::ArrayBuilder b(items.size() + 1);
            for (std::size_t i = 0; i < items.size(); ++i) {
                if (i == pos) {
                    if (op == PatchOp::Add) b.push_back(value);  // add inserts before the element
                    else if (op == PatchOp::Replace) {
                        b.push_back(value);
                        continue;
                    } else continue;  // remove
                }
                b.push_back(items[i]);
            }
            return b.build();
        }
        std::size_t pos = 0;
        if (!array_index(node, key, path, pos, error)) return std::nullopt;
        auto updated = write_at(items[pos], op, path, idx + 1, value, error);
        if (!updated) return std::nullopt;
        runtime::ArrayBuilder b(items.size());
        for (std::size_t i = 0; i < items.size(); ++i) b.push_back(i == pos ? *updated : items[i]);
        return b.build();
    }
    error = not_found(path);  // a scalar (or a set) on the way
    return std::nullopt;
}

}  // namespace

std::string StoreError::text() const {
    switch (code) {
        case Code::NotFound: return "storage_not_found_error: " + message;
        case Code::WriteConflict: return "storage_write_conflict_error: " + message;
        case Code::InvalidPatch: return "storage_invalid_patch_error: " + message;
    }
    return message;
}

std::string store_path_text(const StorePath& path) {
    if (path.empty()) return "/";
    std::string out;
    for (const auto& seg : path) {
        out += '/';
        // url.PathEscape: unreserved and sub-delims stay, '/' and the rest are %XX.
        for (unsigned char c : seg) {
            bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                        c == '_' || c == '.' || c == '~' || c == '$' || c == '&' || c == '+' || c == ',' || c == ':' ||
                        c == ';' || c == '=' || c == '@';
            if (keep) {
                out += static_cast<char>(c);
            } else {
                static constexpr char kHex[] = "0123456789ABCDEF";
                out += '%';
                out += kHex[c >> 4];
                out += kHex[c & 15];
            }
        }
    }
    return out;
}

StorePath parse_store_path(std::string_view escaped) {
    StorePath out;
    if (escaped.empty() || escaped == "/") return out;
    if (escaped.front() == '/') escaped.remove_prefix(1);
    for (;;) {
        auto slash = escaped.find('/');
        std::string_view raw = escaped.substr(0, slash);
        std::string seg;
        if (!percent_decode(raw, seg, false)) seg = std::string(raw);
        out.push_back(std::move(seg));
        if (slash == std::string_view::npos) break;
        escaped.remove_prefix(slash + 1);
    }
    return out;
}

std::string trim_slashes(std::string_view path) {
    while (!path.empty() && path.front() == '/') path.remove_prefix(1);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    return std::string(path);
}

namespace {

// Every `from` in `s` replaced by the character `to`, left to right.
std::string replace_all(std::string_view s, std::string_view from, char to) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.substr(i, from.size()) == from) {
            out += to;
            i += from.size() - 1;
        } else {
            out += s[i];
        }
    }
    return out;
}

}  // namespace

void unescape_pointer_segments(StorePath& path) {
    for (auto& segment : path) segment = replace_all(replace_all(segment, "~1", '/'), "~0", '~');
}

const Value* store_read(const Value& data, const StorePath& path, StoreError& error) {
    const Value* node = &data;
    for (const auto& key : path) {
        if (node->is_object()) {
            node = node->find(key);
            if (!node) {
                error = not_found(path);
                return nullptr;
            }
        } else if (node->is_array()) {
            std::size_t pos = 0;
            if (!array_index(*node, key, path, pos, error)) return nullptr;
            node = &node->array_elements()[pos];
        } else {
            error = not_found(path);
            return nullptr;
        }
    }
    return node;
}

std::optional<Value> store_write(const Value& data, PatchOp op, const StorePath& path, const Value& value,
                                 StoreError& error) {
    if (path.empty()) {
        if (op == PatchOp::Remove) {
            error = {StoreError::Code::InvalidPatch, "root cannot be removed"};
            return std::nullopt;
        }
        if (!value.is_object()) {
            error = {StoreError::Code::InvalidPatch, "root must be object"};
            return std::nullopt;
        }
        return value;
    }
    return write_at(data, op, path, 0, value, error);
}

bool store_make_dir(Value& data, const StorePath& path, StoreError& error) {
    for (std::size_t n = 1; n <= path.size(); ++n) {
        StorePath prefix(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(n));
        StoreError ignored;
        const Value* node = store_read(data, prefix, ignored);
        if (node) {
            if (node->is_object()) continue;
            error = {StoreError::Code::WriteConflict, store_path_text(prefix)};
            return false;
        }
        auto written = store_write(data, PatchOp::Add, prefix, Value::empty_object(), error);
        if (!written) return false;
        data = std::move(*written);
    }
    return true;
}

}  // namespace gavel::webhook::opa_api
