// json.verify_schema and json.match_schema: JSON Schema drafts 4, 6 and 7 as
// OPA validates them (its vendored gojsonschema): the same keywords, the same
// error objects {error, type, field, desc} with gojsonschema's wording, the
// same order of errors, and the same "closest branch" choice for failed
// anyOf/oneOf (a score of how much of each branch matched).
//
// Without "$schema" the draft is gojsonschema's "hybrid" one: draft 7
// keywords plus draft 4's boolean exclusiveMinimum/exclusiveMaximum.
// References ("$ref") may point inside the schema document ("#",
// "#/definitions/x", "#/properties/a/items"); remote references are refused,
// as OPA refuses network access by default. Properties are visited in sorted
// order (gojsonschema iterates Go maps, whose order is random).

#include <boost/multiprecision/cpp_int.hpp>

#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <variant>

#include "runtime/json.hpp"
#include "stdlib/builtin_helpers.hpp"
#include "stdlib/go_regex.hpp"
#include "stdlib/object_family.hpp"
#include "support/json_string.hpp"

namespace gavel::stdlib {

namespace {

using Rational = boost::multiprecision::cpp_rational;
using BigInt = boost::multiprecision::cpp_int;

// ---- numbers ------------------------------------------------------------------------

// The exact value of a number's decimal text; nullopt beyond a sane exponent.
std::optional<Rational> to_rational(const runtime::Number& n) {
    std::string text = n.to_string();
    std::string_view s = text;
    bool negative = !s.empty() && s[0] == '-';
    if (negative || (!s.empty() && s[0] == '+')) s.remove_prefix(1);
    std::string digits;
    int64_t exponent = 0;
    std::size_t i = 0;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) digits += s[i];
    if (i < s.size() && s[i] == '.') {
        for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
            digits += s[i];
            --exponent;
        }
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        int64_t e = 0;
        auto [p, ec] = std::from_chars(s.data() + i + 1 + (s[i + 1] == '+'), s.data() + s.size(), e);
        if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
        exponent += e;
    } else if (i != s.size()) {
        return std::nullopt;
    }
    if (digits.empty() || exponent > 4000 || exponent < -4000) return std::nullopt;
    Rational r{BigInt(digits)};
    BigInt scale = boost::multiprecision::pow(BigInt(10), static_cast<unsigned>(exponent < 0 ? -exponent : exponent));
    if (exponent < 0) r /= Rational(scale);
    else r *= Rational(scale);
    return negative ? Rational(-r) : r;
}

// Go's big.Float printed with %v: Text('g', 10).
std::string format_g10(const Rational& r) {
    double d = static_cast<double>(r);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.10g", d);
    return buf;
}

// Go's encoding/json formatting of a float64 (what gojsonschema compares
// enum and const values by after a round trip through float64).
std::string go_float(double d) {
    char buf[64];
    double a = std::fabs(d);
    bool exp_form = a != 0 && (a < 1e-6 || a >= 1e21);
    auto res =
        std::to_chars(buf, buf + sizeof buf, d, exp_form ? std::chars_format::scientific : std::chars_format::fixed);
    std::string s(buf, res.ptr);
    if (exp_form) {  // e-07 -> e-7
        auto e = s.find('e');
        if (e != std::string::npos && e + 3 < s.size() && s[e + 2] == '0') s.erase(e + 2, 1);
    }
    return s;
}

// ---- JSON as gojsonschema compares it ---------------------------------------------------

void append_canonical(std::string& out, const Value& v) {
    if (v.is_number()) {
        out += go_float(v.as_number().to_double());
    } else if (v.is_string()) {
        support::append_json_string(out, v.as_string(), {.escape_html = true});  // as Go's json.Marshal
    } else if (v.is_array()) {
        out += '[';
        bool first = true;
        for (const auto& e : v.array_elements()) {
            if (!first) out += ',';
            first = false;
            append_canonical(out, e);
        }
        out += ']';
    } else if (v.is_object()) {
        out += '{';
        bool first = true;
        for (const auto& e : v.object_entries()) {
            if (!first) out += ',';
            first = false;
            append_canonical(out, e.key);
            out += ':';
            append_canonical(out, e.value);
        }
        out += '}';
    } else {
        out += runtime::to_json(v);
    }
}

std::string canonical(const Value& v) {
    std::string out;
    append_canonical(out, v);
    return out;
}

// ---- the compiled schema ----------------------------------------------------------------

enum class Draft { V4 = 4, V6 = 6, V7 = 7, Hybrid = 100 };

struct SubSchema;
using SchemaOrBool = std::variant<std::monostate, bool, SubSchema*>;

struct SubSchema {
    std::optional<bool> pass;  // true/false schemas (draft 6+)
    SubSchema* ref = nullptr;  // $ref: replaces every other keyword
    std::vector<std::string> types;
    std::vector<std::pair<std::string, SubSchema*>> properties;
    SchemaOrBool additional_properties;
    std::vector<std::pair<std::shared_ptr<const RE2>, SubSchema*>> pattern_properties;
    SubSchema* property_names = nullptr;
    std::vector<std::pair<std::string, std::variant<std::vector<std::string>, SubSchema*>>> dependencies;
    std::vector<SubSchema*> items;
    bool items_single = false;
    SchemaOrBool additional_items;
    std::optional<Rational> multiple_of, minimum, maximum, exclusive_minimum, exclusive_maximum;
    std::optional<int64_t> min_length, max_length, min_properties, max_properties, min_items, max_items;
    std::shared_ptr<const RE2> pattern;
    std::string pattern_text;
    std::string format;
    std::vector<std::string> required;
    bool unique_items = false;
    SubSchema* contains = nullptr;
    std::optional<std::string> const_json;
    bool enum_present = false;
    std::vector<std::string> enum_json;
    std::vector<SubSchema*> one_of, any_of, all_of;
    SubSchema* not_schema = nullptr;
    SubSchema* if_schema = nullptr;
    SubSchema* then_schema = nullptr;
    SubSchema* else_schema = nullptr;

