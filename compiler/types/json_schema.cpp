#include "compiler/types/json_schema.hpp"

#include "lang/go_quote.hpp"
#include "support/go_float.hpp"
#include "support/hex_digit.hpp"
#include "support/json_string.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace gavel::compiler::types {

using lang::JsonTree;
using Kind = JsonTree::Kind;

namespace {

// gojsonschema's names in messages.
constexpr const char* kValidSchema = "Valid Schema";
constexpr const char* kArrayOfSchemas = "Array Of Schemas";
constexpr const char* kArrayOfStrings = "Array Of Strings";

const std::vector<std::string> kJsonTypes = {"array", "boolean", "integer", "number", "null", "object", "string"};

std::string invalid_type(const std::string& expected, const std::string& given) {
    return "Invalid type. Expected: " + expected + ", given: " + given;
}

// The drafts gojsonschema knows; without a `$schema` naming one it is "hybrid",
// which accepts what any of them does.
enum class Draft { D4 = 4, D6 = 6, D7 = 7, Hybrid = 1000 };

// ---- references (URIs as Go's net/url and gojsonreference treat them) ----------------

struct Uri {
    std::string scheme, authority, path, query, fragment;
    bool has_authority = false, has_query = false;

    static Uri parse(const std::string& s) {
        Uri u;
        std::string rest = s;
        if (auto hash = rest.find('#'); hash != std::string::npos) {
            u.fragment = rest.substr(hash + 1);
            rest.resize(hash);
        }
        for (std::size_t i = 0; i < rest.size(); ++i) {
            char c = rest[i];
            bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
            bool later = (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
            if (letter || (i > 0 && later)) continue;
            if (c == ':' && i > 0) {
                u.scheme = rest.substr(0, i);
                rest = rest.substr(i + 1);
            }
            break;
        }
        if (auto q = rest.find('?'); q != std::string::npos) {
            u.has_query = true;
            u.query = rest.substr(q + 1);
            rest.resize(q);
        }
        if (rest.rfind("//", 0) == 0) {
            u.has_authority = true;
            std::size_t end = rest.find('/', 2);
            u.authority = rest.substr(2, end == std::string::npos ? std::string::npos : end - 2);
            rest = end == std::string::npos ? "" : rest.substr(end);
        }
        u.path = rest;
        return u;
    }

    std::string text(bool with_fragment = true) const {
        std::string out;
        if (!scheme.empty()) out += scheme + ":";
        if (has_authority) out += "//" + authority;
        out += path;
        if (has_query) out += "?" + query;
        if (with_fragment && !fragment.empty()) out += "#" + fragment;
        return out;
    }

    // gojsonreference's IsCanonical: what could be fetched.
    bool canonical() const { return (!scheme.empty() && !authority.empty()) || scheme == "file"; }
};

// RFC 3986's remove_dot_segments, as Go's resolvePath does it (always rooted).
std::string resolve_path(const std::string& base, const std::string& ref) {
    std::string full = ref.empty() ? base : ref[0] != '/' ? base.substr(0, base.rfind('/') + 1) + ref : ref;
    if (full.empty()) return "";
    std::vector<std::string> out;
    std::size_t start = full[0] == '/' ? 1 : 0;
    bool trailing = false;
    while (start <= full.size()) {
        std::size_t end = full.find('/', start);
        std::string seg = full.substr(start, end == std::string::npos ? std::string::npos : end - start);
        trailing = false;
        if (seg == ".") {
            trailing = true;
        } else if (seg == "..") {
            if (!out.empty()) out.pop_back();
            trailing = true;
        } else {
            out.push_back(seg);
        }
        if (end == std::string::npos) break;
        start = end + 1;
    }
    std::string result = "/";
    for (std::size_t i = 0; i < out.size(); ++i) result += (i ? "/" : "") + out[i];
    if (trailing && result.back() != '/') result += "/";
    return result;
}

// gojsonreference's Inherits: `ref` resolved against `base` (whose fragment is dropped).
std::string inherit(const std::string& base_text, const std::string& ref_text) {
    Uri base = Uri::parse(base_text), ref = Uri::parse(ref_text), out;
    base.fragment.clear();
    if (!ref.scheme.empty()) {
        out = ref;
        out.path = ref.path.empty() || ref.path[0] != '/' ? ref.path : resolve_path("", ref.path);
    } else if (ref.has_authority) {
        out = ref;
        out.scheme = base.scheme;
        out.path = resolve_path("", ref.path);
    } else {
        out = base;
        if (ref.path.empty() && !ref.has_query) {
            out.fragment = ref.fragment;
        } else {
            out.path = resolve_path(base.path, ref.path);
            out.has_query = ref.has_query;
            out.query = ref.query;
            out.fragment = ref.fragment;
        }
    }
    return out.text();
}

std::string percent_decode(const std::string& s) {
    auto hex = support::hex_digit_value;
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            int h = hex(s[i + 1]), l = hex(s[i + 2]);
            if (h >= 0 && l >= 0) {
                out += static_cast<char>(h * 16 + l);
                i += 2;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

// An invalid %-escape in `s`, in Go's url.unescape words; "" when there is none.
std::string bad_escape(const std::string& s) {
    auto hex = support::hex_digit_value;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') continue;
        if (i + 2 >= s.size() || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0)
            return "invalid URL escape " + lang::go_quote(s.substr(i, 3));
        i += 2;
    }
    return "";
}

// Go's url.Parse error for what gojsonreference parses, "" when it parses.
// gojsonreference ignores a fragment that is no JSON pointer ("#foo" names the
// document itself), so only the URL syntax can fail. An error before the `#`
// quotes the URL without its fragment, as url.Parse does.
std::string url_syntax_error(const std::string& url) {
    std::string before_fragment = url.substr(0, url.find('#'));
    std::string fragment = url.size() > before_fragment.size() ? url.substr(before_fragment.size() + 1) : "";
    auto error = [&](const std::string& why) { return "parse " + lang::go_quote(before_fragment) + ": " + why; };
    for (unsigned char c : before_fragment)
        if (c < 0x20 || c == 0x7f) return error("net/url: invalid control character in URL");
    if (!before_fragment.empty() && before_fragment[0] == ':') return error("missing protocol scheme");
    Uri u = Uri::parse(before_fragment);
    if (u.scheme.empty() && !u.path.empty() && u.path[0] != '/' && !u.has_authority) {
        std::string first = u.path.substr(0, u.path.find('/'));
        if (first.find(':') != std::string::npos) return error("first path segment in URL cannot contain colon");
    }
    bool opaque = !u.scheme.empty() && !u.has_authority && (u.path.empty() || u.path[0] != '/');  // mailto:x
    if (u.has_authority) {
        std::size_t at = u.authority.rfind('@');
        std::string host = u.authority.substr(at == std::string::npos ? 0 : at + 1);
        std::string port;
        if (!host.empty() && host[0] == '[') {
            std::size_t close = host.find(']');
            if (close == std::string::npos) return error("missing ']' in host");
            port = host.substr(close + 1);
            if (!port.empty() && port[0] != ':') return error("invalid port " + lang::go_quote(port) + " after host");
        } else if (std::size_t colon = host.rfind(':'); colon != std::string::npos) {
            port = host.substr(colon);
        }
        if (port.size() > 1 && port.find_first_not_of("0123456789", 1) != std::string::npos)
            return error("invalid port " + lang::go_quote(port) + " after host");
    }
    if (!opaque)
        if (std::string e = bad_escape(u.path); !e.empty()) return error(e);
    if (std::string e = bad_escape(fragment); !e.empty()) return "parse " + lang::go_quote(url) + ": " + e;
    return "";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

// gojsonpointer's Get.
const JsonTree* pointer_get(const JsonTree& doc, const std::string& pointer, std::string& error) {
    const JsonTree* node = &doc;
    if (pointer.empty()) return node;
    std::size_t start = 1;
    while (true) {
        std::size_t end = pointer.find('/', start);
        std::string token = pointer.substr(start, end == std::string::npos ? std::string::npos : end - start);
        std::string decoded = replace_all(replace_all(token, "~1", "/"), "~0", "~");
        if (node->kind == Kind::Object) {
            const JsonTree* child = node->find(decoded);
            if (!child) {
                error = "Object has no key '" + token + "'";
                return nullptr;
            }
            node = child;
        } else if (node->kind == Kind::Array) {
            char* rest = nullptr;
            errno = 0;
            long long index = std::strtoll(token.c_str(), &rest, 10);
            if (token.empty() || *rest != '\0' || errno != 0) {
                error = "Invalid array index '" + token + "'";
                return nullptr;
            }
            if (index < 0 || static_cast<std::size_t>(index) >= node->items.size()) {
                error = "Out of bound array[0," + std::to_string(node->items.size()) + "] index '" +
                        std::to_string(index) + "'";
                return nullptr;
            }
            node = &node->items[static_cast<std::size_t>(index)];
        } else {
            error = "Invalid token reference '" + token + "'";
            return nullptr;
        }
        if (end == std::string::npos) return node;
        start = end + 1;
    }
}

// ---- numbers as gojsonschema reads them ------------------------------------------------

bool is_number(const JsonTree* v) { return v && v->kind == Kind::Number; }

// mustBeInteger: an integer literal (no fraction, no exponent) that fits an int64.
std::optional<long long> integer_of(const JsonTree* v) {
    if (!is_number(v) || v->text.find_first_of(".eE") != std::string::npos) return std::nullopt;
    errno = 0;
    char* rest = nullptr;
    long long n = std::strtoll(v->text.c_str(), &rest, 10);
    if (errno != 0 || *rest != '\0') return std::nullopt;
    return n;
}

// The sign of a number's exact value (as big.Rat reads it): -1, 0 or 1.
int decimal_sign(const std::string& text) {
    std::size_t mantissa_end = text.find_first_of("eE");
    bool nonzero = text.find_first_of("123456789") < mantissa_end;
    if (!nonzero) return 0;
    return !text.empty() && text[0] == '-' ? -1 : 1;
}

void append_canonical(std::string& out, const JsonTree& v) {
    switch (v.kind) {
        case Kind::Null: out += "null"; return;
        case Kind::Boolean: out += v.boolean ? "true" : "false"; return;
        case Kind::Number: out += support::go_json_float(std::strtod(v.text.c_str(), nullptr)); return;
        case Kind::String: support::append_json_string(out, v.text, {.escape_html = true}); return;
        case Kind::Array: {
            out += '[';
            for (std::size_t i = 0; i < v.items.size(); ++i) {
                if (i) out += ',';
                append_canonical(out, v.items[i]);
            }
            out += ']';
            return;
        }
        case Kind::Object: {
            std::vector<const std::pair<std::string, JsonTree>*> sorted;
            for (const auto& m : v.members) sorted.push_back(&m);
            std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->first < b->first; });
            out += '{';
            for (std::size_t i = 0; i < sorted.size(); ++i) {
                if (i) out += ',';
                support::append_json_string(out, sorted[i]->first, {.escape_html = true});
                out += ':';
                append_canonical(out, sorted[i]->second);
            }
            out += '}';
            return;
        }
    }
}

// ---- the compiler ----------------------------------------------------------------------

class SchemaCompiler {
public:
    SchemaCompiler(const JsonTree& doc, const CompileSchemaOptions& options)
        : doc_(doc), options_(options), out_(std::make_unique<CompiledSchema>()) {}

