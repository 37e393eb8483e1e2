// References: into data (base documents and rules, OPA's evalTree,
// evalVirtual, evalVirtualPartial, evalVirtualComplete), into values
// (evalTerm), and calls of functions (evalFunc); with the support rules
// partial evaluation writes for rules it cannot inline.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "compiler/ast/var_visitor.hpp"
#include "engine/partial/evaluator_impl.hpp"

namespace gavel::partial {

namespace {

bool is_false(const Term& t) { return t.kind == TermKind::Boolean && !t.boolean; }

// The value at `path[from..]` inside a term (OPA's Value.Find); null when there is none.
TermPtr find_in(const TermPtr& doc, const std::vector<TermPtr>& path, std::size_t from) {
    TermPtr at = doc;
    for (std::size_t i = from; i < path.size() && at; ++i) {
        const Term& key = *path[i];
        switch (at->kind) {
            case TermKind::Object: at = object_get(*at, key); break;
            case TermKind::Set: at = set_contains(*at, key) ? path[i] : nullptr; break;
            case TermKind::Array: {
                if (key.kind != TermKind::Number) return nullptr;
                int64_t idx = -1;
                auto [p, ec] = std::from_chars(key.text.data(), key.text.data() + key.text.size(), idx);
                if (ec != std::errc() || p != key.text.data() + key.text.size() || idx < 0 ||
                    static_cast<std::size_t>(idx) >= at->elems.size())
                    return nullptr;
                at = at->elems[static_cast<std::size_t>(idx)];
                break;
            }
            default: return nullptr;
        }
    }
    return at;
}

// OPA's mergeObjects: a's keys win where the two are not both objects.
TermPtr merge_objects(const TermPtr& a, const TermPtr& b) {
    if (a->kind != TermKind::Object || b->kind != TermKind::Object) return a;
    std::vector<Item> items;
    for (const auto& [k, v] : sorted_items(*a)) {
        TermPtr v2 = object_get(*b, *k);
        if (v2 && v->kind == TermKind::Object && v2->kind == TermKind::Object)
            items.emplace_back(k, merge_objects(v, v2));
        else items.emplace_back(k, v);
    }
    for (const auto& [k, v] : sorted_items(*b))
        if (!object_get(*a, *k)) items.emplace_back(k, v);
    return make_object(std::move(items));
}

TermPtr wrap_in_objects(const TermPtr& leaf, const std::vector<TermPtr>& ref, std::size_t from) {
    if (from >= ref.size()) return leaf;
    return make_object({{ref[from], wrap_in_objects(leaf, ref, from + 1)}});
}

std::size_t max_ref_length(const std::vector<const Rule*>& rules, std::size_t ceil) {
    std::size_t l = 0;
    for (const Rule* r : rules) {
        std::size_t rl = r->full_ref->elems.size() + (r->multi_value() ? 1 : 0);
        if (rl >= ceil) return ceil;
        if (rl > l) l = rl;
    }
    return l;
}

// OPA's Head.Vars(): the variables of args, key, value and the ref after its first part.
compiler::VarSet head_vars(const SupportRule& r) {
    compiler::VarSet out;
    for (const auto& a : r.args) compiler::add_all(out, compiler::vars_of(*a));
    if (r.key) compiler::add_all(out, compiler::vars_of(*r.key));
    if (r.value) compiler::add_all(out, compiler::vars_of(*r.value));
    for (std::size_t i = 1; i < r.ref.size(); ++i) compiler::add_all(out, compiler::vars_of(*r.ref[i]));
    return out;
}

// A head made from a ref as OPA's RefHead makes it.
SupportRule ref_head(std::vector<TermPtr> rule_ref, TermPtr value) {
    SupportRule r;
    if (rule_ref.size() < 2 && !rule_ref.empty()) r.name = rule_ref[0]->text;
    r.ref = std::move(rule_ref);
    r.value = std::move(value);
    return r;
}

bool parse_index(const Term& t, std::size_t& out) {
    if (t.kind != TermKind::Number) return false;
    int64_t i = -1;
    auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), i);
    if (ec != std::errc() || p != t.text.data() + t.text.size() || i < 0) return false;
    out = static_cast<std::size_t>(i);
    return true;
}

}  // namespace

// ---------------------------------------------------------------------------
// Keys and caches.

std::string term_key(const Term& t, bool any_var) {
    std::string out;
    switch (t.kind) {
        case TermKind::Null: return "n";
        case TermKind::Boolean: return t.boolean ? "t" : "f";
        case TermKind::Number: {
            auto n = runtime::Number::parse(t.text);
            return "#" + (n.ok ? n.value.to_string() : t.text);
        }
        case TermKind::String: return fmt::format("s{}:{}", t.text.size(), t.text);
        case TermKind::Var: return any_var ? "v_" : "v:" + t.text;  // in scope markers every var is the same
        case TermKind::Object:
            out = "{";
            for (const auto& [k, v] : sorted_items(t)) out += term_key(*k, any_var) + ":" + term_key(*v, any_var) + ",";
            return out + "}";
        case TermKind::Set:
            out = "<";
            for (const auto& e : sorted_elems(t)) out += term_key(*e, any_var) + ",";
            return out + ">";
        default:
            // A call stands for a scope marker of the virtual cache (OPA's vcKeyScope).
            if (t.kind == TermKind::Call) any_var = true;
            out = fmt::format("({}", static_cast<int>(t.kind));
            for (const auto& e : t.elems) out += term_key(*e, any_var) + ",";
            return out + ")";
    }
}

