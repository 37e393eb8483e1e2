#include "engine/bundle/manifest_file.hpp"

#include <algorithm>

#include "runtime/json.hpp"
#include "stdlib/glob.hpp"

namespace gavel::engine::bundle {

using runtime::Value;

namespace {

std::string trim_slashes(std::string s) {
    while (!s.empty() && s.front() == '/') s.erase(s.begin());
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
}

std::string go_type(const Value& v) {
    if (v.is_string()) return "string";
    if (v.is_number()) return "number";
    if (v.is_bool()) return "bool";
    if (v.is_array()) return "array";
    if (v.is_object()) return "object";
    return "null";
}

std::string type_error(const Value& v, std::string_view field, std::string_view want) {
    return "bundle load failed on manifest decode: json: cannot unmarshal " + go_type(v) +
           " into Go struct field Manifest." + std::string(field) + " of type " + std::string(want);
}

std::optional<int> small_int(const Value& v) {
    std::int64_t n = 0;
    if (!v.is_number() || !v.as_int64(n) || n < -(1LL << 31) || n >= (1LL << 31)) return std::nullopt;
    return static_cast<int>(n);
}

}  // namespace

std::vector<std::string> Manifest::effective_roots() const {
    if (!roots) return {""};
    std::vector<std::string> out;
    for (const auto& r : *roots) out.push_back(trim_slashes(r));
    return out;
}

std::optional<bool> Manifest::v0_for(std::string_view path) const {
    // As OPA's RegoVersionForFile: each key is a gobwas glob without separators (`*` crosses
    // '/'), matched against the bundle-absolute path ("/legacy/a.rego"): `legacy/*.rego` matches
    // nothing, `/legacy/*.rego` and `*.rego` do. A key that is no glob matches nothing.
    std::string absolute = path.starts_with('/') ? std::string(path) : '/' + std::string(path);
    for (const auto& [pattern, version] : file_rego_versions)
        if (stdlib::gobwas_glob_match(pattern, {}, absolute).matched) return version == 0;
    if (rego_version) return *rego_version == 0;
    return std::nullopt;
}

bool Manifest::empty() const {
    return revision.empty() && !rego_version && file_rego_versions.empty() && metadata.is_null() &&
           (wasm.is_null() || wasm.size() == 0) && effective_roots() == std::vector<std::string>{""};
}

std::optional<Manifest> parse_manifest(std::string_view text, std::string& error) {
    auto parsed = runtime::parse_json(text);
    if (!parsed) {
        error = "bundle load failed on manifest decode: " + parsed.error.message;
        return std::nullopt;
    }
    const Value& doc = parsed.value;
    if (!doc.is_object()) {
        error = "bundle load failed on manifest decode: json: cannot unmarshal " + go_type(doc) +
                " into Go value of type bundle.Manifest";
        return std::nullopt;
    }
    Manifest m;
    if (const Value* v = doc.find("revision"); v && !v->is_null()) {
        if (!v->is_string()) return error = type_error(*v, "revision", "string"), std::nullopt;
        m.revision = std::string(v->as_string());
    }
    if (const Value* v = doc.find("roots"); v && !v->is_null()) {
        if (!v->is_array()) return error = type_error(*v, "roots", "[]string"), std::nullopt;
        std::vector<std::string> roots;
        for (const auto& r : v->array_elements()) {
            if (!r.is_string()) return error = type_error(r, "roots", "string"), std::nullopt;
            roots.emplace_back(r.as_string());
        }
        m.roots = std::move(roots);
    }
    if (const Value* v = doc.find("rego_version"); v && !v->is_null()) {
        auto n = small_int(*v);
        if (!n) return error = type_error(*v, "rego_version", "int"), std::nullopt;
        if (*n != 0 && *n != 1) return error = "unknown bundle rego-version " + std::to_string(*n), std::nullopt;
        m.rego_version = *n;
    }
    if (const Value* v = doc.find("file_rego_versions"); v && !v->is_null()) {
        if (!v->is_object()) return error = type_error(*v, "file_rego_versions", "map[string]int"), std::nullopt;
        for (const auto& e : v->object_entries()) {
            auto n = small_int(e.value);
            if (!n) return error = type_error(e.value, "file_rego_versions", "int"), std::nullopt;
            if (*n != 0 && *n != 1)
                return error = "unknown bundle rego-version " + std::to_string(*n) + " for file '" +
                               std::string(e.key.as_string()) + "'",
                       std::nullopt;
            m.file_rego_versions.emplace_back(std::string(e.key.as_string()), *n);
        }
        std::sort(m.file_rego_versions.begin(), m.file_rego_versions.end());
    }
    if (const Value* v = doc.find("metadata"); v && !v->is_null()) {
        if (!v->is_object()) return error = type_error(*v, "metadata", "map[string]interface {}"), std::nullopt;
        m.metadata = *v;
    }
    if (const Value* v = doc.find("wasm"); v && !v->is_null()) {
        if (!v->is_array()) return error = type_error(*v, "wasm", "[]bundle.WasmResolver"), std::nullopt;
        m.wasm = *v;
    }
    return m;
}

runtime::Value manifest_value(const Manifest& m) {
    runtime::ObjectBuilder b;
    b.insert(Value::string("revision"), Value::string(m.revision));
    if (m.roots) {
        runtime::ArrayBuilder roots;
        for (const auto& r : *m.roots) roots.push_back(Value::string(r));
        b.insert(Value::string("roots"), roots.build());
    }
    if (!m.wasm.is_null() && m.wasm.size() > 0) b.insert(Value::string("wasm"), m.wasm);
    if (m.rego_version) b.insert(Value::string("rego_version"), Value::integer(*m.rego_version));
    if (!m.file_rego_versions.empty()) {
        runtime::ObjectBuilder f;
        for (const auto& [k, v] : m.file_rego_versions) f.insert(Value::string(k), Value::integer(v));
        b.insert(Value::string("file_rego_versions"), f.build());
    }
    if (!m.metadata.is_null() && m.metadata.size() > 0) b.insert(Value::string("metadata"), m.metadata);
    return b.build();
}

std::string manifest_json(const Manifest& m) {
    // Struct field order, not sorted keys: Go marshals a struct in declaration order.
    std::string out = "{\"revision\":";
    runtime::append_json_string(out, m.revision);
    if (m.roots) {
        out += ",\"roots\":";
        runtime::ArrayBuilder roots;
        for (const auto& r : *m.roots) roots.push_back(Value::string(r));
        runtime::append_json(out, roots.build());
    }
    if (!m.wasm.is_null() && m.wasm.size() > 0) {
        out += ",\"wasm\":";
        runtime::append_json(out, m.wasm);
    }
    if (m.rego_version) out += ",\"rego_version\":" + std::to_string(*m.rego_version);
    if (!m.file_rego_versions.empty()) {
        out += ",\"file_rego_versions\":";
        runtime::ObjectBuilder f;
        for (const auto& [k, v] : m.file_rego_versions) f.insert(Value::string(k), Value::integer(v));
        runtime::append_json(out, f.build());
    }
    if (!m.metadata.is_null() && m.metadata.size() > 0) {
        out += ",\"metadata\":";
        runtime::append_json(out, m.metadata);
    }
    out += "}";
    return out;
}

}  // namespace gavel::engine::bundle