    CompileSchemaResult run() {
        CompileSchemaResult result;
        if (!compile()) {
            result.reason = error_;
            result.error = "unable to compile the schema: " + error_;
            result.stopped = stopped_;
            return result;
        }
        result.schema = std::move(out_);
        return result;
    }

private:
    const JsonTree& doc_;
    const CompileSchemaOptions& options_;
    std::unique_ptr<CompiledSchema> out_;
    Draft draft_ = Draft::Hybrid;
    std::map<std::string, const JsonTree*> pool_;            // documents by URI: the root (""), `$id`s
    std::unordered_map<const JsonTree*, std::string> refs_;  // each `$ref`, resolved in its `$id` scope
    std::map<std::string, SubSchema*> ref_pool_;             // a resolved `$ref`'s subschema, parsed once
    std::size_t depth_ = 0;
    std::string error_;
    bool stopped_ = false;

    bool compile() {
        if (doc_.kind != Kind::Object && doc_.kind != Kind::Boolean) return fail("schema is invalid");
        if (doc_.kind == Kind::Object)
            if (const JsonTree* s = doc_.find("$schema")) {
                if (s->kind != Kind::String) return fail("$schema must be of type string");
                std::string url = s->text;
                if (!url.empty() && url.back() == '#') url.pop_back();
                if (url == "http://json-schema.org/draft-04/schema") draft_ = Draft::D4;
                if (url == "http://json-schema.org/draft-06/schema") draft_ = Draft::D6;
                if (url == "http://json-schema.org/draft-07/schema") draft_ = Draft::D7;
            }
        if (!register_ids(doc_, "", 0)) return false;
        pool_[""] = &doc_;
        SubSchema* root = make();
        if (!root || !parse_into(doc_, *root)) return false;
        out_->root = root;
        return true;
    }

