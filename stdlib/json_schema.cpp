// json.verify_schema and json.match_schema: JSON Schema drafts 4, 6 and 7 as
// OPA validates them (its vendored gojsonschema): the same keywords, the same
// error objects {error, type, field, desc} with gojsonschema's wording, the
// same order of errors, and the same "closest branch" choice for failed
// anyOf/oneOf (a score of how much of each branch matched).
//
// The schema is compiled by the compiler's JSON Schema compiler
// (compiler/types/json_schema.hpp: drafts, `$ref`s, well-formedness and its
// messages); this file validates against the compiled graph. It adds what the
// compiler layer cannot do: Go regular expressions (`pattern`, as OPA's
// builtins check it, and `patternProperties`) and exact decimal arithmetic.
// Properties are visited in sorted order (gojsonschema iterates Go maps, whose
// order is random).

#include <boost/multiprecision/cpp_int.hpp>

#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "compiler/types/json_schema.hpp"
#include "runtime/json.hpp"
#include "runtime/value_json_tree.hpp"
#include "stdlib/builtin_helpers.hpp"
#include "stdlib/go_regex.hpp"
#include "stdlib/object_family.hpp"

namespace gavel::stdlib {

namespace {

using Rational = boost::multiprecision::cpp_rational;
using BigInt = boost::multiprecision::cpp_int;
using compiler::types::SubSchema;

// Thrown when the evaluation's budget says stop (compiling or validating).
struct SchemaStopped {};

// ---- numbers ------------------------------------------------------------------------

// The exact value of a number's decimal text; nullopt beyond a sane exponent.
std::optional<Rational> to_rational(std::string_view s) {
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
    if (format == "regex") return goregex::compile(s).re != nullptr;
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

// ---- the compiled schema, made ready to validate with -------------------------------------

// What the compiler keeps as text, as the validator uses it: exact numbers and
// compiled regular expressions, one entry per subschema (SubSchema::index).
struct Prepared {
    std::optional<Rational> multiple_of, minimum, maximum, exclusive_minimum, exclusive_maximum;
    std::shared_ptr<const RE2> pattern;
    std::vector<std::shared_ptr<const RE2>> pattern_properties;  // as SubSchema::pattern_properties
};

struct ReadySchema {
    std::unique_ptr<compiler::types::CompiledSchema> compiled;
    std::vector<Prepared> prepared;
    const Prepared& of(const SubSchema& s) const { return prepared[s.index]; }
};

std::optional<Rational> exact(const std::optional<std::string>& text) {
    if (!text) return std::nullopt;
    return to_rational(*text);
}

// Compiles `schema` (OPA's builtins check `pattern` too) within the budget.
std::optional<ReadySchema> compile_schema(const Value& schema, std::string& error, runtime::WorkBudget& budget) {
    compiler::types::CompileSchemaOptions options;
    options.regex_compiles = [](const std::string& re) { return goregex::compile(re).re != nullptr; };
    options.check_pattern = true;
    options.should_stop = [&budget](std::size_t units) { return budget.spend(units); };
    options.max_depth = 512;
    auto result = compiler::types::compile_json_schema(runtime::to_json_tree(schema), options);
    if (result.stopped) throw SchemaStopped{};
    if (!result.schema) {
        error = result.reason;
        return std::nullopt;
    }
    ReadySchema ready{std::move(result.schema), {}};
    ready.prepared.resize(ready.compiled->nodes.size());
    for (const auto& node : ready.compiled->nodes) {
        Prepared& p = ready.prepared[node->index];
        p.multiple_of = exact(node->multiple_of);
        p.minimum = exact(node->minimum);
        p.maximum = exact(node->maximum);
        p.exclusive_minimum = exact(node->exclusive_minimum);
        p.exclusive_maximum = exact(node->exclusive_maximum);
        if (node->pattern) p.pattern = goregex::compile(*node->pattern).re;
        for (const auto& [re, sub] : node->pattern_properties) p.pattern_properties.push_back(goregex::compile(re).re);
    }
    return ready;
}

// gojsonschema's marshalWithoutNumber of a document's value (enum, const, uniqueItems compare it).
std::string canonical(const Value& v) { return compiler::types::canonical_json(runtime::to_json_tree(v)); }

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
    Validator(const ReadySchema& schema, runtime::WorkBudget& budget) : schema_(schema), budget_(budget) {}

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
        auto has_type = [&](std::string_view t) {
            return std::find(s.types.begin(), s.types.end(), t) != s.types.end();
        };
        bool typed = !s.types.empty();
        auto type_error = [&](std::string_view given) {
            std::string expected = s.types.size() == 1 ? s.types[0] : "[";
            if (s.types.size() != 1) {
                for (std::size_t i = 0; i < s.types.size(); ++i) expected += (i ? "," : "") + s.types[i];
                expected += "]";
            }
            add(result, ctx, "invalid_type", "Invalid type. Expected: " + expected + ", given: " + std::string(given));
        };
        if (node.is_null()) {
            if (typed && !has_type("null")) return type_error("null");
            validate_schema(s, node, result, ctx);
            validate_common(s, node, result, ctx);
        } else if (node.is_number()) {
            bool is_int = node.as_number().is_integer();
            bool ok = has_type("number") || (is_int && has_type("integer"));
            if (typed && !ok) return type_error(is_int ? "integer" : "number");
            validate_schema(s, node, result, ctx);
            validate_number(s, node, result, ctx);
            validate_common(s, node, result, ctx);
        } else if (node.is_array()) {
            if (typed && !has_type("array")) return type_error("array");
            validate_schema(s, node, result, ctx);
            validate_array(s, node, result, ctx);
            validate_common(s, node, result, ctx);
        } else if (node.is_object()) {
            if (typed && !has_type("object")) return type_error("object");
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
            if (typed && !has_type("boolean")) return type_error("boolean");
            validate_schema(s, node, result, ctx);
            validate_common(s, node, result, ctx);
        } else if (node.is_string()) {
            if (typed && !has_type("string")) return type_error("string");
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
                for (const auto& dep : s.dependencies) {
                    if (dep.key != key) continue;
                    if (dep.schema) {
                        validate(*dep.schema, node, result, ctx);
                    } else {
                        for (const auto& n : dep.required)
                            if (!node.find(n)) add(result, ctx, "missing_dependency", "Has a dependency on " + n);
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
                if (s.additional_items.boolean) {
                    if (!*s.additional_items.boolean)
                        add(result, ctx, "array_no_additional_items", "No additional items allowed on array");
                } else if (const SubSchema* extra = s.additional_items.schema) {
                    for (std::size_t i = s.items.size(); i < elems.size(); ++i)
                        result.merge(sub_child(*extra, elems[i], ctx, std::to_string(i)));
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
            const auto& regexes = schema_.of(s).pattern_properties;
            for (std::size_t i = 0; i < s.pattern_properties.size(); ++i) {
                if (regexes[i] && RE2::PartialMatch(re2::StringPiece(key.data(), key.size()), *regexes[i])) {
                    pattern_matched = true;
                    result.merge(sub_child(*s.pattern_properties[i].second, e.value, ctx, key));
                }
            }
            if (pattern_matched) result.score++;
            if (described || pattern_matched) continue;
            if (s.additional_properties.boolean) {
                if (!*s.additional_properties.boolean)
                    add(result, ctx, "additional_property_not_allowed",
                        "Additional property " + key + " is not allowed");
            } else if (const SubSchema* extra = s.additional_properties.schema) {
                result.merge(sub_child(*extra, e.value, ctx, key));
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
        const auto& pattern = schema_.of(s).pattern;
        if (pattern && !RE2::PartialMatch(re2::StringPiece(str.data(), str.size()), *pattern))
            add(result, ctx, "pattern", "Does not match pattern '" + *s.pattern + "'");
        result.score++;
    }

    void validate_number(const SubSchema& s, const Value& node, Result& result, Context& ctx) {
        auto value = to_rational(node.as_number().to_string());
        if (!value) {
            result.score++;
            return;
        }
        const Prepared& p = schema_.of(s);
        if (p.multiple_of) {
            Rational q = *value / *p.multiple_of;
            if (boost::multiprecision::denominator(q) != 1)
                add(result, ctx, "multiple_of", "Must be a multiple of " + format_g10(*p.multiple_of));
        }
        if (p.maximum && *value > *p.maximum)
            add(result, ctx, "number_lte", "Must be less than or equal to " + format_g10(*p.maximum));
        if (p.exclusive_maximum && *value >= *p.exclusive_maximum)
            add(result, ctx, "number_lt", "Must be less than " + format_g10(*p.exclusive_maximum));
        if (p.minimum && *value < *p.minimum)
            add(result, ctx, "number_gte", "Must be greater than or equal to " + format_g10(*p.minimum));
        if (p.exclusive_minimum && *value <= *p.exclusive_minimum)
            add(result, ctx, "number_gt", "Must be greater than " + format_g10(*p.exclusive_minimum));
        result.score++;
    }

    const ReadySchema& schema_;
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
            Validator(*schema, budget).validate(*schema->compiled->root, *document, result, ctx);
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
