#pragma once
// The declarative builtin table (see builtin_table.cpp).

#include <span>
#include <string_view>

namespace gavel::stdlib {

struct BuiltinDeclaration {
    std::string_view name;        // dotted: "io.jwt.decode"
    std::string_view signature;   // "(string, number) => boolean" (signature.hpp)
    std::string_view categories;  // comma-separated: "strings,regex"
    std::string_view flags;       // space-separated: "deprecated nondeterministic relation infix=+ native"
};

std::span<const BuiltinDeclaration> builtin_table();

}  // namespace gavel::stdlib
