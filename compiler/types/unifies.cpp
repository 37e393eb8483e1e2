#include "compiler/types/unifies.hpp"

namespace gavel::compiler::types {

namespace {

bool unifies_any(const TypePtr& any, const TypePtr& b) {
    if (is(b, Kind::Function)) return false;
    for (const auto& m : any->elems)
        if (unifies(m, b)) return true;
    return any->elems.empty();
}

// Each static item of `a` unifies with what `b` has at its position.
bool unifies_arrays_static(const Type& a, const Type& b) {
    for (std::size_t i = 0; i < a.elems.size(); ++i) {
        TypePtr other = i < b.elems.size() ? b.elems[i] : b.of;
        if (!unifies(a.elems[i], other)) return false;
    }
    return true;
}

// Each static key of `a` unifies with what `b` has for it (OPA's Select: a static
// property, else the dynamic value when the key's type fits the dynamic key); a key
// `b` has nothing for fails.
bool unifies_objects_static(const Type& a, const TypePtr& b) {
    for (const auto& p : a.props)
        if (!unifies(p.value, select(b, p.key))) return false;
    return true;
}

}  // namespace

bool unifies(const TypePtr& a, const TypePtr& b) {
    if (!a || !b) return false;
    bool any_a = a->kind == Kind::Any, any_b = b->kind == Kind::Any;
    if (any_a && unifies_any(a, b)) return true;
    if (any_b && unifies_any(b, a)) return true;
    if (any_a || any_b) return false;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
        case Kind::Array:
            if (!unifies_arrays_static(*a, *b) || !unifies_arrays_static(*b, *a)) return false;
            return !a->of || !b->of || unifies(a->of, b->of);
        case Kind::Object: {
            if (!unifies_objects_static(*a, b) || !unifies_objects_static(*b, a)) return false;
            TypePtr va = a->dyn ? a->dyn->value : nullptr, vb = b->dyn ? b->dyn->value : nullptr;
            return !va || !vb || unifies(va, vb);
        }
        case Kind::Set: return unifies(a->of, b->of);
        case Kind::Function:
            // Variadic functions are internal ones, which `with` cannot replace: arity is what counts.
            if (a->elems.size() != b->elems.size()) return false;
            for (std::size_t i = 0; i < a->elems.size(); ++i)
                if (!unifies(a->elems[i], b->elems[i])) return false;
            return true;
        default: return true;  // null, boolean, number, string: the same kind
    }
}

}  // namespace gavel::compiler::types
