#pragma once
// A JSON document as plain data. The compiler reads JSON Schemas but never
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
    std::string text;                                        // Number: as written; String: the value
    std::vector<JsonTree> items;                             // Array
    std::vector<std::pair<std::string, JsonTree>> members;   // Object: in document order, keys unique

    // The member named `key` of an object, or null.
    const JsonTree* find(std::string_view key) const;
    // Sets member `key` (replacing one of that name): producers keep keys unique with it.
    void set(std::string key, JsonTree value);
};

}  // namespace gavel::lang
