#include "lang/yaml_node.hpp"

#include <algorithm>
#include <unordered_map>

namespace gavel::lang::yaml {

bool Node::is_null() const {
    if (!is_scalar()) return false;
    if (tag == "tag:yaml.org,2002:null") return true;
    return plain() && (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL");
}

std::optional<std::string_view> go_string(const Node* n) {
    if (!n || !n->is_scalar() || n->is_null()) return std::nullopt;
    return std::string_view(n->text);
}

const Node* Node::get(std::string_view key) const {
    for (auto it = members.rbegin(); it != members.rend(); ++it)
        if (it->first->is_scalar() && it->first->text == key) return it->second.get();
    return nullptr;
}

namespace {

class TreeBuilder {
public:
    TreeBuilder(std::string_view text, ErrorDialect dialect, const NodeLimits& limits)
        : events_(text, dialect), limits_(limits) {}

    Documents run(std::size_t max_documents) {
        Documents out;
        Event e;
        while (out.documents.size() < max_documents) {
            if (!events_.next(e)) {
                out.error = events_.error();
                out.error_mark = events_.error_mark();
                return out;
            }
            if (e.type == EventType::StreamEnd) break;
            if (!handle(e, out)) {
                out.documents.clear();
                return out;
            }
        }
        out.ok = true;
        return out;
    }

private:
    struct Open {
        std::shared_ptr<Node> node;
        std::string anchor;
        NodePtr key;  // a mapping's key awaiting its value
    };

    bool fail(Documents& out, const Mark& at, std::string message) {
        out.error = std::move(message);
        out.error_mark = at;
        return false;
    }

    bool counted(Documents& out, const Mark& at, std::size_t n, std::size_t height) {
        nodes_ += n;
        if (nodes_ > limits_.max_nodes)
            return fail(out, at,
                        "YAML document too large: more than " + std::to_string(limits_.max_nodes) +
                            " values (alias expansion?)");
        if (stack_.size() + height > limits_.max_depth)
            return fail(out, at, "YAML nesting too deep: more than " + std::to_string(limits_.max_depth) + " levels");
        return true;
    }

    void add(NodePtr n, Documents& out) {
        if (stack_.empty()) {
            root_ = std::move(n);
            return;
        }
        Open& open = stack_.back();
        Node& parent = *open.node;
        parent.nodes += n->nodes;
        parent.height = std::max(parent.height, n->height + 1);
        if (parent.is_sequence()) {
            parent.items.push_back(std::move(n));
        } else if (!open.key) {
            open.key = std::move(n);
        } else {
            parent.members.emplace_back(std::move(open.key), std::move(n));
            open.key.reset();
        }
    }

    bool handle(const Event& e, Documents& out) {
        switch (e.type) {
            case EventType::StreamStart:
            case EventType::StreamEnd:
            case EventType::DocumentStart: return true;
            case EventType::DocumentEnd: out.documents.push_back(std::move(root_)); return true;
            case EventType::Alias: {
                auto it = anchors_.find(e.anchor);
                if (it == anchors_.end())
                    return fail(out, e.start, "yaml: unknown anchor '" + e.anchor + "' referenced");
                if (!it->second) return fail(out, e.start, "yaml: anchor '" + e.anchor + "' value contains itself");
                NodePtr n = it->second;
                if (!counted(out, e.start, n->nodes, n->height)) return false;
                add(std::move(n), out);
                return true;
            }
            case EventType::Scalar: {
                if (!counted(out, e.start, 1, 1)) return false;
                auto n = std::make_shared<Node>();
                n->mark = e.start;
                n->tag = e.tag;
                n->text = e.value;
                n->style = e.style;
                if (!e.anchor.empty()) anchors_[e.anchor] = n;
                add(std::move(n), out);
                return true;
            }
            case EventType::SequenceStart:
            case EventType::MappingStart: {
                if (!counted(out, e.start, 1, 1)) return false;
                auto n = std::make_shared<Node>();
                n->kind = e.type == EventType::MappingStart ? Node::Kind::Mapping : Node::Kind::Sequence;
                n->mark = e.start;
                n->tag = e.tag;
                if (!e.anchor.empty()) anchors_[e.anchor] = nullptr;  // known, not complete: a cycle if used inside
                stack_.push_back({std::move(n), e.anchor, nullptr});
                return true;
            }
            case EventType::SequenceEnd:
            case EventType::MappingEnd: {
                Open done = std::move(stack_.back());
                stack_.pop_back();
                if (!done.anchor.empty()) anchors_[done.anchor] = done.node;
                add(std::move(done.node), out);
                return true;
            }
        }
        return true;
    }

    EventStream events_;
    NodeLimits limits_;
    std::size_t nodes_ = 0;
    std::vector<Open> stack_;
    NodePtr root_;
    std::unordered_map<std::string, NodePtr> anchors_;
};

}  // namespace

Documents read_documents(std::string_view text, ErrorDialect dialect, const NodeLimits& limits,
                         std::size_t max_documents) {
    return TreeBuilder(text, dialect, limits).run(max_documents);
}

}  // namespace gavel::lang::yaml
