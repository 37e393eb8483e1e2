#pragma once
// The structured part of an error (OPA's Error.Details, e.g. a type error's
// `have` and `want` types): an ordered JSON value, keys in the order added,
// as Go writes a struct. The compiler builds it; the front ends write it in
// their JSON (`check --format json`, `eval`, the REST API).

#include <string>
#include <vector>

namespace gavel::lang {

struct DetailTree {
    enum class Kind : unsigned char { Null, Scalar, String, Array, Object } kind = Kind::Null;
    std::string text;                  // Scalar: its JSON text (1, true); String: the value
    std::vector<DetailTree> items;     // Array items; Object values
    std::vector<std::string> names;    // Object keys, beside their values in `items`

    static DetailTree null() { return {}; }
    static DetailTree scalar(std::string json) { return {Kind::Scalar, std::move(json), {}, {}}; }
    static DetailTree string(std::string s) { return {Kind::String, std::move(s), {}, {}}; }
    static DetailTree array() { return {Kind::Array, {}, {}, {}}; }
    static DetailTree object() { return {Kind::Object, {}, {}, {}}; }
    DetailTree& add(std::string key, DetailTree value) {
        names.push_back(std::move(key));
        items.push_back(std::move(value));
        return *this;
    }
    DetailTree& push(DetailTree value) {
        items.push_back(std::move(value));
        return *this;
    }
};

}  // namespace gavel::lang
