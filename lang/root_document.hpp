#pragma once
// `input` and `data`: the root documents. Alone they are references to the documents, never
// variables (OPA's parseTermFinish makes them refs as it reads them).

#include <string_view>

#include "lang/ast.hpp"

namespace gavel::lang {

inline bool is_root_document_name(std::string_view name) { return name == "input" || name == "data"; }

// The var `input` or `data`, which OPA reads as a ref of one part.
inline bool is_root_document(const Term& t) { return t.kind == TermKind::Var && is_root_document_name(t.text); }

}  // namespace gavel::lang