namespace {

std::string ref_key(const std::vector<TermPtr>& ref) {
    std::string out;
    for (const auto& p : ref) out += term_key(*p, false) + "/";
    return out;
}

}  // namespace

std::pair<TermPtr, bool> VirtualCache::get(const std::vector<TermPtr>& ref) const {
    const auto& top = stack_.back();
    auto it = top.find(ref_key(ref));
    if (it == top.end()) return {nullptr, false};
    if (it->second.undefined) return {nullptr, true};
    return {it->second.value, false};
}

void VirtualCache::put(const std::vector<TermPtr>& ref, TermPtr value) {
    auto& e = stack_.back()[ref_key(ref)];
    if (value) e.value = std::move(value);
    else e.undefined = true;
}

bool Evaluator::targets_prefixed(const Term& ref) const {
    for (auto it = target_stack_.rbegin(); it != target_stack_.rend(); ++it)
        for (const auto& t : *it)
            if (ref_has_prefix(ref, *t)) return true;
    return false;
}

TermPtr Evaluator::namespace_ref(const Term& ref) const {
    return ref_insert(ref, make_string(options_.partial_namespace), 1);
}

// ---------------------------------------------------------------------------
// Documents.

Resolved Evaluator::resolve(Frame& e, const Term& ref) {
    if (inlining_.disabled_ref(ref, true) || save_set_.contains(ref, nullptr)) return {true, nullptr};
    if (ref.elems.empty()) return {};
    const Term& head = *ref.elems[0];
    if (is_var(head, "args")) return {true, nullptr};  // partial evaluation knows no call's arguments
    if (is_var(head, "input")) {
        if (!e.input) return {};
        return {false, find_in(e.input, ref.elems, 1)};
    }
    if (!is_var(head, "data")) halt("eval_internal_error", "illegal ref");
    TermPtr replaced = e.data ? find_in(e.data, ref.elems, 1) : nullptr;
    if (targets_prefixed(ref)) return {false, replaced};
    for (std::size_t i = 1; i < ref.elems.size(); ++i)
        if (!is_scalar(*ref.elems[i])) return {false, replaced};

    std::string key = ref_key(ref.elems);
    TermPtr base;
    if (auto it = base_cache_.find(key); it != base_cache_.end()) {
        base = it->second;
    } else if (options_.data) {
        read_base_data_ = true;
        const runtime::Value* at = options_.data;
        for (std::size_t i = 1; i < ref.elems.size() && at; ++i) {
            const Term& part = *ref.elems[i];
            if (at->is_object()) {
                auto k = to_value(part);
                at = k ? at->find(*k) : nullptr;
            } else if (at->is_array()) {
                std::size_t idx = 0;
                at = parse_index(part, idx) && idx < at->size() ? &at->array_elements()[idx] : nullptr;
            } else if (at->is_set()) {
                auto k = to_value(part);
                at = k && at->contains(*k) ? at : nullptr;
                if (at) {
                    base = from_value(*k);
                    at = nullptr;
                    i = ref.elems.size();
                }
            } else {
                at = nullptr;
            }
        }
        if (at) {
            if (ref.elems.size() == 1 && at->is_object()) {
                runtime::ObjectBuilder b;
                for (const auto& entry : at->object_entries())
                    if (!(entry.key.is_string() && entry.key.as_string() == "system")) b.insert(entry.key, entry.value);
                base = from_value(b.build());
            } else {
                base = from_value(*at);
            }
        }
        base_cache_[key] = base;
    }
    if (!base) return {false, replaced};
    if (!replaced) return {false, base};
    if (replaced->kind == TermKind::Object && base->kind == TermKind::Object)
        return {false, merge_objects(replaced, base)};
    return {false, replaced};
}

IndexResult Evaluator::get_rules(Frame& e, const Term& ref) {
    const RuleIndex* index = program_.index(ref);
    if (!index) return {};
    if (!options_.rule_indexing) return index->all_rules();
    return index->lookup([&](const Term& r) { return resolve(e, r); });
}

// ---------------------------------------------------------------------------
// evalTerm: a ref into a value (or a variable's value).

namespace {

struct TermWalk {
    Evaluator& ev;
    Frame& e;
    TermPtr ref;
    std::size_t pos;
    Bindings* bindings;
    TermPtr term;
    Bindings* termbindings;
    TermPtr rterm;
    Bindings* rbindings;

