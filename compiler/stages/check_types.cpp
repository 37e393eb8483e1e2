// Stage: type checking (OPA's checkTypes). Rules are checked in dependency
// order (compiler/types/rule_order.hpp), each rule's type inferred from its
// body and added at its path, so that refs to it from later rules are typed.
// `input` is `any` unless a schema was given for it (-s FILE: every module
// and query), base documents under `data` are `any`; a rule's METADATA
// `schemas:` (compiler/annotation_set.hpp) type `input`, `data` or documents
// below them for that rule. Calls are checked against builtin signatures and
// functions' inferred types, `x = y` by unifying both sides, and refs against
// what is known of the documents they reach into (compiler/types/checker.hpp).
// Errors come out sorted by location, as OPA's; the environment stays for
// queries.

#include <functional>
#include <map>

#include "compiler/annotation_set.hpp"
#include "lang/term_string.hpp"
#include "compiler/rule_tree.hpp"
#include "compiler/schema_set.hpp"
#include "compiler/stages/stages.hpp"
#include "compiler/types/builtin_types.hpp"
#include "compiler/types/checker.hpp"
#include "compiler/types/rule_order.hpp"
#include "compiler/types/schema_types.hpp"

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

// The global environment: builtins, and `input` when a schema types it (OPA's typeChecker.Env).
types::EnvPtr global_env(const CompileContext& ctx) {
    types::EnvPtr global = types::wrap(types::builtin_env(ctx.options.custom_builtins));
    if (ctx.input_type) global->tree.put({types::node_key(*lang::make_var("input", {}))}, ctx.input_type);
    return global;
}

// The types of METADATA `schemas:` entries, each schema derived once (OPA's
// getSchemaType and processAnnotation); errors are at the rule they apply to.
class AnnotationTypes {
public:
    explicit AnnotationTypes(const CompileContext& ctx) : ctx_(ctx) {}

    std::vector<types::DocumentSchema> for_rule(const lang::Module& module, const lang::Rule& rule, bool first_clause,
                                                types::TypeErrors& errors) {
        std::vector<types::DocumentSchema> out;
        if (!ctx_.annotation_set) return out;
        for (const lang::SchemaAnnotation* a : ctx_.annotation_set->schemas_for(module, rule, first_clause)) {
            const Derived* d = nullptr;
            if (a->schema) {
                // Without -s, a ref to a schema types nothing (OPA: no schema set).
                if (!ctx_.options.schemas) continue;
                const lang::JsonTree* doc = find(*a->schema);
                if (!doc) {
                    errors.push_back(types::plain_error(rule.loc, "undefined schema: " + to_string(*a->schema)));
                    continue;
                }
                d = &derive(doc);
            } else if (a->definition) {
                d = &derive(a->definition.get());
            } else {
                continue;
            }
            if (!d->type) {
                errors.push_back(types::plain_error(rule.loc, d->error));
                continue;
            }
            out.push_back({a->path.get(), d->type});
        }
        return out;
    }

private:
    struct Derived {
        types::TypePtr type;
        std::string error;
    };
    const CompileContext& ctx_;
    std::map<const lang::JsonTree*, Derived> derived_;

    // `schema.a.b` in the schema set (string parts only: a file's path names it).
    const lang::JsonTree* find(const lang::Term& ref) const {
        std::vector<std::string> path;
        for (std::size_t i = 1; i < ref.elems.size(); ++i) {
            if (ref.elems[i]->kind != lang::TermKind::String) return nullptr;
            path.push_back(ref.elems[i]->text);
        }
        return ctx_.options.schemas->find(path);
    }

    const Derived& derive(const lang::JsonTree* doc) {
        auto it = derived_.find(doc);
        if (it != derived_.end()) return it->second;
        auto r = types::schema_type(*doc);
        return derived_.emplace(doc, Derived{r.type, r.error}).first->second;
    }
};

}  // namespace

void check_types(CompileContext& ctx) {
    types::EnvPtr global = global_env(ctx);
    types::Checker checker = make_checker(ctx);
    AnnotationTypes annotations(ctx);
    types::TypeErrors errors;
    for (const lang::Rule* rule : types::rules_in_dependency_order(ctx)) {
        lang::TermPtr path = rule_path(ctx, *rule);
        if (!path) continue;
        const lang::Module& module = *ctx.module_of.at(rule);
        // A clause in module.rules itself (not an else branch): its own blocks apply.
        bool first_clause = !module.rules.empty() && std::less_equal<>()(&module.rules.front(), rule) &&
                            std::less_equal<>()(rule, &module.rules.back());
        auto schemas = annotations.for_rule(module, *rule, first_clause, errors);
        checker.check_rule(global, *rule, *path, errors, schemas);
    }
    types::sort_errors(errors);
    for (const auto& e : errors)
        if (!ctx.error(e.diagnostic())) break;
    ctx.type_env = global;
    ctx.called_by_checked_exprs = checker.called();
}

void check_types_in(CompileContext& ctx, const lang::Body& body) {
    types::EnvPtr env = ctx.type_env ? ctx.type_env : global_env(ctx);
    auto [checked, errors] = make_checker(ctx).check_body(env, body);
    for (const auto& e : errors)
        if (!ctx.error(e.diagnostic())) break;
}

}  // namespace gavel::compiler
