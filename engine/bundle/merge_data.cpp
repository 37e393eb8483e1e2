#include "engine/bundle/merge_data.hpp"

namespace gavel::engine::bundle {

using runtime::Value;

// Recursion follows the data's nesting, which the JSON and YAML readers bound.
bool merge_data(const Value& a, const Value& b, Value& out) {
    if (!a.is_object() || !b.is_object()) return false;
    runtime::ObjectBuilder builder;
    for (const auto& e : a.object_entries()) {
        const Value* other = b.find(e.key);
        if (!other) {
            builder.insert(e.key, e.value);
            continue;
        }
        Value merged;
        if (!merge_data(e.value, *other, merged)) return false;
        builder.insert(e.key, merged);
    }
    for (const auto& e : b.object_entries())
        if (!a.find(e.key)) builder.insert(e.key, e.value);
    out = builder.build();
    return true;
}

// A node is a value merged in whole (kept as it came), or an object opened up
// into children because a second document reached into it.
struct DataTreeBuilder::Node {
    std::optional<Value> value;
    bool open = false;
    std::map<Value, std::unique_ptr<Node>> children;

    bool empty() const { return !value && !open; }

    // A whole object becomes children: only objects may be reached into.
    bool open_up() {
        if (open) return true;
        if (!value) {
            open = true;
            return true;
        }
        if (!value->is_object()) return false;
        for (const auto& e : value->object_entries()) {
            auto child = std::make_unique<Node>();
            child->value = e.value;
            children.emplace(e.key, std::move(child));
        }
        value.reset();
        open = true;
        return true;
    }

    bool merge(const Value& v) {
        if (empty()) {
            value = v;
            return true;
        }
        if (!v.is_object() || !open_up()) return false;
        for (const auto& e : v.object_entries()) {
            auto& child = children[e.key];
            if (!child) child = std::make_unique<Node>();
            if (!child->merge(e.value)) return false;
        }
        return true;
    }

    Value build() const {
        if (value) return *value;
        runtime::ObjectBuilder b(children.size());
        for (const auto& [key, child] : children) b.insert(key, child->build());
        return b.build();
    }
};

DataTreeBuilder::DataTreeBuilder() : root_(std::make_unique<Node>()) { root_->open = true; }
DataTreeBuilder::~DataTreeBuilder() = default;
DataTreeBuilder::DataTreeBuilder(DataTreeBuilder&&) noexcept = default;
DataTreeBuilder& DataTreeBuilder::operator=(DataTreeBuilder&&) noexcept = default;

bool DataTreeBuilder::insert(const std::vector<std::string>& path, const Value& value) {
    Node* node = root_.get();
    for (const auto& part : path) {
        if (!node->open_up()) return false;
        auto& child = node->children[Value::string(part)];
        if (!child) child = std::make_unique<Node>();
        node = child.get();
    }
    return node->merge(value);
}

Value DataTreeBuilder::build() const { return root_->build(); }

}  // namespace gavel::engine::bundle