    void eval(Iter iter) {
        if (ref->elems.size() == pos) {
            ev.biunify(e, term, rterm, termbindings, rbindings, iter);
            return;
        }
        if (ev.save_set_.contains(*term, termbindings)) {
            save(iter);
            return;
        }
        TermPtr plugged = bindings->plug(ref->elems[pos]);
        if (is_ground(*plugged)) next(iter, plugged);
        else enumerate(iter);
    }

    void next(Iter iter, const TermPtr& plugged) {
        auto [t, b] = get(plugged);
        if (!t) return;
        TermWalk cpy = *this;
        cpy.term = t;
        cpy.termbindings = b;
        cpy.pos = pos + 1;
        cpy.eval(iter);
    }

    void enumerate(Iter iter) {
        switch (term->kind) {
            case TermKind::Array:
                for (std::size_t i = 0; i < term->elems.size(); ++i) {
                    TermPtr a = make_int(static_cast<int64_t>(i));
                    TermPtr b = ref->elems[pos];
                    if (b->kind != TermKind::Var) continue;
                    std::tie(b, bindings) = bindings->apply(b);
                    bindings->bind(b, a, bindings);
                    next(iter, a);
                    bindings->unbind(b->text);
                }
                break;
            case TermKind::Object:
                for (const auto& [k, v] : sorted_items(*term)) {
                    TermPtr key = k;
                    ev.biunify(e, key, ref->elems[pos], termbindings, bindings,
                               [&] { next(iter, termbindings->plug(key)); });
                }
                break;
            case TermKind::Set:
                for (const auto& elem : sorted_elems(*term))
                    ev.biunify(e, elem, ref->elems[pos], termbindings, bindings,
                               [&] { next(iter, termbindings->plug(elem)); });
                break;
            default: break;
        }
    }

    std::pair<TermPtr, Bindings*> get(const TermPtr& plugged) {
        switch (term->kind) {
            case TermKind::Set:
                if (is_ground(*term)) {
                    if (set_contains(*term, *plugged)) return termbindings->apply(plugged);
                } else {
                    for (const auto& elem : sorted_elems(*term))
                        if (equal(*termbindings->plug(elem), *plugged)) return termbindings->apply(plugged);
                }
                break;
            case TermKind::Object:
                if (is_ground(*term)) {
                    if (TermPtr v = object_get(*term, *plugged)) return termbindings->apply(v);
                } else {
                    for (const auto& [k, v] : sorted_items(*term))
                        if (equal(*termbindings->plug(k), *plugged)) return termbindings->apply(v);
                }
                break;
            case TermKind::Array: {
                std::size_t i = 0;
                if (parse_index(*plugged, i) && i < term->elems.size()) return termbindings->apply(term->elems[i]);
                break;
            }
            default: break;
        }
        return {nullptr, nullptr};
    }

    void save(Iter iter) {
        TermPtr v = ev.generate_var(fmt::format("ref_{}", e.genvarid));
        ++e.genvarid;
        ev.biunify(e, term, v, termbindings, bindings, [&] {
            std::vector<TermPtr> parts{v};
            parts.insert(parts.end(), ref->elems.begin() + static_cast<long>(pos), ref->elems.end());
            ev.biunify(e, make_ref(std::move(parts)), rterm, bindings, rbindings, iter);
        });
    }
};

// ---------------------------------------------------------------------------
// Rules: evalVirtual and its kinds.

struct VirtualWalk {
    Evaluator& ev;
    Frame& e;
    TermPtr ref;
    std::vector<TermPtr> plugged;  // ref's parts, ground up to pos
    std::size_t pos;
    Bindings* bindings;
    TermPtr rterm;
    Bindings* rbindings;

    TermPtr plugged_prefix(std::size_t n) const {
        return make_ref(
            std::vector<TermPtr>(plugged.begin(), plugged.begin() + static_cast<long>(std::min(n, plugged.size()))));
    }

    void eval_term(Iter iter, std::size_t at, const TermPtr& term, Bindings* termbindings) {
        TermWalk{ev, e, ref, at, bindings, term, termbindings, rterm, rbindings}.eval(iter);
    }

