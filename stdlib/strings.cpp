// String builtins. sprintf here covers the common verbs; the stdlib issue
// brings Go's full formatting.

#include <algorithm>
#include <cctype>

#include "runtime/value_format.hpp"
#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

namespace {

BuiltinImpl string_predicate(bool (*pred)(std::string_view, std::string_view)) {
    return [pred](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!a[1].is_string()) return type_error(2, "string", a[1]);
        return BuiltinResult::of(Value::boolean(pred(a[0].as_string(), a[1].as_string())));
    };
}

BuiltinResult sprintf(Args a) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_array()) return type_error(2, "array", a[1]);
    std::string_view format = a[0].as_string();
    auto args = a[1].array_elements();
    std::string out;
    std::size_t next = 0;
    for (std::size_t i = 0; i < format.size(); ++i) {
        char c = format[i];
        if (c != '%' || i + 1 == format.size()) {
            out += c;
            continue;
        }
        char verb = format[++i];
        if (verb == '%') {
            out += '%';
            continue;
        }
        if (next >= args.size()) {
            out += "%!";
            out += verb;
            out += "(MISSING)";
            continue;
        }
        const Value& v = args[next++];
        switch (verb) {
            case 's':
            case 'v':
                if (v.is_string()) out += v.as_string();
                else append_formatted(out, v);
                break;
            case 'd': {
                if (v.is_number()) out += v.as_number().to_string();
                else append_formatted(out, v);
                break;
            }
            case 'q':
                if (v.is_string()) append_formatted(out, v);
                else append_formatted(out, v);
                break;
            default:
                append_formatted(out, v);
        }
    }
    return BuiltinResult::of(Value::string(out));
}

}  // namespace

void register_strings(Registry& r) {
    declare(r, "startswith", 2, string_predicate([](std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }));
    declare(r, "endswith", 2, string_predicate([](std::string_view s, std::string_view p) {
        return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
    }));
    declare(r, "contains", 2, string_predicate([](std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }));
    declare(r, "sprintf", 2, [](Args a, BuiltinContext&) { return sprintf(a); });
    declare(r, "concat", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        std::span<const Value> xs;
        if (a[1].is_array()) xs = a[1].array_elements();
        else if (a[1].is_set()) xs = a[1].set_elements();
        else return type_error(2, "one of {array, set}", a[1]);
        std::string out;
        bool first = true;
        for (const auto& x : xs) {
            if (!x.is_string()) return type_error(2, "array or set of strings", a[1]);
            if (!first) out += a[0].as_string();
            first = false;
            out += x.as_string();
        }
        return BuiltinResult::of(Value::string(out));
    });
    auto map_ascii = [](int (*fn)(int)) {
        return [fn](Args a, BuiltinContext&) {
            if (!a[0].is_string()) return type_error(1, "string", a[0]);
            std::string s(a[0].as_string());
            std::transform(s.begin(), s.end(), s.begin(), [fn](unsigned char c) { return static_cast<char>(fn(c)); });
            return BuiltinResult::of(Value::string(s));
        };
    };
    declare(r, "lower", 1, map_ascii(&::tolower));
    declare(r, "upper", 1, map_ascii(&::toupper));
}

}  // namespace gavel::stdlib
