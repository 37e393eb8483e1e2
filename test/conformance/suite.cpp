#include "test/conformance/suite.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace gavel::conformance {

namespace fs = std::filesystem;
using runtime::ArrayBuilder;
using runtime::Number;
using runtime::ObjectBuilder;

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_null_word(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::optional<bool> bool_word(std::string_view s) {
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    return std::nullopt;
}

// [-+]?[0-9]+
bool is_int_text(std::string_view s) {
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
    return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_float_text(std::string_view s) {
    std::size_t i = 0, n = s.size();
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t int_digits = 0, frac_digits = 0;
    while (i < n && is_digit(s[i])) ++i, ++int_digits;
    if (i < n && s[i] == '.') {
        ++i;
        while (i < n && is_digit(s[i])) ++i, ++frac_digits;
    }
    if (int_digits == 0 && frac_digits == 0) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
        std::size_t exp_digits = 0;
        while (i < n && is_digit(s[i])) ++i, ++exp_digits;
        if (exp_digits == 0) return false;
    }
    return i == n;
}

// A double as OPA gets it (Go's ParseFloat); nullopt when out of range,
// where Go's YAML decoder keeps the scalar as a string.
std::optional<Value> double_value(const std::string& text) {
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(d)) return std::nullopt;
    return Value::from_double(d);
}

std::optional<Value> plain_number(const std::string& s) {
    std::string_view body = s;
    bool neg = false;
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
        neg = body[0] == '-';
        body.remove_prefix(1);
    }
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o')) {
        std::uint64_t u = 0;
        const char* first = body.data() + 2;
        const char* last = body.data() + body.size();
        auto r = std::from_chars(first, last, u, body[1] == 'x' ? 16 : 8);
        if (r.ec != std::errc() || r.ptr != last) return std::nullopt;
        if (!neg) return Value::number(Number::from_uint(u));
        if (u <= std::uint64_t(INT64_MAX)) return Value::integer(-std::int64_t(u));
        return double_value(std::to_string(-static_cast<double>(u)));
    }
    if (is_int_text(s)) {
        std::string_view digits = s;
        if (digits[0] == '+') digits.remove_prefix(1);
        std::int64_t i = 0;
        auto r = std::from_chars(digits.data(), digits.data() + digits.size(), i);
        if (r.ec == std::errc() && r.ptr == digits.data() + digits.size()) return Value::integer(i);
        if (!neg) {
            std::uint64_t u = 0;
            auto ru = std::from_chars(digits.data(), digits.data() + digits.size(), u);
            if (ru.ec == std::errc() && ru.ptr == digits.data() + digits.size())
                return Value::number(Number::from_uint(u));
        }
        return double_value(s);  // too wide for 64 bits: Go decodes a float64
    }
    if (is_float_text(s)) return double_value(s);
    return std::nullopt;
}

Value plain_scalar(const std::string& s) {
    if (is_null_word(s)) return Value::null();
    if (auto b = bool_word(s)) return Value::boolean(*b);
    if (auto n = plain_number(s)) return *n;
    return Value::string(s);
}

using lang::yaml::Node;

std::string key_text(const Node& k) {
    if (k.is_null()) return "null";
    if (!k.is_scalar())
        throw std::runtime_error("line " + std::to_string(k.mark.line + 1) + ": mapping key is not a scalar");
    const std::string& s = k.text;
    if (k.plain()) {
        if (is_null_word(s)) return "null";
        if (auto b = bool_word(s)) return *b ? "true" : "false";
    }
    return s;
}

std::string scalar_text(const Node& n, const char* key) {
    if (n.is_null()) return "";
    if (!n.is_scalar()) throw std::runtime_error(std::string("`") + key + "` is not a string");
    return n.text;
}

bool flag(const Node& n, const char* key) {
    Value v = yaml_to_value(n);
    if (!v.is_bool()) throw std::runtime_error(std::string("`") + key + "` is not a boolean");
    return v.as_bool();
}

