#include "runtime/yaml.hpp"

#include "runtime/utf8.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <optional>

namespace gavel::runtime {

namespace {

const std::string kTagStr = "tag:yaml.org,2002:str";
const std::string kTagInt = "tag:yaml.org,2002:int";
const std::string kTagFloat = "tag:yaml.org,2002:float";
const std::string kTagBool = "tag:yaml.org,2002:bool";
const std::string kTagNull = "tag:yaml.org,2002:null";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_null_word(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::optional<bool> bool_word(std::string_view s) {
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    return std::nullopt;
}

std::optional<Number> int_scalar(std::string_view s) {
    bool neg = false;
    std::string_view body = s;
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
        neg = body[0] == '-';
        body.remove_prefix(1);
    }
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'o' || body[1] == 'x') && s.size() == body.size()) {
        int base = body[1] == 'o' ? 8 : 16;
        std::uint64_t v = 0;
        auto r = std::from_chars(body.data() + 2, body.data() + body.size(), v, base);
        if (r.ec != std::errc() || r.ptr != body.data() + body.size()) return std::nullopt;
        return Number::from_uint(v);
    }
    if (body.empty()) return std::nullopt;
    for (char c : body)
        if (!is_digit(c)) return std::nullopt;
    while (body.size() > 1 && body[0] == '0') body.remove_prefix(1);
    std::string digits;
    if (neg) digits.push_back('-');
    digits.append(body);
    return Number::from_decimal_integer(digits);
}

std::optional<Number> float_scalar(std::string_view s) {
    std::string t;
    std::size_t i = 0, n = s.size();
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        if (s[i] == '-') t.push_back('-');
        ++i;
    }
    std::size_t int_start = i;
    while (i < n && is_digit(s[i])) ++i;
    std::string_view ip = s.substr(int_start, i - int_start);
    std::string_view fp;
    bool dot = false;
    if (i < n && s[i] == '.') {
        dot = true;
        std::size_t b = ++i;
        while (i < n && is_digit(s[i])) ++i;
        fp = s.substr(b, i - b);
    }
    if (ip.empty() && fp.empty()) return std::nullopt;
    if (!dot && ip.empty()) return std::nullopt;
    std::string_view ep;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t b = i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
        std::size_t d = i;
        while (i < n && is_digit(s[i])) ++i;
        if (i == d) return std::nullopt;
        ep = s.substr(b, i - b);
    }
    if (i != n) return std::nullopt;
    while (ip.size() > 1 && ip[0] == '0') ip.remove_prefix(1);
    t.append(ip.empty() ? std::string_view("0") : ip);
    if (!fp.empty()) {
        t.push_back('.');
        t.append(fp);
    }
    t.append(ep);
    NumberResult r = Number::parse(t);
    if (!r.ok) return std::nullopt;
    return r.value;
}

class Converter {
public:
    Converter(std::string_view text, const Limits& limits) : text_(text), limits_(limits) {}

    bool fail(const YAML::Node& at, std::string what) {
        if (!failed_) {
            failed_ = true;
            YAML::Mark m = at.Mark();
            set_error(m, what);
        }
        return false;
    }
    void set_error(const YAML::Mark& m, const std::string& what) {
        if (m.is_null() || m.pos < 0) {
            error_.message = what;
            return;
        }
        error_.offset = static_cast<std::size_t>(m.pos);
        error_.line = static_cast<std::size_t>(m.line) + 1;
        error_.column = static_cast<std::size_t>(m.column) + 1;
        error_.message = what + " at line " + std::to_string(error_.line) + ", column " + std::to_string(error_.column);
    }

    bool scalar(const YAML::Node& node, Value& out) {
        const std::string& s = node.Scalar();
        const std::string& tag = node.Tag();
        if (tag == "!" || tag == kTagStr) {
            out = Value::string(s);
            return true;
        }
        if (tag == kTagNull) {
            out = Value();
            return true;
        }
        if (tag == kTagBool) {
            auto b = bool_word(s);
            if (!b) return fail(node, "invalid !!bool value '" + s + "'");
            out = Value::boolean(*b);
            return true;
        }
        if (tag == kTagInt || tag == kTagFloat) {
            auto n = int_scalar(s);
            if (!n) n = float_scalar(s);
            if (!n) return fail(node, "invalid number '" + s + "'");
            out = Value::number(std::move(*n));
            return true;
        }
        // Plain scalar ("?") or an unknown tag: core schema resolution.
        if (is_null_word(s)) {
            out = Value();
            return true;
        }
        if (auto b = bool_word(s)) {
            out = Value::boolean(*b);
            return true;
        }
        if (!s.empty() && (is_digit(s[0]) || s[0] == '-' || s[0] == '+' || s[0] == '.')) {
            if (auto n = int_scalar(s)) {
                out = Value::number(std::move(*n));
                return true;
            }
            if (auto n = float_scalar(s)) {
                out = Value::number(std::move(*n));
                return true;
            }
        }
        out = Value::string(s);
        return true;
    }

