#include "stdlib/go_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <algorithm>

#include "stdlib/unicode_text.hpp"
#include "support/go_float.hpp"
#include "support/utf8.hpp"

namespace gavel::stdlib::gofmt {

namespace {

using runtime::BigInt;

constexpr const char* kLower = "0123456789abcdefx";
constexpr const char* kUpper = "0123456789ABCDEFX";
constexpr char32_t kMaxRune = 0x10FFFF;

// Go's fmt refuses widths and precisions beyond this ("crazy long number").
bool too_large(std::int64_t x) { return x > 1000000 || x < -1000000; }

void append_hex(std::string& out, std::uint64_t v, int digits) {
    for (int k = digits - 1; k >= 0; --k) out += kLower[(v >> (4 * k)) & 0xF];
}

void append_escaped_rune(std::string& out, char32_t r, char32_t quote, bool ascii_only) {
    // As strconv: an invalid rune is U+FFFD first, printed as such (%q of 55296 is '�' printed).
    if (r > kMaxRune || (r >= 0xD800 && r <= 0xDFFF)) r = support::utf8::kReplacement;
    if (r == quote || r == '\\') {
        out += '\\';
        out += static_cast<char>(r);
        return;
    }
    if (ascii_only) {
        if (r < 0x80 && text::is_print(r)) {
            out += static_cast<char>(r);
            return;
        }
    } else if (text::is_print(r)) {
        support::utf8::append_rune(out, r);
        return;
    }
    switch (r) {
        case '\a': out += "\\a"; return;
        case '\b': out += "\\b"; return;
        case '\f': out += "\\f"; return;
        case '\n': out += "\\n"; return;
        case '\r': out += "\\r"; return;
        case '\t': out += "\\t"; return;
        case '\v': out += "\\v"; return;
        default: break;
    }
    if (r < ' ' || r == 0x7F) {
        out += "\\x";
        append_hex(out, r, 2);
        return;
    }
    if (r < 0x10000) {
        out += "\\u";
        append_hex(out, r, 4);
    } else {
        out += "\\U";
        append_hex(out, r, 8);
    }
}

bool can_backquote(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        auto d = support::utf8::decode_rune(s, i);
        i += d.width;
        if (d.width > 1) {
            if (d.rune == 0xFEFF) return false;
            continue;
        }
        if (d.rune == support::utf8::kReplacement) return false;
        if ((d.rune < ' ' && d.rune != '\t') || d.rune == '`' || d.rune == 0x7F) return false;
    }
    return true;
}

// Digits of the magnitude of `v` in `base` (2, 8, 10, 16).
std::string big_digits(BigInt v, int base, const char* digits) {
    if (v < 0) v = -v;
    if (v == 0) return "0";
    std::string out;
    if (base == 10) {
        out = v.str();
    } else {
        unsigned shift = base == 2 ? 1 : base == 8 ? 3 : 4;
        unsigned mask = (1u << shift) - 1;
        while (v != 0) {
            out += digits[static_cast<unsigned>(v & mask)];
            v >>= shift;
        }
        std::reverse(out.begin(), out.end());
    }
    return out;
}

std::string u64_digits(std::uint64_t v, int base, const char* digits) {
    if (v == 0) return "0";
    std::string out;
    while (v != 0) {
        out += digits[v % static_cast<unsigned>(base)];
        v /= static_cast<unsigned>(base);
    }
    std::reverse(out.begin(), out.end());
    return out;
}

// Go's %b for floats: decimal mantissa and binary exponent.
std::string float_binary(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bool neg = bits >> 63;
    int exp = static_cast<int>((bits >> 52) & 0x7FF);
    std::uint64_t mant = bits & ((std::uint64_t{1} << 52) - 1);
    if (exp == 0) exp++;
    else mant |= std::uint64_t{1} << 52;
    exp += -1023 - 52;
    std::string out = neg ? "-" : "";
    out += std::to_string(mant);
    out += 'p';
    out += exp >= 0 ? "+" : "";
    out += std::to_string(exp);
    return out;
}

// Go's %x for floats: C's %a with Go's two-digit exponent minimum.
std::string float_hex(double v, int prec, bool upper) {
    char buf[128];
    if (prec < 0) std::snprintf(buf, sizeof buf, upper ? "%A" : "%a", v);
    else std::snprintf(buf, sizeof buf, upper ? "%.*A" : "%.*a", prec, v);
    std::string s(buf);
    auto p = s.find(upper ? 'P' : 'p');
    if (p != std::string::npos && p + 2 < s.size() + 1) {
        std::string exp = s.substr(p + 2);
        if (exp.size() < 2) s = s.substr(0, p + 2) + "0" + exp;
    }
    return s;
}

// strconv.AppendFloat(v, verb, prec, 64); prec -1 is "shortest".
std::string format_float(double v, char verb, int prec) {
    switch (verb) {
        case 'b': return float_binary(v);
        case 'x':
        case 'X': return float_hex(v, prec, verb == 'X');
        case 'g':
        case 'G':
            if (prec < 0) return support::go_format_g(v, verb == 'G');
            break;
        default: break;
    }
    if (prec < 0) {
        // Shortest %e / %f (only reachable through %v paths); Go uses the
        // shortest digits, which %g with full precision approximates.
        prec = 17;
    }
    char fmtbuf[8] = {'%', '.', '*', verb, 0};
    int n = std::snprintf(nullptr, 0, fmtbuf, prec, v);
    std::string out(static_cast<std::size_t>(n), '\0');
    std::snprintf(out.data(), out.size() + 1, fmtbuf, prec, v);
    return out;
}

class Printer {
public:
    std::string buf;
    // When set, the text grows only within its memory limit and each operand
    // is work: once it says stop, nothing more is printed (stopped()).
    runtime::WorkBudget* budget = nullptr;
    bool stopped() const { return stopped_; }

