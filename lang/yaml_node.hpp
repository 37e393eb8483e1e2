#pragma once
// YAML documents as node trees, for the readers that look at a document's
// shape rather than turn it into data (METADATA blocks, configuration, test
// case files). Built from yaml_events.hpp, so errors are go-yaml's words.
// An alias shares its anchor's node; nesting depth and the number of nodes
// (aliases counted as the nodes they stand for) are bounded, so a walk over
// the tree never recurses without bound nor expands an alias bomb.

#include "lang/yaml_events.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gavel::lang::yaml {

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Node {
    enum class Kind : unsigned char { Scalar, Sequence, Mapping };
    Kind kind = Kind::Scalar;
    Mark mark;
    std::string tag;   // an explicit tag, resolved; empty when none
    std::string text;  // a scalar's
    ScalarStyle style = ScalarStyle::Plain;
    std::vector<NodePtr> items;                        // a sequence's
    std::vector<std::pair<NodePtr, NodePtr>> members;  // a mapping's, in order (keys may repeat)
    std::size_t height = 1;                            // levels of nesting, this one included
    std::size_t nodes = 1;                             // this one and all below it, aliases expanded

    bool is_scalar() const { return kind == Kind::Scalar; }
    bool is_sequence() const { return kind == Kind::Sequence; }
    bool is_mapping() const { return kind == Kind::Mapping; }
    // Neither quoted, nor a block scalar, nor tagged.
    bool plain() const { return is_scalar() && tag.empty() && style == ScalarStyle::Plain; }
    // YAML's null: ~, null, Null, NULL, nothing at all, or tagged !!null.
    bool is_null() const;
    // The value of the last member whose key is a scalar with this text; null when none.
    const Node* get(std::string_view key) const;
};

// What go-yaml v3 decodes into a Go string field (OPA's annotation title, description and
// organizations): a scalar's text as written; nothing for null (the field, or a list's item,
// is left out) or for a node that is no scalar.
std::optional<std::string_view> go_string(const Node* n);

struct NodeLimits {
    std::size_t max_depth = 256;
    std::size_t max_nodes = 1'000'000;
};

struct Documents {
    bool ok = false;
    std::vector<NodePtr> documents;  // an empty document is an empty plain scalar
    std::string error;               // go-yaml's text ("yaml: line 2: ...")
    Mark error_mark;
};

// Up to `max_documents` documents of `text` (go-yaml's Unmarshal reads one and
// nothing after it).
Documents read_documents(std::string_view text, ErrorDialect dialect = ErrorDialect::GoYamlV2,
                         const NodeLimits& limits = {}, std::size_t max_documents = static_cast<std::size_t>(-1));

}  // namespace gavel::lang::yaml
