#include "compiler/types/json_schema.hpp"

#include "support/hex_digit.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

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

// A reference as gojsonreference accepts it: its fragment is a JSON pointer.
std::string check_reference(const std::string& ref) {
    std::string fragment = Uri::parse(ref).fragment;
    if (!fragment.empty() && fragment[0] != '/') return "JSON pointer must be empty or start with a \"/\"";
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
                error = "Out of bound array[0," + std::to_string(index) + "] index '" +
                        std::to_string(node->items.size()) + "'";
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

// mustBeInteger: an integer literal that fits an int64.
std::optional<long long> integer_of(const JsonTree* v) {
    if (!is_number(v) || v->text.find_first_of(".eE") != std::string::npos) return std::nullopt;
    errno = 0;
    char* rest = nullptr;
    long long n = std::strtoll(v->text.c_str(), &rest, 10);
    if (errno != 0 || *rest != '\0') return std::nullopt;
    return n;
}

double number_of(const JsonTree* v) { return std::strtod(v->text.c_str(), nullptr); }

// A value as text that is equal for equal JSON values (gojsonschema's
// marshalWithoutNumber, which `enum` uniqueness compares).
std::string canonical(const JsonTree& v) {
    switch (v.kind) {
        case Kind::Null: return "null";
        case Kind::Boolean: return v.boolean ? "true" : "false";
        case Kind::Number: {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.17g", std::strtod(v.text.c_str(), nullptr));
            return buf;
        }
        case Kind::String: return "\"" + v.text + "\"";
        case Kind::Array: {
            std::string out = "[";
            for (const auto& i : v.items) out += canonical(i) + ",";
            return out + "]";
        }
        case Kind::Object: {
            std::map<std::string, std::string> sorted;
            for (const auto& [k, m] : v.members) sorted[k] = canonical(m);
            std::string out = "{";
            for (const auto& [k, m] : sorted) out += "\"" + k + "\":" + m + ",";
            return out + "}";
        }
    }
    return "";
}

// ---- the compiler ----------------------------------------------------------------------

class SchemaCompiler {
public:
    explicit SchemaCompiler(const JsonTree& doc) : doc_(doc), out_(std::make_unique<CompiledSchema>()) {}

    CompileSchemaResult run() {
        CompileSchemaResult result;
        if (doc_.kind != Kind::Object && doc_.kind != Kind::Boolean) {
            result.error = "unable to compile the schema: schema is invalid";
            return result;
        }
        draft_ = Draft::Hybrid;
        if (doc_.kind == Kind::Object)
            if (const JsonTree* s = doc_.find("$schema")) {
                if (s->kind != Kind::String) {
                    result.error = "unable to compile the schema: $schema must be of type string";
                    return result;
                }
                std::string url = s->text;
                if (!url.empty() && url.back() == '#') url.pop_back();
                if (url == "http://json-schema.org/draft-04/schema") draft_ = Draft::D4;
                if (url == "http://json-schema.org/draft-06/schema") draft_ = Draft::D6;
                if (url == "http://json-schema.org/draft-07/schema") draft_ = Draft::D7;
            }
        if (!register_ids(doc_, "", 0)) {
            result.error = "unable to compile the schema: " + error_;
            return result;
        }
        pool_[""] = &doc_;
        SubSchema* root = make();
        if (!parse_into(doc_, *root)) {
            result.error = "unable to compile the schema: " + error_;
            return result;
        }
        out_->root = root;
        result.schema = std::move(out_);
        return result;
    }

private:
    const JsonTree& doc_;
    std::unique_ptr<CompiledSchema> out_;
    Draft draft_ = Draft::Hybrid;
    std::map<std::string, const JsonTree*> pool_;            // documents by URI: the root (""), `$id`s
    std::unordered_map<const JsonTree*, std::string> refs_;  // each `$ref`, resolved in its `$id` scope
    std::map<std::string, SubSchema*> ref_pool_;             // a resolved `$ref`'s subschema, parsed once
    std::size_t depth_ = 0;
    std::string error_;

    SubSchema* make() {
        out_->nodes.push_back(std::make_unique<SubSchema>());
        return out_->nodes.back().get();
    }

    bool fail(std::string message) {
        error_ = std::move(message);
        return false;
    }

    // gojsonschema's parseReferencesRecursive: `$id`s name documents, and each
    // `$ref` is resolved against the `$id` that encloses it.
    bool register_ids(const JsonTree& node, const std::string& scope, std::size_t depth) {
        if (depth > 4 * kMaxSchemaDepth)
            return fail("schema nests deeper than " + std::to_string(kMaxSchemaDepth) + " levels");
        if (node.kind == Kind::Array) {
            for (const auto& item : node.items)
                if (!register_ids(item, scope, depth + 1)) return false;
            return true;
        }
        if (node.kind != Kind::Object) return true;
        std::string local = scope;
        const JsonTree* id = node.find("id") ? node.find("id") : node.find("$id");
        if (id && id->kind == Kind::String && check_reference(id->text).empty()) {
            local = inherit(scope, id->text);
            if (pool_.count(local)) return fail("Reference already exists: \"" + local + "\"");
            pool_[local] = &node;
        }
        if (const JsonTree* ref = node.find("$ref");
            ref && ref->kind == Kind::String && check_reference(ref->text).empty())
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
            std::string error;
            const JsonTree* target = pointer_get(*it->second, percent_decode(uri.fragment), error);
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

    bool parse_child(const JsonTree& node, SubSchema*& out) {
        out = make();
        return parse_into(node, *out);
    }

    // One schema where a schema or `true`/`false` may be (gojsonschema's parseSchema).
    bool parse_into(const JsonTree& node, SubSchema& s) {
        if (depth_ >= kMaxSchemaDepth)
            return fail("schema nests deeper than " + std::to_string(kMaxSchemaDepth) + " levels");
        ++depth_;
        bool ok = parse_keywords(node, s);
        --depth_;
        return ok;
    }

    bool parse_keywords(const JsonTree& node, SubSchema& s) {
        if (draft_ >= Draft::D6 && node.kind == Kind::Boolean) return true;  // true / false: no keywords
        if (node.kind != Kind::Object) return fail(std::string("Expected: ") + kValidSchema + ", given: Invalid JSON");
        auto get = [&](const char* key) { return node.find(key); };
        auto string_or_absent = [&](const char* key) {
            const JsonTree* v = get(key);
            return !v || v->kind == Kind::String || fail(invalid_type("string", key));
        };

        const char* id_key = draft_ == Draft::D4 ? "id" : draft_ == Draft::Hybrid && get("id") ? "id" : "$id";
        if (!string_or_absent(id_key)) return false;
        if (const JsonTree* id = get(id_key))
            if (std::string e = check_reference(id->text); !e.empty()) return fail(e);

        if (const JsonTree* defs = get("definitions")) {
            if (defs->kind != Kind::Object) return fail(invalid_type(kArrayOfSchemas, "definitions"));
            for (const auto& [name, d] : defs->members) {
                if (d.kind != Kind::Boolean && d.kind != Kind::Object)
                    return fail(invalid_type(kArrayOfSchemas, "definitions"));
                SubSchema* unused = nullptr;
                if (!parse_child(d, unused)) return false;
            }
        }
        if (!string_or_absent("title") || !string_or_absent("description")) return false;

        if (const JsonTree* ref = get("$ref")) {
            if (ref->kind != Kind::String) return fail(invalid_type("string", "$ref"));
            if (std::string e = check_reference(ref->text); !e.empty()) return fail(e);
            auto resolved = refs_.find(&node);
            std::string target = resolved != refs_.end() ? resolved->second : ref->text;
            // The reference's subschema is parsed once, and is registered before it is
            // parsed: a reference back into it (a recursive schema) finds it.
            if (auto it = ref_pool_.find(target); it != ref_pool_.end()) {
                s.ref = it->second;
                return true;
            }
            SubSchema* named = make();
            ref_pool_[target] = named;
            const JsonTree* doc = document(target);
            if (!doc) return false;
            if (doc->kind != Kind::Boolean && doc->kind != Kind::Object)
                return fail(std::string(kValidSchema) + " must be of type object");
            if (!parse_into(*doc, *named)) return false;
            s.ref = named;
            return true;  // as gojsonschema: the siblings of a $ref are not read
        }

        if (const JsonTree* type = get("type")) {
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
                    if (t.kind != Kind::String)
                        return fail(invalid_type(std::string("string/") + kArrayOfStrings, "type"));
                    if (!add(t.text)) return false;
                }
            } else {
                return fail(invalid_type(std::string("string/") + kArrayOfStrings, "type"));
            }
        }

        if (const JsonTree* props = get("properties")) {
            if (props->kind != Kind::Object) return fail("Properties must be of type object");
            for (const auto& [name, p] : props->members) {
                SubSchema* child = nullptr;
                if (!parse_child(p, child)) return false;
                s.properties.emplace_back(name, child);
            }
        }
        if (const JsonTree* ap = get("additionalProperties")) {
            if (ap->kind == Kind::Object) {
                SubSchema* unused = nullptr;
                if (!parse_child(*ap, unused)) return false;
            } else if (ap->kind != Kind::Boolean) {
                return fail(invalid_type(std::string("boolean/") + kValidSchema, "additionalProperties"));
            }
        }
        if (const JsonTree* pp = get("patternProperties")) {
            if (pp->kind != Kind::Object) return fail(invalid_type(kValidSchema, "patternProperties"));
            for (const auto& [pattern, p] : pp->members) {
                SubSchema* unused = nullptr;
                if (!parse_child(p, unused)) return false;
            }
        }
        if (const JsonTree* pn = get("propertyNames"); pn && draft_ >= Draft::D6) {
            if (pn->kind != Kind::Boolean && pn->kind != Kind::Object)
                return fail(invalid_type(kValidSchema, "patternProperties"));  // sic: gojsonschema names this key
            SubSchema* unused = nullptr;
            if (!parse_child(*pn, unused)) return false;
        }
        if (const JsonTree* deps = get("dependencies")) {
            if (deps->kind != Kind::Object) return fail("dependencies must be of type object");
            for (const auto& [name, d] : deps->members) {
                if (d.kind == Kind::Array) {
                    for (const auto& v : d.items)
                        if (v.kind != Kind::String)
                            return fail("Dependency must be of type Schema Or Array Of Strings");
                } else if (d.kind == Kind::Boolean || d.kind == Kind::Object) {
                    SubSchema* unused = nullptr;
                    if (!parse_child(d, unused)) return false;
                } else {
                    return fail("Dependency must be of type Schema Or Array Of Strings");
                }
            }
        }
        if (const JsonTree* items = get("items")) {
            const std::string bad = invalid_type(std::string(kValidSchema) + "/" + kArrayOfSchemas, "items");
            if (items->kind == Kind::Array) {
                for (const auto& item : items->items) {
                    if (item.kind != Kind::Object && item.kind != Kind::Boolean) return fail(bad);
                    SubSchema* child = nullptr;
                    if (!parse_child(item, child)) return false;
                    s.items.push_back(child);
                }
                s.items_single = false;
            } else if (items->kind == Kind::Object || items->kind == Kind::Boolean) {
                SubSchema* child = nullptr;
                if (!parse_child(*items, child)) return false;
                s.items.push_back(child);
                s.items_single = true;
            } else {
                return fail(bad);
            }
        }
        if (const JsonTree* ai = get("additionalItems")) {
            if (ai->kind == Kind::Object) {
                SubSchema* unused = nullptr;
                if (!parse_child(*ai, unused)) return false;
            } else if (ai->kind != Kind::Boolean) {
                return fail(invalid_type(std::string("boolean/") + kValidSchema, "additionalItems"));
            }
        }

        if (const JsonTree* m = get("multipleOf")) {
            if (!is_number(m)) return fail(invalid_type("Number", "multipleOf"));
            if (number_of(m) <= 0) return fail("multipleOf must be strictly greater than 0");
        }
        if (!bounds("minimum", "exclusiveMinimum", node) || !bounds("maximum", "exclusiveMaximum", node)) return false;

        std::optional<long long> min_length, max_length, min_props, max_props;
        if (!count("minLength", node, min_length) || !count("maxLength", node, max_length)) return false;
        if (min_length && max_length && *min_length > *max_length)
            return fail("minLength cannot be greater than maxLength");
        if (!string_or_absent("pattern") || !string_or_absent("format")) return false;
        if (!count("minProperties", node, min_props) || !count("maxProperties", node, max_props)) return false;
        if (min_props && max_props && *min_props > *max_props)
            return fail("minProperties cannot be greater than maxProperties");

        if (const JsonTree* req = get("required")) {
            if (req->kind != Kind::Array) return fail("required must be of an array");
            std::set<std::string> seen;
            for (const auto& r : req->items) {
                if (r.kind != Kind::String) return fail(invalid_type("string", "required"));
                if (!seen.insert(r.text).second) return fail("required items must be unique");
            }
        }

        std::optional<long long> unused_count;
        if (!count("minItems", node, unused_count) || !count("maxItems", node, unused_count)) return false;
        if (const JsonTree* u = get("uniqueItems"); u && u->kind != Kind::Boolean)
            return fail("uniqueItems must be of a boolean");
        if (const JsonTree* c = get("contains"); c && draft_ >= Draft::D6) {
            SubSchema* unused = nullptr;
            if (!parse_child(*c, unused)) return false;
        }
        if (const JsonTree* e = get("enum")) {
            if (e->kind != Kind::Array) return fail("enum must be of an array");
            std::set<std::string> seen;
            for (const auto& v : e->items)
                if (!seen.insert(canonical(v)).second) return fail("enum items must be unique");
        }

        for (const char* key : {"oneOf", "anyOf", "allOf"}) {
            const JsonTree* list = get(key);
            if (!list) continue;
            if (list->kind != Kind::Array) return fail(std::string(key) + " must be of an array");
            for (const auto& v : list->items) {
                SubSchema* child = nullptr;
                if (!parse_child(v, child)) return false;
                if (std::string_view(key) == "anyOf") s.any_of.push_back(child);
                if (std::string_view(key) == "allOf") s.all_of.push_back(child);
            }
        }
        if (const JsonTree* n = get("not")) {
            if (n->kind != Kind::Boolean && n->kind != Kind::Object) return fail("not must be of an object");
            SubSchema* unused = nullptr;
            if (!parse_child(*n, unused)) return false;
        }
        if (draft_ >= Draft::D7)
            for (const char* key : {"if", "then", "else"})
                if (const JsonTree* c = get(key)) {
                    if (c->kind != Kind::Boolean && c->kind != Kind::Object)
                        return fail(std::string(key) + " must be of an object");
                    SubSchema* unused = nullptr;
                    if (!parse_child(*c, unused)) return false;
                }
        return true;
    }

    // minimum/maximum and their exclusive forms, as each draft spells them.
    bool bounds(const char* key, const char* exclusive_key, const JsonTree& node) {
        const JsonTree* bound = node.find(key);
        if (bound && !is_number(bound)) return fail(std::string(key) + " must be of a Number");
        const JsonTree* exclusive = node.find(exclusive_key);
        if (!exclusive) return true;
        bool is_bool = exclusive->kind == Kind::Boolean;
        switch (draft_) {
            case Draft::D4:
                if (!is_bool) return fail(invalid_type("boolean", exclusive_key));
                if (!bound) return fail(std::string(exclusive_key) + " cannot be used without " + key);
                return true;
            case Draft::Hybrid:
                if (is_bool) return bound || fail(std::string(exclusive_key) + " cannot be used without " + key);
                if (!is_number(exclusive)) return fail(invalid_type("boolean/number", exclusive_key));
                return true;
            default: return is_number(exclusive) || fail(invalid_type("number", exclusive_key));
        }
    }

    // A non-negative integer keyword (minLength, maxItems ...).
    bool count(const char* key, const JsonTree& node, std::optional<long long>& out) {
        const JsonTree* v = node.find(key);
        out.reset();
        if (!v) return true;
        out = integer_of(v);
        if (!out) return fail(std::string(key) + " must be of an integer");
        if (*out < 0) return fail(std::string(key) + " must be greater than or equal to 0");
        return true;
    }
};

}  // namespace

CompileSchemaResult compile_json_schema(const JsonTree& document) { return SchemaCompiler(document).run(); }

}  // namespace gavel::compiler::types
