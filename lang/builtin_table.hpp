#pragma once
// The declarative builtin table (see builtin_table.cpp); lang/builtins.hpp
// parses it into declarations.

#include <span>
#include <string_view>

namespace gavel::lang {

struct BuiltinTableEntry {
    std::string_view name;        // dotted: "io.jwt.decode"
    std::string_view signature;   // "(string, number) => boolean" (types.hpp)
    std::string_view categories;  // comma-separated: "strings,regex"
    std::string_view flags;       // space-separated: "deprecated nondeterministic relation infix=+ native"
};

std::span<const BuiltinTableEntry> builtin_table();

}  // namespace gavel::lang
