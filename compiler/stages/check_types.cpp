// Stage: type checking (OPA's checkTypes). Rules are checked in dependency
// order (compiler/types/rule_order.hpp), each rule's type inferred from its
// body and added at its path, so that refs to it from later rules are typed;
// `input` and base documents under `data` are `any`. Calls are checked
// against builtin signatures and functions' inferred types, `x = y` by
// unifying both sides, and refs against what is known of the documents they
// reach into (compiler/types/checker.hpp). Errors come out sorted by
// location, as OPA's; the environment stays for queries.

#include "compiler/rule_tree.hpp"
#include "compiler/stages/stages.hpp"
#include "compiler/types/builtin_types.hpp"
#include "compiler/types/checker.hpp"
#include "compiler/types/rule_order.hpp"

namespace gavel::compiler {

namespace {

// The ref of the document a rule clause defines: data, the package, the head's
// ref; a v0 partial object `p[k] = v` has its key as the last part (OPA's Rule.Ref).
lang::TermPtr rule_path(const CompileContext& ctx, const lang::Rule& rule) {
    auto module = ctx.module_of.find(&rule);
    if (module == ctx.module_of.end()) return nullptr;
    lang::TermPtr path = rule_full_ref(*module->second, rule);
    if (rule.head.key && rule.head.value) path->elems.push_back(rule.head.key);
    return path;
}

types::Checker make_checker(const CompileContext& ctx) {
    return types::Checker([&ctx](const std::string& v) { return ctx.original_name(v); });
}

}  // namespace

void check_types(CompileContext& ctx) {
    types::EnvPtr global = types::wrap(types::builtin_env(ctx.options.custom_builtins));
    types::Checker checker = make_checker(ctx);
    types::TypeErrors errors;
    for (const lang::Rule* rule : types::rules_in_dependency_order(ctx))
        if (lang::TermPtr path = rule_path(ctx, *rule)) checker.check_rule(global, *rule, *path, errors);
    types::sort_errors(errors);
    for (const auto& e : errors)
        if (!ctx.error(e.diagnostic())) break;
    ctx.type_env = global;
}

void check_types_in(CompileContext& ctx, const lang::Body& body) {
    types::EnvPtr env = ctx.type_env ? ctx.type_env : types::wrap(types::builtin_env(ctx.options.custom_builtins));
    auto [checked, errors] = make_checker(ctx).check_body(env, body);
    for (const auto& e : errors)
        if (!ctx.error(e.diagnostic())) break;
}

}  // namespace gavel::compiler
