#include "compiler/types/checker.hpp"

#include "lang/term_string.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/types/unifies.hpp"

namespace gavel::compiler::types {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;

namespace {

// What a term is to the checker. `input` and `data` written bare are refs
// (OPA's parser makes them one-part refs).
enum class Shape { Scalar, Var, Ref, Array, Object, Set, Comprehension, Other };

Shape shape(const Term& t) {
    switch (t.kind) {
        case TermKind::Null:
        case TermKind::Boolean:
        case TermKind::Number:
        case TermKind::String: return Shape::Scalar;
        case TermKind::Var: return is_root_document(t) ? Shape::Ref : Shape::Var;
        case TermKind::Ref: return Shape::Ref;
        case TermKind::Array: return Shape::Array;
        case TermKind::Object: return Shape::Object;
        case TermKind::Set: return Shape::Set;
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension: return Shape::Comprehension;
        default: return Shape::Other;
    }
}

bool is_call(const lang::Expr& e) { return e.kind == ExprKind::Term && e.term && e.term->kind == TermKind::Call; }

// The parts of a ref (a bare var is a ref of one part).
std::size_t part_count(const Term& ref) { return ref.kind == TermKind::Ref ? ref.elems.size() : 1; }
const Term& part(const Term& ref, std::size_t i) { return ref.kind == TermKind::Ref ? *ref.elems[i] : ref; }

TypePtr element_type(const TypePtr& array_type, std::size_t i) {
    return i < array_type->elems.size() ? array_type->elems[i] : array_type->of;
}

struct Nesting {
    std::size_t& depth;
    explicit Nesting(std::size_t& d) : depth(d) { ++depth; }
    ~Nesting() { --depth; }
};

}  // namespace

Checker::Checker(std::function<std::string(const std::string&)> original_name)
    : original_name_(std::move(original_name)) {}

// ---- bodies and rules ------------------------------------------------------------

std::pair<EnvPtr, TypeErrors> Checker::check_body(const EnvPtr& parent, const lang::Body& body) {
    if (depth_ == 0) bodies_left_ = kBodyBudget;
    Nesting nesting(depth_);
    EnvPtr env = wrap(parent);
    TypeErrors errors;
    if (bodies_left_ == 0) return {env, errors};
    --bodies_left_;
    for (const auto& e : body) {
        TypeErrors closures = check_closures(env, e);
        TypeErrors refs;
        check_refs_in_expr(env, e, refs);
        bool more_precise = !closures.empty() || !refs.empty();
        errors.insert(errors.end(), closures.begin(), closures.end());
        errors.insert(errors.end(), refs.begin(), refs.end());
        // An error from an unknown type is most likely the consequence of one just reported.
        if (auto err = check_expr(env, e); err && !(more_precise && err->nil_cause)) errors.push_back(std::move(*err));
    }
    return {env, errors};
}

void Checker::check_rule(const EnvPtr& global, const lang::Rule& rule, const Term& path, TypeErrors& out,
                         const std::vector<DocumentSchema>& schemas) {
    EnvPtr rule_env = wrap(global);
    // The memo knows tree nodes by address: forget rule_env's before they go away with it.
    struct Forget {
        Memo& memo;
        const TypeTree& tree;
        std::vector<std::vector<std::string>> paths;  // where the schemas went in rule_env
        ~Forget() {
            for (const auto& p : paths) memo.forget_path(tree, p);
        }
    } typed{memo_, rule_env->tree, {}};
    for (const auto& schema : schemas) {
        std::vector<std::string> put;
        if (auto err = apply_document_schema(*rule_env, schema, memo_, put)) {
            out.push_back(plain_error(rule.loc, *err));
            continue;
        }
        typed.paths.push_back(std::move(put));
    }
    auto checked = check_body(rule_env, rule.body);
    // Named, not a structured binding: lambdas below capture it.
    const EnvPtr body_env = checked.first;
    const auto& errors = checked.second;
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < part_count(path); ++i) keys.push_back(node_key(part(path, i)));
    if (!errors.empty()) {
        out.insert(out.end(), errors.begin(), errors.end());
        // Whatever refers to this rule is not to fail because of it.
        global->tree.put(keys, A);
        memo_.forget_path(global->tree, keys);
        return;
    }
    const auto& head = rule.head;
    std::size_t ground = path.kind == TermKind::Ref ? ground_prefix_length(path) : 1;
    // The parts past the ground prefix make nested objects (OPA's nestedObject).
    auto nested = [&](TypePtr t) -> TypePtr {
        for (std::size_t i = part_count(path); t && i > ground; --i) {
            TypePtr key = type_of(body_env, part(path, i - 1));
            if (!key) return nullptr;
            t = object({}, DynamicProperty{key, t});
        }
        return t;
    };
    TypePtr tpe;
    if (!head.args.empty()) {
        // Arguments the body never types are `any`.
        for (const auto& arg : head.args)
            lang::walk_terms(*arg, [&](const Term& t) {
                if (shape(t) == Shape::Var && !type_of(body_env, t)) body_env->tree.put_one(node_key(t), A);
                return false;
            });
        std::vector<TypePtr> args;
        for (const auto& arg : head.args) args.push_back(type_of(body_env, *arg));
        tpe = function(std::move(args), head.value ? type_of(body_env, *head.value) : nullptr);
    } else if (head.value) {
        tpe = nested(type_of(body_env, *head.value));
    } else if (head.key) {
        if (TypePtr k = type_of(body_env, *head.key)) tpe = nested(set(k));
    }
    keys.resize(ground);
    if (!tpe) return;
    if (global->tree.insert(keys, tpe)) memo_.forget_extents();
    memo_.forget_path(global->tree, keys);
}