    bool typed() const { return !types.empty(); }
    bool has_type(std::string_view t) const { return std::find(types.begin(), types.end(), t) != types.end(); }
    std::string types_text() const {
        if (types.size() == 1) return types[0];
        std::string s = "[";
        for (std::size_t i = 0; i < types.size(); ++i) s += (i ? "," : "") + types[i];
        return s + "]";
    }
};

struct SchemaError {
    std::string message;
};

// Thrown when the evaluation's budget says stop (compiling or validating).
struct SchemaStopped {};

class Compiler {
public:
    Compiler(const Value& document, runtime::WorkBudget& budget) : document_(document), budget_(budget) {}

    SubSchema* compile() {
        Draft draft = Draft::Hybrid;
        if (const Value* s = document_.find("$schema"); s && s->is_string()) {
            std::string_view uri = s->as_string();
            if (uri.find("draft-04") != std::string_view::npos) draft = Draft::V4;
            else if (uri.find("draft-06") != std::string_view::npos) draft = Draft::V6;
            else if (uri.find("draft-07") != std::string_view::npos) draft = Draft::V7;
        }
        SubSchema* root = make();
        refs_["#"] = root;
        parse(document_, *root, draft);
        return root;
    }

    std::vector<std::unique_ptr<SubSchema>> take_nodes() { return std::move(nodes_); }

private:
    SubSchema* make() {
        nodes_.push_back(std::make_unique<SubSchema>());
        return nodes_.back().get();
    }

    [[noreturn]] static void fail(std::string message) { throw SchemaError{std::move(message)}; }
    static void invalid_type(std::string_view expected, std::string_view given) {
        fail("Invalid type. Expected: " + std::string(expected) + ", given: " + std::string(given));
    }
    static void must_be_of_a(std::string_view x, std::string_view y) {
        fail(std::string(x) + " must be of a " + std::string(y));
    }
    static void must_be_of_an(std::string_view x, std::string_view y) {
        fail(std::string(x) + " must be of an " + std::string(y));
    }

    static bool is_schema(const Value& v) { return v.is_object() || v.is_bool(); }

    SubSchema* child(const Value& v, Draft draft) {
        if (budget_.spend()) throw SchemaStopped{};
        SubSchema* s = make();
        parse(v, *s, draft);
        return s;
    }

    static std::optional<std::string> get_string(const Value& m, std::string_view key) {
        const Value* v = m.find(key);
        if (!v) return std::nullopt;
        if (!v->is_string()) invalid_type("string", key);
        return std::string(v->as_string());
    }

    static const Value* get_slice(const Value& m, std::string_view key) {
        const Value* v = m.find(key);
        if (v && !v->is_array()) must_be_of_an(key, "array");
        return v;
    }

    static std::optional<Rational> number(const Value& v) {
        if (!v.is_number()) return std::nullopt;
        return to_rational(v.as_number());
    }

    static std::optional<int64_t> non_negative_integer(const Value& m, std::string_view key) {
        const Value* v = m.find(key);
        if (!v) return std::nullopt;
        int64_t i;
        if (!v->is_number() || !v->as_number().is_integer() || !v->as_int64(i)) must_be_of_an(key, "integer");
        if (i < 0) fail(std::string(key) + " must be greater than or equal to 0");
        return i;
    }

    // Resolves a reference inside the schema document (JSON pointer fragment).
    SubSchema* resolve(const std::string& ref, Draft draft) {
        if (auto it = refs_.find(ref); it != refs_.end()) return it->second;
        if (ref.empty() || ref[0] != '#')
            fail("unsupported $ref " + ref + ": only references inside the schema are resolved");
        std::string_view pointer = std::string_view(ref).substr(1);
        const Value* node = &document_;
        if (!pointer.empty()) {
            if (pointer[0] != '/') fail("Invalid JSON pointer " + std::string(pointer));
            pointer.remove_prefix(1);
            while (true) {
                std::size_t slash = pointer.find('/');
                std::string token(pointer.substr(0, slash));
                // ~1 is "/", ~0 is "~"; percent-encoding as in URI fragments.
                std::string decoded;
                for (std::size_t i = 0; i < token.size(); ++i) {
                    if (token[i] == '%' && i + 2 < token.size() + 0 &&
                        std::isxdigit(static_cast<unsigned char>(token[i + 1])) &&
                        std::isxdigit(static_cast<unsigned char>(token[i + 2]))) {
                        decoded += static_cast<char>(std::stoi(token.substr(i + 1, 2), nullptr, 16));
                        i += 2;
                    } else {
                        decoded += token[i];
                    }
                }
                std::string unescaped;
                for (std::size_t i = 0; i < decoded.size(); ++i) {
                    if (decoded[i] == '~' && i + 1 < decoded.size() &&
                        (decoded[i + 1] == '0' || decoded[i + 1] == '1')) {
                        unescaped += decoded[i + 1] == '0' ? '~' : '/';
                        ++i;
                    } else {
                        unescaped += decoded[i];
                    }
                }
                if (node->is_object()) {
                    node = node->find(unescaped);
                    if (!node) fail("Object has no key '" + unescaped + "'");
                } else if (node->is_array()) {
                    std::size_t idx = 0;
                    auto [p, ec] = std::from_chars(unescaped.data(), unescaped.data() + unescaped.size(), idx);
                    if (ec != std::errc() || p != unescaped.data() + unescaped.size() || idx >= node->size())
                        fail("Invalid array index '" + unescaped + "'");
                    node = &node->array_elements()[idx];
                } else {
                    fail("Invalid JSON pointer " + ref);
                }
                if (slash == std::string_view::npos) break;
                pointer.remove_prefix(slash + 1);
            }
        }
        if (!is_schema(*node)) fail("schema must be of type object");
        SubSchema* s = make();
        refs_[ref] = s;  // before parsing: recursive references reach the same node
        parse(*node, *s, draft);
        return s;
    }

