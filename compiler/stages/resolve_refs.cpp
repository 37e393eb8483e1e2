// Stage: resolve references (OPA's resolveAllRefs). A name that is a rule of
// the module's package (in any module) becomes `data.<pkg>.<name>`, an
// imported name the imported path; names declared locally (`:=`, `some`,
// arguments, every's key and value) shadow both. In strict mode an import
// that nothing uses is an error.

#include <fmt/format.h>

#include <map>

#include "lang/term_order.hpp"
#include "lang/term_string.hpp"
#include "compiler/ast/terms.hpp"
#include "compiler/ast/var_visitor.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;
using lang::TermPtr;

namespace {

struct Global {
    std::vector<TermPtr> parts;  // the full ref's parts
    bool used = false;
};
using Globals = std::map<std::string, Global>;

std::vector<TermPtr> package_ref_parts(const Term& path, const lang::Location& loc) {
    std::vector<TermPtr> parts{lang::make_var("data", loc)};
    if (path.kind == TermKind::Ref)
        for (const auto& p : path.elems) parts.push_back(lang::make_string(p->text, p->loc));
    else parts.push_back(lang::make_string(path.text, path.loc));
    return parts;
}

std::vector<TermPtr> ref_parts(const Term& t) {
    if (t.kind == TermKind::Ref) return t.elems;
    return {std::make_shared<Term>(t)};
}

bool skipped_import(const lang::Import& imp) {
    const Term& head = imp.path->kind == TermKind::Ref ? *imp.path->elems[0] : *imp.path;
    return head.kind == TermKind::Var && (head.text == "future" || head.text == "rego");
}

std::string import_name(const lang::Import& imp) {
    if (!imp.alias.empty()) return imp.alias;
    const Term& last = imp.path->kind == TermKind::Ref ? *imp.path->elems.back() : *imp.path;
    return last.text;
}

void add_imports(Globals& globals, const std::vector<lang::Import>& imports) {
    for (const auto& imp : imports) {
        if (skipped_import(imp)) continue;
        globals[import_name(imp)] = Global{ref_parts(*imp.path), false};
    }
}

// OPA's declaredVars: what `:=` and `some` declare in a body, not looking into comprehensions.
void declared_vars(const lang::Body& body, VarSet& out);

void declared_in_expr(const lang::Expr& e, VarSet& out) {
    if (is_assignment(e) && operand_count(e) == 2) {
        add_all(out, vars_of(*operand(e, 0)));
    } else if (e.kind == ExprKind::Some) {
        if (e.some.in_call) {
            const auto& args = e.some.in_call->elems;  // operator, then operands
            if (args.size() == 4) add_all(out, vars_of(*args[2]));
            add_all(out, vars_of(*args[1]));
        } else {
            for (const auto& v : e.some.vars)
                if (v->kind == TermKind::Var) out.insert(v->text);
        }
    }
    if (e.every.body) declared_vars(*e.every.body, out);
    if (e.body) declared_vars(*e.body, out);
    for (const auto& c : e.children) declared_in_expr(c, out);
}

void declared_vars(const lang::Body& body, VarSet& out) {
    for (const auto& e : body) declared_in_expr(e, out);
}

class Resolver {
public:
    explicit Resolver(Globals& globals) : globals_(globals) {}

    void push(VarSet s) { ignore_.push_back(std::move(s)); }
    void pop() { ignore_.pop_back(); }

    void term(TermPtr& t) {
        switch (t->kind) {
            case TermKind::Var:
                if (auto* g = global(t->text)) t = make_global_ref(*g, t->loc);
                return;
            case TermKind::Ref: ref(*t); return;
            case TermKind::Object:
                for (auto& [k, v] : t->items) {
                    term(k);
                    term(v);
                }
                return;
            case TermKind::Array:
            case TermKind::Call:
                for (auto& e : t->elems) term(e);
                return;
            case TermKind::Set:
                for (auto& e : t->elems) term(e);
                // OPA rebuilds the set (Set.Map): elements that became equal (`{w, data.p.w}`) are one.
                lang::drop_repeated_elems(t->elems);
                return;
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
            case TermKind::ObjectComprehension: {
                VarSet declared;
                declared_vars(*t->body, declared);
                push(std::move(declared));
                if (t->key) term(t->key);
                term(t->value);
                body(*t->body);
                pop();
                return;
            }
            case TermKind::Template:
                for (auto& part : *t->body) expr(part);
                return;
            default: return;
        }
    }

    void ref(Term& r) {
        std::vector<TermPtr> out;
        out.reserve(r.elems.size());
        for (std::size_t i = 0; i < r.elems.size(); ++i) {
            TermPtr& x = r.elems[i];
            if (x->kind == TermKind::Var) {
                if (auto* g = global(x->text)) {
                    TermPtr resolved = make_global_ref(*g, x->loc);
                    if (i == 0) out = resolved->elems;
                    else out.push_back(resolved);
                    continue;
                }
            } else if (!is_scalar(*x)) {
                term(x);
            }
            out.push_back(x);
        }
        r.elems = std::move(out);
    }

    void expr(lang::Expr& e) {
        switch (e.kind) {
            case ExprKind::Term: term(e.term); break;
            case ExprKind::Some:
                if (e.some.in_call)
                    for (auto& a : e.some.in_call->elems) term(a);
                break;
            case ExprKind::Every: {
                VarSet locals;
                if (e.every.key) add_all(locals, vars_of(*e.every.key));
                add_all(locals, vars_of(*e.every.value));
                push(std::move(locals));
                term(e.every.domain);
                body(*e.every.body);
                pop();
                break;
            }
            case ExprKind::Block: body(*e.body); break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr:
                for (auto& c : e.children) expr(c);
                break;
        }
        for (auto& w : e.withs) {
            term(w.target);
            term(w.value);
        }
    }

