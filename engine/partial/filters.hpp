#pragma once
// Data filters (OPA's Compile API for data filtering): the residual queries
// of a partial evaluation over unknown table columns (`input.tickets.owner`)
// checked against what a target can express, then written as UCAST
// conditions or as an SQL WHERE clause (PostgreSQL, MySQL, SQL Server,
// SQLite). Each query is a conjunction, the queries a disjunction; no query
// is "never", one empty query is "always".

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/partial/support.hpp"
#include "lang/diagnostics.hpp"
#include "runtime/value.hpp"

namespace gavel::compiler {
struct CompiledModules;
}

namespace gavel::partial {

// A target ("ucast", "sql") and its dialect ("prisma", "all", "linq", "" for
// UCAST; "postgresql", "mysql", "sqlserver", "sqlite" for SQL).
struct FilterTarget {
    std::string target;
    std::string dialect;
};

// The target an Accept header selects (OPA's known media types); `multi` for
// application/vnd.opa.multitarget+json (the targets come from the request).
struct AcceptedTarget {
    bool multi = false;
    FilterTarget target;
};
std::optional<AcceptedTarget> filter_target_for(std::string_view media_type);
bool is_filter_media_type(std::string_view media_type);

// Why a residual cannot be a filter, as OPA reports it (code pe_fragment_error).
struct FilterProblem {
    std::string message;
    lang::Location loc;
    std::string details;  // OPA's details text, if any
};

// OPA's checks of the residue against the targets' constraints. `shorts`: the
// one-part unknowns (`input.fruits`) the table mappings name with `$table`.
// An unknown target/dialect is an error message instead.
std::vector<FilterProblem> check_filters(const std::vector<lang::Body>& queries,
                                         const std::vector<SupportModule>& support,
                                         const std::vector<FilterTarget>& targets, const std::set<std::string>& shorts,
                                         std::string& error);

// The table mappings for a target and dialect (per dialect, else per target, else all of them).
runtime::Value filter_mappings(const runtime::Value& mappings, const FilterTarget& target, std::string& error);
std::set<std::string> short_unknowns(const runtime::Value& mappings);

// The queries as UCAST (compact JSON; `{}` when unconditional).
std::string filter_ucast_json(const std::vector<lang::Body>& queries, const runtime::Value& mappings);
// The queries as an SQL WHERE clause ("" when unconditional); nullopt with
// `error` set when the conditions cannot be written in SQL.
std::optional<std::string> filter_sql(const std::vector<lang::Body>& queries, const runtime::Value& mappings,
                                      const std::string& dialect, std::string& error);

// What the METADATA blocks of a rule say for data filtering (`compile:` with
// `unknowns:` and `mask_rule:`), over the rule's annotation chain (the rule,
// its document, its package, enclosing subpackages). `path`: the rule's
// path below data. Unknowns that are not refs into input or data are errors
// (code invalid_unknown, at the block).
struct FilterAnnotations {
    std::vector<std::string> unknowns;
    std::string mask_rule;  // "data.a.b.masks"; "" when none
    std::vector<lang::Diagnostic> errors;
};
FilterAnnotations filter_annotations(const compiler::CompiledModules& modules, const std::vector<std::string>& path);

}  // namespace gavel::partial