TypeErrors Checker::check_closures(const EnvPtr& env, const lang::Expr& e) {
    // As OPA: a comprehension with errors stands for all of them (the last such one
    // wins); one without is searched for further comprehensions inside.
    TypeErrors result;
    lang::walk_terms_in_expr(e, [&](const Term& t) {
        if (shape(t) != Shape::Comprehension) return false;
        auto errors = check_body(env, *t.body).second;
        if (errors.empty()) return false;
        result = std::move(errors);
        return true;
    });
    return result;
}

// ---- terms -------------------------------------------------------------------------

TypePtr Checker::type_of(const EnvPtr& env, const Term& t) {
    switch (t.kind) {
        case TermKind::Null: return Nl;
        case TermKind::Boolean: return B;
        case TermKind::Number: return N;
        case TermKind::String:
        case TermKind::Template: return S;
        case TermKind::Array: {
            std::vector<TypePtr> items;
            for (const auto& e : t.elems) items.push_back(type_of(env, *e));
            return array(std::move(items), t.elems.empty() ? A : nullptr);
        }
        case TermKind::Object: {
            std::vector<StaticProperty> props;
            std::optional<DynamicProperty> dynamic;
            for (const auto& [k, v] : t.items) {
                if (auto key = key_of(*k)) {
                    props.push_back({*key, type_of(env, *v)});
                    continue;
                }
                dynamic = DynamicProperty{type_of(env, *k), type_of(env, *v)};
            }
            if (props.empty() && !dynamic) dynamic = DynamicProperty{A, A};
            return object(std::move(props), std::move(dynamic));
        }
        case TermKind::Set: {
            UnionBuilder of;
            for (const auto& e : t.elems) of.add(type_of(env, *e));
            TypePtr members = of.result();
            return set(members ? members : A);
        }
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension: {
            // OPA's GetByValue checks with a checker of its own, without the renaming of refs.
            ++quiet_;
            auto [inner, errors] = check_body(env, *t.body);
            --quiet_;
            if (!errors.empty()) return nullptr;
            if (t.kind == TermKind::ArrayComprehension) return array({}, type_of(inner, *t.value));
            if (t.kind == TermKind::SetComprehension) return set(type_of(inner, *t.value));
            return object({}, DynamicProperty{type_of(inner, *t.key), type_of(inner, *t.value)});
        }
        case TermKind::Ref: return type_of_ref(*env, as_checked(t), memo_);
        case TermKind::Var: return is_root_document(t) ? type_of_ref(*env, t, memo_) : type_of_var(*env, node_key(t));
        case TermKind::Call: {
            // OPA has no call inside a term by now; gavel's rego.metadata rewrite leaves
            // internal.rego_annotation(...) where OPA has the constant it stands for. Its
            // declared result stands in for that constant's type.
            TypePtr fn = type_of_ref(*env, operator_of(t), memo_);
            return is(fn, Kind::Function) ? fn->of : nullptr;
        }
        default: return nullptr;
    }
}

