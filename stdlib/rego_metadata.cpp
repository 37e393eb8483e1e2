// Annotations in OPA's JSON shape, for rego.metadata.rule / rego.metadata.chain
// (the compiler builds those calls' results around internal.rego_annotation).

#include "stdlib/rego_metadata.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "lang/yaml_node.hpp"
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

// A related resource: a URL, or an object of which OPA keeps the `ref` and a `description`
// that is a string.
Value resource_object(const Value& v) {
    if (v.is_string()) return Value::object({{Value::string("ref"), v}});
    if (!v.is_object()) return v;
    runtime::ObjectBuilder b;
    for (const auto& e : v.object_entries())
        if (e.key.is_string() &&
            (e.key.as_string() == "ref" || (e.key.as_string() == "description" && e.value.is_string())))
            b.insert(e.key, e.value);
    return b.build();
}

Value map_list(const Value& v, Value (*f)(const Value&)) {
    if (!v.is_array()) return v;
    runtime::ArrayBuilder b(v.size());
    for (const auto& e : v.array_elements()) b.push_back(f(e));
    return b.build();
}

}  // namespace

Value annotation_object(std::string_view yaml, std::string_view scope) {
    runtime::ObjectBuilder b;
    // As OPA decodes a block (go-yaml v3 into its rawAnnotation): plain scalars typed by v3's
    // rules (`yes` is a string, floats spelt as ast.InterfaceToValue spells them), and the
    // fields that are Go strings the scalar as written (lang::yaml::go_string).
    auto parsed = runtime::parse_yaml_all(yaml, runtime::kDefaultLimits, runtime::YamlTyping::GoYamlV3Values);
    lang::yaml::Documents nodes = lang::yaml::read_documents(yaml, lang::yaml::ErrorDialect::GoYamlV3, {}, 1);
    const lang::yaml::Node* root = nodes.ok && !nodes.documents.empty() ? nodes.documents.front().get() : nullptr;
    if (parsed && parsed.documents.size() == 1 && parsed.documents.front().is_object()) {
        for (const auto& e : parsed.documents.front().object_entries()) {
            if (!e.key.is_string()) continue;
            std::string_view k = e.key.as_string();
            const lang::yaml::Node* node = root ? root->get(k) : nullptr;
            if (k == "title" || k == "description") {
                if (auto text = lang::yaml::go_string(node); text && !text->empty())  // Go's "": left out
                    b.insert(e.key, Value::string(*text));
            } else if (k == "organizations") {
                runtime::ArrayBuilder list;
                if (node && node->is_sequence())
                    for (const auto& item : node->items)
                        if (auto text = lang::yaml::go_string(item.get())) list.push_back(Value::string(*text));
                b.insert(e.key, list.build());
            } else if (k == "authors") {
                b.insert(e.key, map_list(e.value, author_object));
            } else if (k == "related_resources") {
                b.insert(e.key, map_list(e.value, resource_object));
            } else if (k == "entrypoint") {
                if (e.value.is_bool() && e.value.as_bool()) b.insert(e.key, e.value);
            } else if (k == "custom" || k == "schemas") {
                b.insert(e.key, e.value);
            }
        }
    }
    b.insert(Value::string("scope"), Value::string(scope));
    return b.build();
}

}  // namespace gavel::stdlib