    void print(std::string_view format, const std::vector<Arg>& a) {
        std::size_t end = format.size();
        std::size_t arg_num = 0;
        bool after_index = false;
        reordered_ = false;
        std::size_t i = 0;
        while (i < end && !stopped_) {
            good_arg_num_ = true;
            std::size_t lasti = i;
            while (i < end && format[i] != '%') ++i;
            if (i > lasti) buf.append(format.substr(lasti, i - lasti));
            if (i >= end) break;
            ++i;
            clear_flags();
            bool simple_done = false;
            for (; i < end; ++i) {
                char c = format[i];
                if (c == '#') sharp_ = true;
                else if (c == '0') zero_ = !minus_;
                else if (c == '+') plus_ = true;
                else if (c == '-') {
                    minus_ = true;
                    zero_ = false;
                } else if (c == ' ') space_ = true;
                else {
                    if (c >= 'a' && c <= 'z' && arg_num < a.size()) {
                        if (c == 'v') {
                            sharp_v_ = sharp_;
                            sharp_ = false;
                            plus_v_ = plus_;
                            plus_ = false;
                        }
                        print_arg(a[arg_num], static_cast<char32_t>(c));
                        ++arg_num;
                        ++i;
                        simple_done = true;
                    }
                    break;
                }
            }
            if (simple_done) continue;

            arg_number(arg_num, format, i, a.size(), after_index);

            if (i < end && format[i] == '*') {
                ++i;
                wid_present_ = int_from_arg(a, arg_num, wid_);
                if (!wid_present_) buf += "%!(BADWIDTH)";
                if (wid_ < 0) {
                    wid_ = -wid_;
                    minus_ = true;
                    zero_ = false;
                }
                after_index = false;
            } else {
                wid_present_ = parse_num(format, i, end, wid_);
                if (after_index && wid_present_) good_arg_num_ = false;
            }

            if (i + 1 < end && format[i] == '.') {
                ++i;
                if (after_index) good_arg_num_ = false;
                arg_number(arg_num, format, i, a.size(), after_index);
                if (i < end && format[i] == '*') {
                    ++i;
                    prec_present_ = int_from_arg(a, arg_num, prec_);
                    if (prec_ < 0) {
                        prec_ = 0;
                        prec_present_ = false;
                    }
                    if (!prec_present_) buf += "%!(BADPREC)";
                    after_index = false;
                } else {
                    prec_present_ = parse_num(format, i, end, prec_);
                    if (!prec_present_) {
                        prec_ = 0;
                        prec_present_ = true;
                    }
                }
            }

            if (!after_index) arg_number(arg_num, format, i, a.size(), after_index);

            if (i >= end) {
                buf += "%!(NOVERB)";
                break;
            }
            auto d = support::utf8::decode_rune(format, i);
            char32_t verb = d.rune;
            i += d.width;

            if (verb == '%') {
                buf += '%';
            } else if (!good_arg_num_) {
                bad_arg(verb, "BADINDEX");
            } else if (arg_num >= a.size()) {
                bad_arg(verb, "MISSING");
            } else {
                if (verb == 'v') {
                    sharp_v_ = sharp_;
                    sharp_ = false;
                    plus_v_ = plus_;
                    plus_ = false;
                }
                print_arg(a[arg_num], verb);
                ++arg_num;
            }
        }
        if (!reordered_ && arg_num < a.size()) {
            clear_flags();
            buf += "%!(EXTRA ";
            for (std::size_t k = arg_num; k < a.size(); ++k) {
                if (k > arg_num) buf += ", ";
                if (a[k].kind == Arg::Kind::Nil) {
                    buf += "<nil>";
                    continue;
                }
                buf += type_name(a[k]);
                buf += '=';
                print_arg(a[k], 'v');
            }
            buf += ')';
        }
    }

private:
    bool plus_ = false, minus_ = false, sharp_ = false, space_ = false, zero_ = false, sharp_v_ = false,
         plus_v_ = false;
    bool wid_present_ = false, prec_present_ = false;
    std::int64_t wid_ = 0, prec_ = 0;
    bool reordered_ = false, good_arg_num_ = true;
    bool stopped_ = false;

