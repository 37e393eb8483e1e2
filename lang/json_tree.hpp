#pragma once
// A JSON document as plain data, members in order. The compiler reads JSON
// Schemas with it, and writes error details in it (OPA's Error.Details, e.g. a
// type error's have/want types) for the front ends' JSON. It reads them but never
// evaluates them, and they come from two places: `-s` files (which the
// engine parses with runtime/json.hpp) and METADATA `schemas:` annotations
// (which the parser reads as YAML). lang cannot see runtime::Value, so both
// sources fill this smallest common shape, and the compiler depends on
// nothing above it.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gavel::lang {

struct JsonTree {
    enum class Kind : uint8_t { Null, Boolean, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    std::string text;                                       // Number: as written; String: the value
    std::vector<JsonTree> items;                            // Array
    std::vector<std::pair<std::string, JsonTree>> members;  // Object: in document order, keys unique

    static JsonTree string(std::string s) { return {Kind::String, false, std::move(s), {}, {}}; }
    static JsonTree number(std::string text) { return {Kind::Number, false, std::move(text), {}, {}}; }
    static JsonTree of_bool(bool b) { return {Kind::Boolean, b, {}, {}, {}}; }
    static JsonTree array() { return {Kind::Array, false, {}, {}, {}}; }
    static JsonTree object() { return {Kind::Object, false, {}, {}, {}}; }
    JsonTree& push(JsonTree value) {
        items.push_back(std::move(value));
        return *this;
    }
    // Appends member `key`, which the caller knows is new (building in a fixed key order).
    JsonTree& add(std::string key, JsonTree value) {
        members.emplace_back(std::move(key), std::move(value));
        return *this;
    }

    // The member named `key` of an object, or null.
    const JsonTree* find(std::string_view key) const;
    // Sets member `key` (replacing one of that name): producers keep keys unique with it.
    void set(std::string key, JsonTree value);
};

}  // namespace gavel::lang
