// The capabilities document, built from the builtin table as joined with the
// implementations by Registry::standard().

#include "stdlib/capabilities.hpp"

#include <algorithm>
#include <map>

namespace gavel::stdlib {

namespace {
using runtime::Value;
Value str(std::string_view s) { return Value::string(s); }
}  // namespace

Value builtin_capability(const Builtin& b) {
    runtime::ObjectBuilder o;
    o.insert(str("name"), str(b.name));
    if (b.signature) {
        o.insert(str("decl"), signature_decl(*b.signature));
    } else {
        // An embedder's builtin without a signature: its arity, every operand any.
        Signature s;
        s.args.assign(b.arity, Type{});
        s.result = Type{};
        o.insert(str("decl"), signature_decl(s));
    }
    if (!b.infix.empty()) o.insert(str("infix"), str(b.infix));
    if (b.deprecated) o.insert(str("deprecated"), Value::boolean(true));
    if (b.nondeterministic) o.insert(str("nondeterministic"), Value::boolean(true));
    if (b.relation) o.insert(str("relation"), Value::boolean(true));
    return o.build();
}

Value capabilities_document(const Registry& registry, std::span<const Builtin* const> extra) {
    std::map<std::string, const Builtin*> builtins;
    for (const Builtin* b : registry.all()) builtins[b->name] = b;
    for (const Builtin& b : registry.declared_only())
        if (b.native) builtins[b.name] = &b;
    for (const Builtin* b : extra) builtins[b->name] = b;
    runtime::ArrayBuilder list(builtins.size());
    for (const auto& [name, b] : builtins) list.push_back(builtin_capability(*b));
    return Value::object({
        {str("builtins"), list.build()},
        {str("future_keywords"), Value::array({str("contains"), str("every"), str("if"), str("in")})},
        {str("features"), Value::array({str("rego_v1"), str("template_strings")})},
    });
}

}  // namespace gavel::stdlib