    void parse(const Value& node, SubSchema& s, Draft draft) {
        if (++depth_ > 512) fail("schema nesting too deep");
        struct Leave {
            int& d;
            ~Leave() { --d; }
        } leave{depth_};
        if (draft >= Draft::V6 && node.is_bool()) {
            s.pass = node.as_bool();
            return;
        }
        if (!node.is_object()) fail("Expected: schema, given: Invalid JSON");
        const Value& m = node;

        if (const Value* defs = m.find("definitions")) {
            if (!defs->is_object()) invalid_type("array of schemas", "definitions");
            for (const auto& e : defs->object_entries()) {
                if (!is_schema(e.value)) invalid_type("array of schemas", "definitions");
                child(e.value, draft);  // checked for errors; reached through $ref
            }
        }
        get_string(m, draft == Draft::V4 ? "id" : "$id");
        get_string(m, "title");
        get_string(m, "description");
        if (auto ref = get_string(m, "$ref")) {
            s.ref = resolve(*ref, draft);
            return;
        }
        if (const Value* t = m.find("type")) {
            auto add = [&](std::string_view name) {
                static const char* const valid[] = {"array", "boolean", "integer", "number",
                                                    "null",  "object",  "string"};
                if (std::find(std::begin(valid), std::end(valid), name) == std::end(valid))
                    fail("has a primitive type that is NOT VALID -- given: /" + std::string(name) +
                         "/ Expected valid values are:[array boolean integer number null object string]");
                if (s.has_type(name)) fail(std::string(name) + " type is duplicated");
                s.types.emplace_back(name);
            };
            if (t->is_string()) {
                add(t->as_string());
            } else if (t->is_array()) {
                for (const auto& e : t->array_elements()) {
                    if (!e.is_string()) invalid_type("type", "string/array of strings");
                    add(e.as_string());
                }
            } else {
                invalid_type("type", "string/array of strings");
            }
        }
        if (const Value* props = m.find("properties")) {
            if (!props->is_object()) fail("properties must be of type object");
            for (const auto& e : props->object_entries())
                s.properties.emplace_back(std::string(e.key.as_string()), child(e.value, draft));
        }
        if (const Value* ap = m.find("additionalProperties")) {
            if (ap->is_bool()) s.additional_properties = ap->as_bool();
            else if (ap->is_object()) s.additional_properties = child(*ap, draft);
            else invalid_type("boolean/schema", "additionalProperties");
        }
        if (const Value* pp = m.find("patternProperties")) {
            if (!pp->is_object()) invalid_type("schema", "patternProperties");
            for (const auto& e : pp->object_entries()) {
                auto re = goregex::compile(std::string(e.key.as_string()));
                if (!re.re) fail("Invalid regex pattern '" + std::string(e.key.as_string()) + "'");
                s.pattern_properties.emplace_back(re.re, child(e.value, draft));
            }
        }
        if (const Value* pn = m.find("propertyNames"); pn && draft >= Draft::V6) {
            if (!is_schema(*pn)) fail("Invalid type. Expected: schema, given: patternProperties");
            s.property_names = child(*pn, draft);
        }
        if (const Value* deps = m.find("dependencies")) {
            if (!deps->is_object()) fail("dependencies must be of type object");
            for (const auto& e : deps->object_entries()) {
                std::string key(e.key.as_string());
                if (e.value.is_array()) {
                    std::vector<std::string> names;
                    for (const auto& n : e.value.array_elements()) {
                        if (!n.is_string()) fail("dependency must be of type schema or array of strings");
                        names.emplace_back(n.as_string());
                    }
                    s.dependencies.emplace_back(key, std::move(names));
                } else if (is_schema(e.value)) {
                    s.dependencies.emplace_back(key, child(e.value, draft));
                } else {
                    fail("dependency must be of type schema or array of strings");
                }
            }
        }
        if (const Value* items = m.find("items")) {
            if (items->is_array()) {
                for (const auto& e : items->array_elements()) {
                    if (!is_schema(e)) invalid_type("schema/array of schemas", "items");
                    s.items.push_back(child(e, draft));
                }
            } else if (is_schema(*items)) {
                s.items.push_back(child(*items, draft));
                s.items_single = true;
            } else {
                invalid_type("schema/array of schemas", "items");
            }
        }
        if (const Value* ai = m.find("additionalItems")) {
            if (ai->is_bool()) s.additional_items = ai->as_bool();
            else if (ai->is_object()) s.additional_items = child(*ai, draft);
            else invalid_type("boolean/schema", "additionalItems");
        }
        if (const Value* mo = m.find("multipleOf")) {
            auto r = number(*mo);
            if (!r) invalid_type("number", "multipleOf");
            if (*r <= 0) fail("multipleOf must be strictly greater than 0");
            s.multiple_of = r;
        }
        auto bound = [&](const char* key, const char* exclusive_key, std::optional<Rational>& inclusive,
                         std::optional<Rational>& exclusive) {
            if (const Value* v = m.find(key)) {
                inclusive = number(*v);
                if (!inclusive) must_be_of_a(key, "number");
            }
            const Value* ex = m.find(exclusive_key);
            if (!ex) return;
            if (draft == Draft::V4 || (draft == Draft::Hybrid && ex->is_bool())) {
                if (!ex->is_bool()) invalid_type("boolean", exclusive_key);
                if (!inclusive) fail(std::string(exclusive_key) + " cannot be used without " + key);
                if (ex->as_bool()) {
                    exclusive = inclusive;
                    inclusive.reset();
                }
            } else {
                exclusive = number(*ex);
                if (!exclusive) invalid_type(draft == Draft::Hybrid ? "boolean/number" : "number", exclusive_key);
            }
        };
        bound("minimum", "exclusiveMinimum", s.minimum, s.exclusive_minimum);
        bound("maximum", "exclusiveMaximum", s.maximum, s.exclusive_maximum);
        s.min_length = non_negative_integer(m, "minLength");
        s.max_length = non_negative_integer(m, "maxLength");
        if (s.min_length && s.max_length && *s.min_length > *s.max_length)
            fail("minLength cannot be greater than maxLength");
        if (auto p = get_string(m, "pattern")) {
            auto re = goregex::compile(*p);
            if (!re.re) fail("pattern must be a valid regex");
            s.pattern = re.re;
            s.pattern_text = *p;
        }
        if (auto f = get_string(m, "format")) s.format = *f;
        s.min_properties = non_negative_integer(m, "minProperties");
        s.max_properties = non_negative_integer(m, "maxProperties");
        if (s.min_properties && s.max_properties && *s.min_properties > *s.max_properties)
            fail("minProperties cannot be greater than maxProperties");
        if (const Value* req = get_slice(m, "required")) {
            for (const auto& e : req->array_elements()) {
                if (!e.is_string()) invalid_type("string", "required");
                std::string name(e.as_string());
                if (budget_.spend(1 + s.required.size())) throw SchemaStopped{};  // the search below
                if (std::find(s.required.begin(), s.required.end(), name) != s.required.end())
                    fail("required items must be unique");
                s.required.push_back(std::move(name));
            }
        }
        s.min_items = non_negative_integer(m, "minItems");
        s.max_items = non_negative_integer(m, "maxItems");
        if (const Value* u = m.find("uniqueItems")) {
            if (!u->is_bool()) must_be_of_a("uniqueItems", "boolean");
            s.unique_items = u->as_bool();
        }
        if (const Value* c = m.find("contains"); c && draft >= Draft::V6) s.contains = child(*c, draft);
        if (const Value* c = m.find("const"); c && draft >= Draft::V6) s.const_json = canonical(*c);
        if (const Value* e = get_slice(m, "enum")) {
            s.enum_present = true;
            for (const auto& v : e->array_elements()) {
                std::string text = canonical(v);
                if (budget_.spend(1 + s.enum_json.size() + text.size() / 16))
                    throw SchemaStopped{};  // the search below
                if (std::find(s.enum_json.begin(), s.enum_json.end(), text) != s.enum_json.end())
                    fail("enum items must be unique");
                s.enum_json.push_back(std::move(text));
            }
        }
        auto schema_list = [&](const char* key, std::vector<SubSchema*>& out) {
            if (const Value* list = get_slice(m, key))
                for (const auto& e : list->array_elements()) out.push_back(child(e, draft));
        };
        schema_list("oneOf", s.one_of);
        schema_list("anyOf", s.any_of);
        schema_list("allOf", s.all_of);
        auto single = [&](const char* key, SubSchema*& out) {
            const Value* v = m.find(key);
            if (!v) return;
            if (!is_schema(*v)) must_be_of_an(key, "object");
            out = child(*v, draft);
        };
        single("not", s.not_schema);
        if (draft >= Draft::V7) {
            single("if", s.if_schema);
            single("then", s.then_schema);
            single("else", s.else_schema);
        }
    }