    bool convert(const YAML::Node& node, std::size_t depth, Value& out) {
        if (++nodes_ > limits_.max_nodes)
            return fail(node, "YAML document too large: more than " + std::to_string(limits_.max_nodes) +
                                  " values (alias expansion?)");
        switch (node.Type()) {
        case YAML::NodeType::Undefined:
        case YAML::NodeType::Null: out = Value(); return true;
        case YAML::NodeType::Scalar: return scalar(node, out);
        case YAML::NodeType::Sequence: {
            if (depth >= limits_.max_depth) return fail(node, depth_message());
            ArrayBuilder b(node.size());
            for (const auto& child : node) {
                Value v;
                if (!convert(child, depth + 1, v)) return false;
                b.push_back(std::move(v));
            }
            out = b.build();
            return true;
        }
        case YAML::NodeType::Map: {
            if (depth >= limits_.max_depth) return fail(node, depth_message());
            ObjectBuilder b(node.size());
            for (const auto& kv : node) {
                const YAML::Node& k = kv.first;
                Value key;
                if (k.IsNull()) key = Value::string("null");
                else if (k.IsScalar()) key = Value::string(k.Scalar());
                else return fail(k, "YAML mapping key must be a scalar");
                Value v;
                if (!convert(kv.second, depth + 1, v)) return false;
                b.insert(std::move(key), std::move(v));
            }
            out = b.build(DuplicateKeys::LastWins);
            return true;
        }
        }
        return fail(node, "unsupported YAML node");
    }

    std::string depth_message() const {
        return "YAML nesting too deep: more than " + std::to_string(limits_.max_depth) + " levels";
    }

    ParseError error_;
    bool failed_ = false;

private:
    std::string_view text_;
    const Limits& limits_;
    std::size_t nodes_ = 0;
};

} // namespace

ParseAllResult parse_yaml_all(std::string_view text, const Limits& limits) {
    ParseAllResult res;
    if (text.size() > limits.max_input_bytes) {
        res.error.message = "YAML input too large: " + std::to_string(text.size()) + " bytes (limit " +
                            std::to_string(limits.max_input_bytes) + ")";
        return res;
    }
    if (std::size_t bad = utf8::find_invalid(text); bad != std::string_view::npos) {
        res.error = make_parse_error(text, bad, "invalid UTF-8 in YAML input");
        return res;
    }
    std::vector<YAML::Node> docs;
    Converter conv(text, limits);
    try {
        docs = YAML::LoadAll(std::string(text));
    } catch (const YAML::DeepRecursion& e) {
        conv.set_error(e.mark, conv.depth_message());
        res.error = std::move(conv.error_);
        return res;
    } catch (const YAML::Exception& e) {
        conv.set_error(e.mark, "YAML parse error: " + e.msg);
        res.error = std::move(conv.error_);
        return res;
    } catch (const std::exception& e) {
        res.error.message = std::string("YAML parse error: ") + e.what();
        return res;
    }
    try {
        res.documents.reserve(docs.size());
        for (const auto& d : docs) {
            Value v;
            if (!conv.convert(d, 0, v)) {
                res.error = std::move(conv.error_);
                res.documents.clear();
                return res;
            }
            res.documents.push_back(std::move(v));
        }
    } catch (const std::exception& e) {
        res.error.message = std::string("YAML conversion error: ") + e.what();
        res.documents.clear();
        return res;
    }
    res.ok = true;
    return res;
}

ParseResult parse_yaml(std::string_view text, const Limits& limits) {
    ParseAllResult all = parse_yaml_all(text, limits);
    ParseResult res;
    if (!all.ok) {
        res.error = std::move(all.error);
        return res;
    }
    if (all.documents.size() > 1) {
        res.error.message = "expected one YAML document, found " + std::to_string(all.documents.size());
        return res;
    }
    res.ok = true;
    if (!all.documents.empty()) res.value = std::move(all.documents.front());
    return res;
}

ParseResult load_yaml_data(std::string_view text, const Limits& limits) {
    ParseAllResult all = parse_yaml_all(text, limits);
    ParseResult res;
    if (!all.ok) {
        res.error = std::move(all.error);
        return res;
    }
    res.ok = true;
    if (!all.documents.empty()) res.value = std::move(all.documents.front());
    return res;
}

} // namespace gavel::runtime
