// Stage: local variables (OPA's rewriteLocalVars). Every variable a rule
// declares (`:=`, `some`, every's key and value, function arguments) is
// renamed to a fresh `__localN__`, scope by scope, so that later stages and
// the planner can treat a name as one variable per rule. Redeclarations are
// errors: `x := 1; x := 2` ("var x assigned above"), `x = 1; x := 2`
// ("referenced above"), `some x; x := 1` ("declared above"), `f(x) if { x
// := 2 }` ("arg x redeclared"), `1 := x` ("cannot assign to number").
// `some x in xs` becomes `x = xs[k]`; a declared variable nothing uses is an
// error, and in strict mode so is an assigned one or an unused argument.

#include <fmt/format.h>

#include <map>

#include "compiler/ast/output_vars.hpp"
#include "lang/term_string.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;
using lang::TermPtr;

namespace {

enum class Occurrence : uint8_t { New, Arg, Seen, Assigned, Declared };

struct Scope {
    std::map<std::string, std::string> vs;  // name -> its name after rewriting
    std::map<std::string, Occurrence> occurrence;
    std::map<std::string, int> count;
};

// OPA's localDeclaredVars: a stack of scopes, and every rename ever made.
class Scopes {
public:
    Scopes() { scopes_.emplace_back(); }

    std::map<std::string, std::string> rewritten;  // generated -> as written
    bool assignment = false;

    void push() { scopes_.emplace_back(); }
    void pop() { scopes_.pop_back(); }
    Scope& peek() { return scopes_.back(); }

    // All scopes collapsed into one (OPA's Copy, which a rule body starts from).
    Scopes collapsed() const {
        Scopes out;
        for (const auto& s : scopes_) {
            out.scopes_[0].vs.insert(s.vs.begin(), s.vs.end());
            out.scopes_[0].occurrence.insert(s.occurrence.begin(), s.occurrence.end());
            out.scopes_[0].count.insert(s.count.begin(), s.count.end());
        }
        out.rewritten = rewritten;
        return out;
    }

    void insert(const std::string& x, const std::string& y, Occurrence o) {
        Scope& s = scopes_.back();
        s.vs[x] = y;
        s.occurrence[x] = o;
        s.count[x] = 1;
        if (x != y) rewritten[y] = x;
    }

    const std::string* declared(const std::string& x) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (auto f = it->vs.find(x); f != it->vs.end()) return &f->second;
        return nullptr;
    }

    Occurrence occurrence(const std::string& x) const {
        auto it = scopes_.back().occurrence.find(x);
        return it == scopes_.back().occurrence.end() ? Occurrence::New : it->second;
    }

    std::optional<Occurrence> global_occurrence(const std::string& x) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (auto f = it->occurrence.find(x); f != it->occurrence.end()) return f->second;
        return std::nullopt;
    }

    void seen(const std::string& x) {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (auto f = it->count.find(x); f != it->count.end()) {
                ++f->second;
                return;
            }
        scopes_.back().count[x] = 1;
    }

    int count(const std::string& x) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (auto f = it->count.find(x); f != it->count.end()) return f->second;
        return 0;
    }

private:
    std::vector<Scope> scopes_;
};

bool root_document(const std::string& v) { return v == "input" || v == "data"; }

class Rewriter {
public:
    Rewriter(VarGenerator& gen, Scopes& scopes, bool strict, const ArityFn& arity)
        : gen_(gen), scopes_(scopes), strict_(strict), arity_(arity) {}

    lang::Diagnostics errors;

    // A body in the current scope; `used` are names its context uses (a rule head, a comprehension's term).
    lang::Body body(lang::Body in, const VarSet& used) {
        // What the unused-variable checks need of the body as written: not a copy of it, which
        // at every level of nested comprehensions copied all the levels below (quadratic).
        const BodyAsWritten original = as_written(in);
        lang::Body out;
        std::size_t errors_before = errors.size();
        for (auto& e : in) {
            std::optional<lang::Expr> r;
            if (is_assignment(e)) {
                scopes_.assignment = true;
                r = assignment(std::move(e));
            } else if (e.kind == ExprKind::Some) {
                r = some_decl(std::move(e));
            } else if (e.kind == ExprKind::Every) {
                r = every(std::move(e));
            } else if (e.kind == ExprKind::Block && e.negated && !e.implicit_body) {
                r = not_block(std::move(e));
            } else if (e.kind == ExprKind::LogicAnd || e.kind == ExprKind::LogicOr) {
                r = logical(std::move(e));
            } else {
                expr_terms(e);
                r = std::move(e);
            }
            if (r) out.push_back(std::move(*r));
        }
        if (out.empty()) out.push_back(lang::make_term_expr(lang::make_bool(true, {}), {}));
        check_unused_assigned(original, out, used, errors_before);
        check_unused_declared(original, used, out, errors_before);
        return out;
    }

