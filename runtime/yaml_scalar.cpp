#include "runtime/yaml_scalar.hpp"

namespace gavel::runtime {

YamlScalar resolve_plain_yaml_scalar(std::string_view s, YamlTyping typing) {
    using Kind = lang::yaml::PlainScalar::Kind;
    lang::yaml::PlainScalar r = lang::yaml::resolve_plain_scalar(s, typing);
    switch (r.kind) {
        case Kind::Null: return {Value(), {}};
        case Kind::Boolean: return {Value::boolean(r.boolean), {}};
        case Kind::Integer:
        case Kind::Float: return {Value::number(Number::parse(r.text).value), {}};
        case Kind::NotFinite: return {Value(), std::move(r.text)};
        case Kind::Timestamp: return {Value::string(r.text), {}};
        case Kind::String: break;
    }
    return {Value::string(s), {}};
}

}  // namespace gavel::runtime
