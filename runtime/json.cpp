#include "runtime/json.hpp"

#include "runtime/utf8.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace gavel::runtime {

namespace od = simdjson::ondemand;

namespace {

// ---- reading ------------------------------------------------------------------------

struct ThreadState {
    od::parser parser;
    std::unique_ptr<char[]> buf;
    std::size_t buf_cap = 0;
    std::string scratch;  // unescaped string bytes
    std::size_t depth_cap = 0;
};

ThreadState& thread_state() {
    thread_local ThreadState st;
    return st;
}

int hex_val(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

class Reader {
public:
    Reader(std::string_view text, const char* base, const Limits& limits, ThreadState& st)
        : text_(text), base_(base), limits_(limits), st_(st) {}

    bool fail_at(const char* where, std::string_view what) {
        if (!failed_) {
            std::size_t off = where ? static_cast<std::size_t>(where - base_) : 0;
            if (off > text_.size()) off = text_.size();
            error_ = make_parse_error(text_, off, what);
            failed_ = true;
        }
        return false;
    }
    bool fail_simd(simdjson::error_code ec, const char* where, std::string_view context = {}) {
        std::string msg = "invalid JSON";
        if (!context.empty()) msg += std::string(": ") + std::string(context);
        msg += std::string(" (") + simdjson::error_message(ec) + ")";
        if (ec == simdjson::DEPTH_ERROR) msg = depth_message();
        return fail_at(where, msg);
    }
    std::string depth_message() const {
        return "JSON nesting too deep: more than " + std::to_string(limits_.max_depth) + " levels";
    }

    const char* where(od::document& doc) {
        const char* loc = nullptr;
        if (doc.current_location().get(loc) != simdjson::SUCCESS) return base_ + text_.size();
        return loc;
    }

    // Unescapes the string starting right after its opening quote.
    bool read_string(const char* p, Value& out) {
        const char* start = p;
        const char* end = base_ + text_.size();
        // Fast path: no escapes.
        while (p < end) {
            char c = *p;
            if (c == '"') {
                out = Value::string(std::string_view(start, static_cast<std::size_t>(p - start)));
                scalar_end_ = p + 1;
                return true;
            }
            if (c == '\\') break;
            if (static_cast<unsigned char>(c) < 0x20) return fail_at(p, "invalid control character in string");
            ++p;
        }
        std::string& s = st_.scratch;
        s.assign(start, static_cast<std::size_t>(p - start));
        while (p < end) {
            char c = *p;
            if (c == '"') {
                out = Value::string(s);
                scalar_end_ = p + 1;
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20) return fail_at(p, "invalid control character in string");
            if (c != '\\') {
                s.push_back(c);
                ++p;
                continue;
            }
            if (p + 1 >= end) break;
            const char* esc = p;
            char e = p[1];
            p += 2;
            switch (e) {
            case '"': s.push_back('"'); break;
            case '\\': s.push_back('\\'); break;
            case '/': s.push_back('/'); break;
            case 'b': s.push_back('\b'); break;
            case 'f': s.push_back('\f'); break;
            case 'n': s.push_back('\n'); break;
            case 'r': s.push_back('\r'); break;
            case 't': s.push_back('\t'); break;
            case 'u': {
                std::uint32_t cp;
                if (!hex4(p, end, cp)) return fail_at(esc, "invalid \\u escape in string");
                p += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    std::uint32_t lo;
                    if (p + 1 < end && p[0] == '\\' && p[1] == 'u' && hex4(p + 2, end, lo) && lo >= 0xDC00 &&
                        lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        p += 6;
                    } else {
                        cp = 0xFFFD;  // lone high surrogate (Go: U+FFFD)
                    }
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    cp = 0xFFFD;  // lone low surrogate
                }
                utf8::append_code_point(s, cp);
                break;
            }
            default: return fail_at(esc, "invalid escape sequence in string");
            }
        }
        return fail_at(end, "unterminated string");
    }

    static bool hex4(const char* p, const char* end, std::uint32_t& out) {
        if (end - p < 4) return false;
        out = 0;
        for (int i = 0; i < 4; ++i) {
            int h = hex_val(p[i]);
            if (h < 0) return false;
            out = out * 16 + static_cast<std::uint32_t>(h);
        }
        return true;
    }

    bool read_number(std::string_view tok, Value& out) {
        while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\n' || tok.back() == '\r' || tok.back() == '\t'))
            tok.remove_suffix(1);
        // Fast path: short plain integers.
        if (!tok.empty() && tok.size() <= 18) {
            std::size_t i = tok[0] == '-' ? 1 : 0;
            bool plain = i < tok.size() && (tok[i] != '0' || tok.size() == i + 1);
            std::int64_t v = 0;
            for (std::size_t k = i; plain && k < tok.size(); ++k) {
                char c = tok[k];
                if (c < '0' || c > '9') plain = false;
                else v = v * 10 + (c - '0');
            }
            if (plain && !(i == 1 && v == 0)) {
                scalar_end_ = tok.data() + tok.size();
                out = Value::integer(i ? -v : v);
                return true;
            }
        }
        scalar_end_ = tok.data() + tok.size();
        NumberResult r = Number::parse(tok);
        if (!r.ok) return fail_at(tok.data(), "invalid number '" + std::string(tok.substr(0, 40)) + "'");
        out = Value::number(std::move(r.value));
        return true;
    }

    bool read_value(od::value v, std::size_t depth, Value& out) {
        od::json_type t;
        if (auto ec = v.type().get(t)) return fail_simd(ec, loc_of(v));
        switch (t) {
        case od::json_type::array: {
            if (depth >= limits_.max_depth) return fail_at(loc_of(v), depth_message());
            od::array arr;
            if (auto ec = v.get_array().get(arr)) return fail_simd(ec, nullptr);
            return read_array(arr, depth + 1, out);
        }
        case od::json_type::object: {
            if (depth >= limits_.max_depth) return fail_at(loc_of(v), depth_message());
            od::object obj;
            if (auto ec = v.get_object().get(obj)) return fail_simd(ec, nullptr);
            return read_object(obj, depth + 1, out);
        }
        case od::json_type::number: {
            std::string_view tok = v.raw_json_token();
            return read_number(tok, out);
        }
        case od::json_type::string: {
            od::raw_json_string raw;
            const char* loc = loc_of(v);
            if (auto ec = v.get_raw_json_string().get(raw)) return fail_simd(ec, loc);
            return read_string(raw.raw(), out);
        }
        case od::json_type::boolean: {
            const char* loc = loc_of(v);
            bool b;
            if (v.get_bool().get(b)) return fail_at(loc, "invalid literal");
            out = Value::boolean(b);
            return true;
        }
        case od::json_type::null: {
            const char* loc = loc_of(v);
            bool isnull = false;
            if (v.is_null().get(isnull) || !isnull) return fail_at(loc, "invalid literal");
            out = Value();
            return true;
        }
        }
        return fail_at(nullptr, "invalid JSON value");
    }

    bool read_array(od::array& arr, std::size_t depth, Value& out) {
        ArrayBuilder b;
        for (auto el : arr) {
            od::value ev;
            if (auto ec = std::move(el).get(ev)) return fail_simd(ec, here(), "in array");
            Value x;
            if (!read_value(ev, depth, x)) return false;
            b.push_back(std::move(x));
        }
        out = b.build();
        return true;
    }

    bool read_object(od::object& obj, std::size_t depth, Value& out) {
        ObjectBuilder b;
        for (auto field : obj) {
            od::field f;
            if (auto ec = std::move(field).get(f)) return fail_simd(ec, here(), "in object");
            Value key;
            if (!read_string(f.key().raw(), key)) return false;
            Value x;
            if (!read_value(f.value(), depth, x)) return false;
            b.insert(std::move(key), std::move(x));
        }
        out = b.build(DuplicateKeys::LastWins);
        return true;
    }

    const char* loc_of(od::value& v) {
        const char* loc = nullptr;
        if (v.current_location().get(loc) != simdjson::SUCCESS) return here();
        return loc;
    }
    const char* here() { return doc_ ? where(*doc_) : nullptr; }

    bool read_document(od::document& doc, Value& out) {
        doc_ = &doc;
        od::json_type t;
        if (auto ec = doc.type().get(t)) return fail_simd(ec, where(doc));
        switch (t) {
        case od::json_type::array: {
            if (limits_.max_depth == 0) return fail_at(where(doc), depth_message());
            od::array arr;
            if (auto ec = doc.get_array().get(arr)) return fail_simd(ec, where(doc));
            if (!read_array(arr, 1, out)) return false;
            break;
        }
        case od::json_type::object: {
            if (limits_.max_depth == 0) return fail_at(where(doc), depth_message());
            od::object obj;
            if (auto ec = doc.get_object().get(obj)) return fail_simd(ec, where(doc));
            if (!read_object(obj, 1, out)) return false;
            break;
        }
        case od::json_type::number: {
            std::string_view tok;
            if (auto ec = doc.raw_json_token().get(tok)) return fail_simd(ec, where(doc));
            if (!read_number(tok, out)) return false;
            break;
        }
        case od::json_type::string: {
            const char* loc = where(doc);
            od::raw_json_string raw;
            if (auto ec = doc.get_raw_json_string().get(raw)) return fail_simd(ec, loc);
            if (!read_string(raw.raw(), out)) return false;
            break;
        }
        case od::json_type::boolean: {
            const char* loc = where(doc);
            bool b;
            if (doc.get_bool().get(b)) return fail_at(loc, "invalid literal");
            out = Value::boolean(b);
            scalar_end_ = loc + (b ? 4 : 5);
            break;
        }
        case od::json_type::null: {
            const char* loc = where(doc);
            bool isnull = false;
            if (doc.is_null().get(isnull) || !isnull) return fail_at(loc, "invalid literal");
            out = Value();
            scalar_end_ = loc + 4;
            break;
        }
        }
        const char* end = base_ + text_.size();
        const char* rest = nullptr;
        if (t != od::json_type::array && t != od::json_type::object) rest = scalar_end_;
        else if (doc.current_location().get(rest) != simdjson::SUCCESS) rest = nullptr;
        if (rest) {
            while (rest < end && (*rest == ' ' || *rest == '\n' || *rest == '\r' || *rest == '\t')) ++rest;
            if (rest < end) return fail_at(rest, "unexpected content after JSON value");
        }
        return true;
    }

    ParseError error_;
    bool failed_ = false;

private:
    std::string_view text_;
    const char* base_;
    const Limits& limits_;
    ThreadState& st_;
    od::document* doc_ = nullptr;
    const char* scalar_end_ = nullptr;
};

// Position of the first byte that is neither whitespace: used when simdjson
// reports a structural error without a location.
std::size_t first_problem_hint(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) ++i;
    return i;
}

