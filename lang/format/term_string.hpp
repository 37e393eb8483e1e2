#pragma once
// A term as OPA's Term.String() writes it: the formatter falls back to it where
// it does not lay a term out itself (`p["a"]` heads, strings whose source text
// it cannot use).

#include <string>
#include <string_view>

#include "lang/ast.hpp"
#include "lang/go_quote.hpp"  // go_quote, used with term_string

namespace gavel::lang::format {

// OPA's IsVarCompatibleString: a letter or `_`, then letters, digits and `_`.
bool is_var_compatible(std::string_view s);

std::string term_string(const Term& term);

}  // namespace gavel::lang::format