    const Value& document_;
    runtime::WorkBudget& budget_;
    std::vector<std::unique_ptr<SubSchema>> nodes_;
    std::map<std::string, SubSchema*> refs_;
    int depth_ = 0;
};

struct CompiledSchema {
    std::vector<std::unique_ptr<SubSchema>> nodes;
    SubSchema* root = nullptr;
};

// ---- formats -----------------------------------------------------------------------------

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_date(std::string_view s) {
    if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
    if (!all_digits(s.substr(0, 4)) || !all_digits(s.substr(5, 2)) || !all_digits(s.substr(8, 2))) return false;
    int y = std::stoi(std::string(s.substr(0, 4))), mo = std::stoi(std::string(s.substr(5, 2))),
        d = std::stoi(std::string(s.substr(8, 2)));
    static const int days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12 || d < 1 || d > days[mo - 1]) return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return !(mo == 2 && d == 29 && !leap);
}

// hh:mm:ss[.frac](Z|±hh:mm)
bool is_time(std::string_view s) {
    if (s.size() < 9 || s[2] != ':' || s[5] != ':') return false;
    if (!all_digits(s.substr(0, 2)) || !all_digits(s.substr(3, 2)) || !all_digits(s.substr(6, 2))) return false;
    if (std::stoi(std::string(s.substr(0, 2))) > 23 || std::stoi(std::string(s.substr(3, 2))) > 59 ||
        std::stoi(std::string(s.substr(6, 2))) > 59)
        return false;
    std::size_t i = 8;
    if (i < s.size() && s[i] == '.') {
        std::size_t start = ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        if (i == start) return false;
    }
    std::string_view zone = s.substr(i);
    if (zone == "Z" || zone == "z") return true;
    return zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':' && all_digits(zone.substr(1, 2)) &&
           all_digits(zone.substr(4, 2)) && std::stoi(std::string(zone.substr(1, 2))) <= 23 &&
           std::stoi(std::string(zone.substr(4, 2))) <= 59;
}