    // OPA's rewriteDeclaredVarsInTermRecursive.
    void term_recursive(TermPtr& t) {
        if (term(t)) return;
        for (auto& e : t->elems) term_recursive(e);
        for (auto& [k, v] : t->items) {
            term_recursive(k);
            term_recursive(v);
        }
        if (t->kind == TermKind::Template)
            for (auto& part : *t->body) expr_terms(part);
    }

    // The variables of a comprehension: a scope of its own.
    void comprehension(Term& t) {
        VarSet used;
        if (t.key) add_all(used, vars_of(*t.key));
        add_all(used, vars_of(*t.value));
        scopes_.push();
        *t.body = body(std::move(*t.body), used);
        if (t.key) term_recursive(t.key);
        term_recursive(t.value);
        scopes_.pop();
    }

private:
    void error(const lang::Location& loc, std::string message) {
        errors.add(loc, lang::codes::compile_error, std::move(message));
    }

    // A fresh name for `v` declared here, or an error when this scope has seen it.
    std::optional<std::string> declare(const std::string& v, Occurrence o, const lang::Location& loc) {
        switch (scopes_.occurrence(v)) {
            case Occurrence::Seen:
                error(loc, fmt::format("var {} referenced above", display_var(v)));
                return std::nullopt;
            case Occurrence::Assigned:
                error(loc, fmt::format("var {} assigned above", display_var(v)));
                return std::nullopt;
            case Occurrence::Declared:
                error(loc, fmt::format("var {} declared above", display_var(v)));
                return std::nullopt;
            case Occurrence::Arg: error(loc, fmt::format("arg {} redeclared", display_var(v))); return std::nullopt;
            case Occurrence::New: break;
        }
        std::string gv = gen_.next();
        scopes_.insert(v, gv, o);
        return gv;
    }

    // OPA's rewriteDeclaredVarsInTerm: true when the term's insides are done.
    bool term(TermPtr& t) {
        switch (t->kind) {
            case TermKind::Var: {
                const std::string& v = t->text;
                if (root_document(v)) {  // a bare `input`: only a local declared so replaces it
                    auto occ = scopes_.global_occurrence(v);
                    if (occ && *occ != Occurrence::Seen)
                        if (const std::string* gv = scopes_.declared(v)) t->text = *gv;
                    return true;
                }
                var(*t);
                return true;
            }
            case TermKind::Ref:
                if (t->elems[0]->kind == TermKind::Var) var(*t->elems[0]);
                else term_recursive(t->elems[0]);
                for (std::size_t i = 1; i < t->elems.size(); ++i) term_recursive(t->elems[i]);
                return true;
            case TermKind::Call: {
                const Term& op = *t->elems[0];
                for (const auto& p : op.elems)
                    if (p->kind == TermKind::Var)
                        if (const std::string* gv = scopes_.declared(p->text); gv && *gv != p->text)
                            error(t->loc, fmt::format("called function {} shadowed", to_string(op)));
                return false;
            }
            case TermKind::Object:
                for (auto& [k, v] : t->items) {
                    term_recursive(k);
                    term_recursive(v);
                }
                return true;
            case TermKind::Set:
                for (auto& e : t->elems) term_recursive(e);
                return true;
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
            case TermKind::ObjectComprehension: comprehension(*t); return true;
            default: return false;
        }
    }

    void var(Term& t) {
        if (const std::string* gv = scopes_.declared(t.text)) {
            std::string name = t.text;
            t.text = *gv;
            scopes_.seen(name);
        } else if (scopes_.occurrence(t.text) == Occurrence::New) {
            scopes_.insert(t.text, t.text, Occurrence::Seen);
        }
    }

    // OPA's rewriteDeclaredVarsInExpr: every term of the expression in the current scope.
    void expr_terms(lang::Expr& e) {
        switch (e.kind) {
            case ExprKind::Term:
                if (e.term->kind == TermKind::Call) {
                    // A call expression's terms one by one (its operator's name counts as an occurrence, as in OPA).
                    for (auto& x : e.term->elems) term_recursive(x);
                } else {
                    term_recursive(e.term);
                }
                break;
            case ExprKind::Some:
                for (auto& v : e.some.vars) term_recursive(v);
                if (e.some.in_call) term_recursive(e.some.in_call);
                break;
            case ExprKind::Every:
                if (e.every.key) term_recursive(e.every.key);
                term_recursive(e.every.value);
                term_recursive(e.every.domain);
                for (auto& x : *e.every.body) expr_terms(x);
                break;
            case ExprKind::Block:
                for (auto& x : *e.body) expr_terms(x);
                break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr:
                for (auto& c : e.children) expr_terms(c);
                break;
        }
        for (auto& w : e.withs) with(w);
    }

