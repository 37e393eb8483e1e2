// Annotations in OPA's JSON shape, for rego.metadata.rule / rego.metadata.chain.

#include "stdlib/rego_metadata.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "runtime/yaml.hpp"

namespace gavel::stdlib {

namespace {

using runtime::Value;

std::vector<std::string> split_words(std::string_view s) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        std::size_t j = i;
        while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
        if (j > i) out.emplace_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

// "Jane Doe <jane@example.com>": the trailing <...> word is the email.
Value author_object(const Value& v) {
    if (v.is_object()) return v;
    if (!v.is_string()) return v;
    auto words = split_words(v.as_string());
    std::string email;
    std::size_t name_words = words.size();
    if (!words.empty() && words.back().size() >= 2 && words.back().front() == '<' && words.back().back() == '>') {
        email = words.back().substr(1, words.back().size() - 2);
        --name_words;
    }
    std::string name;
    for (std::size_t i = 0; i < name_words; ++i) name += (i ? " " : "") + words[i];
    runtime::ObjectBuilder b;
    if (!name.empty()) b.insert(Value::string("name"), Value::string(name));
    if (!email.empty()) b.insert(Value::string("email"), Value::string(email));
    return b.build();
}

Value resource_object(const Value& v) {
    if (v.is_string()) return Value::object({{Value::string("ref"), v}});
    return v;
}

Value map_list(const Value& v, Value (*f)(const Value&)) {
    if (!v.is_array()) return v;
    runtime::ArrayBuilder b(v.size());
    for (const auto& e : v.array_elements()) b.push_back(f(e));
    return b.build();
}

Value string_path(const std::vector<std::string>& parts) {
    runtime::ArrayBuilder b(parts.size());
    for (const auto& p : parts) b.push_back(Value::string(p));
    return b.build();
}

std::vector<std::string> package_of(const lang::Module& m) {
    std::vector<std::string> out;
    const auto& p = *m.package.path;
    if (p.kind == lang::TermKind::Ref)
        for (const auto& e : p.elems) out.push_back(e->text);
    else
        out.push_back(p.text);
    return out;
}

std::vector<std::string> rule_path(const lang::Module& m, const lang::Rule& r) {
    auto out = package_of(m);
    const auto& ref = *r.head.ref;
    if (ref.kind != lang::TermKind::Ref) {
        out.push_back(ref.text);
        return out;
    }
    for (std::size_t i = 0; i < ref.elems.size(); ++i) {
        if (i > 0 && ref.elems[i]->kind != lang::TermKind::String) break;
        out.push_back(ref.elems[i]->text);
    }
    return out;
}

std::size_t index_of(const lang::Module& m, const lang::Rule& r) {
    if (m.rules.empty() || &r < m.rules.data() || &r >= m.rules.data() + m.rules.size()) return static_cast<std::size_t>(-1);
    return static_cast<std::size_t>(&r - m.rules.data());
}

Value chain_entry(const std::vector<std::string>& path, const lang::Annotation* a) {
    if (!a) return Value::object({{Value::string("path"), string_path(path)}});
    return Value::object({{Value::string("annotations"), annotation_object(*a)}, {Value::string("path"), string_path(path)}});
}

// The rule-scope blocks of a rule, nearest (last written) first.
std::vector<const lang::Annotation*> rule_scope(const lang::Module& m, const lang::Rule& r) {
    std::vector<const lang::Annotation*> out;
    std::size_t index = index_of(m, r);
    for (const auto& a : m.annotations)
        if (a.rule_index == index && a.scope == "rule") out.push_back(&a);
    std::reverse(out.begin(), out.end());
    return out;
}

}  // namespace

Value annotation_object(const lang::Annotation& a) {
    runtime::ObjectBuilder b;
    auto parsed = runtime::parse_yaml(a.yaml);
    if (parsed && parsed.value.is_object()) {
        for (const auto& e : parsed.value.object_entries()) {
            if (!e.key.is_string()) continue;
            std::string_view k = e.key.as_string();
            if (k == "authors") b.insert(e.key, map_list(e.value, author_object));
            else if (k == "related_resources") b.insert(e.key, map_list(e.value, resource_object));
            else if (k == "title" || k == "description" || k == "organizations" || k == "custom" || k == "entrypoint" ||
                     k == "schemas")
                b.insert(e.key, e.value);
        }
    }
    b.insert(Value::string("scope"), Value::string(a.scope));
    return b.build();
}

Value metadata_rule(const lang::Module& module, const lang::Rule& rule) {
    auto blocks = rule_scope(module, rule);
    if (blocks.empty()) return Value::empty_object();
    return annotation_object(*blocks.front());
}

Value metadata_chain(std::span<const lang::Module* const> modules, const lang::Module& module, const lang::Rule& rule) {
    runtime::ArrayBuilder out;
    const auto path = rule_path(module, rule);
    auto blocks = rule_scope(module, rule);
    if (blocks.empty()) out.push_back(chain_entry(path, nullptr));
    for (const auto* a : blocks) out.push_back(chain_entry(path, a));
    const auto pkg = package_of(module);
    const lang::Annotation* document = nullptr;
    const lang::Annotation* package = nullptr;
    std::vector<std::pair<std::size_t, const lang::Annotation*>> subpackages;  // by package depth
    for (const lang::Module* m : modules) {
        const auto mpkg = package_of(*m);
        for (const auto& a : m->annotations) {
            if (a.scope == "document" && a.rule_index < m->rules.size() && rule_path(*m, m->rules[a.rule_index]) == path) {
                if (!document) document = &a;
            } else if (a.on_package && a.scope == "package" && mpkg == pkg) {
                if (!package) package = &a;
            } else if (a.on_package && a.scope == "subpackages" && mpkg.size() <= pkg.size() &&
                       std::equal(mpkg.begin(), mpkg.end(), pkg.begin())) {
                subpackages.emplace_back(mpkg.size(), &a);
            }
        }
    }
    if (document) out.push_back(chain_entry(path, document));
    if (package) out.push_back(chain_entry(pkg, package));
    std::stable_sort(subpackages.begin(), subpackages.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [depth, a] : subpackages)
        out.push_back(chain_entry(std::vector<std::string>(pkg.begin(), pkg.begin() + static_cast<std::ptrdiff_t>(depth)), a));
    return out.build();
}

}  // namespace gavel::stdlib