    // The support rule of a rule clause, written when its body is fully
    // evaluated; `complete`: a single-value rule at `path`.
    bool support_rule(const Rule& rule, const TermPtr& path, bool complete, const TermPtr& empty) {
        (void)empty;
        Frame c = ev.child(e, rule.body);
        ev.save_stack_.push_query({});
        bool defined = false;
        ev.eval(c, [&](Frame& child) {
            defined = true;
            SaveQuery current = ev.save_stack_.pop_query();
            Body body = plug_query(current, ev.caller_);
            if (ev.passes_type_check(body)) {
                SupportRule head;
                std::vector<TermPtr> pkg;
                if (complete) {
                    auto [p, rule_ref] = split_package_and_rule(*path);
                    pkg = std::move(p);
                    head = ref_head(std::move(rule_ref), child.bindings->plug_namespaced(rule.value, ev.caller_));
                } else {
                    TermPtr value = rule.value ? child.bindings->plug_namespaced(rule.value, ev.caller_) : nullptr;
                    TermPtr full = ev.namespace_ref(*rule.full_ref);
                    std::vector<TermPtr> parts = full->elems;
                    for (std::size_t i = 1; i < parts.size(); ++i)
                        parts[i] = child.bindings->plug_namespaced(parts[i], ev.caller_);
                    auto [p, rule_ref] = split_package_and_rule(*make_ref(parts));
                    pkg = std::move(p);
                    head = ref_head(rule_ref, value);
                    if (rule.key && rule.multi_value())
                        head.key = child.bindings->plug_namespaced(rule.key, ev.caller_);
                    if (!rule.multi_value() && rule_ref.size() == 2) head.key = rule_ref[1];
                    if (head.name.empty() && (rule_ref.size() == 1 || (rule_ref.size() == 2 && !rule.multi_value())))
                        head.name = rule_ref[0]->text;
                }
                if (!ev.inlining_.shallow) {
                    CopyPropagator cp(head_vars(head), ev.program_);
                    cp.ensure_non_empty_body(true);
                    body = cp.apply(body);
                }
                head.is_default = rule.is_default;
                head.body = std::move(body);
                ev.save_support_.insert_by_package(pkg, std::move(head));
            }
            ev.save_stack_.push_query(std::move(current));
        });
        ev.save_stack_.pop_query();
        return defined;
    }
};

struct VirtualComplete : VirtualWalk {
    const IndexResult& ir;

    VirtualComplete(const VirtualWalk& w, const IndexResult& ir) : VirtualWalk(w), ir(ir) {}

    void eval(Iter iter) {
        if (ir.empty()) return;
        if ((!ir.rules.empty() && !ir.rules[0]->args.empty()) || (ir.default_rule && !ir.default_rule->args.empty()))
            return;
        if (!ev.unknown_ref(ref, bindings)) {
            eval_value(iter);
            return;
        }
        bool generate_support = false;
        if (ir.default_rule) {
            if (!(is_false(*ir.default_rule->value) && ev.inlining_.disabled(*rterm, false))) {
                TermPtr r = rbindings->plug(rterm);
                generate_support = !is_constant(*r) || equal(*ir.default_rule->value, *r);
            }
        }
        if (generate_support || ev.inlining_.shallow || ev.inlining_.disabled_ref(*plugged_prefix(pos + 1), false)) {
            partial_eval_support(iter);
            return;
        }
        for (const Rule* rule : ir.rules) {
            Frame c = ev.child(e, rule->body);
            ev.eval(c, [&](Frame& child) {
                auto [term, tb] = child.bindings->apply(rule->value);
                eval_term(iter, pos + 1, term, tb);
            });
        }
    }

    void eval_value(Iter iter) {
        std::vector<TermPtr> key(plugged.begin(), plugged.begin() + static_cast<long>(pos + 1));
        auto [cached, undefined] = ev.virtual_cache_.get(key);
        if (undefined) return;
        if (cached) {
            eval_term(iter, pos + 1, cached, bindings);
            return;
        }
        TermPtr prev;
        for (const Rule* rule : ir.rules) {
            TermPtr next = eval_value_rule(iter, *rule, prev, key);
            if (!next) {
                auto it = ir.else_rules.find(rule);
                if (it != ir.else_rules.end())
                    for (const Rule* erule : it->second) {
                        next = eval_value_rule(iter, *erule, prev, key);
                        if (next) break;
                    }
            }
            if (next) prev = next;
        }
        if (ir.default_rule && !prev) {
            eval_value_rule(iter, *ir.default_rule, prev, key);
            return;
        }
        if (!prev) ev.virtual_cache_.put(key, nullptr);
    }

    TermPtr eval_value_rule(Iter iter, const Rule& rule, TermPtr prev, const std::vector<TermPtr>& key) {
        Frame c = ev.child(e, rule.body);
        TermPtr result;
        ev.eval(c, [&](Frame& child) {
            result = child.bindings->plug(rule.value);
            if (prev) {
                if (!equal(*result, *prev))
                    halt("eval_conflict_error", "complete rules must not produce multiple outputs", rule.loc);
                return;
            }
            prev = result;
            ev.virtual_cache_.put(key, result);
            auto [term, tb] = child.bindings->apply(rule.value);
            eval_term(iter, pos + 1, term, tb);
        });
        return result;
    }

    void partial_eval_support(Iter iter) {
        TermPtr path = ev.namespace_ref(*plugged_prefix(pos + 1));
        TermPtr term = ev.namespace_ref(*ref);
        bool defined = ev.save_support_.exists(*path);
        if (!defined) {
            for (const Rule* rule : ir.rules)
                if (support_rule(*rule, path, true, nullptr)) defined = true;
            if (ir.default_rule && support_rule(*ir.default_rule, path, true, nullptr)) defined = true;
        }
        if (!defined) return;
        ev.save_unify(e, term, rterm, bindings, rbindings, iter);
    }
};

struct VirtualPartial : VirtualWalk {
    const IndexResult& ir;
    TermPtr empty;

    VirtualPartial(const VirtualWalk& w, const IndexResult& ir, TermPtr empty)
        : VirtualWalk(w), ir(ir), empty(std::move(empty)) {}