bool is_ipv4(std::string_view s) {
    int parts = 0;
    std::size_t start = 0;
    while (true) {
        std::size_t dot = s.find('.', start);
        std::string_view p = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (!all_digits(p) || p.size() > 3 || std::stoi(std::string(p)) > 255) return false;
        ++parts;
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return parts == 4;
}

bool is_ipv6(std::string_view s) {
    if (s.find(':') == std::string_view::npos) return false;
    static const RE2 re(
        R"(^(([0-9a-fA-F]{1,4}:){7}[0-9a-fA-F]{1,4}|(([0-9a-fA-F]{1,4}:){0,7}[0-9a-fA-F]{0,4})?::(([0-9a-fA-F]{1,4}:){0,7}[0-9a-fA-F]{0,4})?|([0-9a-fA-F]{1,4}:){6}\d+\.\d+\.\d+\.\d+|(([0-9a-fA-F]{1,4}:){0,5}[0-9a-fA-F]{0,4})?::(([0-9a-fA-F]{1,4}:){0,5})?\d+\.\d+\.\d+\.\d+)$)");
    if (!RE2::FullMatch(re2::StringPiece(s.data(), s.size()), re)) return false;
    // At most one "::", and an embedded IPv4 must be valid.
    if (s.find("::") != s.rfind("::")) return false;
    if (auto dot = s.find('.'); dot != std::string_view::npos) return is_ipv4(s.substr(s.rfind(':') + 1));
    return true;
}

bool is_hostname(std::string_view s) {
    static const RE2 re(
        R"(^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9]))*$)");
    return s.size() <= 255 && RE2::FullMatch(re2::StringPiece(s.data(), s.size()), re);
}

bool is_email(std::string_view s) {
    auto at = s.rfind('@');
    return at != std::string_view::npos && at > 0 && at + 1 < s.size() && s.find(' ') == std::string_view::npos;
}

bool is_uri_reference(std::string_view s) {
    return std::none_of(s.begin(), s.end(),
                        [](char c) { return c == ' ' || c == '\\' || static_cast<unsigned char>(c) < 0x20; });
}

bool is_uri(std::string_view s) {
    static const RE2 scheme(R"(^[a-zA-Z][a-zA-Z0-9+\-.]*:.*$)");
    return is_uri_reference(s) && RE2::FullMatch(re2::StringPiece(s.data(), s.size()), scheme);
}

bool format_ok(const std::string& format, const Value& v) {
    if (!v.is_string()) return true;  // formats constrain strings only
    std::string_view s = v.as_string();
    if (format == "date") return is_date(s);
    if (format == "time") return is_time(s);
    if (format == "date-time") {
        auto t = s.find_first_of("Tt");
        return t == 10 && is_date(s.substr(0, 10)) && is_time(s.substr(11));
    }
    if (format == "ipv4") return is_ipv4(s);
    if (format == "ipv6") return is_ipv6(s);
    if (format == "hostname" || format == "idn-hostname") return is_hostname(s);
    if (format == "email" || format == "idn-email") return is_email(s);
    if (format == "uri" || format == "iri") return is_uri(s);
    if (format == "uri-reference" || format == "iri-reference" || format == "uri-template") return is_uri_reference(s);
    if (format == "uuid") {
        static const RE2 re(R"(^(?i)[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$)");
        return RE2::FullMatch(re2::StringPiece(s.data(), s.size()), re);
    }
    if (format == "regex") return goregex::compile(std::string(s)).re != nullptr;
    if (format == "json-pointer") {
        static const RE2 re(R"(^(/([^~/]|~[01])*)*$)");
        return RE2::FullMatch(re2::StringPiece(s.data(), s.size()), re);
    }
    if (format == "relative-json-pointer") {
        static const RE2 re(R"(^(0|[1-9][0-9]*)(#|(/([^~/]|~[01])*)*)$)");
        return RE2::FullMatch(re2::StringPiece(s.data(), s.size()), re);
    }
    return true;  // unknown formats are not checked
}

// ---- validation ----------------------------------------------------------------------------

struct SchemaErrorEntry {
    std::string type;
    std::string field;
    std::string description;
};

struct Result {
    std::vector<SchemaErrorEntry> errors;
    int score = 0;
    bool valid() const { return errors.empty(); }
    void merge(Result&& other) {
        for (auto& e : other.errors) errors.push_back(std::move(e));
        score += other.score;
    }
};

// The JSON context: "(Root).a.0.b"; a field is the context without "(Root).".
struct Context {
    std::vector<std::string> path;
    std::string field() const {
        if (path.empty()) return "(Root)";
        std::string s;
        for (std::size_t i = 0; i < path.size(); ++i) s += (i ? "." : "") + path[i];
        return s;
    }
};

// Each schema applied to each node is work: anyOf/oneOf alternatives that
// recurse through $ref make it grow exponentially with the document's depth.
class Validator {
public:
    explicit Validator(runtime::WorkBudget& budget) : budget_(budget) {}

    void validate(const SubSchema& s, const Value& node, Result& result, Context& ctx) {
        if (budget_.spend()) throw SchemaStopped{};
        if (++depth_ > 2000) {
            --depth_;
            add(result, ctx, "internal", "Internal Error validation nesting too deep");
            return;
        }
        validate_node(s, node, result, ctx);
        --depth_;
    }

private:
    static void add(Result& r, const Context& ctx, std::string type, std::string description) {
        r.errors.push_back({std::move(type), ctx.field(), std::move(description)});
        r.score -= 2;
    }

    Result sub(const SubSchema& s, const Value& node, Context& ctx) {
        Result r;
        validate(s, node, r, ctx);
        return r;
    }

    Result sub_child(const SubSchema& s, const Value& node, Context& ctx, std::string segment) {
        ctx.path.push_back(std::move(segment));
        Result r = sub(s, node, ctx);
        ctx.path.pop_back();
        return r;
    }

    void validate_node(const SubSchema& s, const Value& node, Result& result, Context& ctx) {
        if (s.pass) {
            if (!*s.pass) add(result, ctx, "false", "False always fails validation");
            return;
        }
        if (s.ref) {
            validate(*s.ref, node, result, ctx);
            return;
        }
        auto type_error = [&](std::string_view given) {
            add(result, ctx, "invalid_type",
                "Invalid type. Expected: " + s.types_text() + ", given: " + std::string(given));
        };
        if (node.is_null()) {
            if (s.typed() && !s.has_type("null")) return type_error("null");
            validate_schema(s, node, result, ctx);
            validate_common(s, node, result, ctx);
        } else if (node.is_number()) {
            bool is_int = node.as_number().is_integer();
            bool ok = s.has_type("number") || (is_int && s.has_type("integer"));
            if (s.typed() && !ok) return type_error(is_int ? "integer" : "number");
            validate_schema(s, node, result, ctx);
            validate_number(s, node, result, ctx);
            validate_common(s, node, result, ctx);
        } else if (node.is_array()) {
            if (s.typed() && !s.has_type("array")) return type_error("array");
            validate_schema(s, node, result, ctx);
            validate_array(s, node, result, ctx);
            validate_common(s, node, result, ctx);
        } else if (node.is_object()) {
            if (s.typed() && !s.has_type("object")) return type_error("object");
            validate_schema(s, node, result, ctx);
            validate_object(s, node, result, ctx);
            validate_common(s, node, result, ctx);
            for (const auto& [name, prop] : s.properties) {
                if (const Value* v = node.find(name)) {
                    ctx.path.push_back(name);
                    validate(*prop, *v, result, ctx);
                    ctx.path.pop_back();
                }
            }
        } else if (node.is_bool()) {
            if (s.typed() && !s.has_type("boolean")) return type_error("boolean");
            validate_schema(s, node, result, ctx);
            validate_common(s, node, result, ctx);
        } else if (node.is_string()) {
            if (s.typed() && !s.has_type("string")) return type_error("string");
            validate_schema(s, node, result, ctx);
            validate_common(s, node, result, ctx);
            validate_string(s, node, result, ctx);
        }
        result.score++;
    }

    void validate_schema(const SubSchema& s, const Value& node, Result& result, Context& ctx) {
        if (!s.any_of.empty()) {
            bool ok = false;
            std::optional<Result> best;
            for (const SubSchema* branch : s.any_of) {
                Result r = sub(*branch, node, ctx);
                if (r.valid()) {
                    ok = true;
                    break;
                }
                if (!best || r.score > best->score) best = std::move(r);
            }
            if (!ok) {
                add(result, ctx, "number_any_of", "Must validate at least one schema (anyOf)");
                if (best) result.merge(std::move(*best));
            }
        }
        if (!s.one_of.empty()) {
            int validated = 0;
            std::optional<Result> best;
            for (const SubSchema* branch : s.one_of) {
                Result r = sub(*branch, node, ctx);
                if (r.valid()) ++validated;
                else if (validated == 0 && (!best || r.score > best->score)) best = std::move(r);
            }
            if (validated != 1) {
                add(result, ctx, "number_one_of", "Must validate one and only one schema (oneOf)");
                if (validated == 0 && best) result.merge(std::move(*best));
            }
        }
        if (!s.all_of.empty()) {
            std::size_t validated = 0;
            for (const SubSchema* branch : s.all_of) {
                Result r = sub(*branch, node, ctx);
                if (r.valid()) ++validated;
                result.merge(std::move(r));
            }
            if (validated != s.all_of.size())
                add(result, ctx, "number_all_of", "Must validate all the schemas (allOf)");
        }
        if (s.not_schema && sub(*s.not_schema, node, ctx).valid())
            add(result, ctx, "number_not", "Must not validate the schema (not)");
        if (!s.dependencies.empty() && node.is_object()) {
            for (const auto& e : node.object_entries()) {
                std::string_view key = e.key.as_string();
                for (const auto& [name, dep] : s.dependencies) {
                    if (name != key) continue;
                    if (const auto* names = std::get_if<std::vector<std::string>>(&dep)) {
                        for (const auto& n : *names)
                            if (!node.find(n)) add(result, ctx, "missing_dependency", "Has a dependency on " + n);
                    } else {
                        validate(*std::get<SubSchema*>(dep), node, result, ctx);
                    }
                }
            }
        }
        if (s.if_schema) {
            bool if_valid = sub(*s.if_schema, node, ctx).valid();
            if (if_valid && s.then_schema) {
                Result r = sub(*s.then_schema, node, ctx);
                if (!r.valid()) {
                    add(result, ctx, "condition_then", "Must validate \"then\" as \"if\" was valid");
                    result.merge(std::move(r));
                }
            }
            if (!if_valid && s.else_schema) {
                Result r = sub(*s.else_schema, node, ctx);
                if (!r.valid()) {
                    add(result, ctx, "condition_else", "Must validate \"else\" as \"if\" was not valid");
                    result.merge(std::move(r));
                }
            }
        }
        result.score++;
    }

    void validate_common(const SubSchema& s, const Value& node, Result& result, Context& ctx) {
        if (s.const_json && canonical(node) != *s.const_json)
            add(result, ctx, "const", ctx.field() + " does not match: " + *s.const_json);
        if (s.enum_present) {
            std::string text = canonical(node);
            if (std::find(s.enum_json.begin(), s.enum_json.end(), text) == s.enum_json.end()) {
                std::string allowed;
                for (std::size_t i = 0; i < s.enum_json.size(); ++i) allowed += (i ? ", " : "") + s.enum_json[i];
                if (s.enum_json.empty()) allowed = "(none)";
                add(result, ctx, "enum", ctx.field() + " must be one of the following: " + allowed);
            }
        }
        if (!s.format.empty() && !format_ok(s.format, node))
            add(result, ctx, "format", "Does not match format '" + s.format + "'");
        result.score++;
    }

    void validate_array(const SubSchema& s, const Value& node, Result& result, Context& ctx) {
        const auto elems = node.array_elements();
        if (s.items_single) {
            for (std::size_t i = 0; i < elems.size(); ++i)
                result.merge(sub_child(*s.items[0], elems[i], ctx, std::to_string(i)));
        } else if (!s.items.empty()) {
            std::size_t n = std::min(s.items.size(), elems.size());
            for (std::size_t i = 0; i < n; ++i) result.merge(sub_child(*s.items[i], elems[i], ctx, std::to_string(i)));
            if (s.items.size() < elems.size()) {
                if (const bool* b = std::get_if<bool>(&s.additional_items)) {
                    if (!*b) add(result, ctx, "array_no_additional_items", "No additional items allowed on array");
                } else if (SubSchema* const* extra = std::get_if<SubSchema*>(&s.additional_items)) {
                    for (std::size_t i = s.items.size(); i < elems.size(); ++i)
                        result.merge(sub_child(**extra, elems[i], ctx, std::to_string(i)));
                }
            }
        }
        const auto count = static_cast<int64_t>(elems.size());
        if (s.min_items && count < *s.min_items)
            add(result, ctx, "array_min_items", "Array must have at least " + std::to_string(*s.min_items) + " items");
        if (s.max_items && count > *s.max_items)
            add(result, ctx, "array_max_items", "Array must have at most " + std::to_string(*s.max_items) + " items");
        if (s.unique_items) {
            std::map<std::string, std::size_t> seen;
            for (std::size_t j = 0; j < elems.size(); ++j) {
                std::string text = canonical(elems[j]);
                if (auto it = seen.find(text); it != seen.end())
                    add(result, ctx, "unique",
                        "array items[" + std::to_string(it->second) + "," + std::to_string(j) + "] must be unique");
                seen[text] = j;
            }
        }
        if (s.contains) {
            bool found = false;
            std::optional<Result> best;
            for (std::size_t i = 0; i < elems.size(); ++i) {
                Result r = sub_child(*s.contains, elems[i], ctx, std::to_string(i));
                if (r.valid()) {
                    found = true;
                    break;
                }
                if (!best || r.score > best->score) best = std::move(r);
            }
            if (!found) {
                add(result, ctx, "contains", "At least one of the items must match");
                if (best) result.merge(std::move(*best));
            }
        }
        result.score++;
    }

    void validate_object(const SubSchema& s, const Value& node, Result& result, Context& ctx) {
        const auto count = static_cast<int64_t>(node.size());
        if (s.min_properties && count < *s.min_properties)
            add(result, ctx, "array_min_properties",
                "Must have at least " + std::to_string(*s.min_properties) + " properties");
        if (s.max_properties && count > *s.max_properties)
            add(result, ctx, "array_max_properties",
                "Must have at most " + std::to_string(*s.max_properties) + " properties");
        for (const auto& name : s.required) {
            if (node.find(name)) result.score++;
            else add(result, ctx, "required", name + " is required");
        }
        for (const auto& e : node.object_entries()) {
            std::string key(e.key.as_string());
            bool described =
                std::any_of(s.properties.begin(), s.properties.end(), [&](const auto& p) { return p.first == key; });
            bool pattern_matched = false;
            for (const auto& [re, schema] : s.pattern_properties) {
                if (RE2::PartialMatch(re2::StringPiece(key.data(), key.size()), *re)) {
                    pattern_matched = true;
                    result.merge(sub_child(*schema, e.value, ctx, key));
                }
            }
            if (pattern_matched) result.score++;
            if (described || pattern_matched) continue;
            if (const bool* b = std::get_if<bool>(&s.additional_properties)) {
                if (!*b)
                    add(result, ctx, "additional_property_not_allowed",
                        "Additional property " + key + " is not allowed");
            } else if (SubSchema* const* extra = std::get_if<SubSchema*>(&s.additional_properties)) {
                result.merge(sub_child(**extra, e.value, ctx, key));
            }
        }
        if (s.property_names) {
            for (const auto& e : node.object_entries()) {
                Result r = sub(*s.property_names, e.key, ctx);
                if (!r.valid()) {
                    add(result, ctx, "invalid_property_name",
                        "Property name of \"" + std::string(e.key.as_string()) + "\" does not match");
                    result.merge(std::move(r));
                }
            }
        }
        result.score++;
    }

    void validate_string(const SubSchema& s, const Value& node, Result& result, Context& ctx) {
        std::string_view str = node.as_string();
        int64_t runes = 0;
        for (unsigned char c : str) runes += (c & 0xC0) != 0x80;
        if (s.min_length && runes < *s.min_length)
            add(result, ctx, "string_gte",
                "String length must be greater than or equal to " + std::to_string(*s.min_length));
        if (s.max_length && runes > *s.max_length)
            add(result, ctx, "string_lte",
                "String length must be less than or equal to " + std::to_string(*s.max_length));
        if (s.pattern && !RE2::PartialMatch(re2::StringPiece(str.data(), str.size()), *s.pattern))
            add(result, ctx, "pattern", "Does not match pattern '" + s.pattern_text + "'");
        result.score++;
    }

    void validate_number(const SubSchema& s, const Value& node, Result& result, Context& ctx) {
        auto value = to_rational(node.as_number());
        if (!value) {
            result.score++;
            return;
        }
        if (s.multiple_of) {
            Rational q = *value / *s.multiple_of;
            if (boost::multiprecision::denominator(q) != 1)
                add(result, ctx, "multiple_of", "Must be a multiple of " + format_g10(*s.multiple_of));
        }
        if (s.maximum && *value > *s.maximum)
            add(result, ctx, "number_lte", "Must be less than or equal to " + format_g10(*s.maximum));
        if (s.exclusive_maximum && *value >= *s.exclusive_maximum)
            add(result, ctx, "number_lt", "Must be less than " + format_g10(*s.exclusive_maximum));
        if (s.minimum && *value < *s.minimum)
            add(result, ctx, "number_gte", "Must be greater than or equal to " + format_g10(*s.minimum));
        if (s.exclusive_minimum && *value <= *s.exclusive_minimum)
            add(result, ctx, "number_gt", "Must be greater than " + format_g10(*s.exclusive_minimum));
        result.score++;
    }

    runtime::WorkBudget& budget_;
    int depth_ = 0;
};

// ---- operands ----------------------------------------------------------------------------

// A schema or document operand: a JSON string, or an object (sets inside become
// arrays, non-string keys their JSON text, as through ast.JSON). Anything else,
// an array included, is the wrong type, as in OPA. An object's text can be far
// larger than the value (values shared many times over): it is written within
// the evaluation's budget, and SchemaStopped thrown when that says stop.
std::optional<Value> json_operand(const Value& v, std::string& error, BuiltinContext& budget) {
    if (v.is_string()) {
        auto parsed = runtime::parse_json(v.as_string());
        if (!parsed) {
            error = "invalid JSON string";
            return std::nullopt;
        }
        return std::move(parsed.value);
    }
    if (v.is_object()) {
        auto text = json_text(v, budget);
        if (!text) throw SchemaStopped{};
        auto round_trip = runtime::parse_json(*text);
        if (!round_trip) {
            error = round_trip.error.message;
            return std::nullopt;
        }
        return std::move(round_trip.value);
    }
    error = "wrong type, expected string or object";
    return std::nullopt;
}

std::optional<CompiledSchema> compile_schema(const Value& schema, std::string& error, runtime::WorkBudget& budget) {
    try {
        Compiler c(schema, budget);
        CompiledSchema out;
        out.root = c.compile();
        out.nodes = c.take_nodes();
        return out;
    } catch (const SchemaError& e) {
        error = e.message;
    } catch (const std::exception& e) {
        error = e.what();
    }
    return std::nullopt;
}

Value result_pair(bool valid, Value detail) { return Value::array({Value::boolean(valid), std::move(detail)}); }

}  // namespace

