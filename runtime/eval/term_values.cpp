#include "runtime/eval/term_values.hpp"

namespace gavel::eval {

using lang::TermKind;
using runtime::Value;

TermValue scalar_value(const lang::Term& t) {
    switch (t.kind) {
        case TermKind::Null: return {true, Value::null(), {}};
        case TermKind::Boolean: return {true, Value::boolean(t.boolean), {}};
        case TermKind::String: return {true, Value::string(t.text), {}};
        case TermKind::Number: {
            auto n = runtime::Number::parse(t.text);
            if (!n.ok) return {false, {}, "invalid number " + t.text};
            return {true, Value::number(std::move(n.value)), {}};
        }
        default: return {false, {}, "not a scalar"};
    }
}

TermValue constant_value(const lang::Term& t) {
    switch (t.kind) {
        case TermKind::Array:
        case TermKind::Set: {
            runtime::ArrayBuilder array;
            runtime::SetBuilder set;
            for (const auto& e : t.elems) {
                auto v = constant_value(*e);
                if (!v.ok) return v;
                if (t.kind == TermKind::Array) array.push_back(std::move(v.value));
                else set.insert(std::move(v.value));
            }
            return {true, t.kind == TermKind::Array ? array.build() : set.build(), {}};
        }
        case TermKind::Object: {
            runtime::ObjectBuilder object;
            for (const auto& [k, v] : t.items) {
                auto key = constant_value(*k);
                if (!key.ok) return key;
                auto value = constant_value(*v);
                if (!value.ok) return value;
                object.insert(std::move(key.value), std::move(value.value));
            }
            return {true, object.build(), {}};
        }
        case TermKind::Var:
        case TermKind::Ref:
        case TermKind::Call:
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension:
        case TermKind::Template: return {false, {}, "not a constant: " + std::string(t.loc.text())};
        default: return scalar_value(t);
    }
}

}  // namespace gavel::eval
