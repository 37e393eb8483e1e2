#pragma once
// Entry points into the Spirit X3 grammar of Rego (grammar.cpp). Each parses
// one construct starting at `first`; on success `first` moves past it. On
// failure the ParseState's furthest failure says where and what was expected.

#include "lang/ast.hpp"
#include "lang/parse_state.hpp"

namespace gavel::lang::grammar {

bool parse_package(const char*& first, const char* last, ParseState& st, Package& out);
bool parse_import(const char*& first, const char* last, ParseState& st, Import& out);
bool parse_rule(const char*& first, const char* last, ParseState& st, Rule& out);
bool parse_body(const char*& first, const char* last, ParseState& st, Body& out);
// Literals separated by `;` only: a statement of a module that is a query (OPA's
// parseQuery with requireSemi), which OPA's parseModule then tries to read as a rule.
bool parse_query_statement(const char*& first, const char* last, ParseState& st, Body& out);
bool parse_term(const char*& first, const char* last, ParseState& st, TermPtr& out);

}  // namespace gavel::lang::grammar