Case read_case(const Node& node, const std::string& file, std::size_t index) {
    Case c;
    c.file = file;
    c.folder = file.substr(0, file.rfind('/'));
    c.index = index;
    c.id = file + "#" + std::to_string(index);
    c.v0 = file.starts_with("v0/");
    try {
        if (!node.is_mapping()) throw std::runtime_error("case is not a mapping");
        for (const auto& [k, value] : node.members) {
            const std::string key = k->text;
            const Node& v = *value;
            if (key == "note") {
                c.note = scalar_text(v, "note");
            } else if (key == "query") {
                c.query = scalar_text(v, "query");
            } else if (key == "modules") {
                if (v.is_null()) continue;
                if (!v.is_sequence()) throw std::runtime_error("`modules` is not a list");
                for (const auto& m : v.items) c.modules.push_back(scalar_text(*m, "modules[]"));
            } else if (key == "data") {
                if (!v.is_null()) c.data = yaml_to_value(v);
                if (c.data && c.data->is_null()) c.data.reset();
            } else if (key == "input") {
                Value in = yaml_to_value(v);
                if (!in.is_null()) c.input = std::move(in);  // Go: a null *interface{} is absent
            } else if (key == "input_term") {
                c.input_term = scalar_text(v, "input_term");
            } else if (key == "want_result") {
                if (v.is_null()) continue;
                if (!v.is_sequence()) throw std::runtime_error("`want_result` is not a list");
                std::vector<Value> rows;
                for (const auto& row : v.items) {
                    Value r = yaml_to_value(*row);
                    if (!r.is_object()) throw std::runtime_error("`want_result` row is not a mapping");
                    rows.push_back(std::move(r));
                }
                c.want_result = std::move(rows);
            } else if (key == "want_error_code") {
                c.want_error_code = scalar_text(v, "want_error_code");
            } else if (key == "want_error") {
                c.want_error = scalar_text(v, "want_error");
            } else if (key == "want_defined") {
                c.want_defined = flag(v, "want_defined");
            } else if (key == "strict_error") {
                c.strict_error = flag(v, "strict_error");
            } else if (key == "sort_bindings") {
                c.sort_bindings = flag(v, "sort_bindings");
            } else if (key == "experimental_keywords") {
                c.experimental_keywords = flag(v, "experimental_keywords");
            } else if (key == "ignore_generated_vars") {
                c.ignore_generated_vars = flag(v, "ignore_generated_vars");
            } else if (key == "env") {
                if (!v.is_null() && (!v.members.empty() || !v.items.empty()))
                    c.skip_reason = "sets environment variables (`env`)";
            } else {
                c.skip_reason = "unknown case key `" + key + "`";
            }
        }
        if (c.query.empty()) throw std::runtime_error("case has no `query`");
        if (!c.want_result && !c.want_error_code && !c.want_error && !c.want_defined)
            throw std::runtime_error("case expects nothing (no want_result, want_error_code, want_error)");
    } catch (const std::exception& e) {
        c.load_error = e.what();
    }
    return c;
}

Case broken_file(const std::string& file, const std::string& why) {
    Case c;
    c.file = file;
    c.folder = file.substr(0, file.rfind('/'));
    c.id = file + "#0";
    c.v0 = file.starts_with("v0/");
    c.load_error = why;
    return c;
}

}  // namespace

Value yaml_to_value(const Node& node) {
    if (node.is_null()) return Value::null();
    if (node.is_scalar()) return node.plain() ? plain_scalar(node.text) : Value::string(node.text);
    if (node.is_sequence()) {
        ArrayBuilder b(node.items.size());
        for (const auto& item : node.items) b.push_back(yaml_to_value(*item));
        return b.build();
    }
    ObjectBuilder b(node.members.size());
    for (const auto& [k, v] : node.members) b.insert(Value::string(key_text(*k)), yaml_to_value(*v));
    return b.build(runtime::DuplicateKeys::LastWins);
}

std::vector<Case> load_cases(const std::string& text, const std::string& file) {
    std::vector<Case> out;
    // Case files are the project's own test data: larger bounds than a METADATA block's.
    lang::yaml::NodeLimits limits;
    limits.max_depth = 1000;
    limits.max_nodes = 10'000'000;
    lang::yaml::Documents doc = lang::yaml::read_documents(text, lang::yaml::ErrorDialect::GoYamlV2, limits, 1);
    if (!doc.ok) {
        out.push_back(broken_file(file, "YAML: " + doc.error));
        return out;
    }
    const Node* root = doc.documents.empty() ? nullptr : doc.documents.front().get();
    const Node* cases = root && root->is_mapping() ? root->get("cases") : nullptr;
    if (!cases || !cases->is_sequence()) {
        out.push_back(broken_file(file, "no `cases` list"));
        return out;
    }
    std::size_t index = 0;
    for (const auto& c : cases->items) out.push_back(read_case(*c, file, index++));
    return out;
}

std::vector<Case> load_suite(const fs::path& root) {
    std::vector<std::string> files;  // relative, generic ('/') form
    for (const char* version : {"v0", "v1"}) {
        const fs::path dir = root / version;
        if (!fs::is_directory(dir)) continue;
        for (const auto& e : fs::recursive_directory_iterator(dir))
            if (e.is_regular_file() && e.path().extension() == ".yaml")
                files.push_back(fs::relative(e.path(), root).generic_string());
    }
    std::sort(files.begin(), files.end());

    std::vector<Case> all;
    all.reserve(files.size() * 2);
    for (const auto& rel : files) {
        std::ifstream in(root / rel, std::ios::binary);
        if (!in.is_open()) {
            all.push_back(broken_file(rel, "cannot open file"));
            continue;
        }
        std::ostringstream ss;
        ss << in.rdbuf();
        for (auto& c : load_cases(ss.str(), rel)) all.push_back(std::move(c));
    }
    return all;
}

}  // namespace gavel::conformance