    void clear_flags() {
        plus_ = minus_ = sharp_ = space_ = zero_ = sharp_v_ = plus_v_ = false;
        wid_present_ = prec_present_ = false;
        wid_ = prec_ = 0;
    }

    static std::string type_name(const Arg& a) {
        if (!a.go_type.empty()) return a.go_type;
        switch (a.kind) {
            case Arg::Kind::Int: return "int";
            case Arg::Kind::BigInt: return "*big.Int";
            case Arg::Kind::Float: return "float64";
            case Arg::Kind::String: return "string";
            case Arg::Kind::Bool: return "bool";
            case Arg::Kind::Nil: return "<nil>";
            case Arg::Kind::Composite: return "[]interface {}";
        }
        return "?";
    }

    // Go's parsenum: on a crazy long number it gives up and skips to `end`.
    static bool parse_num(std::string_view s, std::size_t& i, std::size_t end, std::int64_t& num) {
        num = 0;
        bool isnum = false;
        while (i < end && s[i] >= '0' && s[i] <= '9') {
            if (too_large(num)) {
                num = 0;
                i = end;
                return false;
            }
            num = num * 10 + (s[i] - '0');
            isnum = true;
            ++i;
        }
        return isnum;
    }

    void arg_number(std::size_t& arg_num, std::string_view format, std::size_t& i, std::size_t num_args, bool& found) {
        found = false;
        if (i >= format.size() || format[i] != '[') return;
        reordered_ = true;
        std::string_view rest = format.substr(i);
        std::size_t wid = 1;
        bool ok = false;
        std::int64_t index = 0;
        if (rest.size() >= 3) {
            for (std::size_t k = 1; k < rest.size(); ++k) {
                if (rest[k] == ']') {
                    std::size_t p = 1;
                    std::int64_t n = 0;
                    bool isnum = parse_num(rest, p, k, n);
                    wid = k + 1;
                    if (isnum && p == k) {
                        ok = true;
                        index = n - 1;
                    }
                    break;
                }
            }
        }
        i += wid;
        if (ok && index >= 0 && static_cast<std::size_t>(index) < num_args) {
            arg_num = static_cast<std::size_t>(index);
            found = true;
            return;
        }
        good_arg_num_ = false;
        found = ok;
    }

