#include "runtime/value_format.hpp"

#include "runtime/json.hpp"

namespace gavel {

using runtime::Kind;
using runtime::Value;

namespace {

// OPA's Value.String(), asking `budget` (when given) before each value.
// `room` makes space for the bytes about to be written; false: stop.
template <class Room>
bool format_into(std::string& out, const Value& v, Room& room) {
    switch (v.kind()) {
        case Kind::Null:
            if (!room(out, 4)) return false;
            out += "null";
            return true;
        case Kind::Boolean:
            if (!room(out, 5)) return false;
            out += v.as_bool() ? "true" : "false";
            return true;
        case Kind::Number:
            if (!room(out, 32)) return false;
            out += v.as_number().to_string();
            return true;
        case Kind::String:
            if (!room(out, v.as_string().size() + 2)) return false;
            runtime::append_json_string(out, v.as_string());
            return true;
        case Kind::Array:
        case Kind::Set: {
            const bool set = v.kind() == Kind::Set;
            if (set && v.size() == 0) {
                if (!room(out, 5)) return false;
                out += "set()";
                return true;
            }
            if (!room(out, 1)) return false;
            out += set ? '{' : '[';
            bool first = true;
            for (const auto& e : set ? v.set_elements() : v.array_elements()) {
                if (!room(out, 2)) return false;
                if (!first) out += ", ";
                first = false;
                if (!format_into(out, e, room)) return false;
            }
            if (!room(out, 1)) return false;
            out += set ? '}' : ']';
            return true;
        }
        case Kind::Object: {
            if (!room(out, 1)) return false;
            out += '{';
            bool first = true;
            for (const auto& entry : v.object_entries()) {
                if (!room(out, 2)) return false;
                if (!first) out += ", ";
                first = false;
                if (!format_into(out, entry.key, room)) return false;
                if (!room(out, 2)) return false;
                out += ": ";
                if (!format_into(out, entry.value, room)) return false;
            }
            if (!room(out, 1)) return false;
            out += '}';
            return true;
        }
    }
    return true;
}

}  // namespace

void append_formatted(std::string& out, const Value& v) {
    auto unbounded = [](std::string&, std::size_t) { return true; };
    format_into(out, v, unbounded);
}

bool append_formatted(std::string& out, const Value& v, runtime::WorkBudget& budget) {
    auto bounded = [&budget](std::string& text, std::size_t more) { return budget.room(text, more); };
    return format_into(out, v, bounded);
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
