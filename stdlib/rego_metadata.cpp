// Annotations in OPA's JSON shape, for rego.metadata.rule / rego.metadata.chain
// (the compiler builds those calls' results around internal.rego_annotation).

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

}  // namespace

Value annotation_object(std::string_view yaml, std::string_view scope) {
    runtime::ObjectBuilder b;
    auto parsed = runtime::parse_yaml(yaml);
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
    b.insert(Value::string("scope"), Value::string(scope));
    return b.build();
}

}  // namespace gavel::stdlib
