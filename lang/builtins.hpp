#pragma once
// Builtin declarations: what the compiler knows of a builtin function without
// running it (name, signature, flags), as OPA's ast package declares them. The
// table of every builtin gavel ships is lang/builtin_table.cpp; an embedder's
// own builtins are declared with make_builtin_decl. Implementations live in
// stdlib/ and are joined to these declarations by name.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lang/types.hpp"

namespace gavel::lang {

struct BuiltinDecl {
    std::string name;  // dotted: "count", "io.jwt.decode"
    Signature signature;
    std::size_t arity = 0;  // operands (the result is an extra, optional output argument)
    std::vector<std::string> categories;
    std::string infix;              // operator spelling, if any ("+", "==")
    bool deprecated = false;        // callable only from v0 modules
    bool nondeterministic = false;  // results may differ between calls
    bool relation = false;          // many outputs per call (walk)
    bool native = false;            // the evaluator implements it itself (=, :=, print)
    bool hidden = false;            // gavel's own, made by the compiler: not callable from policies, not listed

    bool variadic() const { return signature.variadic.has_value(); }
    bool has_result() const { return signature.result.has_value(); }
};

// A declaration from the table's notation: signature text (types.hpp),
// comma-separated categories and space-separated flags
// ("deprecated nondeterministic relation native infix=+"). nullopt with
// `error` set when the text is malformed.
std::optional<BuiltinDecl> make_builtin_decl(std::string_view name, std::string_view signature,
                                             std::string_view categories, std::string_view flags, std::string& error);

// Every builtin of the table, sorted by name; parsed once.
std::span<const BuiltinDecl> builtin_decls();

// The table's declaration of `name`, or null.
const BuiltinDecl* find_builtin_decl(std::string_view name);

}  // namespace gavel::lang
