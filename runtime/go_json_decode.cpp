#include "runtime/go_json_decode.hpp"

#include <cstdio>
#include <vector>

#include "runtime/json.hpp"
#include "support/utf8.hpp"

namespace gavel::runtime {

namespace {

using runtime::Value;

// Go's quoteChar: a byte as the scanner's messages show it.
std::string quote_char(unsigned char c) {
    if (c == '\'') return "'\\''";
    if (c == '"') return "'\"'";
    std::string inner;
    switch (c) {
        case '\a': inner = "\\a"; break;
        case '\b': inner = "\\b"; break;
        case '\f': inner = "\\f"; break;
        case '\n': inner = "\\n"; break;
        case '\r': inner = "\\r"; break;
        case '\t': inner = "\\t"; break;
        case '\v': inner = "\\v"; break;
        case '\\': inner = "\\\\"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\x%02x", c);
                inner = buf;
            } else if (c < 0x80) {
                inner = std::string(1, static_cast<char>(c));
            } else if (c < 0xa0 || c == 0xad) {
                // string(byte) is the rune U+0080..U+00FF: not printable below U+00A0 (and U+00AD).
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                inner = buf;
            } else {
                support::utf8::append_code_point(inner, c);
            }
    }
    return "'" + inner + "'";
}

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_hex(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Go's scanner, reduced to what decides its messages: finds the end of the first
// value in `s`, or the syntax error. `unexpected_end` is set when the input ends
// inside the value.
class Scanner {
public:
    enum class Result { Value, Error, End };

    Result scan(std::string_view s, std::size_t& end, std::string& error) {
        s_ = s;
        i_ = 0;
        skip_space();
        if (i_ == s_.size()) return Result::End;
        if (!value()) {
            if (truncated_) return Result::End;
            end = i_;
            error = error_;
            return Result::Error;
        }
        end = i_;
        return Result::Value;
    }

private:
    bool fail(std::string_view context) {
        error_ = "invalid character " + quote_char(static_cast<unsigned char>(s_[i_])) + " " + std::string(context);
        return false;
    }
    bool at_end() {
        if (i_ < s_.size()) return false;
        truncated_ = true;
        return true;
    }
    void skip_space() {
        while (i_ < s_.size() && is_space(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    // One value, iteratively for arrays and objects (input can nest deeply).
    bool value() {
        enum class Ctx { ArrayValue, ObjectKey, ObjectValue };
        std::vector<Ctx> stack;
        for (;;) {
            // Begin a value.
            skip_space();
            if (at_end()) return false;
            unsigned char c = static_cast<unsigned char>(s_[i_]);
            bool scalar_done = false;
            if (c == '{') {
                ++i_;
                skip_space();
                if (at_end()) return false;
                if (s_[i_] == '}') {
                    ++i_;
                    scalar_done = true;
                } else {
                    stack.push_back(Ctx::ObjectKey);
                    if (s_[i_] != '"') return fail("looking for beginning of object key string");
                    if (!string()) return false;
                    if (!after_key()) return false;
                    stack.back() = Ctx::ObjectValue;
                    continue;
                }
            } else if (c == '[') {
                ++i_;
                skip_space();
                if (at_end()) return false;
                if (s_[i_] == ']') {
                    ++i_;
                    scalar_done = true;
                } else {
                    stack.push_back(Ctx::ArrayValue);
                    continue;
                }
            } else if (c == '"') {
                if (!string()) return false;
                scalar_done = true;
            } else if (c == '-' || is_digit(c)) {
                if (!number()) return false;
                scalar_done = true;
            } else if (c == 't') {
                if (!literal("true")) return false;
                scalar_done = true;
            } else if (c == 'f') {
                if (!literal("false")) return false;
                scalar_done = true;
            } else if (c == 'n') {
                if (!literal("null")) return false;
                scalar_done = true;
            } else {
                return fail("looking for beginning of value");
            }
            (void)scalar_done;
            // End of a value: close containers as far as they end here.
            for (;;) {
                if (stack.empty()) return true;
                skip_space();
                if (at_end()) return false;
                char d = s_[i_];
                if (stack.back() == Ctx::ArrayValue) {
                    if (d == ',') {
                        ++i_;
                        break;  // next element
                    }
                    if (d == ']') {
                        ++i_;
                        stack.pop_back();
                        continue;
                    }
                    return fail("after array element");
                }
                // ObjectValue
                if (d == ',') {
                    ++i_;
                    skip_space();
                    if (at_end()) return false;
                    if (s_[i_] != '"') return fail("looking for beginning of object key string");
                    if (!string()) return false;
                    if (!after_key()) return false;
                    break;  // next value
                }
                if (d == '}') {
                    ++i_;
                    stack.pop_back();
                    continue;
                }
                return fail("after object key:value pair");
            }
        }
    }
    bool after_key() {
        skip_space();
        if (at_end()) return false;
        if (s_[i_] != ':') return fail("after object key");
        ++i_;
        return true;
    }
    bool string() {
        ++i_;  // the quote
        for (;;) {
            if (at_end()) return false;
            unsigned char c = static_cast<unsigned char>(s_[i_]);
            if (c == '"') {
                ++i_;
                return true;
            }
            if (c < 0x20) return fail("in string literal");
            if (c == '\\') {
                ++i_;
                if (at_end()) return false;
                char e = s_[i_];
                if (e == 'u') {
                    ++i_;
                    for (int k = 0; k < 4; ++k) {
                        if (at_end()) return false;
                        if (!is_hex(static_cast<unsigned char>(s_[i_])))
                            return fail("in \\u hexadecimal character escape");
                        ++i_;
                    }
                    continue;
                }
                if (e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't' && e != '\\' && e != '/' && e != '"')
                    return fail("in string escape code");
            }
            ++i_;
        }
    }
    bool number() {
        if (s_[i_] == '-') {
            ++i_;
            if (at_end()) return false;
            if (!is_digit(static_cast<unsigned char>(s_[i_]))) return fail("in numeric literal");
        }
        if (s_[i_] == '0') {
            ++i_;
        } else {
            while (i_ < s_.size() && is_digit(static_cast<unsigned char>(s_[i_]))) ++i_;
        }
        if (i_ < s_.size() && s_[i_] == '.') {
            ++i_;
            if (at_end()) return false;
            if (!is_digit(static_cast<unsigned char>(s_[i_]))) return fail("after decimal point in numeric literal");
            while (i_ < s_.size() && is_digit(static_cast<unsigned char>(s_[i_]))) ++i_;
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            ++i_;
            if (at_end()) return false;
            if (s_[i_] == '+' || s_[i_] == '-') {
                ++i_;
                if (at_end()) return false;
            }
            if (!is_digit(static_cast<unsigned char>(s_[i_]))) return fail("in exponent of numeric literal");
            while (i_ < s_.size() && is_digit(static_cast<unsigned char>(s_[i_]))) ++i_;
        }
        return true;
    }
    bool literal(std::string_view word) {
        ++i_;
        for (std::size_t k = 1; k < word.size(); ++k) {
            if (at_end()) return false;
            if (s_[i_] != word[k])
                return fail("in literal " + std::string(word) + " (expecting " +
                            quote_char(static_cast<unsigned char>(word[k])) + ")");
            ++i_;
        }
        return true;
    }

    std::string_view s_;
    std::size_t i_ = 0;
    bool truncated_ = false;
    std::string error_;
};

GoDecoded decode_first(std::string_view text, JsonDocumentReader read) {
    GoDecoded out;
    // A body that is one valid JSON value (every request of a well-behaved client) is the
    // value Go's decoder reads first: read it at once. Go's scanner runs only when the reader
    // refuses the text (an error to word as Go does, several values, invalid UTF-8 Go reads
    // as U+FFFD), not a second time over every good body.
    if (runtime::ParseResult whole = read(text); whole.ok) {
        out.ok = true;
        out.value = std::move(whole.value);
        out.end = text.size();
        return out;
    }
    Scanner scanner;
    std::size_t end = 0;
    std::string error;
    switch (scanner.scan(text, end, error)) {
        case Scanner::Result::End: {
            bool any = false;
            for (char c : text)
                if (!is_space(static_cast<unsigned char>(c))) any = true;
            out.eof = !any;
            out.error = any ? "unexpected EOF" : "EOF";
            return out;
        }
        case Scanner::Result::Error: out.error = error; return out;
        case Scanner::Result::Value: break;
    }
    std::string_view first = text.substr(0, end);
    runtime::ParseResult parsed = read(first);
    if (!parsed.ok && !support::utf8::is_valid(first)) {
        // Go reads invalid UTF-8 in strings as U+FFFD.
        std::string fixed;
        for (std::size_t i = 0; i < first.size();) {
            std::size_t n = support::utf8::sequence_length(first, i);
            if (n == 0) {
                fixed += "\xEF\xBF\xBD";
                ++i;
            } else {
                fixed.append(first.substr(i, n));
                i += n;
            }
        }
        parsed = read(fixed);
    }
    if (!parsed.ok) {
        out.error = parsed.error.message;
        return out;
    }
    out.ok = true;
    out.value = std::move(parsed.value);
    out.end = end;
    return out;
}

}  // namespace

ParseResult read_json_document(std::string_view text) { return parse_json(text); }

GoDecoded go_decode(std::string_view text, JsonDocumentReader read) { return decode_first(text, read); }

GoDecoded go_unmarshal(std::string_view text, JsonDocumentReader read) {
    GoDecoded out = decode_first(text, read);
    if (!out.ok) return out;  // OPA's UnmarshalJSON decodes with a json.Decoder: "EOF", "unexpected EOF"
    std::size_t i = out.end;
    while (i < text.size() && is_space(static_cast<unsigned char>(text[i]))) ++i;
    if (i == text.size()) return out;
    // Decoder.Token() on what follows: a delimiter, or the next value's text.
    std::string token;
    char c = text[i];
    if (c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':') {
        token = std::string(1, c);
    } else {
        GoDecoded next = decode_first(text.substr(i), read);
        if (!next.ok) {
            out.ok = false;
            out.error = next.error;
            return out;
        }
        token = next.value.is_string() ? std::string(next.value.as_string()) : runtime::to_json(next.value);
    }
    out.ok = false;
    out.error = "error: invalid character '" + token + "' after top-level value";
    return out;
}

std::string_view go_json_kind(const Value& v) {
    if (v.is_object()) return "object";
    if (v.is_array()) return "array";
    if (v.is_string()) return "string";
    if (v.is_number()) return "number";
    if (v.is_bool()) return "bool";
    return "null";
}

std::string go_type_error(const Value& v, std::string_view go_type) {
    return "json: cannot unmarshal " + std::string(go_json_kind(v)) + " into Go value of type " + std::string(go_type);
}

std::string go_field_type_error(const Value& v, std::string_view field, std::string_view go_type) {
    return "json: cannot unmarshal " + std::string(go_json_kind(v)) + " into Go struct field " + std::string(field) +
           " of type " + std::string(go_type);
}

const Value* go_field(const Value& object, std::string_view name) {
    if (!object.is_object()) return nullptr;
    const Value* found = nullptr;
    for (const auto& e : object.object_entries()) {
        if (!e.key.is_string()) continue;
        std::string_view k = e.key.as_string();
        if (k.size() != name.size()) continue;
        bool equal = true;
        for (std::size_t i = 0; i < k.size() && equal; ++i) {
            auto a = static_cast<unsigned char>(k[i]), b = static_cast<unsigned char>(name[i]);
            if (a >= 'A' && a <= 'Z') a = static_cast<unsigned char>(a + 32);
            if (b >= 'A' && b <= 'Z') b = static_cast<unsigned char>(b + 32);
            equal = a == b;
        }
        if (equal) found = &e.value;
    }
    return found;
}

}  // namespace gavel::runtime
