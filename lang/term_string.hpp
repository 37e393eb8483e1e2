#pragma once
// Terms and expressions printed as OPA prints them (`data.a.b[x]`, `count(x)`,
// `[x | x = 1]`): OPA's Term.String() and Expr.String(), for the compiler's messages and
// for the formatter where OPA's falls back to Term.String() (`p["a"]` heads, operators).

#include <string>
#include <string_view>

#include "lang/ast.hpp"

namespace gavel::lang {

std::string to_string(const Term& t);
std::string to_string(const Expr& e);
std::string to_string(const Body& b);

// OPA's ValueName: "var", "ref", "number", "call", "arraycomprehension" ...
std::string value_name(const Term& t);

// OPA's IsVarCompatibleString: a letter or `_`, then letters, digits and `_` (a ref part
// that prints after a dot when it is also no keyword).
bool is_var_compatible(std::string_view s);

// Wildcards: `_` as written, `$0`, `$1` ... once made unique.
inline bool is_wildcard_var(std::string_view v) { return v == "_" || (!v.empty() && v[0] == '$'); }
// How a variable name is shown (OPA's Var.String): a wildcard is `_`.
inline std::string display_var(const std::string& v) { return is_wildcard_var(v) ? "_" : v; }

}  // namespace gavel::lang
