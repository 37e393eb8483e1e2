#include "lang/format/rego_v1_check.hpp"

#include <fmt/format.h>

#include <string>
#include <vector>

#include "lang/builtins.hpp"
#include "lang/root_document.hpp"

namespace gavel::lang::format {

namespace {

bool is_v1_keyword(std::string_view s) {
    static constexpr std::string_view keywords[] = {"not",  "package", "import",   "as",   "default",
                                                    "else", "with",    "null",     "true", "false",
                                                    "some", "if",      "contains", "in",   "every"};
    for (auto k : keywords)
        if (s == k) return true;
    return false;
}

std::string import_string(const Import& imp) {
    std::string path = imp.path->ref_dotted();
    if (path.empty()) path = std::string(imp.path->loc.text());
    return "import " + path + (imp.alias.empty() ? "" : " as " + imp.alias);
}

std::string import_name(const Import& imp) {
    if (!imp.alias.empty()) return imp.alias;
    const Term& p = *imp.path;
    if (p.kind == TermKind::Ref && !p.elems.empty()) return p.elems.back()->text;
    return p.text;
}

// Every literal and call of the module, walked with explicit stacks.
struct Walk {
    std::vector<const Expr*> exprs;  // in source order
    std::vector<const Term*> calls;  // nested call terms

    void body(const Body& b) {
        for (const auto& e : b) expr(e);
    }
    void expr(const Expr& e) {
        exprs.push_back(&e);
        if (e.term) term(*e.term, true);
        if (e.some.in_call) term(*e.some.in_call, true);
        if (e.every.domain) term(*e.every.domain, false);
        if (e.every.body) body(*e.every.body);
        for (const auto& c : e.children) expr(c);
        if (e.body) body(*e.body);
        for (const auto& w : e.withs)
            if (w.value) term(*w.value, false);
    }
    void term(const Term& top, bool literal) {
        std::vector<std::pair<const Term*, bool>> stack{{&top, literal}};
        while (!stack.empty()) {
            auto [t, is_literal] = stack.back();
            stack.pop_back();
            if (t->kind == TermKind::Call && !is_literal) calls.push_back(t);
            for (std::size_t i = t->kind == TermKind::Call ? 1 : 0; i < t->elems.size(); ++i)
                stack.push_back({t->elems[i].get(), false});
            for (const auto& [k, v] : t->items) {
                stack.push_back({v.get(), false});
                stack.push_back({k.get(), false});
            }
            if (t->key) stack.push_back({t->key.get(), false});
            if (t->value) stack.push_back({t->value.get(), false});
            if (t->body) body(*t->body);
        }
    }
};

}  // namespace

Diagnostics check_rego_v1(const Module& module) {
    Diagnostics out;
    // Duplicate imports.
    std::vector<const Import*> seen;
    for (const auto& imp : module.imports) {
        const Import* earlier = nullptr;
        for (const Import* s : seen)
            if (import_name(*s) == import_name(imp)) earlier = s;
        if (earlier) out.add(imp.loc, codes::compile_error, "import must not shadow " + import_string(*earlier));
        else seen.push_back(&imp);
    }

    Walk walk;
    for (const auto& r : module.rules)
        for (const Rule* c = &r; c; c = c->else_rule.get()) {
            walk.body(c->body);
            for (const auto& b : c->extra_bodies) walk.body(b);
            if (c->head.value) walk.term(*c->head.value, false);
            if (c->head.key) walk.term(*c->head.key, false);
        }

    // Rules, arguments and variables named after a root document.
    for (const auto& r : module.rules) {
        const Term* head = r.head.ref && r.head.ref->kind == TermKind::Ref && !r.head.ref->elems.empty()
                               ? r.head.ref->elems[0].get()
                               : r.head.ref.get();
        if (head && is_root_document_name(head->text))
            out.add(r.loc, codes::compile_error,
                    fmt::format("rules must not shadow {} (use a different rule name)", head->text));
        for (const auto& a : r.head.args) {
            std::string name = a->kind == TermKind::Ref ? a->ref_dotted() : "";
            if (is_root_document_name(name))
                out.add(a->loc, codes::compile_error,
                        fmt::format("args must not shadow {} (use a different variable name)", name));
        }
    }
    for (const Expr* e : walk.exprs) {
        if (e->kind != ExprKind::Term || !e->term || e->term->call_name() != "assign" || e->term->elems.size() < 2)
            continue;
        const Term& lhs = *e->term->elems[1];
        std::string name = lhs.kind == TermKind::Var ? lhs.text : lhs.ref_dotted();
        if (is_root_document_name(name))
            out.add(e->loc, codes::compile_error,
                    fmt::format("variables must not shadow {} (use a different variable name)", name));
    }

    // Deprecated builtins.
    auto deprecated = [](const std::string& name) {
        const BuiltinDecl* d = name.empty() ? nullptr : find_builtin_decl(name);
        return d && d->deprecated;
    };
    for (const Expr* e : walk.exprs)
        if (e->kind == ExprKind::Term && e->term && e->term->kind == TermKind::Call && deprecated(e->term->call_name()))
            out.add(e->loc, codes::type_error,
                    "deprecated built-in function calls in expression: " + e->term->call_name());
    for (const Term* c : walk.calls)
        if (deprecated(c->call_name()))
            out.add(c->elems[0]->loc, codes::type_error,
                    "deprecated built-in function calls in expression: " + c->call_name());

    // Keywords as rule names.
    for (const auto& r : module.rules) {
        const Term* ref = r.head.ref.get();
        std::size_t parts = ref && ref->kind == TermKind::Ref ? ref->elems.size() : 1;
        const Term* head = ref && ref->kind == TermKind::Ref && !ref->elems.empty() ? ref->elems[0].get() : ref;
        // OPA looks at the rule's name; `p[x]` partial sets are named by their first part.
        if (head && parts < 2 && is_v1_keyword(head->text))
            out.add(r.loc, codes::parse_error, head->text + " keyword cannot be used for rule name");
    }
    return out;
}

}  // namespace gavel::lang::format