    void with(lang::With& w) {
        term_recursive(w.target);
        // `with input as ...` names the input document even where a local shadows `input`.
        if (const std::string* shadow = scopes_.declared("input")) {
            if (w.target->kind == TermKind::Var && w.target->text == *shadow) w.target->text = "input";
            else if (w.target->kind == TermKind::Ref && w.target->elems[0]->kind == TermKind::Var &&
                     w.target->elems[0]->text == *shadow)
                w.target->elems[0]->text = "input";
        }
        term_recursive(w.value);
    }

    std::optional<lang::Expr> assignment(lang::Expr e) {
        if (e.negated) {
            error(e.loc, "cannot assign vars inside negated expression");
            return e;
        }
        std::size_t before = errors.size();
        if (operand_count(e) != 2) return e;
        term_recursive(e.term->elems[2]);
        for (auto& w : e.withs) term_recursive(w.value);
        lhs(e.term->elems[1]);
        if (errors.size() == before) {
            lang::Location loc = e.term->elems[0]->loc;
            e.term->elems[0] = lang::make_ref({lang::make_var("eq", loc)}, loc);
        }
        return e;
    }

    // The left of `:=`: variables (also in arrays and object values) are declared.
    void lhs(TermPtr& t) {
        switch (t->kind) {
            case TermKind::Var:
                if (auto gv = declare(t->text, Occurrence::Assigned, t->loc)) t->text = *gv;
                return;
            case TermKind::Array:
                for (auto& e : t->elems) lhs(e);
                return;
            case TermKind::Object:
                for (auto& [k, v] : t->items) lhs(v);
                return;
            default: error(t->loc, fmt::format("cannot assign to {}", value_name(*t))); return;
        }
    }

    std::optional<lang::Expr> some_decl(lang::Expr e) {
        if (!e.some.in_call) {
            for (const auto& v : e.some.vars)
                if (!declare(v->text, Occurrence::Declared, e.loc)) return std::nullopt;
            return std::nullopt;  // a declaration only: nothing to evaluate
        }
        auto& args = e.some.in_call->elems;  // operator, then (key,) value, collection
        TermPtr key, value, collection;
        if (args.size() == 4) {
            key = args[1];
            value = args[2];
            collection = args[3];
        } else {
            key = lang::make_var(gen_.next(), {});
            value = args[1];
            collection = args[2];
        }
        TermPtr rhs;
        if (collection->kind == TermKind::Ref) {
            rhs = lang::make_ref(collection->elems, collection->loc);
            rhs->elems.push_back(key);
        } else {
            rhs = lang::make_ref({collection, key}, collection->loc);
        }
        lang::Expr eq = make_equality(value, rhs, e.loc, false);
        eq.withs = std::move(e.withs);
        for (const auto& v : output_vars_for_expr(eq, arity_, vars_of(*collection)))
            if (!declare(v, Occurrence::Declared, e.loc)) return std::nullopt;
        expr_terms(eq);
        return eq;
    }

    std::optional<lang::Expr> every(lang::Expr e) {
        term_recursive(e.every.domain);
        scopes_.push();
        if (e.every.key) {
            if (!is_wildcard_var(e.every.key->text)) {
                auto gv = declare(e.every.key->text, Occurrence::Declared, e.loc);
                if (!gv) {
                    scopes_.pop();
                    return std::nullopt;
                }
                e.every.key->text = *gv;
            }
        } else {
            e.every.key = lang::make_var(gen_.next(), {});
        }
        if (!is_wildcard_var(e.every.value->text)) {
            auto gv = declare(e.every.value->text, Occurrence::Declared, e.loc);
            if (!gv) {
                scopes_.pop();
                return std::nullopt;
            }
            e.every.value->text = *gv;
        }
        *e.every.body = body(std::move(*e.every.body), {});
        expr_terms(e);
        scopes_.pop();
        return e;
    }

    std::optional<lang::Expr> not_block(lang::Expr e) {
        scopes_.push();
        *e.body = body(std::move(*e.body), {});
        expr_terms(e);
        scopes_.pop();
        return e;
    }

    std::optional<lang::Expr> logical(lang::Expr e) {
        for (auto& c : e.children) {
            if (c.kind != ExprKind::Block || c.negated) continue;  // explicit `{ ... }` operands only
            scopes_.push();
            *c.body = body(std::move(*c.body), {});
            scopes_.pop();
        }
        expr_terms(e);
        return e;
    }

