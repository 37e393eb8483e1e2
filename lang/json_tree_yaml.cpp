#include "lang/json_tree_yaml.hpp"

#include "lang/yaml_plain_scalar.hpp"

#include <vector>

namespace gavel::lang {

namespace {

std::string join(const std::vector<std::string>& path) {
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) out += (i ? "/" : "") + path[i];
    return out;
}

struct Budget {
    std::size_t max_depth, nodes_left;
};

bool convert(const yaml::Node& node, JsonTree& out, std::vector<std::string>& path, std::string& error,
             std::size_t depth, Budget& budget) {
    if (depth > budget.max_depth) {
        error = "nesting deeper than " + std::to_string(budget.max_depth) + " levels";
        return false;
    }
    if (budget.nodes_left == 0) {
        error = "too many values (aliases expand to more than the limit)";
        return false;
    }
    --budget.nodes_left;
    if (node.is_null()) {
        out = JsonTree{};
        return true;
    }
    if (node.is_scalar()) {
        out = yaml_scalar(node);
        return true;
    }
    if (node.is_sequence()) {
        out = JsonTree{};
        out.kind = JsonTree::Kind::Array;
        std::size_t i = 0;
        for (const auto& e : node.items) {
            path.push_back(std::to_string(i++));
            JsonTree item;
            if (!convert(*e, item, path, error, depth + 1, budget)) return false;
            path.pop_back();
            out.items.push_back(std::move(item));
        }
        return true;
    }
    out = JsonTree{};
    out.kind = JsonTree::Kind::Object;
    for (const auto& [k, v] : node.members) {
        if (!k->is_scalar()) {
            error = "invalid map key type(s): " + join(path);
            return false;
        }
        std::string key = k->text;
        path.push_back(key);
        JsonTree value;
        if (!convert(*v, value, path, error, depth + 1, budget)) return false;
        path.pop_back();
        out.set(std::move(key), std::move(value));
    }
    return true;
}

}  // namespace

JsonTree yaml_scalar(const yaml::Node& node) {
    JsonTree out;
    const std::string& s = node.text;
    if (node.style != yaml::ScalarStyle::Plain || node.tag == "!" || node.tag == "tag:yaml.org,2002:str") {
        // quoted, a block, or tagged a string: always a string
        out.kind = JsonTree::Kind::String;
        out.text = s;
        return out;
    }
    const yaml::PlainScalar r = yaml::resolve_plain_scalar(s, yaml::Typing::GoYamlV3);
    switch (r.kind) {
        case yaml::PlainScalar::Kind::Null: return out;
        case yaml::PlainScalar::Kind::Boolean:
            out.kind = JsonTree::Kind::Boolean;
            out.boolean = r.boolean;
            return out;
        case yaml::PlainScalar::Kind::Integer:
        case yaml::PlainScalar::Kind::Float:
            out.kind = JsonTree::Kind::Number;
            out.text = r.text;
            return out;
        case yaml::PlainScalar::Kind::Timestamp:
            out.kind = JsonTree::Kind::String;
            out.text = r.text;
            return out;
        case yaml::PlainScalar::Kind::NotFinite:  // JSON has no such number: kept as written
        case yaml::PlainScalar::Kind::String: break;
    }
    out.kind = JsonTree::Kind::String;
    out.text = s;
    return out;
}

std::optional<JsonTree> yaml_to_json_tree(const yaml::Node& node, std::string& error, std::size_t max_depth,
                                          std::size_t max_nodes) {
    JsonTree out;
    std::vector<std::string> path;
    Budget budget{max_depth, max_nodes};
    if (!convert(node, out, path, error, 0, budget)) return std::nullopt;
    return out;
}

}  // namespace gavel::lang
