#pragma once
// The value of a partial object rule (`p[k] := v`, `p.a[k].b := v`) or of a
// partial set rule with a ref head (`p[k] contains v`), built from the
// (key path, value) pairs its bodies produce. The pairs go into a mutable tree
// and become one Value at the end: n pairs cost O(n log n), where rebuilding
// an immutable object per pair cost O(n^2).
//
// Semantics, per pair: the value at the key path must not differ from one
// already there, nor may a pair reach below another pair's value (conflicts);
// with a set leaf the values gather in a set at the path. Number keys are
// looked up as OPA's object does (runtime/value.cpp, find_number_key): a key
// written as an integer finds only a key written so, another number the key of
// its value inserted last; so 1.0 then 1 are two keys, 1 then 1.0 one.

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
            node = find_child(*node, key);
            if (!node) return false;
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
            node = &child(*node, key);
        }
        if (node->kind == Node::Absent) node->kind = set ? Node::Set : Node::Object;
    }

    runtime::Value build() const { return to_value(root_); }

private:
    // A child's key and whether it is a number written as an integer: of one value there
    // are at most two children, one not written so (inserted first) and one written so.
    using Key = std::pair<runtime::Value, bool>;

    struct Node {
        enum Kind : uint8_t { Absent, Leaf, Set, Object } kind = Absent;
        runtime::Value leaf;
        std::vector<runtime::Value> elements;  // Set: the elements so far
        std::map<Key, Node> children;
    };

    static bool written_as_int(const runtime::Value& v) {
        std::int64_t i;
        return v.is_number() && v.as_written_int64(i);
    }

    static Node* find_child(Node& node, const runtime::Value& key) {
        if (key.is_number()) {
            auto it = node.children.find(Key(key, true));
            if (it != node.children.end()) return &it->second;
            if (written_as_int(key)) return nullptr;
        }
        auto it = node.children.find(Key(key, false));
        return it == node.children.end() ? nullptr : &it->second;
    }
    static const Node* find_child(const Node& node, const runtime::Value& key) {
        return find_child(const_cast<Node&>(node), key);
    }

    static Node& child(Node& node, const runtime::Value& key) {
        if (Node* found = find_child(node, key)) return *found;
        return node.children[Key(key, written_as_int(key))];
    }

    bool insert(Node& node, std::span<const runtime::Value> keys, const runtime::Value& value) {
        // A value one rule put at a path has nothing below it for another rule to add to, even
        // when it is an object: OPA reports the conflict.
        if (node.kind == Node::Leaf || node.kind == Node::Set) return false;
        node.kind = Node::Object;
        Node& next = child(node, keys[0]);
        if (keys.size() > 1) return insert(next, keys.subspan(1), value);
        return put_leaf(next, value);
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
        if (node.kind != Node::Absent) {
            // An equal value leaves the one there (OPA keeps 1 when 1.0 comes again).
            if (to_value(node) != value) return false;
            if (node.kind == Node::Leaf) return true;
        }
        node.kind = Node::Leaf;
        node.leaf = value;
        node.children.clear();
        node.elements.clear();
        return true;
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
                for (const auto& [key, child] : node.children) b.insert(key.first, to_value(child));
                return b.build();
            }
        }
        return {};
    }

    bool set_leaf_;
    Node root_;
};

}  // namespace gavel::eval
