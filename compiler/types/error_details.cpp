#include "compiler/types/error_details.hpp"

#include <cctype>
#include <map>

#include "lang/term_string.hpp"

namespace gavel::compiler::types {

using lang::JsonTree;

namespace {

// A scalar's JSON text (1, true, null) as a tree.
JsonTree scalar(const std::string& text) {
    if (text == "true" || text == "false") return JsonTree::of_bool(text == "true");
    if (text == "null") return JsonTree{};
    return JsonTree::number(text);
}

// Go's json.Marshal of a map: keys sorted.
JsonTree sorted_object(std::map<std::string, JsonTree> fields) {
    JsonTree out = JsonTree::object();
    for (auto& [k, v] : fields) out.add(k, std::move(v));
    return out;
}

JsonTree key_detail(const Key& k) {
    switch (k.kind) {
        case Key::Kind::Null: return JsonTree{};
        case Key::Kind::String: return JsonTree::string(k.text);
        default: return scalar(k.text);
    }
}

JsonTree list(const std::vector<TypePtr>& types) {
    JsonTree out = JsonTree::array();
    for (const auto& t : types) out.push(type_detail(t));
    return out;
}

JsonTree property(JsonTree key, const TypePtr& value) {
    return sorted_object({{"key", std::move(key)}, {"value", type_detail(value)}});
}

// A Rego value as written (`"a"`, 1, true) as JSON.
JsonTree value_detail(const std::string& text) {
    // A variable key (`__local0__`) is no JSON literal: OPA's Var marshals as a string.
    bool literal = text == "true" || text == "false" || text == "null" ||
                   (!text.empty() && (std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '-' ||
                                      text.front() == '[' || text.front() == '{'));
    if (text.empty() || (text.front() != '"' && !literal)) return JsonTree::string(text);
    if (text.size() < 2 || text.front() != '"') return scalar(text);
    std::string s;
    for (std::size_t i = 1; i + 1 < text.size(); ++i) {
        if (text[i] == '\\' && i + 2 < text.size()) ++i;
        s += text[i];
    }
    return JsonTree::string(std::move(s));
}

// A term as OPA's Term.MarshalJSON writes it: {"type": ..., "value": ...}.
JsonTree term_detail(const lang::Term& t) {
    using lang::TermKind;
    JsonTree value;
    switch (t.kind) {
        case TermKind::Null: value = JsonTree{}; break;
        case TermKind::Boolean:
        case TermKind::Number: value = scalar(lang::to_string(t)); break;
        case TermKind::String: value = JsonTree::string(t.text); break;
        case TermKind::Var: value = JsonTree::string(t.text); break;
        case TermKind::Ref:
        case TermKind::Array:
        case TermKind::Set:
        case TermKind::Call:
            value = JsonTree::array();
            for (const auto& e : t.elems) value.push(term_detail(*e));
            break;
        case TermKind::Object:
            value = JsonTree::array();
            for (const auto& [k, v] : t.items)
                value.push(JsonTree::array().push(term_detail(*k)).push(term_detail(*v)));
            break;
        default: value = JsonTree::string(lang::to_string(t)); break;  // comprehensions, templates
    }
    return sorted_object(
        {{"type", JsonTree::string(std::string(lang::value_name(t.kind)))}, {"value", std::move(value)}});
}

JsonTree ref_detail(const lang::Term& ref) {
    if (ref.kind != lang::TermKind::Ref) return JsonTree::array().push(term_detail(ref));
    JsonTree out = JsonTree::array();
    for (const auto& e : ref.elems) out.push(term_detail(*e));
    return out;
}

}  // namespace

JsonTree type_detail(const TypePtr& t, const std::string& name) {
    if (!t) return JsonTree{};
    std::map<std::string, JsonTree> fields;
    fields["type"] = JsonTree::string(kind_name(t->kind));
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
                JsonTree props = JsonTree::array();
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
    if (!name.empty()) fields["name"] = JsonTree::string(name);
    return sorted_object(std::move(fields));
}

JsonTree arg_detail(const std::vector<TypePtr>& have, const Type& want, bool with_result) {
    // OPA's FuncArgs: named arguments (the result among them when it counts), then the variadic one.
    JsonTree args = JsonTree::array();
    for (std::size_t i = 0; i < want.elems.size(); ++i)
        args.push(type_detail(want.elems[i], i < want.arg_names.size() ? want.arg_names[i] : std::string()));
    if (with_result && want.of) args.push(type_detail(want.of, want.result_name));
    JsonTree wanted = JsonTree::object();
    if (!args.items.empty()) wanted.add("args", std::move(args));
    if (want.variadic) wanted.add("variadic", type_detail(want.variadic));
    return JsonTree::object().add("have", list(have)).add("want", std::move(wanted));
}

JsonTree unification_detail(const TypePtr& a, const TypePtr& b) {
    return JsonTree::object().add("a", type_detail(a)).add("b", type_detail(b));
}

JsonTree ref_invalid_detail(const lang::Term& ref, std::size_t pos, const TypePtr& have, const TypePtr& want,
                            const std::vector<std::string>& one_of) {
    JsonTree out = JsonTree::object();
    out.add("ref", ref_detail(ref)).add("pos", scalar(std::to_string(pos)));
    if (have) out.add("have", type_detail(have));
    out.add("want", type_detail(want));
    JsonTree keys = one_of.empty() ? JsonTree{} : JsonTree::array();
    for (const auto& k : one_of) keys.push(value_detail(k));
    return out.add("oneOf", std::move(keys));
}

JsonTree ref_unsupported_detail(const lang::Term& ref, std::size_t pos, const TypePtr& have) {
    return JsonTree::object()
        .add("ref", ref_detail(ref))
        .add("pos", scalar(std::to_string(pos)))
        .add("have", type_detail(have));
}

}  // namespace gavel::compiler::types
