#pragma once
// OPA's rule index (v1/ast/index.go, baseDocEqIndex): a trie over the
// equality tests of rule bodies (`input.x = "a"`, `glob.match`), by the refs
// most rules test first. A lookup resolves each ref and keeps the rules whose
// test can hold; a ref that is unknown keeps every branch. Partial
// evaluation uses it for what OPA uses it: which rules to evaluate, and in
// what order (the residual queries come out in that order).

#include <functional>
#include <memory>
#include <vector>

#include "engine/partial/program.hpp"

namespace gavel::partial {

// What a ref of the index resolves to: a value, nothing (undefined), or unknown.
struct Resolved {
    bool unknown = false;
    TermPtr value;  // null: undefined
};
using IndexResolver = std::function<Resolved(const Term& ref)>;

class RuleIndex {
public:
    // `rules`: the first clauses of the rule set; their else clauses are indexed too.
    RuleIndex(const std::vector<const Rule*>& rules, const std::function<bool(const Term& ref)>& is_virtual);
    ~RuleIndex();

    IndexResult lookup(const IndexResolver& resolve) const;
    // Every rule, as OPA's AllRules (evaluation with rule indexing disabled).
    IndexResult all_rules() const;

    struct Node;
    struct Mapper;
    struct Traversal;

private:
    IndexResult result_of(Traversal& tr) const;
    std::unique_ptr<Node> root_;
    const Rule* default_rule_ = nullptr;
    bool multi_value_ = false;
    bool only_ground_refs_ = true;
};

}  // namespace gavel::partial
