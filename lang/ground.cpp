#include "lang/ground.hpp"

namespace gavel::lang {

namespace {

bool body_is_ground(const lang::Body& b);

bool expr_is_ground(const lang::Expr& e) {
    if (e.term && !is_ground(*e.term)) return false;
    return true;
}

bool body_is_ground(const lang::Body& b) {
    for (const auto& e : b)
        if (!expr_is_ground(e)) return false;
    return true;
}

}  // namespace

bool is_ground(const Term& t) {
    switch (t.kind) {
        case TermKind::Var: return false;
        case TermKind::Template: return false;
        case TermKind::Ref:
            for (std::size_t i = 1; i < t.elems.size(); ++i)
                if (!is_ground(*t.elems[i])) return false;
            return true;
        case TermKind::Array:
        case TermKind::Set:
        case TermKind::Call:
            for (const auto& e : t.elems)
                if (!is_ground(*e)) return false;
            return true;
        case TermKind::Object:
            for (const auto& [k, v] : t.items)
                if (!is_ground(*k) || !is_ground(*v)) return false;
            return true;
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension: return is_ground(*t.value) && body_is_ground(*t.body);
        case TermKind::ObjectComprehension: return is_ground(*t.key) && is_ground(*t.value) && body_is_ground(*t.body);
        default: return true;
    }
}

}  // namespace gavel::lang
