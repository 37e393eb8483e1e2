#include "engine/partial/copy_propagation.hpp"

#include <algorithm>
#include <map>

#include "compiler/ast/output_vars.hpp"
#include "compiler/ast/var_visitor.hpp"

namespace gavel::partial {

namespace {

// Variables that must be equal, each set with at most one constant (OPA's unionFind).
class UnionFind {
public:
    struct Root {
        TermPtr key;       // a var
        TermPtr constant;  // null: none
        TermPtr value() const { return constant ? constant : key; }
    };

    explicit UnionFind(const compiler::VarSet& live) : live_(live) {}

    Root* find(const std::string& v) {
        auto it = parents_.find(v);
        if (it == parents_.end()) return nullptr;
        std::string at = v;
        while (parents_[at] != at) at = parents_[at];
        auto r = roots_.find(at);
        return r == roots_.end() ? nullptr : r->second.get();
    }

    Root* make_set(const TermPtr& v) {
        if (Root* r = find(v->text)) return r;
        parents_[v->text] = v->text;
        auto root = std::make_unique<Root>();
        root->key = v;
        Root* raw = root.get();
        roots_[v->text] = std::move(root);
        return raw;
    }

    // false: the sets hold two different constants.
    bool merge(const TermPtr& a, const TermPtr& b) {
        Root* r1 = make_set(a);
        Root* r2 = make_set(b);
        if (r1 == r2) return true;
        if (!live_.count(r1->key->text)) std::swap(r1, r2);
        parents_[r2->key->text] = r1->key->text;
        TermPtr c2 = r2->constant;
        roots_.erase(r2->key->text);  // r2 is gone from here on
        if (r1->constant && c2 && !equal(*r1->constant, *c2)) return false;
        if (!r1->constant) r1->constant = c2;
        return true;
    }

private:
    const compiler::VarSet& live_;
    std::map<std::string, std::string> parents_;
    std::map<std::string, std::unique_ptr<Root>> roots_;
};

// OPA's ValueMap of removed equalities: var -> value, in insertion order.
struct Removed {
    std::vector<std::pair<TermPtr, TermPtr>> entries;
    TermPtr get(const Term& k) const {
        for (const auto& [key, v] : entries)
            if (equal(*key, k)) return v;
        return nullptr;
    }
    void put(TermPtr k, TermPtr v) {
        for (auto& [key, value] : entries)
            if (equal(*key, *k)) {
                value = std::move(v);
                return;
            }
        entries.emplace_back(std::move(k), std::move(v));
    }
};

struct PlugContext {
    Removed& removed;
    UnionFind& uf;
    const compiler::VarSet& headvars;
    bool negated;
};

TermPtr transform(const PlugContext& p, const TermPtr& t);

// The vars a ref binds (OPA's Ref.OutputVars: every var but the head).
bool ref_output_var(const Term& ref, const std::string& v) {
    compiler::VarVisitorParams params;
    params.skip_ref_head = true;
    compiler::VarVisitor vis(params);
    vis.walk_ref(ref);
    return vis.vars().count(v) > 0;
}

TermPtr plug_var(const PlugContext& p, const TermPtr& v) {
    TermPtr result = v;
    if (auto* root = p.uf.find(v->text)) result = root->value();
    if (result->kind != TermKind::Var) return result;
    TermPtr b = p.removed.get(*result);
    if (!b) return result;
    if (p.negated && !is_ground(*b)) return result;
    if (b->kind == TermKind::Ref && ref_output_var(*b, result->text)) return result;
    return b;
}

TermPtr plug_ref(const PlugContext& p, const TermPtr& ref) {
    std::vector<TermPtr> parts = ref->elems;
    if (!parts.empty() && parts[0]->kind == TermKind::Var)
        if (auto* root = p.uf.find(parts[0]->text)) parts[0] = root->value();
    if (!parts.empty()) {
        if (TermPtr b = p.removed.get(*parts[0])) {
            if (!p.negated || is_ground(*b)) {
                std::vector<TermPtr> base = b->kind == TermKind::Ref ? b->elems : std::vector<TermPtr>{b};
                base.insert(base.end(), parts.begin() + 1, parts.end());
                parts = std::move(base);
            }
        }
    }
    return with_elems(*ref, std::move(parts));
}

Body transform_body(const PlugContext& p, const Body& body);

lang::Expr transform_expr(const PlugContext& p, const lang::Expr& e) {
    lang::Expr out = e;
    if (e.kind == lang::ExprKind::Every) {
        if (e.every.key) out.every.key = transform(p, e.every.key);
        out.every.value = transform(p, e.every.value);
        out.every.domain = transform(p, e.every.domain);
        out.every.body = std::make_shared<Body>(transform_body(p, *e.every.body));
    } else if (e.term) {
        if (is_call(e)) {
            std::vector<TermPtr> terms;
            for (const auto& t : e.term->elems) terms.push_back(transform(p, t));
            out.term = with_elems(*e.term, std::move(terms));
        } else {
            out.term = transform(p, e.term);
            // A variable replaced by a call: the expression holds a call value now.
            if (out.term->kind == TermKind::Call) out.call_value = true;
        }
    }
    for (auto& w : out.withs) {
        w.target = transform(p, w.target);
        w.value = transform(p, w.value);
    }
    return out;
}

Body transform_body(const PlugContext& p, const Body& body) {
    Body out;
    for (const auto& e : body) out.push_back(transform_expr(p, e));
    return out;
}

// OPA's Transform with the binding plug transform: each node is replaced
// first, then the replacement's children are transformed.
TermPtr transform(const PlugContext& p, const TermPtr& t) {
    TermPtr y = t;
    if (t->kind == TermKind::Var) y = plug_var(p, t);
    else if (t->kind == TermKind::Ref) y = plug_ref(p, t);
    switch (y->kind) {
        case TermKind::Ref:
        case TermKind::Array:
        case TermKind::Call:
        case TermKind::Set: {
            std::vector<TermPtr> elems;
            for (const auto& e : y->kind == TermKind::Set ? sorted_elems(*y) : y->elems)
                elems.push_back(transform(p, e));
            auto c = with_elems(*y, std::move(elems));
            c->loc = y->loc;
            return c;
        }
        case TermKind::Object: {
            std::vector<Item> items;
            for (const auto& [k, v] : sorted_items(*y)) items.emplace_back(transform(p, k), transform(p, v));
            return with_items(*y, std::move(items));
        }
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension: {
            auto c = std::make_shared<Term>(*y);
            if (c->key) c->key = transform(p, c->key);
            if (c->value) c->value = transform(p, c->value);
            c->body = std::make_shared<Body>(transform_body(p, *y->body));
            return c;
        }
        default: return y;
    }
}

// Whether `value` is written in `body` (a ref: as a prefix of a ref there),
// outside comprehensions and `every` bodies (OPA's containedIn).
bool contained_in(const Term& value, const TermPtr& t);

bool contained_in_body(const Term& value, const Body& body) {
    for (const auto& e : body) {
        if (e.kind == lang::ExprKind::Every) {
            if ((e.every.key && contained_in(value, e.every.key)) || contained_in(value, e.every.value) ||
                contained_in(value, e.every.domain))
                return true;
            continue;
        }
        if (e.term && is_call(e)) {
            // A call expression is its terms (OPA keeps them as a list, not a call value).
            for (const auto& t : e.term->elems)
                if (contained_in(value, t)) return true;
        } else if (e.term && contained_in(value, e.term)) {
            return true;
        }
        for (const auto& w : e.withs)
            if (contained_in(value, w.target) || contained_in(value, w.value)) return true;
    }
    return false;
}

bool contained_in(const Term& value, const TermPtr& t) {
    if (is_comprehension(*t)) return false;
    if (t->kind == TermKind::Ref) {
        if (value.kind == TermKind::Ref ? ref_has_prefix(*t, value) : equal(*t, value)) return true;
    } else if (equal(*t, value)) {
        return true;
    }
    for (const auto& e : t->elems)
        if (contained_in(value, e)) return true;
    for (const auto& [k, v] : t->items)
        if (contained_in(value, k) || contained_in(value, v)) return true;
    return false;
}

bool is_noop(const lang::Expr& e) {
    if (!is_call(e) && e.kind != lang::ExprKind::Every) {
        if (!e.term || !is_constant(*e.term)) return false;
        return !(e.term->kind == TermKind::Boolean && !e.term->boolean);
    }
    if (is_call(e) && operator_name(e) == "equal" && operand_count(e) >= 2)
        return equal(*operand(e, 0), *operand(e, 1));
    return false;
}

void walk_refs(const TermPtr& t, const std::function<void(const Term&)>& f);

void walk_body_refs(const Body& body, const std::function<void(const Term&)>& f) {
    for (const auto& e : body) {
        if (e.term) walk_refs(e.term, f);
        if (e.kind == lang::ExprKind::Every) {
            if (e.every.key) walk_refs(e.every.key, f);
            walk_refs(e.every.value, f);
            walk_refs(e.every.domain, f);
            walk_body_refs(*e.every.body, f);
        }
        for (const auto& w : e.withs) {
            walk_refs(w.target, f);
            walk_refs(w.value, f);
        }
    }
}

void walk_refs(const TermPtr& t, const std::function<void(const Term&)>& f) {
    if (t->kind == TermKind::Ref) f(*t);
    for (const auto& e : t->elems) walk_refs(e, f);
    for (const auto& [k, v] : t->items) {
        walk_refs(k, f);
        walk_refs(v, f);
    }
    if (t->key) walk_refs(t->key, f);
    if (t->value) walk_refs(t->value, f);
    if (t->body) walk_body_refs(*t->body, f);
}

}  // namespace

Body CopyPropagator::apply(const Body& query) {
    UnionFind uf(live_);
    for (const auto& e : query) {
        if (!is_equality(e) || e.negated || !e.withs.empty()) continue;
        const TermPtr& a = operand(e, 0);
        const TermPtr& b = operand(e, 1);
        bool var_a = a->kind == TermKind::Var, var_b = b->kind == TermKind::Var;
        if (var_a && var_b) {
            if (!uf.merge(a, b)) return query;
        } else if (var_a && is_constant(*b)) {
            auto* root = uf.make_set(a);
            if (root->constant && !equal(*root->constant, *b)) return query;
            root->constant = b;
        } else if (var_b && is_constant(*a)) {
            auto* root = uf.make_set(b);
            if (root->constant && !equal(*root->constant, *a)) return query;
            root->constant = a;
        }
    }

    // Variables written as a ref's head stay variables (their constants are not plugged in).
    compiler::VarSet headvars;
    walk_body_refs(query, [&](const Term& ref) {
        if (ref.elems.empty() || ref.elems[0]->kind != TermKind::Var) return;
        const std::string& v = ref.elems[0]->text;
        if (auto* root = uf.find(v)) {
            root->constant = nullptr;
            headvars.insert(root->key->text);
        } else {
            headvars.insert(v);
        }
    });

    Removed removed;
    Body result;
    for (const auto& original : query) {
        PlugContext p{removed, uf, headvars, original.negated};
        lang::Expr e = transform_expr(p, original);
        bool keep = true;
        if (e.negated || !e.withs.empty()) {
            keep = true;
        } else if (is_equality(e)) {
            const TermPtr& a = operand(e, 0);
            const TermPtr& b = operand(e, 1);
            if (equal(*a, *b)) {
                if (a->kind == TermKind::Ref && !a->elems.empty() && a->elems[0]->kind == TermKind::Var &&
                    live_.count(a->elems[0]->text))
                    removed.put(make_var("__localcp" + std::to_string(next_local_++) + "__"), a);
                keep = false;
            } else {
                auto asym = [&](const TermPtr& x, const TermPtr& y) -> bool {
                    if (x->kind != TermKind::Var || live_.count(x->text)) return true;
                    if (y->kind == TermKind::Ref || y->kind == TermKind::Call) {
                        removed.put(x, y);
                        return false;
                    }
                    return true;
                };
                if (!asym(a, b) || !asym(b, a)) keep = false;
                else keep = !is_noop(e);
            }
        } else if (is_call(e)) {
            const auto& terms = e.term->elems;
            if (program_.arity(*terms[0]) == static_cast<int>(terms.size()) - 2) {
                const TermPtr& output = terms.back();
                if (output->kind == TermKind::Var && !live_.count(output->text) && !headvars.count(output->text)) {
                    removed.put(output, make_call(std::vector<TermPtr>(terms.begin(), terms.end() - 1)));
                    keep = false;
                }
            }
            if (keep) keep = !is_noop(e);
        } else {
            keep = !is_noop(e);
        }
        if (keep) result.push_back(std::move(e));
    }

    // Every live variable bound in the result.
    for (const auto& v : live_) {
        if (auto* root = uf.find(v)) {
            auto var = make_var(v);
            if (root->constant) {
                result.push_back(make_equality(var, root->constant));
            } else if (TermPtr b = removed.get(*root->key)) {
                result.push_back(make_equality(var, b));
            } else if (root->key->text != v) {
                result.push_back(make_equality(var, root->key));
            }
        }
    }

    // Removed equalities that the result still needs: for safety, or so that a
    // ref it tested stays defined.
    compiler::ArityFn arity = [this](const lang::Term& op) { return program_.arity(op); };
    compiler::VarSet safe = live_;
    safe.insert("data");
    safe.insert("input");
    compiler::add_all(safe, compiler::output_vars_for_body(result, arity, safe));
    compiler::VarSet unsafe = compiler::difference(compiler::vars_of(result, compiler::safety_params()), safe);

    std::vector<std::pair<TermPtr, TermPtr>> sorted = removed.entries;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& x, const auto& y) { return compare(*x.first, *y.first) > 0; });
    for (const auto& [k, v] : sorted) {
        lang::Expr removed_eq = make_equality(k, v);
        bool provides_safety = false;
        compiler::VarSet outputs = compiler::output_vars_for_expr(removed_eq, arity, safe);
        if (compiler::difference_count(unsafe, outputs) < unsafe.size()) {
            unsafe = compiler::difference(unsafe, outputs);
            provides_safety = true;
        }
        bool safe_var_ref = v->kind == TermKind::Ref && v->elems.size() == 1 && v->elems[0]->kind == TermKind::Var &&
                            safe.count(v->elems[0]->text);
        if (provides_safety || (!safe_var_ref && !contained_in_body(*v, result))) {
            result.push_back(std::move(removed_eq));
            compiler::add_all(safe, outputs);
        }
    }

    if (!unsafe.empty()) return query;
    if (ensure_non_empty_ && result.empty()) result.push_back(make_term_expr(make_bool(true)));
    return result;
}

}  // namespace gavel::partial
