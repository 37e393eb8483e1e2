// yaml.marshal, yaml.unmarshal, yaml.is_valid.
//
// OPA converts values to YAML through JSON (sigs.k8s.io/yaml over go-yaml
// v2), so the output follows go-yaml's block style: mapping keys sorted in
// go-yaml's "natural" order (digit runs compared as numbers), sequences
// inside mappings not indented, empty collections as {} and [], strings
// quoted only when a plain scalar would read back as something else or is
// not allowed, multi-line strings as literal blocks.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "runtime/json.hpp"
#include "runtime/number.hpp"
#include "runtime/yaml.hpp"

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/object_family.hpp"
#include "stdlib/unicode_text.hpp"
#include "support/utf8.hpp"

namespace gavel::stdlib {

namespace {

// ---- scalars --------------------------------------------------------------------

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Would go-yaml v2 read this plain scalar as something other than a string
// (null, bool incl. YAML 1.1 words, int, float, .inf/.nan, timestamp)?
bool resolves_to_non_string(std::string_view s) {
    if (s.empty()) return true;
    static const char* const words[] = {
        "~",    "null", "Null", "NULL",  "y",     "Y",     "yes",   "Yes",   "YES",   "n",    "N",    "no",   "No",
        "NO",   "true", "True", "TRUE",  "false", "False", "FALSE", "on",    "On",    "ON",   "off",  "Off",  "OFF",
        ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN", "<<"};
    for (const char* w : words)
        if (s == w) return true;
    // Numbers: [-+]? then digits/underscores, 0x.., 0b.., 0o.., decimals with exponent.
    std::string_view t = s;
    if (t[0] == '-' || t[0] == '+') t.remove_prefix(1);
    if (t.empty()) return false;
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'b' || t[1] == 'o')) return true;
    bool digits = false, dot = false, exp = false;
    for (std::size_t i = 0; i < t.size(); ++i) {
        char c = t[i];
        if (is_digit(c)) digits = true;
        else if (c == '_' && digits) continue;
        else if (c == '.' && !dot && !exp) dot = true;
        else if ((c == 'e' || c == 'E') && digits && !exp) {
            exp = true;
            if (i + 1 < t.size() && (t[i + 1] == '+' || t[i + 1] == '-')) ++i;
            digits = false;
        } else if (c == ':' && digits && !dot && !exp) {
            continue;  // base 60 (1:20)
        } else {
            // A timestamp 2001-12-14 (and longer forms).
            return s.size() >= 10 && is_digit(s[0]) && is_digit(s[3]) && s[4] == '-' && is_digit(s[5]) && s[7] == '-';
        }
    }
    return digits;
}

// A multi-byte UTF-8 sequence at s[i] that go-yaml's emitter does not print as it is
// (is_printable: C1 controls, the BOM, U+FFFE/U+FFFF, and everything beyond the BMP, such as
// emoji): its length, and the code point in `r`; 0 for anything else.
std::size_t unprintable_sequence(std::string_view s, std::size_t i, char32_t& r) {
    auto b = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    unsigned c = b(0);
    if (c == 0xC2 && b(1) >= 0x80 && b(1) < 0xA0) {
        r = b(1);
        return 2;
    }
    if (c == 0xEF && ((b(1) == 0xBB && b(2) == 0xBF) || (b(1) == 0xBF && (b(2) == 0xBE || b(2) == 0xBF)))) {
        r = ((c & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4 && (b(1) & 0xC0) == 0x80 && (b(2) & 0xC0) == 0x80 && (b(3) & 0xC0) == 0x80) {
        r = ((c & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
        return 4;
    }
    return 0;
}

// Thrown for a string go-yaml's reader refuses when it reads OPA's JSON text again: DEL, C1
// controls other than NEL, U+FFFE and U+FFFF stand raw in that text (json.Marshal escapes only
// those below 0x20); caught in yaml.marshal.
struct ControlCharacter {};

void check_readable(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        auto next = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
        if (c == 0x7F || (c == 0xC2 && next(1) >= 0x80 && next(1) < 0xA0 && next(1) != 0x85) ||
            (c == 0xEF && next(1) == 0xBF && (next(2) == 0xBE || next(2) == 0xBF)))
            throw ControlCharacter{};
    }
}

enum class Style { Plain, Single, Double, Literal };

// go-yaml's emitter analysis, reduced to what block context needs.
Style choose_style(std::string_view s, bool is_key) {
    bool special = false, line_breaks = false, block_indicators = false;
    bool leading_space = false, trailing_space = false, space_break = false, break_space = false;
    if (s.empty()) return Style::Double;
    if (s.substr(0, 3) == "---" || s.substr(0, 3) == "...") block_indicators = true;
    bool prev_space = false, prev_break = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        bool next_blank =
            i + 1 >= s.size() || s[i + 1] == ' ' || s[i + 1] == '\t' || s[i + 1] == '\n' || s[i + 1] == '\r';
        if (i == 0) {
            switch (c) {
                case '#':
                case ',':
                case '[':
                case ']':
                case '{':
                case '}':
                case '&':
                case '*':
                case '!':
                case '|':
                case '>':
                case '\'':
                case '"':
                case '%':
                case '@':
                case '`': block_indicators = true; break;
                case '?':
                case ':':
                case '-':
                    if (next_blank) block_indicators = true;
                    break;
                default: break;
            }
        } else {
            if (c == ':' && next_blank) block_indicators = true;
            if (c == '#' && (s[i - 1] == ' ' || s[i - 1] == '\t')) block_indicators = true;
        }
        char32_t r;
        if (c == '\t' || (c < 0x20 && c != '\n') || c == 0x7f || unprintable_sequence(s, i, r) != 0) special = true;
        if (c == ' ') {
            if (i == 0) leading_space = true;
            if (i + 1 == s.size()) trailing_space = true;
            if (prev_break) break_space = true;
            prev_space = true;
            prev_break = false;
        } else if (c == '\n') {
            line_breaks = true;
            if (prev_space) space_break = true;
            prev_break = true;
            prev_space = false;
        } else {
            prev_space = prev_break = false;
        }
    }
    bool plain =
        !(leading_space || trailing_space || line_breaks || block_indicators || space_break || special || break_space);
    bool single = !(space_break || special || break_space);
    if (is_key && line_breaks) return Style::Double;
    if (line_breaks && !special && !trailing_space) return Style::Literal;
    if (resolves_to_non_string(s)) return Style::Double;
    if (plain) return Style::Plain;
    if (single && !line_breaks) return Style::Single;
    return Style::Double;
}

void append_double_quoted(std::string& out, std::string_view s) {
    static const char* hex = "0123456789ABCDEF";
    out += '"';
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        char32_t r;
        if (std::size_t n = unprintable_sequence(s, i, r)) {
            // go-yaml's escapes: \N for NEL, else \xXX, \uXXXX or \UXXXXXXXX.
            if (r == 0x85) {
                out += "\\N";
            } else {
                int digits = r <= 0xFF ? 2 : r <= 0xFFFF ? 4 : 8;
                out += r <= 0xFF ? "\\x" : r <= 0xFFFF ? "\\u" : "\\U";
                for (int k = digits - 1; k >= 0; --k) out += hex[(r >> (4 * k)) & 15];
            }
            i += n - 1;
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            case '\0': out += "\\0"; break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    out += "\\x";
                    out += hex[c >> 4];
                    out += hex[c & 15];
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    out += '"';
}

void append_indent(std::string& out, std::size_t n) { out.append(n, ' '); }

// A scalar string; literal blocks are indented by `indent` + 2.
void append_string(std::string& out, std::string_view s, std::size_t indent, bool is_key) {
    check_readable(s);
    switch (choose_style(s, is_key)) {
        case Style::Plain: out += s; return;
        case Style::Single:
            out += '\'';
            for (char c : s) {
                if (c == '\'') out += '\'';
                out += c;
            }
            out += '\'';
            return;
        case Style::Double: append_double_quoted(out, s); return;
        case Style::Literal: {
            std::size_t trailing = 0;
            while (trailing < s.size() && s[s.size() - 1 - trailing] == '\n') ++trailing;
            out += '|';
            if (s[0] == ' ' || s[0] == '\n') out += '2';  // explicit indentation when content starts blank
            out += trailing == 0 ? "-" : trailing == 1 ? "" : "+";
            std::string_view body = s.substr(0, s.size() - (trailing == 1 ? 1 : 0));
            std::size_t start = 0;
            while (start <= body.size()) {
                std::size_t nl = body.find('\n', start);
                std::string_view line =
                    body.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
                out += '\n';
                if (!line.empty()) {
                    append_indent(out, indent + 2);
                    out += line;
                }
                if (nl == std::string_view::npos) break;
                start = nl + 1;
            }
            return;
        }
    }
}

// ---- collections ----------------------------------------------------------------

// go-yaml v2's key order (keyList.Less), rune by rune: two letters by code point, a non-letter
// (digits, symbols, emoji) before a letter, digit runs by numeric value.
bool natural_less(std::string_view as, std::string_view bs) {
    std::vector<char32_t> a = support::utf8::runes(as), b = support::utf8::runes(bs);
    auto digit = [](char32_t c) { return c >= '0' && c <= '9'; };
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (a[i] == b[i]) continue;
        bool al = text::is_letter(a[i]), bl = text::is_letter(b[i]);
        if (al && bl) return a[i] < b[i];
        if (al || bl) return bl;
        int64_t an = 0, bn = 0;
        if (a[i] == '0' || b[i] == '0') {
            for (std::size_t j = i; j-- > 0 && digit(a[j]);)
                if (a[j] != '0') {
                    an = bn = 1;
                    break;
                }
        }
        std::size_t ai = i, bi = i;
        for (; ai < a.size() && digit(a[ai]); ++ai) an = an * 10 + (a[ai] - '0');
        for (; bi < b.size() && digit(b[bi]); ++bi) bn = bn * 10 + (b[bi] - '0');
        if (an != bn) return an < bn;
        if (ai != bi) return ai < bi;
        return a[i] < b[i];
    }
    return a.size() < b.size();
}

bool is_block_collection(const Value& v) { return ((v.is_array() || v.is_set() || v.is_object()) && v.size() > 0); }

std::span<const Value> sequence(const Value& v) { return v.is_array() ? v.array_elements() : v.set_elements(); }

// Thrown when the evaluation's budget says stop; caught in yaml.marshal.
struct EmitStopped {};

// Room in `out` for `n` more bytes within the evaluation's memory limit (the
// text can be far larger than the value: one value shared many times over,
// indentation on every line), and the work it stands for.
void need(std::string& out, std::size_t n, BuiltinContext& ctx) {
    if (!ctx.room(out, n)) throw EmitStopped{};
}

void emit(std::string& out, const Value& v, std::size_t indent, BuiltinContext& ctx);

// OPA hands go-yaml (through sigs.k8s.io/yaml) a number's JSON text, which go-yaml reads again:
// an int64 or uint64 prints in digits ("-0" as 0), anything else as a float64 in strconv's
// shortest 'g' ("1e+06", "0.3333333333333333", "-0"); a float64 overflow keeps the text.
std::string yaml_number(const runtime::Number& n) {
    std::string text = n.to_string();
    const char* first = text.data();
    const char* last = first + text.size();
    bool integer = text.find_first_of(".eE") == std::string::npos;
    if (integer) {
        std::int64_t i = 0;
        if (auto r = std::from_chars(first, last, i); r.ec == std::errc() && r.ptr == last) return std::to_string(i);
        std::uint64_t u = 0;
        if (auto r = std::from_chars(first, last, u); r.ec == std::errc() && r.ptr == last) return std::to_string(u);
    }
    double d = std::strtod(text.c_str(), nullptr);
    if (std::isinf(d)) return text;
    if (d == 0) return std::signbit(d) ? "-0" : "0";
    return runtime::format_double(d);
}

void emit_scalar(std::string& out, const Value& v, std::size_t indent, BuiltinContext& ctx) {
    if (v.is_string()) {
        // Quoted, escaped (up to four bytes a byte), or a literal block indented on every line.
        std::string_view text = v.as_string();
        auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
        need(out, 4 * text.size() + lines * (indent + 3) + 16, ctx);
    } else {
        need(out, 32, ctx);
    }
    if (v.is_string()) append_string(out, v.as_string(), indent, false);
    else if (v.is_array() || v.is_set()) out += "[]";
    else if (v.is_object()) out += "{}";
    else if (v.is_number()) out += yaml_number(v.as_number());
    else out += runtime::to_json(v);
}

// Emits a block mapping whose first key goes where the cursor already is.
void emit_mapping(std::string& out, const Value& v, std::size_t indent, BuiltinContext& ctx) {
    // Keys that print alike (1 and "1"): the last in canonical order, as OPA's conversion to
    // JSON (a Go map filled in that order) keeps.
    auto entries = runtime::json_key_text_entries(v, natural_less);
    bool first = true;
    for (const auto& [key, value] : entries) {
        need(out, indent + 4 * key.size() + 8, ctx);
        if (!first) append_indent(out, indent);
        first = false;
        append_string(out, key, indent, true);
        out += ':';
        if (is_block_collection(*value)) {
            out += '\n';
            need(out, indent + 2, ctx);
            if (value->is_object()) {
                append_indent(out, indent + 2);
                emit_mapping(out, *value, indent + 2, ctx);
            } else {
                append_indent(out, indent);
                emit(out, *value, indent, ctx);
            }
        } else {
            out += ' ';
            emit_scalar(out, *value, indent, ctx);
            out += '\n';
        }
    }
}

// Emits any value at the cursor; ends with a newline.
void emit(std::string& out, const Value& v, std::size_t indent, BuiltinContext& ctx) {
    if (v.is_object() && v.size() > 0) {
        emit_mapping(out, v, indent, ctx);
        return;
    }
    if ((v.is_array() || v.is_set()) && v.size() > 0) {
        bool first = true;
        for (const auto& item : sequence(v)) {
            need(out, indent + 2, ctx);
            if (!first) append_indent(out, indent);
            first = false;
            out += "- ";
            if (is_block_collection(item)) emit(out, item, indent + 2, ctx);
            else {
                emit_scalar(out, item, indent, ctx);
                out += '\n';
            }
        }
        return;
    }
    emit_scalar(out, v, indent, ctx);
    out += '\n';
}

}  // namespace

void register_yaml(Registry& r) {
    declare(r, "yaml.marshal", 1, [](Args a, BuiltinContext& ctx) {
        std::string out;
        try {
            emit(out, a[0], 0, ctx);
        } catch (const EmitStopped&) {
            return BuiltinResult::cancelled();
        } catch (const ControlCharacter&) {
            return BuiltinResult::error("yaml: control characters are not allowed");
        }
        return text_result(ctx, out);
    });
    declare(r, "yaml.unmarshal", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        auto parsed = runtime::load_yaml_data(a[0].as_string());
        if (!parsed) return BuiltinResult::error(parsed.error.message);  // go-yaml's text (runtime/yaml.hpp)
        return BuiltinResult::of(std::move(parsed.value));
    });
    declare(r, "yaml.is_valid", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return BuiltinResult::of(Value::boolean(false));
        return BuiltinResult::of(Value::boolean(runtime::load_yaml_data(a[0].as_string()).ok));
    });
}

}  // namespace gavel::stdlib