    bool spend(std::size_t units = 1) {
        if (options_.should_stop && options_.should_stop(units)) {
            stopped_ = true;
            return fail("stopped");
        }
        return true;
    }

    SubSchema* make() {
        if (out_->nodes.size() >= options_.max_nodes) {
            fail("schema too large: more than " + std::to_string(options_.max_nodes) + " subschemas");
            return nullptr;
        }
        if (!spend()) return nullptr;
        out_->nodes.push_back(std::make_unique<SubSchema>());
        out_->nodes.back()->index = out_->nodes.size() - 1;
        return out_->nodes.back().get();
    }

    bool fail(std::string message) {
        if (error_.empty()) error_ = std::move(message);
        return false;
    }

    std::string too_deep() const {
        return "schema nests deeper than " + std::to_string(options_.max_depth) + " levels";
    }

    // gojsonschema's parseReferencesRecursive: `$id`s name documents, and each
    // `$ref` is resolved against the `$id` that encloses it.
    bool register_ids(const JsonTree& node, const std::string& scope, std::size_t depth) {
        if (depth > 4 * options_.max_depth) return fail(too_deep());
        if (!spend()) return false;
        if (node.kind == Kind::Array) {
            for (const auto& item : node.items)
                if (!register_ids(item, scope, depth + 1)) return false;
            return true;
        }
        if (node.kind != Kind::Object) return true;
        std::string local = scope;
        const JsonTree* id = node.find("id") ? node.find("id") : node.find("$id");
        if (id && id->kind == Kind::String && url_syntax_error(id->text).empty()) {
            local = inherit(scope, id->text);
            if (pool_.count(local)) return fail("Reference already exists: \"" + local + "\"");
            pool_[local] = &node;
        }
        if (const JsonTree* ref = node.find("$ref");
            ref && ref->kind == Kind::String && url_syntax_error(ref->text).empty())
            refs_[&node] = inherit(local, ref->text);
        for (const auto& [key, value] : node.members) {
            if (key == "const" || key == "enum") continue;  // values, not schemas
            if ((key == "properties" || key == "dependencies" || key == "patternProperties") &&
                value.kind == Kind::Object) {
                for (const auto& [name, child] : value.members)
                    if (!register_ids(child, local, depth + 1)) return false;
            } else if (!register_ids(value, local, depth + 1)) {
                return false;
            }
        }
        return true;
    }