std::vector<TypePtr> Checker::operand_types(const EnvPtr& env, const Term& call) {
    std::vector<TypePtr> out;
    for (std::size_t i = 1; i < call.elems.size(); ++i) out.push_back(type_of(env, *call.elems[i]));
    return out;
}

lang::TermPtr Checker::shown_ref(const Term& ref) const {
    auto copy = std::make_shared<Term>(ref);
    if (copy->kind == TermKind::Var) {
        copy->text = original_name_(copy->text);
        return copy;
    }
    for (auto& e : copy->elems) e = shown_ref(*e);
    for (auto& [k, v] : copy->items) {
        k = shown_ref(*k);
        v = shown_ref(*v);
    }
    return copy;
}

// ---- expressions ---------------------------------------------------------------------

std::optional<TypeError> Checker::check_expr(const EnvPtr& env, const lang::Expr& e) {
    if (auto err = check_with(env, e)) return err;
    if (!is_call(e)) return std::nullopt;
    std::string name = dotted_name(operator_of(*e.term));
    called_.insert(name);
    if (name == "eq") return check_equality(env, e);
    return check_call(env, e);
}

std::optional<TypeError> Checker::check_with(const EnvPtr& env, const lang::Expr& e) {
    for (const auto& w : e.withs) {
        TypePtr target = type_of(env, *w.target), value = type_of(env, *w.value);
        // A function replaced by a function: their arities must agree. By a value: nothing to check.
        if (is(target, Kind::Function) && is(value, Kind::Function) && !unifies(target, value))
            return arg_error(w.loc, lang::to_string(*w.target), "arity mismatch", value->elems, *target, false);
    }
    return std::nullopt;
}

std::optional<TypeError> Checker::check_call(const EnvPtr& env, const lang::Expr& e) {
    const Term& call = *e.term;
    const Term& op = operator_of(call);
    TypePtr fn = type_of_ref(*env, op, memo_);
    auto undefined = [&] { return plain_error(e.loc, "undefined function " + lang::to_string(op)); };
    if (!fn) return undefined();
    if (is_any(fn)) return std::nullopt;  // a rule with errors of its own, or a document not known here
    if (fn->kind != Kind::Function) return undefined();

    // The result is one operand more: the output.
    std::size_t declared = fn->elems.size() + (fn->of ? 1 : 0);
    auto expected = [&](std::size_t i) {
        return i < fn->elems.size() ? fn->elems[i] : i < declared ? fn->of : fn->variadic;
    };
    auto error = [&](const char* what, const std::vector<TypePtr>& have) {
        return arg_error(e.loc, lang::to_string(op), what, have, *fn, true);
    };
    std::size_t operands = call.elems.size() - 1;
    if (operands > declared && !fn->variadic) return error("too many arguments", operand_types(env, call));
    if (operands < fn->elems.size()) return error("too few arguments", operand_types(env, call));

    for (std::size_t i = 0; i < operands; ++i) {
        // Unification types what is not known yet, and checks what is known. Against a union
        // it joins (OPA's unify1): a variable inside a composite operand then takes the union
        // of its type and the one wanted, so sum([x]) with x a string passes, as in OPA.
        if (!unify1(env, *call.elems[i + 1], expected(i), false))
            return error("invalid argument(s)", operand_types(env, call));
    }
    return std::nullopt;
}

std::optional<TypeError> Checker::check_equality(const EnvPtr& env, const lang::Expr& e) {
    const Term& call = *e.term;
    std::size_t operands = call.elems.size() - 1;
    static const TypePtr eq_type = function({A, A}, nullptr);
    if (operands < 2) return arg_error(e.loc, "eq", "too few arguments", operand_types(env, call), *eq_type, false);
    if (operands > 2) return arg_error(e.loc, "eq", "too many arguments", operand_types(env, call), *eq_type, false);
    const Term& a = *call.elems[1];
    const Term& b = *call.elems[2];
    TypePtr type_a = type_of(env, a), type_b = type_of(env, b);
    if (!unify2(env, a, type_a, b, type_b)) return match_error(e.loc, type_a, type_b);
    return std::nullopt;
}

// ---- unification -------------------------------------------------------------------