// simdjson's stage 1 reports some errors without a position; find it.
std::size_t structural_error_offset(std::string_view text, simdjson::error_code ec) {
    if (ec == simdjson::UNESCAPED_CHARS || ec == simdjson::UNCLOSED_STRING) {
        bool in_str = false;
        std::size_t open = 0;
        for (std::size_t i = 0; i < text.size(); ++i) {
            char c = text[i];
            if (!in_str) {
                if (c == '"') {
                    in_str = true;
                    open = i;
                }
            } else if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_str = false;
            } else if (static_cast<unsigned char>(c) < 0x20 && ec == simdjson::UNESCAPED_CHARS) {
                return i;
            }
        }
        if (in_str) return open;
    }
    if (ec == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || ec == simdjson::TAPE_ERROR) return text.size();
    return first_problem_hint(text);
}

} // namespace

ParseResult parse_json(std::string_view text, const Limits& limits) {
    ParseResult res;
    if (text.size() > limits.max_input_bytes) {
        res.error.message = "JSON input too large: " + std::to_string(text.size()) + " bytes (limit " +
                            std::to_string(limits.max_input_bytes) + ")";
        return res;
    }
    if (std::size_t bad = utf8::find_invalid(text); bad != std::string_view::npos) {
        res.error = make_parse_error(text, bad, "invalid UTF-8 in JSON input");
        return res;
    }
    ThreadState& st = thread_state();
    std::size_t need = text.size() + simdjson::SIMDJSON_PADDING;
    if (st.buf_cap < need) {
        std::size_t cap = std::max(need, st.buf_cap * 2);
        st.buf.reset(new char[cap]);
        st.buf_cap = cap;
    }
    if (!text.empty()) std::memcpy(st.buf.get(), text.data(), text.size());
    std::memset(st.buf.get() + text.size(), 0, simdjson::SIMDJSON_PADDING);
    // simdjson's own structural depth limit sits above ours so that our
    // message (which names the limit) is the one the caller sees.
    std::size_t want_depth = std::max<std::size_t>(limits.max_depth + 2, simdjson::DEFAULT_MAX_DEPTH);
    if (st.depth_cap < want_depth || st.parser.capacity() < text.size()) {
        std::size_t cap = std::max<std::size_t>(st.parser.capacity(), text.size());
        if (cap == 0) cap = 4096;
        if (st.parser.allocate(cap, want_depth) != simdjson::SUCCESS) {
            res.error.message = "JSON parser allocation failed";
            return res;
        }
        st.depth_cap = want_depth;
    }

    const char* base = st.buf.get();
    Reader reader(text, base, limits, st);
    od::document doc;
    if (auto ec = st.parser.iterate(base, text.size(), st.buf_cap).get(doc)) {
        if (ec == simdjson::EMPTY) {
            res.error = make_parse_error(text, text.size(), "empty JSON input");
        } else if (ec == simdjson::DEPTH_ERROR) {
            res.error = make_parse_error(text, first_problem_hint(text), reader.depth_message());
        } else {
            res.error = make_parse_error(text, structural_error_offset(text, ec),
                                         std::string("invalid JSON (") + simdjson::error_message(ec) + ")");
        }
        return res;
    }
    Value out;
    if (!reader.read_document(doc, out)) {
        res.error = std::move(reader.error_);
        return res;
    }
    res.ok = true;
    res.value = std::move(out);
    return res;
}

