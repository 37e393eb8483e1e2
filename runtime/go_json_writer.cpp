#include "runtime/go_json_writer.hpp"

#include "runtime/json.hpp"

namespace gavel::runtime {

void append_go_value(std::string& out, const runtime::Value& v) {
    runtime::append_json(out, v, runtime::JsonWriteOptions{runtime::JsonStyle::Compact, true, 0});
}

void append_go_string(std::string& out, std::string_view s) {
    runtime::append_json_string(out, s, runtime::JsonWriteOptions{runtime::JsonStyle::Compact, true, 0});
}

void append_go_tree(std::string& out, const lang::JsonTree& tree) {
    using K = lang::JsonTree::Kind;
    // Iterative: a details tree comes from the compiler, but nothing here may recurse unbounded.
    struct Frame {
        const lang::JsonTree* node;
        std::size_t next;
    };
    std::vector<Frame> stack;
    auto open = [&out, &stack](const lang::JsonTree& t) {
        switch (t.kind) {
            case K::Null: out += "null"; return;
            case K::Boolean: out += t.boolean ? "true" : "false"; return;
            case K::Number: out += t.text; return;
            case K::String: append_go_string(out, t.text); return;
            case K::Array:
                out += '[';
                stack.push_back({&t, 0});
                return;
            case K::Object:
                out += '{';
                stack.push_back({&t, 0});
                return;
        }
    };
    open(tree);
    while (!stack.empty()) {
        Frame& f = stack.back();
        const lang::JsonTree& t = *f.node;
        bool object = t.kind == K::Object;
        std::size_t size = object ? t.members.size() : t.items.size();
        if (f.next == size) {
            out += object ? '}' : ']';
            stack.pop_back();
            continue;
        }
        if (f.next) out += ',';
        std::size_t i = f.next++;
        if (object) {
            append_go_string(out, t.members[i].first);
            out += ':';
            open(t.members[i].second);
        } else {
            open(t.items[i]);
        }
    }
}

std::string go_indent(std::string_view src) {
    std::string dst;
    dst.reserve(src.size() * 2);
    std::size_t depth = 0;
    bool need_indent = false, in_string = false, escaped = false;
    auto newline = [&dst](std::size_t d) {
        dst += '\n';
        for (std::size_t i = 0; i < d; ++i) dst += "  ";
    };
    for (char c : src) {
        if (in_string) {
            dst += c;
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        if (need_indent && c != ']' && c != '}') {
            need_indent = false;
            ++depth;
            newline(depth);
        }
        switch (c) {
            case '"':
                in_string = true;
                dst += c;
                break;
            case '{':
            case '[':
                need_indent = true;
                dst += c;
                break;
            case ',':
                dst += c;
                newline(depth);
                break;
            case ':': dst += ": "; break;
            case '}':
            case ']':
                if (need_indent) {
                    need_indent = false;  // empty: "{}"
                } else {
                    --depth;
                    newline(depth);
                }
                dst += c;
                break;
            default: dst += c;
        }
    }
    return dst;
}

std::string go_encoded(std::string_view compact, bool pretty) {
    std::string out = pretty ? go_indent(compact) : std::string(compact);
    out += '\n';
    return out;
}

}  // namespace gavel::runtime