// A composite term against `any` (each element is any) or a union (some member must fit).
bool Checker::unify1_any(const EnvPtr& env, const Term& t, const TypePtr& tpe) {
    if (tpe->elems.empty()) {
        for (const auto& e : t.elems) unify1(env, *e, A, true);
        for (const auto& [k, v] : t.items) {
            unify1(env, *k, A, true);
            unify1(env, *v, A, true);
        }
        return true;
    }
    bool any = false;
    for (const auto& m : tpe->elems) any = unify1(env, t, m, true) || any;
    return any;
}

bool Checker::unify1(const EnvPtr& env, const Term& t, const TypePtr& tpe, bool join) {
    switch (shape(t)) {
        case Shape::Array:
            if (is(tpe, Kind::Array)) {
                if (t.elems.size() != tpe->elems.size() && !tpe->of) return false;
                for (std::size_t i = 0; i < t.elems.size(); ++i)
                    if (!unify1(env, *t.elems[i], element_type(tpe, i), join)) return false;
                return true;
            }
            if (is(tpe, Kind::Any)) return unify1_any(env, t, tpe);
            return false;
        case Shape::Object:
            if (is(tpe, Kind::Object)) {
                bool dynamic_values = tpe->dyn && tpe->dyn->value;
                if (t.items.size() != tpe->props.size() && !dynamic_values) return false;
                for (const auto& [k, v] : t.items) {
                    if (is_constant(*k)) {
                        TypePtr child = select_constant(tpe, *k);
                        if (!child || !unify1(env, *v, child, join)) return false;
                    } else {
                        // Under a dynamic key the value could be any of the values: it is `any` (as OPA).
                        unify1(env, *v, A, join);
                    }
                }
                return true;
            }
            if (is(tpe, Kind::Any)) return unify1_any(env, t, tpe);
            return false;
        case Shape::Set:
            if (is(tpe, Kind::Set)) {
                TypePtr of = values(tpe);
                for (const auto& e : t.elems)
                    if (!unify1(env, *e, of, join)) return false;
                return true;
            }
            if (is(tpe, Kind::Any)) return unify1_any(env, t, tpe);
            return false;
        case Shape::Var: {
            std::string key = node_key(t);
            if (!join) {
                if (TypePtr exist = type_of(env, t)) return unifies(exist, tpe);
                env->tree.put_one(key, tpe);
            } else {
                env->tree.put_one(key, union_of(type_of(env, t), tpe));
            }
            return true;
        }
        default: return unifies(type_of(env, t), tpe);
    }
}

bool Checker::unify2(const EnvPtr& env, const Term& a, const TypePtr& type_a, const Term& b, const TypePtr& type_b) {
    bool nil_a = is_nil(type_a), nil_b = is_nil(type_b);
    if (nil_a && !nil_b) return unify1(env, a, type_b, false);
    if (nil_b && !nil_a) return unify1(env, b, type_a, false);
    if (!nil_a && !nil_b) return unifies(type_a, type_b);
    switch (shape(a)) {
        case Shape::Array: return unify2_array(env, a, b);
        case Shape::Object: return unify2_object(env, a, b);
        case Shape::Var:
            switch (shape(b)) {
                case Shape::Var: return unify1(env, a, A, false) && unify1(env, b, type_of(env, a), false);
                case Shape::Array: return unify2_array(env, b, a);
                case Shape::Object: return unify2_object(env, b, a);
                default: break;
            }
            break;
        default: break;
    }
    return false;
}

bool Checker::unify2_array(const EnvPtr& env, const Term& a, const Term& b) {
    switch (shape(b)) {
        case Shape::Array:
            if (a.elems.size() != b.elems.size()) return false;
            for (std::size_t i = 0; i < a.elems.size(); ++i) {
                const Term& x = *a.elems[i];
                const Term& y = *b.elems[i];
                if (!unify2(env, x, type_of(env, x), y, type_of(env, y))) return false;
            }
            return true;
        case Shape::Var: return unify1(env, a, A, false) && unify1(env, b, type_of(env, a), false);
        default: return false;
    }
}

