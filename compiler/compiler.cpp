#include "compiler/compiler.hpp"

#include <algorithm>

#include "lang/copy.hpp"
#include "lang/normalize_module.hpp"
#include "compiler/ast/terms.hpp"
#include "compiler/ast/var_visitor.hpp"
#include "compiler/context.hpp"
#include "compiler/stages/stages.hpp"
#include "compiler/types/schema_types.hpp"

namespace gavel::compiler {

namespace {

struct Stage {
    const char* name;  // OPA's stage name, for metrics and debugging
    void (*run)(CompileContext&);
};

// OPA's order (v1/ast/compile.go); the compiler stops after the first stage that reports an error.
constexpr Stage kStages[] = {
    {"normalize_rules", normalize_rules},
    {"resolve_refs", resolve_refs},
    {"init_local_var_gen", init_local_var_gen},
    {"rewrite_rule_head_refs", rewrite_rule_head_refs},
    {"check_keyword_overrides", check_keyword_overrides},
    {"check_imports", check_imports},
    {"set_rule_tree", set_rule_tree},
    {"rewrite_local_vars", rewrite_local_vars},
    {"rewrite_template_strings", rewrite_template_strings},
    {"check_void_calls", check_void_calls},
    {"rewrite_print_calls", rewrite_print_calls},
    {"rewrite_expr_terms", rewrite_expr_terms},
    {"set_annotation_set", set_annotation_set},
    {"rewrite_rego_metadata_calls", rewrite_rego_metadata_calls},
    {"rewrite_comprehension_terms", rewrite_comprehension_terms},
    {"rewrite_refs_in_head", rewrite_refs_in_head},
    {"rewrite_with_values", rewrite_with_values},
    {"check_rule_conflicts", check_rule_conflicts},
    {"check_undefined_funcs", check_undefined_funcs},
    {"check_safety_rule_heads", check_safety_rule_heads},
    {"check_safety_rule_bodies", check_safety_rule_bodies},
    {"rewrite_equals", rewrite_equals},
    {"rewrite_dynamic_terms", rewrite_dynamic_terms},
    {"check_recursion", check_recursion},
    {"check_types", check_types},
    {"check_deprecated_builtins", check_deprecated_builtins},
};

}  // namespace

const lang::BuiltinDecl* find_builtin(const CompileOptions& options, std::string_view name) {
    if (auto it = options.custom_builtins.find(std::string(name)); it != options.custom_builtins.end())
        return it->second.get();
    if (options.allowed_builtins && !name.starts_with("internal.") &&
        !options.allowed_builtins->count(std::string(name)))
        return nullptr;
    return lang::find_builtin_decl(name);
}

const lang::BuiltinDecl* CompiledModules::builtin(std::string_view name) const { return find_builtin(options, name); }

int CompiledModules::arity(const lang::Term& op) const {
    std::string name = dotted_name(op);
    if (!name.empty())
        if (const lang::BuiltinDecl* b = builtin(name)) return static_cast<int>(b->arity);
    if (!rule_tree || op.kind != lang::TermKind::Ref) return -1;
    const RuleTreeNode* node = rule_tree.get();
    for (const auto& p : op.elems) {
        std::string key = tree_key(*p);
        if (key.empty() || !(node = node->child(key))) return -1;
    }
    return node->rules.empty() ? -1 : static_cast<int>(node->rules.front()->head.args.size());
}

CompiledModules compile_modules(const std::vector<const lang::Module*>& modules, const CompileOptions& options) {
    std::vector<lang::Module> copies;
    copies.reserve(modules.size());
    for (const lang::Module* m : modules) copies.push_back(copy_module(*m));
    return compile_modules_in_place(std::move(copies), options);
}

CompiledModules compile_modules_in_place(std::vector<lang::Module> modules, const CompileOptions& options) {
    CompiledModules out;
    out.options = options;
    std::stable_sort(modules.begin(), modules.end(),
                     [](const lang::Module& a, const lang::Module& b) { return a.source->name() < b.source->name(); });
    out.modules.reserve(modules.size());
    for (lang::Module& m : modules) out.modules.push_back(std::make_unique<lang::Module>(std::move(m)));

    CompileContext ctx(out.options);
    for (auto& m : out.modules) ctx.modules.push_back(m.get());
    // The schema for `input` comes first, as OPA loads it when the compiler starts
    // (an error there, which has no location, ends the compilation).
    if (options.schemas)
        if (const lang::JsonTree* input = options.schemas->find({})) {
            auto typed = types::schema_type(*input);
            if (typed.type) {
                ctx.input_type = typed.type;
            } else {
                lang::Diagnostic d;
                d.code = std::string(lang::codes::type_error);
                d.message = typed.error;
                ctx.error(std::move(d));
            }
        }
    for (const Stage& stage : kStages) {
        if (ctx.failed()) break;
        stage.run(ctx);
        if (stage.run == normalize_rules)  // rules are where they stay from here on
            for (const lang::Module* m : ctx.modules)
                for (const auto& r : m->rules)
                    for (const lang::Rule* c = &r; c; c = c->else_rule.get()) ctx.module_of[c] = m;
        if (ctx.failed()) break;
    }
    out.rule_tree = std::move(ctx.owned_trees.rules);
    out.module_tree = std::move(ctx.owned_trees.modules);
    out.rewritten_vars = std::move(ctx.rewritten_vars);
    out.type_env = std::move(ctx.type_env);
    out.diagnostics = std::move(ctx.diagnostics);
    return out;
}

CompiledQuery compile_query(const lang::Body& parsed, const CompiledModules& modules, const QueryContext& context) {
    CompiledQuery out;
    CompileContext ctx(modules.options);
    ctx.rule_tree = modules.rule_tree.get();
    ctx.module_tree = modules.module_tree.get();
    ctx.module_rewritten_vars = &modules.rewritten_vars;
    ctx.query = &context;
    ctx.type_env = modules.type_env;
    lang::Body body = copy_body(parsed);
    lang::name_wildcards(body);
    // OPA's query stages each make their own generator of `__localqN__` names, counting
    // from 0 past the names the query has by then (newLocalVarGenerator("q", body)): a name
    // an earlier stage renamed away is given again. The numbers decide the order in which
    // a set literal of them is iterated.
    auto fresh_names = [&] {
        VarVisitor names;
        names.walk(body);
        ctx.gen = VarGenerator("__localq", names.vars());
    };
    fresh_names();

    // OPA's query stages, in order; each stops the compilation when it reports an error.
    auto step = [&](auto&& stage) {
        if (!ctx.failed()) stage();
    };
    step([&] {
        if (modules.options.strict) check_keyword_overrides_in(ctx, body);
    });
    step([&] { body = resolve_refs_in_query(ctx, std::move(body)); });
    step([&] {
        if (context.capture_values) body = capture_values(ctx, std::move(body));
    });
    step([&] {
        fresh_names();
        body = rewrite_local_vars_in_query(ctx, std::move(body));
    });
    step([&] { body = rewrite_template_strings_in_query(ctx, std::move(body)); });
    step([&] { check_void_calls_in(ctx, body); });
    step([&] {
        fresh_names();
        body = rewrite_print_calls_in_query(ctx, std::move(body));
    });
    step([&] {
        fresh_names();
        body = rewrite_expr_terms_in_body(ctx.gen, std::move(body));
    });
    step([&] {
        fresh_names();
        rewrite_comprehension_terms_in(ctx, body);
    });
    step([&] {
        fresh_names();
        body = rewrite_with_values_in(ctx, std::move(body));
    });
    step([&] { check_undefined_funcs_in(ctx, body); });
    step([&] { body = check_query_safety(ctx, std::move(body)); });
    step([&] {
        if (context.rewrite_equals) rewrite_equals_in(body);
    });
    step([&] {
        fresh_names();
        body = rewrite_dynamic_terms_in(ctx.gen, std::move(body));
    });
    step([&] { check_types_in(ctx, body); });
    step([&] { check_unsafe_builtins_in(ctx, body, context.unsafe_builtins); });
    step([&] { check_deprecated_builtins_in(ctx, body, modules.options.strict); });
    out.body = std::move(body);
    out.rewritten_vars = std::move(ctx.rewritten_vars);
    out.diagnostics = std::move(ctx.diagnostics);
    return out;
}

}  // namespace gavel::compiler
