#include "lang/annotations.hpp"
#include "lang/go_quote.hpp"

#include <yaml-cpp/yaml.h>

#include "lang/json_tree_yaml.hpp"
#include "lang/parse.hpp"

namespace gavel::lang {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}


// go-yaml's complaint about a node of the wrong kind ("cannot unmarshal !!str `x` into ...").
std::string unmarshal_error(const YAML::Node& node, std::string_view into) {
    std::string tag = "!!map", value;
    if (node.IsSequence()) {
        tag = "!!seq";
    } else if (node.IsScalar()) {
        JsonTree t = yaml_scalar(node);
        switch (t.kind) {
            case JsonTree::Kind::Null: tag = "!!null"; break;
            case JsonTree::Kind::Boolean: tag = "!!bool"; break;
            case JsonTree::Kind::Number: tag = t.text.find_first_of(".eE") == std::string::npos ? "!!int" : "!!float"; break;
            default: tag = "!!str";
        }
        const std::string& s = node.Scalar();
        value = s.size() > 10 ? " `" + s.substr(0, 7) + "...`" : " `" + s + "`";
    }
    return "yaml: unmarshal errors:\n  line " + std::to_string(node.Mark().line + 1) + ": cannot unmarshal " + tag + value +
           " into " + std::string(into);
}

// Every term of `t` takes `loc`: parsed from a string of their own, they point into the block instead.
void relocate(Term& t, const Location& loc, std::size_t depth = 0) {
    t.loc = loc;
    if (depth > 1000) return;  // the parser's own limit: never reached
    for (auto& e : t.elems) relocate(*e, loc, depth + 1);
    for (auto& [k, v] : t.items) {
        relocate(*k, loc, depth + 1);
        relocate(*v, loc, depth + 1);
    }
}

// OPA's ParseRef of a `schemas:` key: a ref (`input` and `data` alone are refs of one part).
TermPtr parse_document_ref(const std::string& text, const Location& loc) {
    auto r = parse_term(text);
    if (!r.ok() || !r.term) return nullptr;
    TermPtr t = r.term;
    if (t->kind == TermKind::Var && (t->text == "input" || t->text == "data")) t = make_ref({t}, t->loc);
    if (t->kind != TermKind::Ref) return nullptr;
    relocate(*t, loc);
    return t;
}

// OPA's parseSchemaRef: `schema` itself or a ref below it.
TermPtr parse_schema_ref(const std::string& text, const Location& loc) {
    auto r = parse_term(text);
    if (!r.ok() || !r.term) return nullptr;
    TermPtr t = r.term;
    if (t->kind == TermKind::Var && t->text == "schema") t = make_ref({t}, t->loc);
    if (t->kind != TermKind::Ref || t->elems.empty()) return nullptr;
    const Term& head = *t->elems[0];
    if (head.kind != TermKind::Var || head.text != "schema") return nullptr;
    relocate(*t, loc);
    return t;
}

// The `schemas:` list, with OPA's messages for what it cannot use; "" when all is well.
std::string read_schemas(const YAML::Node& list, Annotation& a) {
    if (!list || list.IsNull()) return "";
    if (!list.IsSequence()) return unmarshal_error(list, "[]map[string]interface {}");
    for (const auto& item : list) {
        if (item && !item.IsNull() && !item.IsMap()) return unmarshal_error(item, "map[string]interface {}");
        // OPA takes one entry of each item (Go's map order decides which of several); gavel the first.
        std::string key;
        YAML::Node value;
        if (item && item.IsMap())
            for (const auto& kv : item) {
                if (!kv.first.IsScalar()) return unmarshal_error(kv.first, "string");
                key = kv.first.Scalar();
                value = kv.second;
                break;
            }
        SchemaAnnotation s;
        s.path = parse_document_ref(key, a.loc);
        if (!s.path) return "invalid document reference";
        if (value && value.IsScalar() && yaml_scalar(value).kind == JsonTree::Kind::String) {
            s.schema = parse_schema_ref(value.Scalar(), a.loc);
            if (!s.schema) return "invalid schema reference";
        } else if (value && value.IsMap()) {
            std::string error;
            auto definition = yaml_to_json_tree(value, error);
            if (!definition) return "invalid schema definition: " + error;
            s.definition = std::make_shared<const JsonTree>(std::move(*definition));
        } else {
            return "invalid schema declaration for path " + go_quote(key);
        }
        a.schemas.push_back(std::move(s));
    }
    return "";
}

}  // namespace

void attach_annotations(Module& module, Diagnostics& diagnostics) {
    const auto& comments = module.comments;
    for (std::size_t i = 0; i < comments.size(); ++i) {
        if (trim(comments[i].text) != "METADATA") continue;
        Annotation a;
        a.loc = comments[i].loc;
        uint32_t last_line = comments[i].loc.line;
        std::size_t j = i + 1;
        for (; j < comments.size() && comments[j].loc.line == last_line + 1; ++j) {
            std::string_view line = comments[j].text;
            if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
            a.yaml.append(line);
            a.yaml.push_back('\n');
            last_line = comments[j].loc.line;
        }
        i = j - 1;
        bool entrypoint = false;
        try {
            YAML::Node node = YAML::Load(a.yaml);
            if (node && !node.IsNull() && !node.IsMap()) {
                diagnostics.add(a.loc, codes::parse_error, "invalid METADATA block: expected a YAML mapping");
                continue;
            }
            if (node && node.IsMap()) {
                if (node["scope"]) a.scope = node["scope"].as<std::string>();
                if (auto e = node["entrypoint"]; e && e.IsScalar()) {
                    JsonTree t = yaml_scalar(e);
                    entrypoint = t.kind == JsonTree::Kind::Boolean && t.boolean;
                }
                if (std::string error = read_schemas(node["schemas"], a); !error.empty()) {
                    diagnostics.add(a.loc, codes::parse_error, error);
                    continue;
                }
            }
        } catch (const YAML::Exception& e) {
            diagnostics.add(a.loc, codes::parse_error, "invalid METADATA block: yaml: " + std::string(e.msg));
            continue;
        }
        // The block belongs to the first statement after it.
        if (module.package.loc.line > last_line &&
            (module.rules.empty() || module.rules.front().loc.line > module.package.loc.line)) {
            a.on_package = true;
        } else {
            for (std::size_t r = 0; r < module.rules.size(); ++r) {
                if (module.rules[r].loc.line > last_line) {
                    a.rule_index = r;
                    break;
                }
            }
        }
        // As OPA: a rule's block is of scope rule, or document when it marks an entrypoint.
        if (a.scope.empty()) a.scope = a.on_package ? "package" : entrypoint ? "document" : "rule";
        module.annotations.push_back(std::move(a));
    }
}

}  // namespace gavel::lang
