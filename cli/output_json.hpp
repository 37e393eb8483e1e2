#pragma once
// An ordered JSON tree written as Go's json.Encoder with SetIndent("", "  ")
// writes it (OPA's CLI output): fields in the order added, values pretty-printed,
// <, > and & escaped as \u003c, \u003e, \u0026.

#include <string>
#include <vector>

#include "lang/json_tree.hpp"
#include "runtime/value.hpp"

namespace gavel::cli {

struct Json {
    enum class Kind { Object, Array, Value, String, Int, Raw } kind = Kind::Object;
    // Names and values side by side: a vector of an incomplete type is allowed, a pair of one is not.
    std::vector<std::string> field_names;
    std::vector<Json> field_values;
    std::vector<Json> items;
    runtime::Value value;
    std::string text;
    long long number = 0;

    static Json object() { return Json{}; }
    static Json array() {
        Json j;
        j.kind = Kind::Array;
        return j;
    }
    static Json of(runtime::Value v) {
        Json j;
        j.kind = Kind::Value;
        j.value = std::move(v);
        return j;
    }
    static Json str(std::string s) {
        Json j;
        j.kind = Kind::String;
        j.text = std::move(s);
        return j;
    }
    static Json integer(long long n) {
        Json j;
        j.kind = Kind::Int;
        j.number = n;
        return j;
    }
    static Json raw(std::string json) {
        Json j;
        j.kind = Kind::Raw;
        j.text = std::move(json);
        return j;
    }  // a scalar's JSON text
    static Json of(const lang::JsonTree& tree);
    Json& add(std::string key, Json v) {
        field_names.push_back(std::move(key));
        field_values.push_back(std::move(v));
        return *this;
    }
    Json& push(Json v) {
        items.push_back(std::move(v));
        return *this;
    }
};

// json.Encoder.Encode: the document and a newline.
std::string encode(const Json& j);

}  // namespace gavel::cli
