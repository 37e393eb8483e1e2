#include "compiler/types/error_details.hpp"

#include <map>

#include "compiler/ast/term_string.hpp"

namespace gavel::compiler::types {

using lang::DetailTree;

namespace {

// Go's json.Marshal of a map: keys sorted.
DetailTree sorted_object(std::map<std::string, DetailTree> fields) {
    DetailTree out = DetailTree::object();
    for (auto& [k, v] : fields) out.add(k, std::move(v));
    return out;
}

DetailTree key_detail(const Key& k) {
    switch (k.kind) {
        case Key::Kind::Null: return DetailTree::null();
        case Key::Kind::String: return DetailTree::string(k.text);
        default: return DetailTree::scalar(k.text);
    }
}

DetailTree list(const std::vector<TypePtr>& types) {
    DetailTree out = DetailTree::array();
    for (const auto& t : types) out.push(type_detail(t));
    return out;
}

DetailTree property(DetailTree key, const TypePtr& value) {
    return sorted_object({{"key", std::move(key)}, {"value", type_detail(value)}});
}

// A Rego value as written (`"a"`, 1, true) as JSON.
DetailTree value_detail(const std::string& text) {
    if (text.size() < 2 || text.front() != '"') return DetailTree::scalar(text);
    std::string s;
    for (std::size_t i = 1; i + 1 < text.size(); ++i) {
        if (text[i] == '\\' && i + 2 < text.size()) ++i;
        s += text[i];
    }
    return DetailTree::string(std::move(s));
}

// A term as OPA's Term.MarshalJSON writes it: {"type": ..., "value": ...}.
DetailTree term_detail(const lang::Term& t) {
    using lang::TermKind;
    DetailTree value;
    switch (t.kind) {
        case TermKind::Null: value = DetailTree::null(); break;
        case TermKind::Boolean:
        case TermKind::Number: value = DetailTree::scalar(compiler::to_string(t)); break;
        case TermKind::String: value = DetailTree::string(t.text); break;
        case TermKind::Var: value = DetailTree::string(t.text); break;
        case TermKind::Ref:
        case TermKind::Array:
        case TermKind::Set:
        case TermKind::Call:
            value = DetailTree::array();
            for (const auto& e : t.elems) value.push(term_detail(*e));
            break;
        case TermKind::Object:
            value = DetailTree::array();
            for (const auto& [k, v] : t.items) value.push(DetailTree::array().push(term_detail(*k)).push(term_detail(*v)));
            break;
        default: value = DetailTree::string(compiler::to_string(t)); break;  // comprehensions, templates
    }
    return sorted_object({{"type", DetailTree::string(std::string(lang::value_name(t.kind)))}, {"value", std::move(value)}});
}

DetailTree ref_detail(const lang::Term& ref) {
    if (ref.kind != lang::TermKind::Ref) return DetailTree::array().push(term_detail(ref));
    DetailTree out = DetailTree::array();
    for (const auto& e : ref.elems) out.push(term_detail(*e));
    return out;
}

}  // namespace

DetailTree type_detail(const TypePtr& t, const std::string& name) {
    if (!t) return DetailTree::null();
    std::map<std::string, DetailTree> fields;
    fields["type"] = DetailTree::string(kind_name(t->kind));
    switch (t->kind) {
        case Kind::Array:
            if (!t->elems.empty()) fields["static"] = list(t->elems);
            if (t->of) fields["dynamic"] = type_detail(t->of);
            break;
        case Kind::Set:
            if (t->of) fields["of"] = type_detail(t->of);
            break;
        case Kind::Object:
            if (!t->props.empty()) {
                DetailTree props = DetailTree::array();
                for (const auto& p : t->props) props.push(property(key_detail(p.key), p.value));
                fields["static"] = std::move(props);
            }
            if (t->dyn) fields["dynamic"] = property(type_detail(t->dyn->key), t->dyn->value);
            break;
        case Kind::Any:
            if (!t->elems.empty()) fields["of"] = list(t->elems);
            break;
        case Kind::Function:
            if (!t->elems.empty()) fields["args"] = list(t->elems);
            if (t->of) fields["result"] = type_detail(t->of);
            if (t->variadic) fields["variadic"] = type_detail(t->variadic);
            break;
        default: break;
    }
    if (!name.empty()) fields["name"] = DetailTree::string(name);
    return sorted_object(std::move(fields));
}

DetailTree arg_detail(const std::vector<TypePtr>& have, const Type& want, bool with_result) {
    // OPA's FuncArgs: named arguments (the result among them when it counts), then the variadic one.
    DetailTree args = DetailTree::array();
    for (std::size_t i = 0; i < want.elems.size(); ++i)
        args.push(type_detail(want.elems[i], i < want.arg_names.size() ? want.arg_names[i] : std::string()));
    if (with_result && want.of) args.push(type_detail(want.of, want.result_name));
    DetailTree wanted = DetailTree::object();
    if (!args.items.empty()) wanted.add("args", std::move(args));
    if (want.variadic) wanted.add("variadic", type_detail(want.variadic));
    return DetailTree::object().add("have", list(have)).add("want", std::move(wanted));
}

DetailTree unification_detail(const TypePtr& a, const TypePtr& b) {
    return DetailTree::object().add("a", type_detail(a)).add("b", type_detail(b));
}

DetailTree ref_invalid_detail(const lang::Term& ref, std::size_t pos, const TypePtr& have, const TypePtr& want,
                              const std::vector<std::string>& one_of) {
    DetailTree out = DetailTree::object();
    out.add("ref", ref_detail(ref)).add("pos", DetailTree::scalar(std::to_string(pos)));
    if (have) out.add("have", type_detail(have));
    out.add("want", type_detail(want));
    DetailTree keys = one_of.empty() ? DetailTree::null() : DetailTree::array();
    for (const auto& k : one_of) keys.push(value_detail(k));
    return out.add("oneOf", std::move(keys));
}

DetailTree ref_unsupported_detail(const lang::Term& ref, std::size_t pos, const TypePtr& have) {
    return DetailTree::object()
        .add("ref", ref_detail(ref))
        .add("pos", DetailTree::scalar(std::to_string(pos)))
        .add("have", type_detail(have));
}

}  // namespace gavel::compiler::types
