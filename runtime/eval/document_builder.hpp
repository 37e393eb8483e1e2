#pragma once
// The value of a partial object rule (`p[k] := v`, `p.a[k].b := v`) or of a
// partial set rule with a ref head (`p[k] contains v`), built from the
// (key path, value) pairs its bodies produce. The pairs go into a mutable tree
// and become one Value at the end: n pairs cost O(n log n), where rebuilding
// an immutable object per pair cost O(n^2).
//
// Semantics, per pair: the value at the key path must not differ from one
// already there, nor may a pair reach below another pair's value (conflicts);
// with a set leaf the values gather in a set at the path.

#include <map>
#include <span>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::eval {

class DocumentBuilder {
public:
    explicit DocumentBuilder(bool set_leaf) : set_leaf_(set_leaf) { root_.kind = Node::Object; }

    // Adds `value` at `keys`; false when that conflicts with what is there.
    bool insert(std::span<const runtime::Value> keys, const runtime::Value& value) {
        if (keys.empty()) {  // the whole document (no key parts)
            return put_leaf(root_, value);
        }
        return insert(root_, keys, value);
    }

    bool empty() const { return root_.kind == Node::Object && root_.children.empty(); }

    // Whether a pair so far put a value at `keys`, below it, or at a path leading to it.
    bool holds(std::span<const runtime::Value> keys) const {
        const Node* node = &root_;
        for (const auto& key : keys) {
            if (node->kind != Node::Object) return node->kind != Node::Absent;
            auto it = node->children.find(key);
            if (it == node->children.end()) return false;
            node = &it->second;
        }
        return node->kind != Node::Absent;
    }

    // Makes the path `keys` present, as an empty object (an empty set when `set`), unless a
    // value is there or above it already; call it after the inserts.
    void ensure(std::span<const runtime::Value> keys, bool set) {
        Node* node = &root_;
        for (const auto& key : keys) {
            if (node->kind == Node::Leaf || node->kind == Node::Set) return;
            node->kind = Node::Object;
            node = &node->children[key];
        }
        if (node->kind == Node::Absent) node->kind = set ? Node::Set : Node::Object;
    }

    runtime::Value build() const { return to_value(root_); }

private:
    struct Node {
        enum Kind : uint8_t { Absent, Leaf, Set, Object } kind = Absent;
        runtime::Value leaf;
        std::vector<runtime::Value> elements;  // Set: the elements so far
        std::map<runtime::Value, Node> children;
    };

    bool insert(Node& node, std::span<const runtime::Value> keys, const runtime::Value& value) {
        // A value one rule put at a path has nothing below it for another rule to add to, even
        // when it is an object: OPA reports the conflict.
        if (node.kind == Node::Leaf || node.kind == Node::Set) return false;
        node.kind = Node::Object;
        Node& child = node.children[keys[0]];
        if (keys.size() > 1) return insert(child, keys.subspan(1), value);
        return put_leaf(child, value);
    }

    bool put_leaf(Node& node, const runtime::Value& value) {
        if (node.kind == Node::Object && !node.children.empty()) return false;  // other pairs reach below
        if (set_leaf_) {
            if (node.kind == Node::Leaf && node.leaf.is_set()) {
                auto elems = node.leaf.set_elements();
                node.elements.assign(elems.begin(), elems.end());
            } else if (node.kind != Node::Set) {
                node.elements.clear();
            }
            node.kind = Node::Set;
            node.elements.push_back(value);
            return true;
        }
        bool conflict = node.kind != Node::Absent && to_value(node) != value;
        node.kind = Node::Leaf;
        node.leaf = value;
        node.children.clear();
        node.elements.clear();
        return !conflict;
    }

    static runtime::Value to_value(const Node& node) {
        switch (node.kind) {
            case Node::Absent: return runtime::Value::empty_object();
            case Node::Leaf: return node.leaf;
            case Node::Set: {
                runtime::SetBuilder b(node.elements.size());
                for (const auto& e : node.elements) b.insert(e);
                return b.build();
            }
            case Node::Object: {
                runtime::ObjectBuilder b(node.children.size());
                for (const auto& [key, child] : node.children) b.insert(key, to_value(child));
                return b.build();
            }
        }
        return {};
    }

    bool set_leaf_;
    Node root_;
};

}  // namespace gavel::eval