    bool int_from_arg(const std::vector<Arg>& a, std::size_t& arg_num, std::int64_t& num) {
        num = 0;
        if (arg_num >= a.size()) return false;
        bool is_int = a[arg_num].kind == Arg::Kind::Int;
        if (is_int) num = a[arg_num].i;
        ++arg_num;
        if (too_large(num)) {
            num = 0;
            is_int = false;
        }
        return is_int;
    }

    void bad_arg(char32_t verb, const char* what) {
        buf += "%!";
        support::utf8::append_rune(buf, verb);
        buf += '(';
        buf += what;
        buf += ')';
    }

    void write_padding(std::int64_t n) {
        if (n <= 0) return;
        buf.append(static_cast<std::size_t>(n), zero_ ? '0' : ' ');
    }

    // Pads `s` to the width (counted in runes).
    void pad(std::string_view s) {
        if (!wid_present_ || wid_ == 0) {
            buf += s;
            return;
        }
        auto width = wid_ - static_cast<std::int64_t>(support::utf8::rune_count(s));
        if (!minus_) {
            write_padding(width);
            buf += s;
        } else {
            buf += s;
            bool z = zero_;
            zero_ = false;
            write_padding(width);
            zero_ = z;
        }
    }

    void bad_verb(const Arg& a, char32_t verb) {
        buf += "%!";
        support::utf8::append_rune(buf, verb);
        buf += '(';
        if (a.kind == Arg::Kind::Nil) {
            buf += "<nil>";  // Go's badVerb of a nil operand: no type, no value
        } else {
            buf += type_name(a);
            buf += '=';
            print_arg(a, 'v');
        }
        buf += ')';
    }

    void print_arg(const Arg& a, char32_t verb) {
        if (budget && !stopped_) {
            // Room for what this operand can print: its text (escaped up to four
            // times as long by %q or %x), padded to the width, to the precision.
            std::size_t text = a.s.size() * (verb == 's' || verb == 'v' ? 1 : 4);
            auto pad = [](std::int64_t n) { return static_cast<std::size_t>(std::clamp<std::int64_t>(n, 0, 1 << 21)); };
            std::size_t need = text + pad(wid_) + pad(prec_) + 64;
            if (!budget->room(buf, need)) stopped_ = true;
        }
        if (stopped_) return;
        if (verb == 'T') {
            fmt_s(type_name(a));
            return;
        }
        switch (a.kind) {
            case Arg::Kind::Int: fmt_int(a, verb); return;
            case Arg::Kind::BigInt: fmt_big(a, verb); return;
            case Arg::Kind::Float: fmt_float(a, verb); return;
            case Arg::Kind::String: fmt_string(a, verb); return;
            // Go's fmtBool, nil's printArg, and printValue of a slice or map at %v
            // (elements are formatted with the verb: only %v and %s come out whole).
            case Arg::Kind::Bool:
                if (verb == 't' || verb == 'v') pad(a.i ? "true" : "false");
                else bad_verb(a, verb);
                return;
            case Arg::Kind::Nil:
                if (verb == 'v') pad("<nil>");
                else bad_verb(a, verb);
                return;
            case Arg::Kind::Composite:
                if (verb == 'v' || verb == 's') buf += a.s;
                else bad_verb(a, verb);
                return;
        }
    }