    // Of a body before rewriting: where it starts, and what each `some` declares, by name as written.
    struct BodyAsWritten {
        lang::Location start;
        std::vector<std::pair<lang::Location, VarSet>> declarations;
    };

    static BodyAsWritten as_written(const lang::Body& in) {
        BodyAsWritten out;
        if (!in.empty()) out.start = in.front().loc;
        for (const auto& e : in) {
            if (e.kind != ExprKind::Some) continue;
            VarSet names;
            for (const auto& v : e.some.vars) names.insert(v->text);
            if (e.some.in_call)
                for (std::size_t i = 1; i + 1 < e.some.in_call->elems.size(); ++i)
                    add_all(names, vars_of(*e.some.in_call->elems[i]));
            out.declarations.emplace_back(e.loc, std::move(names));
        }
        return out;
    }

    void check_unused_assigned(const BodyAsWritten& original, const lang::Body& rewritten, const VarSet& used,
                               std::size_t errors_before) {
        if (!strict_ || errors.size() > errors_before) return;
        Scope& s = scopes_.peek();
        VarSet unused;
        for (const auto& [v, occ] : s.occurrence)
            if (occ == Occurrence::Assigned && !is_wildcard_var(v) && scopes_.count(v) <= 1) unused.insert(s.vs[v]);
        if (unused.empty()) return;
        VarSet rewritten_used;
        for (const auto& v : used) rewritten_used.insert(scopes_.declared(v) ? *scopes_.declared(v) : v);
        unused = difference(unused, rewritten_used);
        std::map<std::string, std::string> reversed;
        for (const auto& [k, v] : s.vs) reversed[v] = k;
        for (const auto& gv : unused) {
            const lang::Location* at = nullptr;
            for (const auto& e : rewritten)
                if (vars_of(e).count(gv)) {
                    at = &e.loc;
                    break;
                }
            error(at ? *at : original.start, fmt::format("assigned var {} unused", reversed[gv]));
        }
    }

    void check_unused_declared(const BodyAsWritten& original, const VarSet& used, const lang::Body& rewritten,
                               std::size_t errors_before) {
        if (errors.size() > errors_before) return;
        Scope& s = scopes_.peek();
        VarSet declared;
        for (const auto& [v, occ] : s.occurrence)
            if (occ == Occurrence::Declared) declared.insert(s.vs[v]);
        if (declared.empty()) return;
        VarSet body_vars = vars_of(rewritten);
        for (const auto& v : used) body_vars.insert(scopes_.declared(v) ? *scopes_.declared(v) : v);
        VarSet unused = difference(difference(declared, body_vars), used);
        std::map<std::string, std::string> reversed;
        for (const auto& [k, v] : s.vs) reversed[v] = k;
        for (const auto& gv : unused) {
            const std::string& name = reversed[gv];
            if (is_generated_var(name)) continue;
            const lang::Location* at = nullptr;
            for (const auto& [loc, names] : original.declarations)
                if (names.count(name)) {
                    at = &loc;
                    break;
                }
            error(at ? *at : original.start, fmt::format("declared var {} unused", display_var(name)));
        }
    }

    VarGenerator& gen_;
    Scopes& scopes_;
    bool strict_;
    const ArityFn& arity_;
};

// Function arguments: every variable renamed (the same name twice is one variable).
void rewrite_args(VarGenerator& gen, Scopes& scopes, lang::RuleHead& head, lang::Diagnostics& errors) {
    std::function<void(TermPtr&)> walk = [&](TermPtr& t) {
        switch (t->kind) {
            case TermKind::Var:
                if (const std::string* gv = scopes.declared(t->text)) {
                    scopes.seen(t->text);
                    t->text = *gv;
                } else {
                    std::string fresh = gen.next();
                    scopes.insert(t->text, fresh, Occurrence::Arg);
                    t->text = fresh;
                }
                return;
            case TermKind::Object:
                for (auto& [k, v] : t->items) walk(v);
                return;
            case TermKind::Call:
                errors.add(t->loc, lang::codes::compile_error, "rule arguments cannot contain calls");
                return;
            case TermKind::Ref:
            case TermKind::Array:
                for (auto& e : t->elems) walk(e);
                return;
            default: return;  // scalars, sets, comprehensions, templates
        }
    };
    for (auto& a : head.args) walk(a);
}

void replace_declared(TermPtr& t, const std::map<std::string, std::string>& declared) {
    walk_terms(*t, [&](Term& x) {
        if (x.kind == TermKind::Var)
            if (auto it = declared.find(x.text); it != declared.end()) x.text = it->second;
        return false;
    });
}

