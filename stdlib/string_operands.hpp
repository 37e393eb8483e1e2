// Operand checks shared by the string, regex, glob and cast builtins, with
// OPA's messages (topdown/builtins: NewOperandTypeErr, NewOperandElementErr,
// IntOperand).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

// "operand 2 must be one of {set, array} but got number"
inline BuiltinResult operand_type_error_of(std::size_t pos, const Value& got,
                                           std::initializer_list<std::string_view> want) {
    std::string list;
    for (auto w : want) {
        if (!list.empty()) list += ", ";
        list += w;
    }
    return BuiltinResult::type_error(
        fmt::format("operand {} must be one of {{{}}} but got {}", pos, list, got.type_name()));
}

// The elements of an array or set that must all be strings:
// "operand 1 must be array of strings but got array containing number".
inline bool string_elements(const Value& v, std::size_t pos, std::vector<std::string_view>& out, BuiltinResult& err) {
    auto elems = v.is_array() ? v.array_elements() : v.set_elements();
    for (const auto& e : elems) {
        if (!e.is_string()) {
            err = element_type_error(pos, v, e, "string");
            return false;
        }
        out.push_back(e.as_string());
    }
    return true;
}

// OPA's IntOperand: a number whose text is a plain integer in int64 range
// (3.0 written with a fraction is not one, as in OPA).
inline bool int_operand(const Value& v, std::size_t pos, std::int64_t& out, BuiltinResult& err) {
    if (!v.is_number()) {
        err = type_error(pos, "number", v);
        return false;
    }
    if (!v.as_written_int64(out)) {
        err = BuiltinResult::type_error(
            fmt::format("operand {} must be integer number but got floating-point number", pos));
        return false;
    }
    return true;
}

}  // namespace gavel::stdlib