    // gojsonschema's GetDocument: a `$ref`'s target within the document.
    const JsonTree* document(const std::string& ref) {
        if (auto it = pool_.find(ref); it != pool_.end()) return it->second;
        Uri uri = Uri::parse(ref);
        if (auto it = pool_.find(uri.text(false)); it != pool_.end()) {
            // A fragment that is no JSON pointer points at the document itself (gojsonreference).
            std::string pointer = percent_decode(uri.fragment);
            if (!pointer.empty() && pointer[0] != '/') pointer.clear();
            std::string error;
            const JsonTree* target = pointer_get(*it->second, pointer, error);
            if (!target) {
                fail(error);
                return nullptr;
            }
            pool_[ref] = target;
            return target;
        }
        if (!uri.canonical()) {
            fail("Reference " + ref + " must be canonical");
            return nullptr;
        }
        fail("remote reference loading disabled: " + ref);
        return nullptr;
    }

    // A child subschema, parsed; null on error.
    const SubSchema* child(const JsonTree& node) {
        SubSchema* out = make();
        return out && parse_into(node, *out) ? out : nullptr;
    }

    // One schema where a schema or `true`/`false` may be (gojsonschema's parseSchema).
    bool parse_into(const JsonTree& node, SubSchema& s) {
        if (depth_ >= options_.max_depth) return fail(too_deep());
        ++depth_;
        bool ok = parse_keywords(node, s);
        --depth_;
        return ok;
    }