    void eval(Iter iter) {
        bool unknown = ev.unknown(ref_prefix(*ref, pos + 1), bindings);
        if (ref->elems.size() == pos + 1) {
            if (unknown) partial_eval_support(iter);
            else eval_all_rules(iter);
            return;
        }
        if ((unknown && ev.inlining_.shallow) || ev.inlining_.disabled_ref(*ref_prefix(*ref, pos + 1), false)) {
            partial_eval_support(iter);
            return;
        }
        eval_each_rule(iter, unknown);
    }

    void eval_each_rule(Iter iter, bool unknown) {
        if (ir.empty()) return;
        std::size_t m = max_ref_length(ir.rules, ref->elems.size());
        std::vector<TermPtr> rest;
        for (std::size_t i = pos + 1; i < m; ++i) rest.push_back(ref->elems[i]);
        if (ev.unknown(make_ref(rest), bindings)) {
            for (const Rule* rule : ir.rules) eval_one_rule_post_unify(iter, *rule);
            return;
        }

        // OPA's evalCache: a cached extent, or what to cache.
        std::vector<TermPtr> hint_key;
        bool hint_full = false;
        if (!unknown) {
            std::vector<TermPtr> prefix(plugged.begin(), plugged.begin() + static_cast<long>(pos + 1));
            if (auto [cached, undefined] = ev.virtual_cache_.get(prefix); cached) {
                eval_term(iter, pos + 1, cached, bindings);
                return;
            }
            TermPtr next = bindings->plug(ref->elems[pos + 1]);
            if (next->kind == TermKind::Var) {
                hint_full = true;
                hint_key = prefix;
            } else {
                bool scoping = false;
                std::size_t key_end = 0;
                std::vector<TermPtr> scope;
                for (std::size_t i = pos + 1; i < m; ++i) {
                    TermPtr p = bindings->plug(ref->elems[i]);
                    if (is_ground(*p) && !scoping) {
                        key_end = i;
                        hint_key.assign(plugged.begin(), plugged.begin() + static_cast<long>(i));
                        hint_key.push_back(p);
                    } else {
                        scoping = true;
                        if (hint_key.empty()) break;
                        scope.push_back(p);
                    }
                    std::vector<TermPtr> k = hint_key;
                    if (!scope.empty()) k.push_back(make_call(scope));  // the scope marker
                    if (auto [cached, undefined] = ev.virtual_cache_.get(k); cached) {
                        eval_term(iter, key_end + 1, cached, bindings);
                        return;
                    }
                }
                // Vars at the end of the scope do not narrow it.
                while (!scope.empty() && scope.back()->kind == TermKind::Var) scope.pop_back();
                if (!scope.empty() && !hint_key.empty()) hint_key.push_back(make_call(scope));
            }
        }

        if (hint_full) {
            TermPtr result = eval_all_rules_no_cache();
            ev.virtual_cache_.put(hint_key, result);
            eval_term(iter, pos + 1, result, bindings);
            return;
        }

        TermPtr result = empty;
        std::vector<TermPtr> visited;
        for (const Rule* rule : ir.rules) result = eval_one_rule_pre_unify(iter, *rule, result, unknown, visited);

        if (!hint_key.empty()) {
            std::vector<TermPtr> path = hint_key;
            if (path.back()->kind == TermKind::Call) path.pop_back();
            if (TermPtr v = find_in(result, path, pos + 1)) ev.virtual_cache_.put(hint_key, v);
        }
        if (!unknown) eval_term(iter, pos + 1, result, bindings);
    }

    void eval_all_rules(Iter iter) {
        std::vector<TermPtr> key(plugged.begin(), plugged.begin() + static_cast<long>(pos + 1));
        if (auto [cached, undefined] = ev.virtual_cache_.get(key); cached) {
            ev.biunify(e, cached, rterm, bindings, rbindings, iter);
            return;
        }
        TermPtr result = eval_all_rules_no_cache();
        ev.virtual_cache_.put(key, result);
        ev.biunify(e, result, rterm, bindings, rbindings, iter);
    }

    TermPtr eval_all_rules_no_cache() {
        TermPtr result = empty;
        std::vector<TermPtr> visited;
        for (const Rule* rule : ir.rules) {
            Frame c = ev.child(e, rule->body);
            ev.eval(c, [&](Frame& child) { result = reduce(*rule, child.bindings, result, visited).first; });
        }
        return result;
    }

    TermPtr eval_one_rule_pre_unify(Iter iter, const Rule& rule, TermPtr result, bool unknown,
                                    std::vector<TermPtr>& visited) {
        Frame c = ev.child(e, rule.body);
        TermPtr head_key = rule.key ? rule.key : rule.reference.back();
        ev.biunify_rule_head(c, pos + 1, *ref, rule, bindings, c.bindings, [&](std::size_t) {
            ev.eval(c, [&](Frame& child) {
                TermPtr term = rule.value ? rule.value : head_key;
                if (unknown) {
                    auto [t, tb] = child.bindings->apply(term);
                    if (rule.multi_value()) t = make_set({t});
                    t = wrap_in_objects(t, rule.full_ref->elems, pos + 1);
                    eval_term(iter, pos + 1, t, tb);
                } else {
                    result = reduce(rule, child.bindings, result, visited).first;
                }
            });
        });
        return result;
    }