    // ---- strings ---------------------------------------------------------
    std::string_view truncate(std::string_view s) const {
        if (!prec_present_) return s;
        std::int64_t n = prec_;
        for (std::size_t i = 0; i < s.size();) {
            if (n-- <= 0) return s.substr(0, i);
            i += support::utf8::decode_rune(s, i).width;
        }
        return s;
    }

    void fmt_s(std::string_view s) { pad(truncate(s)); }

    void fmt_q(std::string_view s) {
        s = truncate(s);
        if (sharp_ && can_backquote(s)) {
            std::string q = "`";
            q += s;
            q += '`';
            pad(q);
            return;
        }
        std::string q;
        append_quoted(q, s, plus_);
        pad(q);
    }

    void fmt_sx(std::string_view s, const char* digits) {
        std::int64_t length = static_cast<std::int64_t>(s.size());
        if (prec_present_ && prec_ < length) length = prec_;
        std::int64_t width = 2 * length;
        if (width > 0) {
            if (space_) {
                if (sharp_) width *= 2;
                width += length - 1;
            } else if (sharp_) {
                width += 2;
            }
        } else {
            if (wid_present_) write_padding(wid_);
            return;
        }
        if (wid_present_ && wid_ > width && !minus_) write_padding(wid_ - width);
        if (sharp_) {
            buf += '0';
            buf += digits[16];
        }
        for (std::int64_t k = 0; k < length; ++k) {
            if (space_ && k > 0) {
                buf += ' ';
                if (sharp_) {
                    buf += '0';
                    buf += digits[16];
                }
            }
            auto c = static_cast<unsigned char>(s[static_cast<std::size_t>(k)]);
            buf += digits[c >> 4];
            buf += digits[c & 0xF];
        }
        if (wid_present_ && wid_ > width && minus_) {
            bool z = zero_;
            zero_ = false;
            write_padding(wid_ - width);
            zero_ = z;
        }
    }

    void fmt_string(const Arg& a, char32_t verb) {
        switch (verb) {
            case 'v':
                if (sharp_v_) fmt_q(a.s);
                else fmt_s(a.s);
                return;
            case 's': fmt_s(a.s); return;
            case 'x': fmt_sx(a.s, kLower); return;
            case 'X': fmt_sx(a.s, kUpper); return;
            case 'q': fmt_q(a.s); return;
            default: bad_verb(a, verb);
        }
    }

    // ---- integers ----------------------------------------------------------
    // Go's fmt.fmtInteger given the magnitude's digits.
    void fmt_integer(bool negative, std::string digits, int base, char32_t verb, const char* dig) {
        bool is_zero = digits == "0";
        std::int64_t prec = 0;
        if (prec_present_) {
            prec = prec_;
            if (prec == 0 && is_zero) {
                bool z = zero_;
                zero_ = false;
                write_padding(wid_);
                zero_ = z;
                return;
            }
        } else if (zero_ && !minus_ && wid_present_) {
            prec = wid_;
            if (negative || plus_ || space_) --prec;
        }
        std::string prefix;
        if (prec > static_cast<std::int64_t>(digits.size()))
            digits.insert(0, static_cast<std::size_t>(prec) - digits.size(), '0');
        if (sharp_) {
            if (base == 2) prefix = "0b";
            else if (base == 8) {
                if (digits[0] != '0') prefix = "0";
            } else if (base == 16) {
                prefix = "0";
                prefix += dig[16];
            }
        }
        if (verb == 'O') prefix = "0o" + prefix;
        std::string sign;
        if (negative) sign = "-";
        else if (plus_) sign = "+";
        else if (space_) sign = " ";
        bool z = zero_;
        zero_ = false;
        pad(sign + prefix + digits);
        zero_ = z;
    }

