#include "compiler/safety.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "compiler/ast/output_vars.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/context.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;

namespace {

UnsafeEntry* find(UnsafeVars& u, const void* id) {
    auto it = u.find(id);
    return it == u.end() ? nullptr : &it->second;
}

void add(UnsafeVars& u, const lang::Expr& e, const std::string& v) {
    auto [it, fresh] = u.try_emplace(&e, UnsafeEntry{e.loc, {}});
    it->second.vars.insert(v);
}

void set(UnsafeVars& u, const lang::Expr& e, VarSet vars) {
    u.insert_or_assign(&e, UnsafeEntry{e.loc, std::move(vars)});
}

void merge(UnsafeVars& into, const UnsafeVars& from) {
    for (const auto& [id, e] : from) {
        auto [it, fresh] = into.try_emplace(id, e);
        if (!fresh) add_all(it->second.vars, e.vars);
    }
}

void forget(UnsafeVars& u, const void* id) { u.erase(id); }

// OPA's unsafeVarsInClosures: every variable inside the expression's closures.
void closure_vars(const lang::Expr& e, VarVisitor& vis) {
    auto in_term = [&](const Term& root) {
        walk_terms(root, [&](const Term& t) {
            if (is_comprehension(t)) {
                vis.walk(t);
                return true;
            }
            return false;
        });
    };
    if (e.term) in_term(*e.term);
    switch (e.kind) {
        case ExprKind::Every:
            in_term(*e.every.domain);
            vis.walk(*e.every.body);
            break;
        case ExprKind::Block: vis.walk(*e.body); break;
        case ExprKind::LogicAnd:
        case ExprKind::LogicOr:
            for (const auto& c : e.children) {
                if (c.kind == ExprKind::Block) vis.walk(*c.body);
                else vis.walk(c);
            }
            break;
        default: break;
    }
    for (const auto& w : e.withs) {
        in_term(*w.target);
        in_term(*w.value);
    }
}

// The variables bound around a body: its own additions over what encloses it,
// looked up through the layers. A long body of closures would otherwise copy a
// set that grows with the body once per closure (quadratic).
class EnclosingVars {
public:
    explicit EnclosingVars(const VarSet& base) : base_(&base) {}
    explicit EnclosingVars(const EnclosingVars* outer) : outer_(outer) {}  // a layer over `outer`
    EnclosingVars(const EnclosingVars&) = delete;
    EnclosingVars& operator=(const EnclosingVars&) = delete;

    bool count(const std::string& v) const {
        for (const EnclosingVars* layer = this; layer; layer = layer->outer_)
            if (layer->own_.count(v) || (layer->base_ && layer->base_->count(v))) return true;
        return false;
    }
    void add(const VarSet& vars) { add_all(own_, vars); }

private:
    const EnclosingVars* outer_ = nullptr;
    const VarSet* base_ = nullptr;
    VarSet own_;
};

UnsafeVars reorder_within(const ArityFn& arity, const EnclosingVars& globals, lang::Body& body);

// OPA's bodySafetyTransformer: the nested bodies of one expression, checked
// against what encloses them.
class NestedBodies {
public:
    NestedBodies(const ArityFn& arity, EnclosingVars& globals, UnsafeVars& unsafe, const lang::Expr& current)
        : arity_(arity), globals_(globals), unsafe_(unsafe), current_(current) {}

    void expr(lang::Expr& e) {
        if (e.term) term(*e.term);
        switch (e.kind) {
            case ExprKind::Every:
                if (e.every.domain) term(*e.every.domain);
                if (e.every.key) globals_.add(vars_of(*e.every.key));
                globals_.add(vars_of(*e.every.value));
                reorder({}, *e.every.body);
                break;
            case ExprKind::Block: reorder({}, *e.body); break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr:
                for (auto& c : e.children) {
                    if (c.kind == ExprKind::Block) {
                        reorder({}, *c.body);
                    } else {
                        lang::Body one{std::move(c)};
                        reorder({}, one);
                        c = std::move(one.front());
                    }
                }
                break;
            default: break;
        }
        for (auto& w : e.withs) {
            term(*w.target);
            term(*w.value);
        }
    }

private:
    void term(Term& root) {
        walk_terms(root, [&](Term& t) {
            if (!is_comprehension(t)) return false;
            VarSet head = vars_of(*t.value);
            if (t.key) add_all(head, vars_of(*t.key));
            reorder(head, *t.body);
            return true;
        });
    }

    void reorder(const VarSet& head_vars, lang::Body& body) {
        // (globals_ grows with the enclosing body: looked up, never copied.)
        VarSet bound = vars_of(body, safety_params(&arity_));
        for (const auto& v : head_vars)
            if (!bound.count(v) && !globals_.count(v)) add(unsafe_, current_, v);
        UnsafeVars inner = reorder_within(arity_, globals_, body);
        merge(unsafe_, inner);
    }