    void eval_one_rule_post_unify(Iter iter, const Rule& rule) {
        Frame c = ev.child(e, rule.body);
        ev.eval(c, [&](Frame& child) {
            ev.biunify_rule_head(e, pos + 1, *ref, rule, bindings, child.bindings, [&](std::size_t) {
                TermPtr term = rule.value ? rule.value : rule.key;
                auto [t, tb] = child.bindings->apply(term);
                if (rule.multi_value()) t = make_set({t});
                t = wrap_in_objects(t, rule.full_ref->elems, pos + 1);
                eval_term(iter, pos + 1, t, tb);
            });
        });
    }

    // Adds what a rule produced to the document built so far (OPA's reduce).
    std::pair<TermPtr, bool> reduce(const Rule& rule, Bindings* b, const TermPtr& result,
                                    std::vector<TermPtr>& visited) {
        if (result->kind == TermKind::Set) {
            TermPtr key = b->plug(rule.key);
            bool exists = set_contains(*result, *key);
            std::vector<TermPtr> elems = result->elems;
            if (!exists) elems.push_back(key);
            return {make_set(std::move(elems)), exists};
        }
        const auto& full = rule.full_ref->elems;
        std::vector<TermPtr> collision(full.begin() + static_cast<long>(pos + 1), full.end());
        TermPtr collision_path = b->plug(make_ref(collision));
        for (const auto& c : visited)
            if (ref_has_prefix(*collision_path, *c) && !equal(*collision_path, *c))
                halt("eval_conflict_error", "object keys must be unique", rule.loc);
        visited.push_back(collision_path);

        std::vector<TermPtr> obj_path;
        for (std::size_t i = pos + 1; i + 1 < full.size(); ++i) obj_path.push_back(b->plug(full[i]));
        TermPtr leaf_key = b->plug(full.back());
        bool exists = false;

        // Rebuilds the nested objects along obj_path with the leaf updated.
        std::function<TermPtr(const TermPtr&, std::size_t)> update = [&](const TermPtr& obj, std::size_t i) -> TermPtr {
            std::vector<Item> items = sorted_items(*obj);
            if (i < obj_path.size()) {
                for (auto& [k, v] : items)
                    if (equal(*k, *obj_path[i])) {
                        if (v->kind != TermKind::Object)
                            halt("eval_conflict_error", "object keys must be unique", rule.loc);
                        v = update(v, i + 1);
                        return make_object(std::move(items));
                    }
                items.emplace_back(obj_path[i], update(make_object({}), i + 1));
                return make_object(std::move(items));
            }
            if (!rule.multi_value()) {
                TermPtr val = b->plug(rule.value);
                for (auto& [k, v] : items)
                    if (equal(*k, *leaf_key)) {
                        if (!equal(*v, *val)) halt("eval_conflict_error", "object keys must be unique", rule.loc);
                        exists = true;
                        return obj;
                    }
                items.emplace_back(leaf_key, val);
                return make_object(std::move(items));
            }
            TermPtr key = b->plug(rule.key);
            for (auto& [k, v] : items)
                if (equal(*k, *leaf_key)) {
                    if (v->kind != TermKind::Set) halt("eval_conflict_error", "object keys must be unique", rule.loc);
                    exists = set_contains(*v, *key);
                    std::vector<TermPtr> elems = v->elems;
                    if (!exists) elems.push_back(key);
                    v = make_set(std::move(elems));
                    return make_object(std::move(items));
                }
            items.emplace_back(leaf_key, make_set({key}));
            return make_object(std::move(items));
        };
        return {update(result, 0), exists};
    }

    void partial_eval_support(Iter iter) {
        TermPtr path = ev.namespace_ref(*plugged_prefix(pos + 1));
        TermPtr term = ev.namespace_ref(*ref);
        bool defined = ev.save_support_.exists(*path);
        if (!defined)
            for (const Rule* rule : ir.rules)
                if (support_rule(*rule, path, false, empty)) defined = true;
        if (!defined) {
            if (ref->elems.size() != pos + 1) return;
            term = empty;  // the whole (empty) document was asked for
        }
        ev.save_unify(e, term, rterm, bindings, rbindings, iter);
    }
};

void eval_virtual(const VirtualWalk& w, Iter iter) {
    IndexResult ir = w.ev.get_rules(w.e, *w.plugged_prefix(w.pos + 1));
    if (!ir.else_rules.empty() && w.ev.unknown_ref(w.ref, w.bindings)) {
        w.ev.save_unify(w.e, w.ref, w.rterm, w.bindings, w.rbindings, iter);
        return;
    }
    if (ir.multi_value) {
        VirtualPartial(w, ir, ir.only_ground_refs ? make_set({}) : make_object({})).eval(iter);
    } else if (ir.only_ground_refs) {
        VirtualComplete(w, ir).eval(iter);
    } else {
        VirtualPartial(w, ir, make_object({})).eval(iter);
    }
}

// ---------------------------------------------------------------------------
// evalTree: a ref into data, through base documents and the rule tree.

struct TreeWalk {
    Evaluator& ev;
    Frame& e;
    TermPtr ref;
    std::size_t pos;
    std::vector<TermPtr> plugged;
    Bindings* bindings;
    TermPtr rterm;
    Bindings* rbindings;
    const TreeNode* node;