// One clause of a rule (OPA's rewriteLocalVarsInRule).
Scopes rewrite_clause(CompileContext& ctx, lang::Rule& rule, VarSet& unused_args, const Scopes& args_scopes,
                      lang::Diagnostics& errors) {
    bool only_scalars = !head_may_have_vars(rule.head);
    VarSet used;
    if (!only_scalars) {
        // Comprehensions in the head (arguments, key, value: OPA's walk of the head) have
        // scopes of their own, rewritten first.
        std::vector<TermPtr*> head_terms;
        for (auto& a : rule.head.args) head_terms.push_back(&a);
        head_terms.push_back(&rule.head.key);
        head_terms.push_back(&rule.head.value);
        for (TermPtr* t : head_terms) {
            if (!*t) continue;
            walk_terms(**t, [&](Term& x) {
                if (!is_comprehension(x)) return false;
                Scopes fresh;
                Rewriter r(ctx.gen, fresh, ctx.options.strict, ctx.arity_fn());
                r.comprehension(x);
                errors.append(r.errors);
                for (const auto& [k, v] : fresh.rewritten) ctx.rewritten_vars[k] = v;
                return true;
            });
        }
        for (std::size_t i = 1; i < rule.head.ref->elems.size(); ++i)
            if (!is_scalar(*rule.head.ref->elems[i])) add_all(used, vars_of(*rule.head.ref->elems[i]));
        if (rule.head.key && !is_scalar(*rule.head.key)) add_all(used, vars_of(*rule.head.key));
        if (rule.head.value && !is_scalar(*rule.head.value)) {
            VarSet value_vars = vars_of(*rule.head.value);
            add_all(used, value_vars);
            for (const auto& v : value_vars) unused_args.erase(v);
        }
    }
    Scopes scopes = args_scopes.collapsed();
    Rewriter r(ctx.gen, scopes, ctx.options.strict, ctx.arity_fn());
    rule.body = r.body(std::move(rule.body), used);
    errors.append(r.errors);
    for (const auto& [k, v] : scopes.rewritten) ctx.rewritten_vars[k] = v;
    if (only_scalars) return scopes;
    const auto& declared = scopes.peek().vs;
    for (auto& a : rule.head.args) replace_declared(a, declared);
    for (std::size_t i = 1; i < rule.head.ref->elems.size(); ++i) replace_declared(rule.head.ref->elems[i], declared);
    if (rule.head.key) replace_declared(rule.head.key, declared);
    if (rule.head.value) replace_declared(rule.head.value, declared);
    return scopes;
}

}  // namespace

void rewrite_local_vars(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules) {
        for (auto& rule : m->rules) {
            VarSet unused_args;
            if (ctx.options.strict && !rule.head.args.empty()) {
                VarVisitor args;
                args.walk_args(rule.head.args);
                unused_args = args.vars();
            }
            Scopes args_scopes;
            lang::Diagnostics errors;
            rewrite_args(ctx.gen, args_scopes, rule.head, errors);
            for (const auto& [k, v] : args_scopes.rewritten) ctx.rewritten_vars[k] = v;
            if (!errors.empty()) {
                for (const auto& d : errors)
                    if (!ctx.error(d)) return;
            }
            for (lang::Rule* clause = &rule; clause; clause = clause->else_rule.get()) {
                lang::Diagnostics clause_errors;
                Scopes scopes = rewrite_clause(ctx, *clause, unused_args, args_scopes, clause_errors);
                bool stop = false;
                for (const auto& d : clause_errors)
                    if (!ctx.error(d)) stop = true;
                if (stop) return;
                for (auto it = unused_args.begin(); it != unused_args.end();)
                    it = scopes.count(*it) > 1 ? unused_args.erase(it) : std::next(it);
            }
            if (ctx.options.strict) {
                for (const auto& arg : unused_args)
                    if (!is_wildcard_var(arg) &&
                        !ctx.error(rule.head.loc, lang::codes::compile_error,
                                   fmt::format("unused argument {}. (hint: use _ (wildcard variable) instead)", arg)))
                        return;
            }
        }
    }
}

lang::Body rewrite_local_vars_in_query(CompileContext& ctx, lang::Body body) {
    Scopes scopes;
    Rewriter r(ctx.gen, scopes, ctx.options.strict, ctx.arity_fn());
    lang::Body out = r.body(std::move(body), {});
    for (const auto& d : r.errors)
        if (!ctx.error(d)) break;
    ctx.rewritten_vars = scopes.rewritten;
    return out;
}

}  // namespace gavel::compiler