void register_json_schema(Registry& r) {
    declare(r, "json.verify_schema", 1, [](Args a, BuiltinContext& budget) {
        std::string error;
        try {
            auto schema = json_operand(a[0], error, budget);
            if (schema && compile_schema(*schema, error, budget))
                return BuiltinResult::of(result_pair(true, Value::null()));
        } catch (const SchemaStopped&) {
            return BuiltinResult::cancelled();
        }
        return BuiltinResult::of(result_pair(false, Value::string("jsonschema: " + error)));
    });
    declare(r, "json.match_schema", 2, [](Args a, BuiltinContext& budget) {
        std::string error;
        Result result;
        try {
            auto document = json_operand(a[0], error, budget);
            if (!document) return BuiltinResult::error(error);
            auto schema_value = json_operand(a[1], error, budget);
            if (!schema_value) return BuiltinResult::error(error);
            auto schema = compile_schema(*schema_value, error, budget);
            if (!schema) return BuiltinResult::error(error);
            Context ctx;
            Validator(budget).validate(*schema->root, *document, result, ctx);
        } catch (const SchemaStopped&) {
            return BuiltinResult::cancelled();
        } catch (const std::exception& e) {
            return BuiltinResult::error(e.what());
        }
        runtime::ArrayBuilder errors(result.errors.size());
        for (auto& e : result.errors) {
            errors.push_back(Value::object({
                {Value::string("error"), Value::string(e.field + ": " + e.description)},
                {Value::string("type"), Value::string(e.type)},
                {Value::string("field"), Value::string(e.field)},
                {Value::string("desc"), Value::string(e.description)},
            }));
        }
        return BuiltinResult::of(result_pair(result.valid(), errors.build()));
    });
}

}  // namespace gavel::stdlib