    void body(lang::Body& b) {
        for (auto& e : b) expr(e);
    }

private:
    Global* global(const std::string& name) {
        auto it = globals_.find(name);
        if (it == globals_.end()) return nullptr;
        for (const auto& s : ignore_)
            if (s.count(name)) return nullptr;
        return &it->second;
    }

    static TermPtr make_global_ref(Global& g, const lang::Location& loc) {
        g.used = true;
        std::vector<TermPtr> parts;
        parts.reserve(g.parts.size());
        for (const auto& p : g.parts) {
            auto c = std::make_shared<Term>(*p);
            c->loc = loc;
            parts.push_back(std::move(c));
        }
        return lang::make_ref(std::move(parts), loc);
    }

    Globals& globals_;
    std::vector<VarSet> ignore_;
};

// The arguments' variables; an argument that is `input` or `data` itself is an error (OPA's message).
void arg_vars(const Term& t, bool in_ref, VarSet& out, std::optional<lang::Diagnostic>& error) {
    switch (t.kind) {
        case TermKind::Var:
            if (!in_ref && (t.text == "input" || t.text == "data") && !error)
                error = lang::Diagnostic::at(
                    t.loc, lang::codes::compile_error,
                    fmt::format("args must not shadow {} (use a different variable name)", t.text));
            out.insert(t.text);
            return;
        case TermKind::Object:  // keys cannot be pattern matched
            for (const auto& [k, v] : t.items) arg_vars(*v, false, out, error);
            return;
        case TermKind::Set:
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension:
        case TermKind::Call: return;
        case TermKind::Ref:
            for (const auto& e : t.elems) arg_vars(*e, true, out, error);
            return;
        case TermKind::Array:
            for (const auto& e : t.elems) arg_vars(*e, false, out, error);
            return;
        case TermKind::Template:
            for (const auto& part : *t.body)
                if (part.term) arg_vars(*part.term, false, out, error);
            return;
        default: return;
    }
}

std::optional<lang::Diagnostic> arg_vars(const lang::RuleHead& head, VarSet& out) {
    std::optional<lang::Diagnostic> error;
    for (const auto& a : head.args) arg_vars(*a, false, out, error);
    return error;
}

}  // namespace

void resolve_refs(CompileContext& ctx) {
    // The rule names of each package, from every module of it (OPA's getExports).
    std::map<std::string, VarSet> exports;
    for (const lang::Module* m : ctx.modules)
        for (const auto& r : m->rules)
            if (r.head.ref && !r.head.ref->elems.empty() && r.head.ref->elems[0]->kind == TermKind::Var)
                exports[to_string(*m->package.path)].insert(r.head.ref->elems[0]->text);
    for (lang::Module* m : ctx.modules) {
        Globals globals;
        auto pkg = package_ref_parts(*m->package.path, m->package.loc);
        for (const auto& name : exports[to_string(*m->package.path)]) {
            Global g{pkg, false};
            g.parts.push_back(lang::make_string(name, m->package.loc));
            globals[name] = std::move(g);
        }
        add_imports(globals, m->imports);
        bool stop = false;
        for_each_rule(*m, [&](lang::Rule& rule) {
            if (stop) return;
            VarSet args;
            if (auto error = arg_vars(rule.head, args)) {
                if (!ctx.error(std::move(*error))) stop = true;
                return;
            }
            Resolver resolver(globals);
            resolver.push(std::move(args));
            VarSet declared;
            declared_vars(rule.body, declared);
            resolver.push(std::move(declared));
            auto& ref = rule.head.ref->elems;
            for (std::size_t i = 1; i < ref.size(); ++i) resolver.term(ref[i]);
            if (rule.head.key) resolver.term(rule.head.key);
            if (rule.head.value) resolver.term(rule.head.value);
            resolver.body(rule.body);
        });
        if (stop) return;
        if (ctx.options.strict) {
            for (const auto& imp : m->imports) {
                if (skipped_import(imp)) continue;
                auto it = globals.find(import_name(imp));
                if (it != globals.end() && !it->second.used) {
                    std::string text = "import " + to_string(*imp.path) + (imp.alias.empty() ? "" : " as " + imp.alias);
                    if (!ctx.error(imp.loc, lang::codes::compile_error, text + " unused")) return;
                }
            }
        }
    }
}

lang::Body resolve_refs_in_query(CompileContext& ctx, lang::Body body) {
    Globals globals;
    if (ctx.query && (ctx.query->package || !ctx.query->imports.empty())) {
        if (ctx.query->package) {
            auto pkg = package_ref_parts(*ctx.query->package, ctx.query->package->loc);
            if (const RuleTreeNode* node = ctx.rule_tree) {
                std::vector<std::string> keys;
                for (const auto& p : pkg) keys.push_back(tree_key(*p));
                if (const RuleTreeNode* at = find_node(*node, keys))
                    for (const auto& [key, child] : at->children) {
                        if (child->rules.empty() && child->children.empty()) continue;
                        Global g{pkg, false};
                        g.parts.push_back(lang::make_string(tree_key_text(key), ctx.query->package->loc));
                        globals[tree_key_text(key)] = std::move(g);
                    }
            }
        }
        add_imports(globals, ctx.query->imports);
    }
    Resolver resolver(globals);
    VarSet declared;
    declared_vars(body, declared);
    resolver.push(std::move(declared));
    resolver.body(body);
    return body;
}

}  // namespace gavel::compiler