    bool regex_ok(const std::string& pattern) const {
        return !options_.regex_compiles || options_.regex_compiles(pattern);
    }

    bool parse_keywords(const JsonTree& node, SubSchema& s) {
        if (draft_ >= Draft::D6 && node.kind == Kind::Boolean) {  // true / false: no keywords
            s.pass = node.boolean;
            return true;
        }
        if (node.kind != Kind::Object) return fail(std::string("Expected: ") + kValidSchema + ", given: Invalid JSON");
        auto get = [&](const char* key) { return node.find(key); };
        auto string_or_absent = [&](const char* key) {
            const JsonTree* v = get(key);
            return !v || v->kind == Kind::String || fail(invalid_type("string", key));
        };
        auto is_schema = [](const JsonTree& v) { return v.kind == Kind::Boolean || v.kind == Kind::Object; };

        const char* id_key = draft_ == Draft::D4 ? "id" : draft_ == Draft::Hybrid && get("id") ? "id" : "$id";
        if (!string_or_absent(id_key)) return false;
        if (const JsonTree* id = get(id_key))
            if (std::string e = url_syntax_error(id->text); !e.empty()) return fail(e);

        if (const JsonTree* defs = get("definitions")) {
            if (defs->kind != Kind::Object) return fail(invalid_type(kArrayOfSchemas, "definitions"));
            for (const auto& [name, d] : defs->members) {
                if (!is_schema(d)) return fail(invalid_type(kArrayOfSchemas, "definitions"));
                if (!child(d)) return false;  // checked; reached through `$ref`s
            }
        }
        if (!string_or_absent("title") || !string_or_absent("description")) return false;

        if (const JsonTree* ref = get("$ref")) {
            if (ref->kind != Kind::String) return fail(invalid_type("string", "$ref"));
            if (std::string e = url_syntax_error(ref->text); !e.empty()) return fail(e);
            auto resolved = refs_.find(&node);
            std::string target = resolved != refs_.end() ? resolved->second : ref->text;
            // The reference's subschema is parsed once, and is registered before it is
            // parsed: a reference back into it (a recursive schema) finds it.
            if (auto it = ref_pool_.find(target); it != ref_pool_.end()) {
                s.ref = it->second;
                return true;
            }
            SubSchema* named = make();
            if (!named) return false;
            ref_pool_[target] = named;
            const JsonTree* doc = document(target);
            if (!doc) return false;
            if (!is_schema(*doc)) return fail(std::string(kValidSchema) + " must be of type object");
            if (!parse_into(*doc, *named)) return false;
            s.ref = named;
            return true;  // as gojsonschema: the siblings of a $ref are not read
        }

        if (const JsonTree* type = get("type")) {
            const std::string bad = invalid_type("type", std::string("string/") + kArrayOfStrings);
            auto add = [&](const std::string& t) {
                if (std::find(kJsonTypes.begin(), kJsonTypes.end(), t) == kJsonTypes.end())
                    return fail("has a primitive type that is NOT VALID -- given: /" + t +
                                "/ Expected valid values are:[array boolean integer number null object string]");
                if (std::find(s.types.begin(), s.types.end(), t) != s.types.end())
                    return fail(t + " type is duplicated");
                s.types.push_back(t);
                return true;
            };
            if (type->kind == Kind::String) {
                if (!add(type->text)) return false;
            } else if (type->kind == Kind::Array) {
                for (const auto& t : type->items) {
                    if (t.kind != Kind::String) return fail(bad);
                    if (!add(t.text)) return false;
                }
            } else {
                return fail(bad);
            }
        }

        if (const JsonTree* props = get("properties")) {
            if (props->kind != Kind::Object) return fail("Properties must be of type object");
            for (const auto& [name, p] : props->members) {
                const SubSchema* c = child(p);
                if (!c) return false;
                s.properties.emplace_back(name, c);
            }
        }
        if (const JsonTree* ap = get("additionalProperties");
            ap && !additional(*ap, "additionalProperties", s.additional_properties))
            return false;
        if (const JsonTree* pp = get("patternProperties")) {
            if (pp->kind != Kind::Object) return fail(invalid_type(kValidSchema, "patternProperties"));
            for (const auto& [pattern, p] : pp->members) {
                if (!regex_ok(pattern)) return fail("Invalid regex pattern '" + pattern + "'");
                const SubSchema* c = child(p);
                if (!c) return false;
                s.pattern_properties.emplace_back(pattern, c);
            }
        }
        if (const JsonTree* pn = get("propertyNames"); pn && draft_ >= Draft::D6) {
            if (!is_schema(*pn))
                return fail(invalid_type(kValidSchema, "patternProperties"));  // sic: gojsonschema names this key
            if (!(s.property_names = child(*pn))) return false;
        }
        if (const JsonTree* deps = get("dependencies")) {
            if (deps->kind != Kind::Object) return fail("dependencies must be of type object");
            for (const auto& [name, d] : deps->members) {
                Dependency dep{name, {}, nullptr};
                if (d.kind == Kind::Array) {
                    for (const auto& v : d.items) {
                        if (v.kind != Kind::String)
                            return fail("Dependency must be of type Schema Or Array Of Strings");
                        dep.required.push_back(v.text);
                    }
                    // gojsonschema records a list only when it has a name in it.
                    if (dep.required.empty()) continue;
                } else if (is_schema(d)) {
                    if (!(dep.schema = child(d))) return false;
                } else {
                    return fail("Dependency must be of type Schema Or Array Of Strings");
                }
                s.dependencies.push_back(std::move(dep));
            }
        }
        if (const JsonTree* items = get("items")) {
            const std::string bad = invalid_type(std::string(kValidSchema) + "/" + kArrayOfSchemas, "items");
            if (items->kind == Kind::Array) {
                for (const auto& item : items->items) {
                    if (!is_schema(item)) return fail(bad);
                    const SubSchema* c = child(item);
                    if (!c) return false;
                    s.items.push_back(c);
                }
                s.items_single = false;
            } else if (is_schema(*items)) {
                const SubSchema* c = child(*items);
                if (!c) return false;
                s.items.push_back(c);
                s.items_single = true;
            } else {
                return fail(bad);
            }
        }
        if (const JsonTree* ai = get("additionalItems"); ai && !additional(*ai, "additionalItems", s.additional_items))
            return false;

        if (const JsonTree* m = get("multipleOf")) {
            if (!is_number(m)) return fail(invalid_type("Number", "multipleOf"));
            if (decimal_sign(m->text) <= 0) return fail("multipleOf must be strictly greater than 0");
            s.multiple_of = m->text;
        }
        if (!bounds("minimum", "exclusiveMinimum", node, s.minimum, s.exclusive_minimum) ||
            !bounds("maximum", "exclusiveMaximum", node, s.maximum, s.exclusive_maximum))
            return false;

        if (!count("minLength", node, s.min_length) || !count("maxLength", node, s.max_length)) return false;
        if (s.min_length && s.max_length && *s.min_length > *s.max_length)
            return fail("minLength cannot be greater than maxLength");
        if (!string_or_absent("pattern")) return false;
        if (const JsonTree* p = get("pattern")) {
            if (options_.check_pattern && !regex_ok(p->text)) return fail("pattern must be a valid regex");
            s.pattern = p->text;
        }
        if (!string_or_absent("format")) return false;
        if (const JsonTree* f = get("format")) s.format = f->text;
        if (!count("minProperties", node, s.min_properties) || !count("maxProperties", node, s.max_properties))
            return false;
        if (s.min_properties && s.max_properties && *s.min_properties > *s.max_properties)
            return fail("minProperties cannot be greater than maxProperties");

        if (const JsonTree* req = get("required")) {
            if (req->kind != Kind::Array) return fail("required must be of an array");
            std::set<std::string> seen;
            for (const auto& r : req->items) {
                if (r.kind != Kind::String) return fail(invalid_type("string", "required"));
                if (!spend()) return false;
                if (!seen.insert(r.text).second) return fail("required items must be unique");
                s.required.push_back(r.text);
            }
        }

        if (!count("minItems", node, s.min_items) || !count("maxItems", node, s.max_items)) return false;
        if (const JsonTree* u = get("uniqueItems")) {
            if (u->kind != Kind::Boolean) return fail("uniqueItems must be of a boolean");
            s.unique_items = u->boolean;
        }
        if (const JsonTree* c = get("contains"); c && draft_ >= Draft::D6)
            if (!(s.contains = child(*c))) return false;
        if (const JsonTree* c = get("const"); c && draft_ >= Draft::D6) s.const_json = canonical_json(*c);
        if (const JsonTree* e = get("enum")) {
            if (e->kind != Kind::Array) return fail("enum must be of an array");
            s.enum_present = true;
            std::set<std::string> seen;
            for (const auto& v : e->items) {
                std::string text = canonical_json(v);
                if (!spend(1 + text.size() / 16)) return false;
                if (!seen.insert(text).second) return fail("enum items must be unique");
                s.enum_json.push_back(std::move(text));
            }
        }

        for (auto [key, list] :
             {std::pair{"oneOf", &s.one_of}, std::pair{"anyOf", &s.any_of}, std::pair{"allOf", &s.all_of}}) {
            const JsonTree* v = get(key);
            if (!v) continue;
            if (v->kind != Kind::Array) return fail(std::string(key) + " must be of an array");
            for (const auto& item : v->items) {
                const SubSchema* c = child(item);
                if (!c) return false;
                list->push_back(c);
            }
        }
        if (const JsonTree* n = get("not")) {
            if (!is_schema(*n)) return fail("not must be of an object");
            if (!(s.not_schema = child(*n))) return false;
        }
        if (draft_ >= Draft::D7)
            for (auto [key, out] :
                 {std::pair{"if", &s.if_schema}, std::pair{"then", &s.then_schema}, std::pair{"else", &s.else_schema}})
                if (const JsonTree* c = get(key)) {
                    if (!is_schema(*c)) return fail(std::string(key) + " must be of an object");
                    if (!(*out = child(*c))) return false;
                }
        return true;
    }