// ---- writing --------------------------------------------------------------------------

namespace {

constexpr char kHex[] = "0123456789abcdef";

inline bool needs_escape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\' || c >= 0x80; }

class Writer {
public:
    Writer(std::string& out, JsonStyle style) : out_(out), pretty_(style == JsonStyle::Pretty) {}

    void value(const Value& v, std::size_t indent) {
        switch (v.kind()) {
        case Kind::Null: out_ += "null"; return;
        case Kind::Boolean: out_ += v.as_bool() ? "true" : "false"; return;
        case Kind::Number: {
            std::int64_t i;
            if (v.tag() == Value::Tag::Int && v.as_int64(i)) {
                fmt::format_int f(i);
                out_.append(f.data(), f.size());
            } else {
                v.as_number().append_to(out_);
            }
            return;
        }
        case Kind::String: append_json_string(out_, v.as_string()); return;
        case Kind::Array: seq(v.array_elements(), indent); return;
        case Kind::Set: seq(v.set_elements(), indent); return;
        case Kind::Object: object(v, indent); return;
        }
    }

private:
    void newline(std::size_t indent) {
        out_.push_back('\n');
        out_.append(indent * 2, ' ');
    }

    void seq(std::span<const Value> items, std::size_t indent) {
        out_.push_back('[');
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i) out_.push_back(',');
            if (pretty_) newline(indent + 1);
            value(items[i], indent + 1);
        }
        if (pretty_ && !items.empty()) newline(indent);
        out_.push_back(']');
    }

    void member(std::string_view key_json, const Value& val, bool first, std::size_t indent) {
        if (!first) out_.push_back(',');
        if (pretty_) newline(indent + 1);
        out_ += key_json;
        out_.push_back(':');
        if (pretty_) out_.push_back(' ');
        value(val, indent + 1);
    }

    void object(const Value& v, std::size_t indent) {
        auto entries = v.object_entries();
        bool all_strings = std::all_of(entries.begin(), entries.end(),
                                       [](const ObjectEntry& e) { return e.key.is_string(); });
        out_.push_back('{');
        if (all_strings) {
            std::string key;
            for (std::size_t i = 0; i < entries.size(); ++i) {
                if (i) out_.push_back(',');
                if (pretty_) newline(indent + 1);
                append_json_string(out_, entries[i].key.as_string());
                out_.push_back(':');
                if (pretty_) out_.push_back(' ');
                value(entries[i].value, indent + 1);
            }
        } else {
            // Non-string keys: key text is the key's compact JSON; order by it.
            struct K {
                std::string text;
                const Value* val;
            };
            std::vector<K> keys;
            keys.reserve(entries.size());
            for (const auto& e : entries) {
                K k{{}, &e.value};
                if (e.key.is_string()) k.text.assign(e.key.as_string());
                else append_json(k.text, e.key, JsonStyle::Compact);
                keys.push_back(std::move(k));
            }
            std::stable_sort(keys.begin(), keys.end(), [](const K& a, const K& b) { return a.text < b.text; });
            bool first = true;
            for (std::size_t i = 0; i < keys.size(); ++i) {
                if (i > 0 && keys[i].text == keys[i - 1].text) continue;
                std::string kj;
                append_json_string(kj, keys[i].text);
                member(kj, *keys[i].val, first, indent);
                first = false;
            }
        }
        if (pretty_ && !entries.empty()) newline(indent);
        out_.push_back('}');
    }

    std::string& out_;
    bool pretty_;
};

} // namespace

void append_json_string(std::string& out, std::string_view s) {
    out.push_back('"');
    std::size_t i = 0, n = s.size(), run = 0;
    while (i < n) {
        auto c = static_cast<unsigned char>(s[i]);
        if (!needs_escape(c)) {
            ++i;
            continue;
        }
        out.append(s.data() + run, i - run);
        if (c >= 0x80) {
            std::size_t len = utf8::sequence_length(s, i);
            if (len == 0) {
                out += "\\ufffd";
                ++i;
            } else if (len == 3 && c == 0xE2 && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
                       (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xA8) {
                out += static_cast<unsigned char>(s[i + 2]) == 0xA8 ? "\\u2028" : "\\u2029";
                i += 3;
            } else {
                out.append(s.data() + i, len);
                i += len;
            }
            run = i;
            continue;
        }
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
        }
        ++i;
        run = i;
    }
    out.append(s.data() + run, n - run);
    out.push_back('"');
}

void append_json(std::string& out, const Value& v, JsonStyle style) {
    Writer w(out, style);
    w.value(v, 0);
}

std::string to_json(const Value& v, JsonStyle style) {
    std::string out;
    append_json(out, v, style);
    return out;
}

} // namespace gavel::runtime