    TermPtr plugged_ref(std::size_t n) const {
        return make_ref(
            std::vector<TermPtr>(plugged.begin(), plugged.begin() + static_cast<long>(std::min(n, plugged.size()))));
    }

    void eval(Iter iter) {
        if (ref->elems.size() == pos) {
            finish(iter);
            return;
        }
        TermPtr p = bindings->plug(ref->elems[pos]);
        if (is_ground(*p)) next(iter, p);
        else enumerate(iter);
    }

    void finish(Iter iter) {
        TermPtr whole = make_ref(plugged);
        if (ev.unknown_ref(whole, bindings)) {
            ev.save_unify(e, whole, rterm, bindings, rbindings, iter);
            return;
        }
        TermPtr v = extent();
        if (!v) return;
        ev.biunify(e, rterm, v, rbindings, bindings, iter);
    }

    void next(Iter iter, const TermPtr& p) {
        TreeWalk cpy = *this;
        cpy.plugged[pos] = p;
        cpy.pos = pos + 1;
        const TreeNode* child = nullptr;
        if (!ev.targets_prefixed(*cpy.plugged_ref(cpy.pos))) {
            if (node) {
                child = node->child(*p);
                if (child && !child->values.empty()) {
                    eval_virtual(VirtualWalk{ev, e, ref, cpy.plugged, pos, bindings, rterm, rbindings}, iter);
                    return;
                }
            }
        }
        cpy.node = child;
        cpy.eval(iter);
    }

    void enumerate(Iter iter) {
        if (ev.inlining_.disabled_ref(*plugged_ref(pos), true)) {
            ev.save_unify(e, make_ref(plugged), rterm, bindings, rbindings, iter);
            return;
        }
        Resolved doc = ev.resolve(e, *plugged_ref(pos));
        if (doc.unknown) halt("eval_internal_error", "unknown value");
        if (doc.value) {
            switch (doc.value->kind) {
                case TermKind::Array:
                    for (std::size_t i = 0; i < doc.value->elems.size(); ++i) {
                        TermPtr k = make_int(static_cast<int64_t>(i));
                        ev.biunify(e, k, ref->elems[pos], bindings, bindings, [&] { next(iter, k); });
                    }
                    break;
                case TermKind::Object:
                    for (const auto& [k, v] : sorted_items(*doc.value)) {
                        TermPtr key = k;
                        ev.biunify(e, key, ref->elems[pos], bindings, bindings, [&] { next(iter, key); });
                    }
                    break;
                case TermKind::Set:
                    for (const auto& elem : sorted_elems(*doc.value))
                        ev.biunify(e, elem, ref->elems[pos], bindings, bindings, [&] { next(iter, elem); });
                    break;
                default: break;
            }
        }
        if (!node) return;
        for (const auto& c : node->children) {
            TermPtr key = c->key;
            ev.biunify(e, key, ref->elems[pos], bindings, bindings, [&] { next(iter, key); });
        }
    }

    TermPtr extent() {
        Resolved base = ev.resolve(e, *make_ref(plugged));
        if (base.unknown) halt("eval_internal_error", "unknown value");
        TermPtr virt = node ? leaves(plugged, *node) : nullptr;
        if (!virt) return base.value;
        if (base.value) {
            return merge_objects(base.value, virt);
        }
        return virt;
    }

    TermPtr leaves(std::vector<TermPtr> path, const TreeNode& at) {
        std::vector<Item> items;
        for (const auto& c : at.children) {
            if (c->hide) continue;
            path.push_back(c->key);
            TermPtr save;
            if (!c->values.empty()) {
                TermPtr rt = ev.generate_var("leaf");
                ev.unify(e, make_ref(path), rt, [&] { save = e.bindings->plug(rt); });
            } else {
                save = leaves(path, *c);
            }
            if (save) items.emplace_back(c->key, save);
            path.pop_back();
        }
        return make_object(std::move(items));
    }
};

}  // namespace

void Evaluator::biunify_ref(Frame& e, const TermPtr& a, const TermPtr& b, Bindings* b1, Bindings* b2, Iter iter) {
    const Term& head = *a->elems[0];
    if (is_var(head, "data")) {
        TreeWalk w{*this, e, a, 1, a->elems, b1, b, b2, program_.root().child(head)};
        w.eval(iter);
        return;
    }
    TermPtr term;
    Bindings* termbindings = b1;
    if (is_var(head, "input")) {
        term = e.input;
    } else {
        auto [t, tb] = b1->apply(a->elems[0]);
        if (t != a->elems[0]) {
            term = t;
            termbindings = tb;
        }
    }
    if (!term) return;
    TermWalk{*this, e, a, 1, b1, term, termbindings, b, b2}.eval(iter);
}

