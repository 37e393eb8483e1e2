#pragma once
// The compiler: parsed modules in, checked and rewritten modules out, as
// OPA's ast.Compiler does it — an ordered list of named stages (stages.hpp),
// each a file of its own under compiler/stages/, that stops at the first
// stage that reports an error. What comes out has every reference resolved
// to data/input, every local variable named uniquely per rule, bodies in an
// order where each variable is bound before it is needed, and no
// construct the planner cannot lower directly.
//
// Queries take the same path, with the stages OPA runs for queries.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "compiler/rule_tree.hpp"
#include "compiler/schema_set.hpp"
#include "lang/ast.hpp"
#include "lang/builtins.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::compiler {

namespace types {
struct TypeEnv;
}

struct CompileOptions {
    bool strict = false;          // OPA's strict mode (unused imports, unused locals, deprecated builtins ...)
    std::size_t max_errors = 10;  // then "error limit reached" (0: no limit); OPA's default
    // An embedder's builtins, beside the table's (lang/builtins.hpp).
    std::map<std::string, std::shared_ptr<const lang::BuiltinDecl>> custom_builtins;
    // Whether base data sits at a path below `data` where a rule is defined (OPA's
    // WithPathConflictsCheck; storage.NonEmpty semantics): such a rule is a
    // "conflicting rule for data path a/b found". Unset: no base data to check.
    std::function<bool(const std::vector<std::string>& path)> path_exists;
    // The builtins a capabilities file allows (OPA's WithCapabilities): any other
    // is an undefined function. Unset: every builtin. The compiler's own
    // internal.* rewrites are always allowed.
    std::optional<std::set<std::string>> allowed_builtins;
    // JSON Schemas for type checking (OPA's WithSchemas, `-s`): `schema` itself
    // types `input` everywhere; METADATA `schemas:` name the others. Null: none.
    std::shared_ptr<const SchemaSet> schemas;
};

// The builtin `name` as the options see it (the table's or an embedder's, and allowed), or null.
const lang::BuiltinDecl* find_builtin(const CompileOptions& options, std::string_view name);

// The modules after every stage: rewritten, indexed by rule path.
struct CompiledModules {
    std::vector<std::unique_ptr<lang::Module>> modules;  // sorted by file name
    std::unique_ptr<RuleTreeNode> rule_tree;             // root: `data` is its only child
    std::unique_ptr<ModuleTreeNode> module_tree;
    std::map<std::string, std::string> rewritten_vars;  // generated name -> the name as written
    std::shared_ptr<types::TypeEnv> type_env;           // rules' types, for type checking queries
    lang::Diagnostics diagnostics;
    CompileOptions options;

    bool ok() const { return diagnostics.empty(); }
    // The builtin `name` as the compiler knows it (table or embedder's), or null.
    const lang::BuiltinDecl* builtin(std::string_view name) const;
    // The function arity of what `op` names (builtin or user function), -1 if none.
    int arity(const lang::Term& op) const;
};

CompiledModules compile_modules(const std::vector<const lang::Module*>& modules, const CompileOptions& options);
// The same, rewriting the modules given instead of copies of them (for a caller
// that keeps no parsed copy: the copy doubled the memory a compilation holds).
CompiledModules compile_modules_in_place(std::vector<lang::Module> modules, const CompileOptions& options);

// Where a query is written: a package (whose rules it may name without
// `data.`) and imports, as OPA's QueryContext.
struct QueryContext {
    lang::TermPtr package;  // `package` path as parsed (null: none)
    std::vector<lang::Import> imports;
    // As OPA's rego package evaluates queries: each expression's value is
    // captured in a variable `$termN`, so `1 == 2` or a rule that is false has
    // a value (false) instead of failing (stages/capture_values.cpp).
    bool capture_values = false;
    // As OPA's rego package compiles a query for partial evaluation: after
    // the safety check, `a == b` becomes the unification `a = b`.
    bool rewrite_equals = false;
    // Built-ins a query may not call (OPA's WithUnsafeBuiltins: its server's ad-hoc queries
    // may not call http.send); a call is a type error.
    std::set<std::string> unsafe_builtins;
};

struct CompiledQuery {
    lang::Body body;
    std::map<std::string, std::string> rewritten_vars;  // generated name -> the name as written
    lang::Diagnostics diagnostics;
    bool ok() const { return diagnostics.empty(); }
};

// Compiles a query against compiled modules (which must be ok()).
CompiledQuery compile_query(const lang::Body& body, const CompiledModules& modules, const QueryContext& context = {});

}  // namespace gavel::compiler