bool Checker::unify2_object(const EnvPtr& env, const Term& a, const Term& b) {
    switch (shape(b)) {
        case Shape::Object: {
            // The values under the keys both have (OPA's Intersect); all keys must match.
            std::vector<std::pair<const Term*, const Term*>> common;
            for (const auto& [ka, va] : a.items) {
                std::string key = lang::to_string(*ka);
                for (const auto& [kb, vb] : b.items)
                    if (lang::to_string(*kb) == key) {
                        common.emplace_back(va.get(), vb.get());
                        break;
                    }
            }
            if (a.items.size() != b.items.size() || b.items.size() != common.size()) return false;
            for (const auto& [x, y] : common)
                if (!unify2(env, *x, type_of(env, *x), *y, type_of(env, *y))) return false;
            return true;
        }
        case Shape::Var: return unify1(env, a, A, false) && unify1(env, b, type_of(env, a), false);
        default: return false;
    }
}

// ---- refs ------------------------------------------------------------------------------

void Checker::check_refs_in_expr(const EnvPtr& env, const lang::Expr& e, TypeErrors& out) {
    auto each_expr = [&](const lang::Body& body) {
        for (const auto& x : body) check_refs_in_expr(env, x, out);
    };
    switch (e.kind) {
        case ExprKind::Term:
            // A call's operands (not its operator), or the term; not the with modifiers.
            if (is_call(e)) {
                for (std::size_t i = 1; i < e.term->elems.size(); ++i) check_refs_in_term(env, *e.term->elems[i], out);
            } else if (e.term) {
                check_refs_in_term(env, *e.term, out);
            }
            return;
        case ExprKind::Block:
            if (e.body) each_expr(*e.body);
            if (e.negated) return;  // OPA's `not { ... }`: its literals only
            break;
        case ExprKind::Every:
            if (e.every.key) check_refs_in_term(env, *e.every.key, out);
            if (e.every.value) check_refs_in_term(env, *e.every.value, out);
            if (e.every.domain) check_refs_in_term(env, *e.every.domain, out);
            if (e.every.body) each_expr(*e.every.body);
            break;
        case ExprKind::LogicAnd:
        case ExprKind::LogicOr:
            for (const auto& c : e.children) {
                if (c.kind == ExprKind::Block && !c.negated && c.body) each_expr(*c.body);
                else check_refs_in_expr(env, c, out);
            }
            break;
        case ExprKind::Some:
            for (const auto& v : e.some.vars) check_refs_in_term(env, *v, out);
            if (e.some.in_call) check_refs_in_term(env, *e.some.in_call, out);
            break;
    }
    // Other expressions are walked whole, their with modifiers included.
    for (const auto& w : e.withs) {
        check_refs_in_term(env, *w.target, out);
        check_refs_in_term(env, *w.value, out);
    }
}

void Checker::check_refs_in_term(const EnvPtr& env, const Term& t, TypeErrors& out) {
    lang::walk_terms(t, [&](const Term& x) {
        if (shape(x) == Shape::Comprehension) return true;  // checked as closures
        if (x.kind == TermKind::Call) {                     // see type_of: only its operands are refs to check
            for (std::size_t i = 1; i < x.elems.size(); ++i) check_refs_in_term(env, *x.elems[i], out);
            return true;
        }
        if (x.kind != TermKind::Ref) return false;
        if (const Term& renamed = as_checked(x); &renamed != &x) {  // see rename_as_shown
            check_refs_in_term(env, renamed, out);
            return true;
        }
        // Functions are called, never referred to (OPA's checkApply).
        if (TypePtr fn = type_of_ref(*env, x, memo_); is(fn, Kind::Function)) {
            out.push_back(ref_error_unsupported(x.elems[0]->loc, *shown_ref(x), x.elems.size(), fn));
            rename_as_shown(x);
            return true;
        }
        if (auto err = check_ref(env, x)) out.push_back(std::move(*err));
        return false;
    });
}

std::optional<TypeError> Checker::check_ref(const EnvPtr& env, const Term& ref) {
    // Where a ref into `data` leaves the known rules, OPA still walks every
    // subtree there for the types of the variables further on (errors ignored,
    // though each renames the ref as any error does).
    std::vector<std::pair<const TypeTree*, std::size_t>> spawned;
    auto err = check_ref_from(env, env.get(), &env->tree, ref, 0, &spawned);
    if (err) {
        rename_as_shown(ref);
        return err;
    }
    std::vector<std::pair<const TypeTree*, std::size_t>> stack(spawned.rbegin(), spawned.rend());
    const TypeEnv* root = env.get();
    while (root->next) root = root->next.get();
    while (!stack.empty()) {
        auto [node, idx] = stack.back();
        stack.pop_back();
        spawned.clear();
        if (check_ref_from(env, root, node, as_checked(ref), idx, &spawned)) rename_as_shown(ref);
        stack.insert(stack.end(), spawned.rbegin(), spawned.rend());
    }
    return std::nullopt;
}