    void fmt_unicode(std::uint64_t u) {
        std::int64_t prec = 4;
        if (prec_present_ && prec_ > 4) prec = prec_;
        std::string hex = u64_digits(u, 16, kUpper);
        std::string out = "U+";
        if (static_cast<std::int64_t>(hex.size()) < prec) out.append(static_cast<std::size_t>(prec) - hex.size(), '0');
        out += hex;
        if (sharp_ && u <= kMaxRune && text::is_print(static_cast<char32_t>(u))) {
            out += " '";
            support::utf8::append_rune(out, static_cast<char32_t>(u));
            out += '\'';
        }
        bool z = zero_;
        zero_ = false;
        pad(out);
        zero_ = z;
    }

    void fmt_int(const Arg& a, char32_t verb) {
        std::int64_t v = a.i;
        bool neg = v < 0;
        std::uint64_t mag = neg ? (~static_cast<std::uint64_t>(v) + 1) : static_cast<std::uint64_t>(v);
        auto as_rune = [&]() -> char32_t {
            auto u = static_cast<std::uint64_t>(v);
            if (u > kMaxRune) return support::utf8::kReplacement;
            return static_cast<char32_t>(u);
        };
        switch (verb) {
            case 'v':
            case 'd': fmt_integer(neg, u64_digits(mag, 10, kLower), 10, verb, kLower); return;
            case 'b': fmt_integer(neg, u64_digits(mag, 2, kLower), 2, verb, kLower); return;
            case 'o':
            case 'O': fmt_integer(neg, u64_digits(mag, 8, kLower), 8, verb, kLower); return;
            case 'x': fmt_integer(neg, u64_digits(mag, 16, kLower), 16, verb, kLower); return;
            case 'X': fmt_integer(neg, u64_digits(mag, 16, kUpper), 16, verb, kUpper); return;
            case 'c': {
                std::string s;
                support::utf8::append_rune(s, as_rune());
                pad(s);
                return;
            }
            case 'q': {
                std::string s = "'";
                append_escaped_rune(s, as_rune(), '\'', plus_);
                s += '\'';
                pad(s);
                return;
            }
            case 'U': fmt_unicode(static_cast<std::uint64_t>(v)); return;
            default: bad_verb(a, verb);
        }
    }

    // math/big's Int.Format.
    void fmt_big(const Arg& a, char32_t verb) {
        int base = 0;
        switch (verb) {
            case 'b': base = 2; break;
            case 'o':
            case 'O': base = 8; break;
            case 'd':
            case 's':
            case 'v': base = 10; break;
            case 'x':
            case 'X': base = 16; break;
            default:
                buf += "%!";
                support::utf8::append_rune(buf, verb);
                buf += "(big.Int=";
                buf += a.big.str();
                buf += ')';
                return;
        }
        // fmt.State.Flag reports '+' and '#' for %+v and %#v too.
        bool plus = plus_ || plus_v_, sharp = sharp_ || sharp_v_;
        std::string sign;
        if (a.big < 0) sign = "-";
        else if (plus) sign = "+";
        else if (space_) sign = " ";
        std::string prefix;
        if (sharp) {
            if (verb == 'b') prefix = "0b";
            else if (verb == 'o') prefix = "0";
            else if (verb == 'x') prefix = "0x";
            else if (verb == 'X') prefix = "0X";
        }
        if (verb == 'O') prefix = "0o";
        std::string digits = big_digits(a.big, base, verb == 'X' ? kUpper : kLower);
        std::int64_t left = 0, zeros = 0, right = 0;
        if (prec_present_) {
            if (static_cast<std::int64_t>(digits.size()) < prec_)
                zeros = prec_ - static_cast<std::int64_t>(digits.size());
            else if (digits == "0" && prec_ == 0) return;
        }
        auto length = static_cast<std::int64_t>(sign.size() + prefix.size() + digits.size()) + zeros;
        if (wid_present_ && length < wid_) {
            auto d = wid_ - length;
            if (minus_) right = d;
            else if (zero_ && !prec_present_) zeros = d;
            else left = d;
        }
        buf.append(static_cast<std::size_t>(left), ' ');
        buf += sign;
        buf += prefix;
        buf.append(static_cast<std::size_t>(zeros), '0');
        buf += digits;
        buf.append(static_cast<std::size_t>(right), ' ');
    }