    const ArityFn& arity_;
    EnclosingVars& globals_;
    UnsafeVars& unsafe_;
    const lang::Expr& current_;
};

UnsafeVars reorder_within(const ArityFn& arity, const EnclosingVars& globals, lang::Body& body) {
    const VarVisitorParams params = safety_params(&arity);
    VarSet body_vars = vars_of(body, params);
    VarSet safe;
    for (const auto& v : body_vars)
        if (globals.count(v)) safe.insert(v);
    UnsafeVars unsafe;
    for (const auto& e : body)
        for (const auto& v : vars_of(e, params))
            if (!safe.count(v)) add(unsafe, e, v);

    std::vector<std::size_t> order;
    std::vector<bool> done(body.size(), false);
    VarSet scratch;  // OPA's `output`, shared by every expression's outputs (output_vars_for_expr)
    while (true) {
        std::size_t n = order.size();
        for (std::size_t i = 0; i < body.size(); ++i) {
            if (done[i]) continue;
            const lang::Expr& e = body[i];
            VarSet outputs = output_vars_for_expr(e, arity, safe, &scratch);
            // Variables the expression's closures use from this body must be bound already.
            VarVisitor in_closures;
            closure_vars(e, in_closures);
            VarSet closure;
            for (const auto& v : in_closures.vars())
                if (body_vars.count(v) && !globals.count(v)) closure.insert(v);
            VarSet missing;
            if (!closure.empty()) {
                lang::Body so_far;
                for (std::size_t j : order) so_far.push_back(body[j]);
                missing = difference(closure, output_vars_for_body(so_far, arity, safe));
            }
            if (!missing.empty()) {
                if (missing == outputs) continue;  // the expression binds what its own closure uses
                set(unsafe, e, missing);
            }
            if (auto* entry = find(unsafe, &e)) {
                for (auto it = entry->vars.begin(); it != entry->vars.end();)
                    it = outputs.count(*it) || safe.count(*it) ? entry->vars.erase(it) : std::next(it);
                if (!entry->vars.empty()) continue;
                forget(unsafe, &e);
            }
            done[i] = true;
            order.push_back(i);
            add_all(safe, outputs);
        }
        if (order.size() == n) break;
    }

    // Nested bodies, each with what the expressions before it may have bound.
    EnclosingVars g(&globals);
    for (std::size_t k = 0; k < order.size(); ++k) {
        if (k > 0) g.add(vars_of(body[order[k - 1]], params));
        NestedBodies nested(arity, g, unsafe, body[order[k]]);
        nested.expr(body[order[k]]);
    }

    if (unsafe.empty()) {
        lang::Body reordered;
        reordered.reserve(body.size());
        for (std::size_t i : order) reordered.push_back(std::move(body[i]));
        body = std::move(reordered);
    }
    return unsafe;
}

}  // namespace

UnsafeVars reorder_body_for_safety(const ArityFn& arity, const VarSet& globals, lang::Body& body) {
    return reorder_within(arity, EnclosingVars(globals), body);
}

void report_unsafe(CompileContext& ctx, const UnsafeVars& unsafe) {
    if (unsafe.empty()) return;
    auto before = [](const lang::Location& a, const lang::Location& b) {
        if (a.file() != b.file()) return a.file() < b.file();
        if (a.line != b.line) return a.line < b.line;
        return a.col < b.col;
    };
    // Each variable at the first place it is unsafe.
    std::map<std::string, lang::Location> first;
    for (const auto& [id, e] : unsafe)
        for (const auto& v : e.vars) {
            auto it = first.find(v);
            if (it == first.end() || before(e.loc, it->second)) first[v] = e.loc;
        }
    // By location; at one location (OPA's order there is random) named variables
    // first, by name, then wildcards (`_`).
    std::vector<std::tuple<std::string, lang::Location, std::string>> vars;  // var, where, as written
    for (const auto& [v, loc] : first) vars.emplace_back(v, loc, display_var(ctx.original_name(v)));
    std::stable_sort(vars.begin(), vars.end(), [&](const auto& a, const auto& b) {
        if (before(std::get<1>(a), std::get<1>(b))) return true;
        if (before(std::get<1>(b), std::get<1>(a))) return false;
        bool wa = std::get<2>(a) == "_", wb = std::get<2>(b) == "_";
        if (wa != wb) return wb;
        return std::get<2>(a) < std::get<2>(b);
    });
    bool reported = false;
    for (const auto& [v, loc, shown] : vars) {
        if (is_generated_var(ctx.original_name(v))) continue;
        reported = true;
        std::string message =
            shown == "in" || shown == "every" || shown == "contains" || shown == "if"
                ? fmt::format("var {0} is unsafe (hint: `import future.keywords.{0}` to import a future keyword)",
                              shown)
                : fmt::format("var {} is unsafe", shown);
        if (!ctx.error(loc, lang::codes::unsafe_var_error, message)) return;
    }
    if (reported) return;
    // Only generated variables: name the expressions instead, one per new such variable.
    std::vector<const UnsafeEntry*> pairs;
    for (const auto& [id, e] : unsafe) pairs.push_back(&e);
    std::stable_sort(pairs.begin(), pairs.end(), [&](const auto* a, const auto* b) { return before(a->loc, b->loc); });
    VarSet seen;
    for (const auto* e : pairs) {
        std::size_t n = seen.size();
        for (const auto& v : e->vars)
            if (is_generated_var(v)) seen.insert(v);
        if (seen.size() > n && !ctx.error(e->loc, lang::codes::unsafe_var_error, "expression is unsafe")) return;
    }
}

}  // namespace gavel::compiler