const Term& Checker::as_checked(const Term& ref) const {
    auto it = renamed_.find(&ref);
    return it == renamed_.end() ? ref : *it->second;
}

void Checker::rename_as_shown(const Term& ref) {
    if (quiet_ > 0 || renamed_.count(&ref)) return;
    lang::TermPtr shown = shown_ref(ref);
    if (lang::to_string(*shown) != lang::to_string(ref)) renamed_.emplace(&ref, std::move(shown));
}

std::optional<TypeError> Checker::check_ref_from(const EnvPtr& env, const TypeEnv* curr, const TypeTree* node,
                                                 const Term& ref, std::size_t idx,
                                                 std::vector<std::pair<const TypeTree*, std::size_t>>* spawned) {
    const auto& parts = ref.elems;
    const lang::Location& loc = parts[0]->loc;
    for (;;) {
        if (idx == parts.size()) return std::nullopt;
        const Term& head = *parts[idx];
        // The parts right after `data` name packages: strings (or variables).
        if ((idx == 1 || idx == 2) && shape(head) != Shape::Var && head.kind != TermKind::String)
            return ref_error_invalid(loc, *shown_ref(ref), idx, type_of(env, head), S, one_of_node(*node));
        if (shape(head) == Shape::Var && idx != 0) {
            TypePtr tpe = memo_.keys(memo_.extent(*node));
            if (TypePtr exist = type_of(env, head)) {
                if (!unifies(tpe, exist))
                    return ref_error_invalid(loc, *shown_ref(ref), idx, exist, tpe, one_of_node(*node));
            } else {
                env->tree.put_one(node_key(head), tpe);
            }
        }
        const TypeTree* child = node->child(node_key(head));
        if (!child) {
            if (curr->next) {  // start over in the enclosing environment
                curr = curr->next.get();
                node = &curr->tree;
                idx = 0;
                continue;
            }
            if (is_root_document(*parts[0])) {
                if (idx != 0) {
                    for (const auto& [key, c] : node->children) spawned->emplace_back(c.get(), idx + 1);
                    return std::nullopt;
                }
                return check_ref_leaf(env, A, ref, 1);
            }
            return check_ref_leaf(env, A, ref, 0);
        }
        if (child->leaf()) return check_ref_leaf(env, child->value, ref, idx + 1);
        node = child;
        ++idx;
    }
}

std::optional<TypeError> Checker::check_ref_leaf(const EnvPtr& env, TypePtr tpe, const Term& ref, std::size_t idx) {
    const auto& parts = ref.elems;
    const lang::Location& loc = parts[0]->loc;
    for (; idx < parts.size(); ++idx) {
        const Term& head = *parts[idx];
        TypePtr key_type = memo_.keys(tpe);
        if (!key_type) return ref_error_unsupported(loc, *shown_ref(ref), idx, tpe);
        switch (shape(head)) {
            case Shape::Var:
                if (TypePtr exist = type_of(env, head)) {
                    if (!unifies(exist, key_type))
                        return ref_error_invalid(loc, *shown_ref(ref), idx, exist, key_type, one_of_type(tpe));
                } else {
                    env->tree.put_one(node_key(head), key_type);
                }
                break;
            case Shape::Ref:
                if (TypePtr exist = type_of_ref(*env, as_checked(head), memo_); exist && !unifies(exist, key_type))
                    return ref_error_invalid(loc, *shown_ref(ref), idx, exist, key_type, one_of_type(tpe));
                break;
            case Shape::Array:
            case Shape::Object:
            case Shape::Set:
                if (!unify1(env, head, key_type, false))
                    return ref_error_invalid(loc, *shown_ref(ref), idx, type_of(env, head), key_type, {});
                break;
            default: {
                TypePtr child = select_constant(tpe, head);
                if (!child) return ref_error_invalid(loc, *shown_ref(ref), idx, nullptr, key_type, one_of_type(tpe));
                tpe = std::move(child);
                continue;
            }
        }
        tpe = memo_.values(tpe);
    }
    return std::nullopt;
}

}  // namespace gavel::compiler::types
