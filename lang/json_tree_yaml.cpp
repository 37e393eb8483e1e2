#include "lang/json_tree_yaml.hpp"

#include <vector>

namespace gavel::lang {

namespace {

bool numeric(const std::string& s) {
    if (s.empty() || s[0] == '+') return false;
    std::size_t i = s[0] == '-' ? 1 : 0;
    bool digit = false, dot = false, exp = false;
    for (; i < s.size(); ++i) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            digit = true;
        } else if (c == '.' && !dot && !exp) {
            dot = true;
        } else if ((c == 'e' || c == 'E') && digit && !exp) {
            exp = true;
            if (i + 1 < s.size() && (s[i + 1] == '-' || s[i + 1] == '+')) ++i;
        } else {
            return false;
        }
    }
    return digit;
}

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
    if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") {
        out.kind = JsonTree::Kind::Boolean;
        out.boolean = s[0] == 't' || s[0] == 'T';
        return out;
    }
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return out;
    out.kind = numeric(s) ? JsonTree::Kind::Number : JsonTree::Kind::String;
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
