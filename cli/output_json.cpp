#include "cli/output_json.hpp"

#include "runtime/json.hpp"
#include "support/json_string.hpp"

namespace gavel::cli {

namespace {

void newline(std::string& out, int level) {
    out.push_back('\n');
    out.append(static_cast<std::size_t>(level) * 2, ' ');
}

void write_json(std::string& out, const Json& j, int level) {
    switch (j.kind) {
        case Json::Kind::Value: {
            std::string pretty = runtime::to_json(j.value, runtime::JsonStyle::Pretty);
            for (char c : pretty) {
                if (c == '\n') newline(out, level);
                else out.push_back(c);
            }
            return;
        }
        case Json::Kind::String: runtime::append_json_string(out, j.text); return;
        case Json::Kind::Int: out += std::to_string(j.number); return;
        case Json::Kind::Raw: out += j.text; return;
        case Json::Kind::Array:
            if (j.items.empty()) {
                out += "[]";
                return;
            }
            out.push_back('[');
            for (std::size_t i = 0; i < j.items.size(); ++i) {
                if (i) out.push_back(',');
                newline(out, level + 1);
                write_json(out, j.items[i], level + 1);
            }
            newline(out, level);
            out.push_back(']');
            return;
        case Json::Kind::Object:
            if (j.field_names.empty()) {
                out += "{}";
                return;
            }
            out.push_back('{');
            for (std::size_t i = 0; i < j.field_names.size(); ++i) {
                if (i) out.push_back(',');
                newline(out, level + 1);
                runtime::append_json_string(out, j.field_names[i]);
                out += ": ";
                write_json(out, j.field_values[i], level + 1);
            }
            newline(out, level);
            out.push_back('}');
            return;
    }
}

}  // namespace

Json Json::of(const lang::JsonTree& tree) {
    using K = lang::JsonTree::Kind;
    switch (tree.kind) {
        case K::Null: return raw("null");
        case K::Boolean: return raw(tree.boolean ? "true" : "false");
        case K::Number: return raw(tree.text);
        case K::String: return str(tree.text);
        case K::Array: {
            Json out = array();
            for (const auto& item : tree.items) out.push(of(item));
            return out;
        }
        case K::Object: {
            Json out = object();
            for (const auto& [name, value] : tree.members) out.add(name, of(value));
            return out;
        }
    }
    return raw("null");
}

std::string encode(const Json& j) {
    std::string out;
    write_json(out, j, 0);
    out.push_back('\n');
    return support::escape_html_in_json(out);
}

}  // namespace gavel::cli