// ---------------------------------------------------------------------------
// Functions (OPA's evalFunc).

void Evaluator::eval_func(Frame& e, const std::vector<TermPtr>& terms, const IndexResult& ir, Iter iter) {
    if (ir.empty()) return;
    std::size_t arg_count = !ir.rules.empty() ? ir.rules[0]->args.size() : ir.default_rule->args.size();

    if (!ir.else_rules.empty() && unknown_expr(e.expr(), e.bindings)) {
        save_call(e, static_cast<int>(arg_count), terms, iter);
        return;
    }

    bool must_support = false;
    if (const Rule* def = ir.default_rule) {
        if (def->args.size() == terms.size() - 1) must_support = !def->value || !is_false(*def->value);
        else must_support = true;
    }
    const TermPtr& op = terms[0];
    if (must_support || inlining_.shallow || inlining_.disabled_ref(*op, false)) {
        bool unk = unknown_ref(op, e.bindings);
        for (std::size_t i = 1; !unk && i <= arg_count && i < terms.size(); ++i) unk = unknown(terms[i], e.bindings);
        if (unk) {
            // Support rules for the function, and a call of them in its place.
            TermPtr path = namespace_ref(*op);
            auto support_rule = [&](const Rule& rule) {
                Frame c = child(e, rule.body);
                save_stack_.push_query({});
                std::vector<TermPtr> args;
                for (const auto& a : rule.args) {
                    // OPA's WalkVars order: as the vars appear.
                    std::function<void(const TermPtr&)> walk = [&](const TermPtr& t) {
                        if (t->kind == TermKind::Var) args.push_back(make_var(t->text));
                        for (const auto& x : t->elems) walk(x);
                        for (const auto& [k, v] : t->items) {
                            walk(k);
                            walk(v);
                        }
                    };
                    walk(a);
                }
                save_set_.push(args, c.bindings);
                eval(c, [&](Frame& ch) {
                    SaveQuery current = save_stack_.pop_query();
                    Body body = plug_query(current, caller_);
                    if (passes_type_check(body)) {
                        SupportRule r;
                        r.name = rule.name;
                        r.ref = rule.reference;
                        r.value = ch.bindings->plug_namespaced(rule.value, caller_);
                        for (const auto& a : rule.args) r.args.push_back(ch.bindings->plug_namespaced(a, caller_));
                        r.is_default = rule.is_default;
                        r.body = std::move(body);
                        save_support_.insert(*path, std::move(r));
                    }
                    save_stack_.push_query(std::move(current));
                });
                save_set_.pop();
                save_stack_.pop_query();
            };
            if (!save_support_.exists(*path)) {
                for (const Rule* rule : ir.rules) support_rule(*rule);
                if (ir.default_rule) support_rule(*ir.default_rule);
            }
            if (!save_support_.exists(*path)) return;
            std::vector<TermPtr> call{path};
            call.insert(call.end(), terms.begin() + 1, terms.end());
            save_call(e, static_cast<int>(arg_count), std::move(call), iter);
            return;
        }
    }

    // Each rule (and its else clauses), then the default.
    std::vector<TermPtr> args(terms.size() - 1);
    TermPtr prev;
    auto eval_one = [&](const Rule& rule) -> TermPtr {
        for (std::size_t i = 0; i < args.size() && i < rule.args.size(); ++i) args[i] = rule.args[i];
        if (args.size() == rule.args.size() + 1) args.back() = rule.value;
        Frame c = child(e, rule.body);
        TermPtr result;
        TermPtr local_prev = prev;
        std::vector<TermPtr> callee(terms.begin() + 1, terms.end());
        biunify_terms(c, callee, args, e.bindings, c.bindings, [&] {
            eval(c, [&](Frame& ch) {
                if (rule.args.size() == terms.size() - 1 && save_set_.contains(*rule.value, ch.bindings)) {
                    save_expr(e, make_term_expr(rule.value), ch.bindings, iter);
                    return;
                }
                result = ch.bindings->plug(rule.value);
                if (rule.args.size() == terms.size() - 1 && is_false(*result)) {
                    if (local_prev && !equal(*local_prev, *result))
                        halt("eval_conflict_error", "functions must not produce multiple outputs for same inputs",
                             rule.loc);
                    local_prev = result;
                    return;
                }
                local_prev = result;
                iter();
            });
        });
        return result;
    };
    for (const Rule* rule : ir.rules) {
        TermPtr next = eval_one(*rule);
        if (!next) {
            auto it = ir.else_rules.find(rule);
            if (it != ir.else_rules.end())
                for (const Rule* erule : it->second) {
                    next = eval_one(*erule);
                    if (next) break;
                }
        }
        if (next) prev = next;
    }
    if (ir.default_rule && !prev) eval_one(*ir.default_rule);
}

}  // namespace gavel::partial
