// json.marshal, json.marshal_with_options, json.unmarshal, json.is_valid.
// JSON Schema (json.verify_schema, json.match_schema) is in json_schema.cpp,
// yaml.* in yaml.cpp.

#include <optional>

#include "runtime/go_json_decode.hpp"
#include "runtime/json.hpp"
#include "runtime/value_format.hpp"

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/object_family.hpp"

namespace gavel::stdlib {

namespace {

// Go's json.Indent over compact JSON: every element on its own line starting
// with `prefix` and one `indent` per level; empty [] and {} stay on one line.
// The first line gets the prefix too (json.MarshalIndent gives it none; OPA
// adds it). The prefix and indent repeat on every line: the text grows only
// within the evaluation's memory limit, nullopt when it must stop.
std::optional<std::string> indent_json(std::string_view compact, std::string_view prefix, std::string_view indent,
                                       BuiltinContext& ctx) {
    std::string out;
    if (!ctx.room(out, prefix.size() + compact.size() + compact.size() / 2)) return std::nullopt;
    out += prefix;
    std::size_t depth = 0;
    bool in_string = false;
    bool need_newline = false;  // just opened a container: break before its first element
    bool stopped = false;
    auto newline = [&](std::size_t level) {
        if (!ctx.room(out, 1 + prefix.size() + level * indent.size())) {
            stopped = true;
            return;
        }
        out += '\n';
        out += prefix;
        for (std::size_t i = 0; i < level; ++i) out += indent;
    };
    for (std::size_t i = 0; i < compact.size() && !stopped; ++i) {
        if (out.size() + 2 > out.capacity() && !ctx.room(out, 2)) return std::nullopt;
        char c = compact[i];
        if (in_string) {
            out += c;
            if (c == '\\' && i + 1 < compact.size()) out += compact[++i];
            else if (c == '"') in_string = false;
            continue;
        }
        if (need_newline && c != ']' && c != '}') {
            need_newline = false;
            newline(depth);
        }
        switch (c) {
            case '"':
                in_string = true;
                out += c;
                break;
            case '[':
            case '{':
                out += c;
                ++depth;
                need_newline = true;
                break;
            case ']':
            case '}':
                --depth;
                if (need_newline) need_newline = false;  // empty container
                else newline(depth);
                out += c;
                break;
            case ',':
                out += c;
                newline(depth);
                break;
            case ':': out += ": "; break;
            default: out += c;
        }
    }
    if (stopped) return std::nullopt;
    return out;
}

BuiltinResult marshal_with_options(Args a, BuiltinContext& ctx) {
    if (!a[1].is_object()) return type_error(2, "object", a[1]);
    std::string indent = "\t";
    std::string prefix;
    bool implicit_pretty = false;
    std::optional<bool> explicit_pretty;
    std::size_t idx = 0;
    for (const auto& e : a[1].object_entries()) {
        if (!e.key.is_string())
            return BuiltinResult::type_error("operand 2 failed to stringify key " + format_value(e.key) + " at index " +
                                             std::to_string(idx) + ": " + operand_type_error({}, idx, "string", e.key));
        std::string_view key = e.key.as_string();
        if (key == "prefix" || key == "indent") {
            if (!e.value.is_string())
                return BuiltinResult::type_error("operand 2 key " + std::string(key) + " failed cast to string: " +
                                                 operand_type_error({}, idx, "string", e.value));
            (key == "prefix" ? prefix : indent) = std::string(e.value.as_string());
            implicit_pretty = true;
        } else if (key == "pretty") {
            if (!e.value.is_bool()) return BuiltinResult::type_error("operand 2 key pretty failed cast to bool");
            explicit_pretty = e.value.as_bool();
        } else {
            return BuiltinResult::type_error("operand 2 object contained unknown key " + format_value(e.key));
        }
        ++idx;
    }
    auto compact = json_text(a[0], ctx, true);  // Go's json.Marshal(Indent): <, > and & escaped
    if (!compact) return BuiltinResult::cancelled();
    if (!explicit_pretty.value_or(implicit_pretty)) return text_result(ctx, *compact);
    auto indented = indent_json(*compact, prefix, indent, ctx);
    if (!indented) return BuiltinResult::cancelled();
    return text_result(ctx, *indented);
}

}  // namespace

void register_json(Registry& r) {
    declare(r, "json.marshal", 1, [](Args a, BuiltinContext& ctx) {
        auto text = json_text(a[0], ctx, true);  // Go's json.Marshal: <, > and & escaped
        if (!text) return BuiltinResult::cancelled();
        return text_result(ctx, *text);
    });
    declare(r, "json.marshal_with_options", 2,
            [](Args a, BuiltinContext& ctx) { return marshal_with_options(a, ctx); });
    declare(r, "json.unmarshal", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        // OPA's util.UnmarshalJSON: Go's decoder, Go's error texts ("unexpected EOF").
        auto decoded = runtime::go_unmarshal(a[0].as_string());
        if (!decoded.ok) return BuiltinResult::error(decoded.error);
        return BuiltinResult::of(std::move(decoded.value));
    });
    declare(r, "json.is_valid", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return BuiltinResult::of(Value::boolean(false));
        return BuiltinResult::of(Value::boolean(runtime::parse_json(a[0].as_string()).ok));
    });
    register_json_schema(r);
    register_yaml(r);
}

}  // namespace gavel::stdlib
