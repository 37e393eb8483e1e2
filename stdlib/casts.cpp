// to_number, format_int and the deprecated cast_* builtins (v0 only).

#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "runtime/big_float.hpp"
#include "runtime/bigint.hpp"
#include "runtime/decimal.hpp"
#include "stdlib/builtin_helpers.hpp"
#include "stdlib/go_format.hpp"
#include "stdlib/string_operands.hpp"
#include "stdlib/unicode_text.hpp"

namespace gavel::stdlib {

namespace {

using runtime::BigInt;
using runtime::Number;

// Digits beyond this are refused by format_int (10^100000 has 100k digits).
constexpr std::int64_t kMaxFormatDigits = 100000;

// Whether Go reads a number's text as an integer (strconv.ParseInt, big.Int.SetString in base
// 10: an optional sign and digits): format_int takes it exactly, and sprintf hands Go an int for
// it; other spellings (1e30, 15.9, and to_number's "1_0", "5.", "0x1p4") are read as a float.
bool plain_integer_text(std::string_view t) {
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
    return !t.empty() && t.find_first_not_of("0123456789") == std::string_view::npos;
}

// The integer format_int prints: a plain integer exactly (newer OPA; 1.7.1 rounded it too), any
// other number as big.Float.SetString reads it, at 64 bits, truncated toward zero.
std::optional<BigInt> format_int_operand(const Number& n) {
    std::string text = n.to_string();
    auto dec = runtime::Decimal::parse(text);
    if (!dec) return std::nullopt;
    if (plain_integer_text(text)) return dec->to_big_int(kMaxFormatDigits);
    auto f = runtime::BigFloat::from_decimal(*dec);
    if (!f) return std::nullopt;
    return f->trunc();
}

BuiltinResult format_int(Args a) {
    if (!a[0].is_number()) return type_error(1, "number", a[0]);
    if (!a[1].is_number()) return type_error(2, "number", a[1]);
    std::string base = a[1].as_number().to_string();  // OPA compares the number's text
    const char* verb = base == "2" ? "%b" : base == "8" ? "%o" : base == "10" ? "%d" : base == "16" ? "%x" : nullptr;
    if (!verb) return BuiltinResult::type_error("operand 2 must be one of {2, 8, 10, 16}");
    auto v = format_int_operand(a[0].as_number());
    if (!v) return BuiltinResult::error("number too large");
    return BuiltinResult::of(Value::string(gofmt::sprintf(verb, {gofmt::Arg::big_integer(*v)})));
}

// Whether the underscores in a number's text separate digits, as Go's ParseFloat wants them: each
// between two digits, or between a base prefix (0x) and a digit.
bool digit_separators_ok(std::string_view t) {
    if (!t.empty() && (t[0] == '+' || t[0] == '-')) t.remove_prefix(1);
    bool hex = false;
    char last = '^';  // '^' start, 'd' digit or base prefix, '_' underscore, 'o' anything else
    if (t.size() >= 2 && t[0] == '0' && std::strchr("bBoOxX", t[1])) {
        hex = t[1] == 'x' || t[1] == 'X';
        last = 'd';
        t.remove_prefix(2);
    }
    for (char c : t) {
        if (std::isdigit(static_cast<unsigned char>(c)) || (hex && std::isxdigit(static_cast<unsigned char>(c)))) {
            last = 'd';
        } else if (c == '_') {
            if (last != 'd') return false;
            last = '_';
        } else {
            if (last == '_') return false;
            last = 'o';
        }
    }
    return last != '_';
}

// "128", "-5", "007": what quantities hold most often, read without the general path's
// copies (which gives the same integer). Not "-0", "+1" or anything longer than 18 digits.
std::optional<int64_t> plain_integer(std::string_view s) {
    const std::size_t digits = s.size() - (!s.empty() && s[0] == '-');
    if (!plain_integer_text(s) || s[0] == '+' || digits > 18) return std::nullopt;
    int64_t n = 0;
    std::from_chars(s.data(), s.data() + s.size(), n);
    if (n == 0 && s[0] == '-') return std::nullopt;
    return n;
}

// The number of a string Go reads as a float (OPA keeps to_number's string as the number's
// text): an integral value is spelled with a fraction
// (10.0), so what looks at its text (sprintf's operand types, array indexes) sees a float, as
// in OPA; its value, and arithmetic and comparisons on it, are the number's.
Value float_spelled(Number n) {
    std::string text = n.to_string();
    if (text.find_first_of(".eE") == std::string::npos) {
        if (auto parsed = Number::parse(text + ".0")) return Value::number(std::move(parsed.value));
    }
    return Value::number(std::move(n));
}

// Go's strconv.ParseFloat acceptance for to_number.
BuiltinResult to_number(Args a) {
    const Value& v = a[0];
    switch (v.kind()) {
        case runtime::Kind::Null: return BuiltinResult::of(Value::integer(0));
        case runtime::Kind::Boolean: return BuiltinResult::of(Value::integer(v.as_bool() ? 1 : 0));
        case runtime::Kind::Number: return BuiltinResult::of(v);
        case runtime::Kind::String: break;
        default: return operand_type_error_of(1, v, {"null", "boolean", "number", "string"});
    }
    if (auto n = plain_integer(v.as_string())) return BuiltinResult::of(Value::integer(*n));
    std::string s(v.as_string());
    std::string_view trimmed = s;
    while (!trimmed.empty() && (trimmed[0] == '+' || trimmed[0] == '-')) trimmed.remove_prefix(1);
    std::string lowered = text::lower(trimmed);
    if (lowered == "inf" || lowered == "infinity" || lowered == "nan")
        return BuiltinResult::type_error("operand 1 must be valid number string but got string");
    auto syntax_error = [&] {
        std::string q;
        gofmt::append_quoted(q, s);
        return BuiltinResult::error(fmt::format("strconv.ParseFloat: parsing {}: invalid syntax", q));
    };
    // Exactly the decimal forms ParseFloat takes: [+-]digits[.digits][e[+-]digits], ".5", "5.", hex floats.
    if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return syntax_error();
    // ParseFloat also reads underscores between digits ("1_000", "1e1_0"): they carry no value.
    std::string digits = s;
    if (s.find('_') != std::string::npos) {
        if (!digit_separators_ok(s)) return syntax_error();
        std::erase(digits, '_');
    }
    // A hexadecimal mantissa needs a binary exponent in Go ("0x1p4"); strtod also reads "0x10".
    bool hex_text = lowered.size() > 1 && lowered[0] == '0' && lowered[1] == 'x';
    if (hex_text && lowered.find('p') == std::string::npos) return syntax_error();
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(digits.c_str(), &end);
    if (!end || *end != '\0') return syntax_error();
    if (lowered.find("inf") != std::string::npos || lowered.find("nan") != std::string::npos) return syntax_error();
    if (std::isinf(d)) {
        std::string q;
        gofmt::append_quoted(q, s);
        return BuiltinResult::error(fmt::format("strconv.ParseFloat: parsing {}: value out of range", q));
    }
    // Keep the exact decimal (big integers stay exact); normalise the forms
    // Rego's number syntax lacks: "+1", ".5", "5.", leading zeros.
    std::string norm;
    std::string_view body = digits;
    if (body[0] == '+' || body[0] == '-') {
        if (body[0] == '-') norm += '-';
        body.remove_prefix(1);
    }
    bool hex = body.size() > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
    if (!hex) {
        std::string b(body);
        auto epos = b.find_first_of("eE");
        std::string mant = b.substr(0, epos), exp = epos == std::string::npos ? "" : b.substr(epos);
        auto dot = mant.find('.');
        std::string ip = mant.substr(0, dot), fp = dot == std::string::npos ? "" : mant.substr(dot + 1);
        ip.erase(0, std::min(ip.find_first_not_of('0'), ip.size()));
        if (ip.empty()) ip = '0';
        norm += ip;
        if (!fp.empty()) norm += "." + fp;
        norm += exp;
        auto parsed = Number::parse(norm);
        if (parsed) {
            if (plain_integer_text(s)) return BuiltinResult::of(Value::number(std::move(parsed.value)));
            return BuiltinResult::of(float_spelled(std::move(parsed.value)));
        }
    }
    return BuiltinResult::of(float_spelled(Value::from_double(d).as_number()));
}

void declare_deprecated(Registry& r, std::string name, BuiltinImpl impl) {
    Builtin b;
    b.name = std::move(name);
    b.arity = 1;
    b.impl = std::move(impl);
    r.add(std::move(b));
}

BuiltinImpl identity_cast(runtime::Kind kind, const char* want) {
    return [kind, want](Args a, BuiltinContext&) {
        if (a[0].kind() != kind) return type_error(1, want, a[0]);
        return BuiltinResult::of(a[0]);
    };
}

}  // namespace

void register_casts(Registry& r) {
    declare(r, "to_number", 1, [](Args a, BuiltinContext&) { return to_number(a); });
    declare(r, "format_int", 2, [](Args a, BuiltinContext&) { return format_int(a); });
    declare_deprecated(r, "cast_array", [](Args a, BuiltinContext&) {
        if (a[0].is_array()) return BuiltinResult::of(a[0]);
        if (!a[0].is_set()) return operand_type_error_of(1, a[0], {"array", "set"});
        runtime::ArrayBuilder b(a[0].size());
        for (const auto& e : a[0].set_elements()) b.push_back(e);
        return BuiltinResult::of(b.build());
    });
    declare_deprecated(r, "cast_set", [](Args a, BuiltinContext&) {
        if (a[0].is_set()) return BuiltinResult::of(a[0]);
        if (!a[0].is_array()) return operand_type_error_of(1, a[0], {"array", "set"});
        runtime::SetBuilder b(a[0].size());
        for (const auto& e : a[0].array_elements()) b.insert(e);
        return BuiltinResult::of(b.build());
    });
    declare_deprecated(r, "cast_string", identity_cast(runtime::Kind::String, "string"));
    declare_deprecated(r, "cast_boolean", identity_cast(runtime::Kind::Boolean, "boolean"));
    declare_deprecated(r, "cast_null", identity_cast(runtime::Kind::Null, "null"));
    declare_deprecated(r, "cast_object", identity_cast(runtime::Kind::Object, "object"));
}

}  // namespace gavel::stdlib
