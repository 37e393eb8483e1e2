#pragma once
// The result of partial evaluation written out as OPA writes it: AST JSON
// (`opa eval --partial -f json`, the /v1/compile response's queries and
// support modules) and Rego source (`-f source`, `-f pretty`).

#include <string>
#include <vector>

#include "engine/partial/save.hpp"

namespace gavel::partial {

class Program;

// {"queries":[...],"support":[...]} with OPA's field order; empty lists are
// left out as OPA's `omitempty` does.
std::string partial_json(const std::vector<Body>& queries, const std::vector<SupportModule>& support);
std::string body_json(const Body& body);
std::string module_json(const SupportModule& module);
std::string term_json(const Term& term);

// A body as `opa eval -f source` prints a query: one expression per line.
std::string body_source(const Body& body, const Program* program);
// A support module as Rego (laid out as `opa fmt` lays it out).
std::string module_source(const SupportModule& module, const Program* program);
// One expression as Rego text.
std::string expr_source(const lang::Expr& e, const Program* program);
std::string term_source(const Term& t, const Program* program);

}  // namespace gavel::partial