    // additionalProperties / additionalItems: a boolean or a schema.
    bool additional(const JsonTree& v, const char* key, SchemaOrBool& out) {
        if (v.kind == Kind::Boolean) {
            out.boolean = v.boolean;
            return true;
        }
        if (v.kind != Kind::Object) return fail(invalid_type(std::string("boolean/") + kValidSchema, key));
        return (out.schema = child(v)) != nullptr;
    }

    // minimum/maximum and their exclusive forms, as each draft spells them.
    bool bounds(const char* key, const char* exclusive_key, const JsonTree& node, std::optional<std::string>& inclusive,
                std::optional<std::string>& exclusive) {
        const JsonTree* bound = node.find(key);
        if (bound && !is_number(bound)) return fail(std::string(key) + " must be of a Number");
        if (bound) inclusive = bound->text;
        const JsonTree* ex = node.find(exclusive_key);
        if (!ex) return true;
        bool is_bool = ex->kind == Kind::Boolean;
        if (draft_ == Draft::D4 && !is_bool) return fail(invalid_type("boolean", exclusive_key));
        if (draft_ == Draft::D4 || (draft_ == Draft::Hybrid && is_bool)) {
            if (!bound) return fail(std::string(exclusive_key) + " cannot be used without " + key);
            if (ex->boolean) exclusive = std::exchange(inclusive, std::nullopt);
            return true;
        }
        if (!is_number(ex))
            return fail(invalid_type(draft_ == Draft::Hybrid ? "boolean/number" : "number", exclusive_key));
        exclusive = ex->text;
        return true;
    }

    // A non-negative integer keyword (minLength, maxItems ...).
    bool count(const char* key, const JsonTree& node, std::optional<std::int64_t>& out) {
        const JsonTree* v = node.find(key);
        out.reset();
        if (!v) return true;
        auto n = integer_of(v);
        if (!n) return fail(std::string(key) + " must be of an integer");
        if (*n < 0) return fail(std::string(key) + " must be greater than or equal to 0");
        out = *n;
        return true;
    }
};

}  // namespace

CompileSchemaResult compile_json_schema(const JsonTree& document, const CompileSchemaOptions& options) {
    return SchemaCompiler(document, options).run();
}

std::string canonical_json(const JsonTree& value) {
    std::string out;
    append_canonical(out, value);
    return out;
}

}  // namespace gavel::compiler::types
