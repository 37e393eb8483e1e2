#pragma once

#include <set>
#include <string>
// The compiler's stages, in the order compiler.cpp runs them (OPA's order;
// see the table there). Each runs over every module of the context and
// reports into it; the helpers below let the query compiler apply the same
// rewrite to a query body.

#include "compiler/context.hpp"

namespace gavel::compiler {

// ---- module stages ----------------------------------------------------------------
void normalize_rules(CompileContext& ctx);              // the parser's shapes as the stages expect them
void resolve_refs(CompileContext& ctx);                 // imports and rule names -> data/input refs
void init_local_var_gen(CompileContext& ctx);           // names the generator must not produce
void rewrite_rule_head_refs(CompileContext& ctx);       // p[a.b] -> p[__local0__] { __local0__ = a.b }
void check_keyword_overrides(CompileContext& ctx);      // rules and locals named input/data
void check_imports(CompileContext& ctx);                // duplicate imports
void set_rule_tree(CompileContext& ctx);                // module and rule trees
void rewrite_local_vars(CompileContext& ctx);           // := and some: unique names, redeclaration errors
void rewrite_template_strings(CompileContext& ctx);     // $"..." -> internal.template_string
void check_void_calls(CompileContext& ctx);             // print(...) used as a value
void rewrite_print_calls(CompileContext& ctx);          // print operands captured, undefined printed
void rewrite_expr_terms(CompileContext& ctx);           // nested calls hoisted into expressions of their own
void set_annotation_set(CompileContext& ctx);           // METADATA blocks by scope; redeclared scopes
void rewrite_rego_metadata_calls(CompileContext& ctx);  // rego.metadata.rule()/chain() -> constants
void rewrite_comprehension_terms(CompileContext& ctx);  // comprehension heads that need evaluation
void rewrite_refs_in_head(CompileContext& ctx);         // rule head keys/values that need evaluation
void rewrite_with_values(CompileContext& ctx);          // with values that need evaluation; with targets checked
void check_rule_conflicts(CompileContext& ctx);         // kinds, arities, defaults, paths
void check_undefined_funcs(CompileContext& ctx);        // unknown functions, arity mismatches
void check_safety_rule_heads(CompileContext& ctx);      // head variables bound by the body
void check_safety_rule_bodies(CompileContext& ctx);     // body variables bound before use; reorder
void rewrite_equals(CompileContext& ctx);               // `a == b` -> `a = b` in modules
void rewrite_equals_in(lang::Body& body);               // the same in a query (for partial evaluation)
void rewrite_dynamic_terms(CompileContext& ctx);        // refs and comprehensions in operands bound first
void check_recursion(CompileContext& ctx);              // a rule depending on itself
void check_types(CompileContext& ctx);                  // what is statically a type error
void check_deprecated_builtins(CompileContext& ctx);    // deprecated builtins (v1 modules, strict mode)

// ---- the same rewrites on one body (shared with the query compiler) ----------------
// Each takes the context for its generator, errors and builtins.
lang::Body resolve_refs_in_query(CompileContext& ctx, lang::Body body);
lang::Body capture_values(CompileContext& ctx, lang::Body body);  // OPA's rego RewriteToCaptureValue
lang::Body rewrite_local_vars_in_query(CompileContext& ctx, lang::Body body);
lang::Body rewrite_template_strings_in_query(CompileContext& ctx, lang::Body body);
void check_void_calls_in(CompileContext& ctx, const lang::Body& body);
lang::Body rewrite_print_calls_in_query(CompileContext& ctx, lang::Body body);
lang::Body rewrite_expr_terms_in_body(VarGenerator& gen, lang::Body body);
void rewrite_comprehension_terms_in(CompileContext& ctx, lang::Body& body);
lang::Body rewrite_with_values_in(CompileContext& ctx, lang::Body body);
void check_undefined_funcs_in(CompileContext& ctx, const lang::Body& body);
lang::Body check_query_safety(CompileContext& ctx, lang::Body body);
// Calls to the `unsafe` built-ins are type errors (OPA's CheckUnsafeBuiltins query stage).
void check_unsafe_builtins_in(CompileContext& ctx, const lang::Body& body, const std::set<std::string>& unsafe);
lang::Body rewrite_dynamic_terms_in(VarGenerator& gen, lang::Body body);
void check_types_in(CompileContext& ctx, const lang::Body& body);
void check_deprecated_builtins_in(CompileContext& ctx, const lang::Body& body, bool v1);
void check_keyword_overrides_in(CompileContext& ctx, const lang::Body& body);

}  // namespace gavel::compiler