    // ---- floats ------------------------------------------------------------
    void fmt_float(const Arg& a, char32_t verb) {
        char v = 0;
        int prec = -1;
        switch (verb) {
            case 'v': v = 'g'; break;
            case 'b':
            case 'g':
            case 'G':
            case 'x':
            case 'X': v = static_cast<char>(verb); break;
            case 'f':
            case 'F':
                v = 'f';
                prec = 6;
                break;
            case 'e':
            case 'E':
                v = static_cast<char>(verb);
                prec = 6;
                break;
            default: bad_verb(a, verb); return;
        }
        if (prec_present_) prec = static_cast<int>(prec_);
        // %#v is %v here: Go's fmt writes a float64 alike for both.
        std::string num = format_float(a.f, v, prec);
        if (num[0] != '-' && num[0] != '+') num.insert(num.begin(), '+');
        if (space_ && num[0] == '+' && !plus_) num[0] = ' ';
        if (sharp_ && v != 'b') apply_sharp(num, v, prec);
        if (plus_ || num[0] != '+') {
            if (zero_ && !minus_ && wid_present_ && wid_ > static_cast<std::int64_t>(num.size())) {
                buf += num[0];
                write_padding(wid_ - static_cast<std::int64_t>(num.size()));
                buf.append(num, 1);
                return;
            }
            pad(num);
            return;
        }
        pad(std::string_view(num).substr(1));
    }

    // Go's '#' for floats: always a decimal point, %g keeps trailing zeros.
    static void apply_sharp(std::string& num, char verb, int prec) {
        int digits = 0;
        if (verb == 'g' || verb == 'G' || verb == 'x') digits = prec < 0 ? 6 : prec;
        std::string tail;
        bool has_point = false, saw_nonzero = false;
        for (std::size_t i = 1; i < num.size(); ++i) {
            char c = num[i];
            if (c == '.') {
                has_point = true;
            } else if (c == 'p' || c == 'P' || ((c == 'e' || c == 'E') && verb != 'x' && verb != 'X')) {
                tail = num.substr(i);
                num.resize(i);
                break;
            } else {
                if (c != '0') saw_nonzero = true;
                if (saw_nonzero) --digits;
            }
        }
        if (!has_point) {
            if (num.size() == 2 && num[1] == '0') --digits;
            num += '.';
        }
        while (digits-- > 0) num += '0';
        num += tail;
    }
};

}  // namespace

void append_quoted(std::string& out, std::string_view s, bool ascii_only) {
    out += '"';
    for (std::size_t i = 0; i < s.size();) {
        auto d = support::utf8::decode_rune(s, i);
        if (d.width == 1 && d.rune == support::utf8::kReplacement) {
            out += "\\x";
            append_hex(out, static_cast<unsigned char>(s[i]), 2);
        } else {
            append_escaped_rune(out, d.rune, '"', ascii_only);
        }
        i += d.width;
    }
    out += '"';
}

std::string sprintf(std::string_view format, const std::vector<Arg>& args) {
    Printer p;
    p.print(format, args);
    return std::move(p.buf);
}

std::optional<std::string> sprintf(std::string_view format, const std::vector<Arg>& args, runtime::WorkBudget& budget) {
    Printer p;
    p.budget = &budget;
    if (!budget.room(p.buf, format.size())) return std::nullopt;
    p.print(format, args);
    if (p.stopped()) return std::nullopt;
    return std::move(p.buf);
}

}  // namespace gavel::stdlib::gofmt
