#include "runtime/value_format.hpp"

#include "runtime/json.hpp"

namespace gavel {

using runtime::Kind;
using runtime::Value;

void append_formatted(std::string& out, const Value& v) {
    switch (v.kind()) {
        case Kind::Null: out += "null"; return;
        case Kind::Boolean: out += v.as_bool() ? "true" : "false"; return;
        case Kind::Number: out += v.as_number().to_string(); return;
        case Kind::String: runtime::append_json_string(out, v.as_string()); return;
        case Kind::Array: {
            out += '[';
            bool first = true;
            for (const auto& e : v.array_elements()) {
                if (!first) out += ", ";
                first = false;
                append_formatted(out, e);
            }
            out += ']';
            return;
        }
        case Kind::Set: {
            if (v.size() == 0) {
                out += "set()";
                return;
            }
            out += '{';
            bool first = true;
            for (const auto& e : v.set_elements()) {
                if (!first) out += ", ";
                first = false;
                append_formatted(out, e);
            }
            out += '}';
            return;
        }
        case Kind::Object: {
            out += '{';
            bool first = true;
            for (const auto& entry : v.object_entries()) {
                if (!first) out += ", ";
                first = false;
                append_formatted(out, entry.key);
                out += ": ";
                append_formatted(out, entry.value);
            }
            out += '}';
            return;
        }
    }
}

std::string format_value(const Value& v) {
    std::string out;
    append_formatted(out, v);
    return out;
}

Value set_path(const Value& doc, std::span<const std::string> path, const Value& value) {
    if (path.empty()) return value;
    Value key = Value::string(path[0]);
    const Value* existing = doc.is_object() ? doc.find(key) : nullptr;
    Value child = set_path(existing ? *existing : Value::empty_object(), path.subspan(1), value);
    runtime::ObjectBuilder b;
    if (doc.is_object())
        for (const auto& entry : doc.object_entries())
            if (entry.key != key) b.insert(entry.key, entry.value);
    b.insert(std::move(key), std::move(child));
    return b.build();
}

}  // namespace gavel
