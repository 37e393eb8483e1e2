#pragma once
// A rule's METADATA chain as OPA's AnnotationSet.Chain orders it, nearest first: the rule's
// own blocks (last written first), its document's block, its package's, then the enclosing
// subpackages' blocks (deepest first). rego.metadata.chain() prints it; the data filters
// read `compile:` from it.

#include <cstddef>
#include <string>
#include <vector>

#include "lang/ast.hpp"

namespace gavel::compiler {

struct ChainLink {
    const lang::Annotation* annotation;
    std::vector<std::string> path;  // what the block annotates, below data (compiler/ast/data_paths.hpp)
};

// The chain of `rule` of `module`, looked up over `modules` (all of them, `module`
// included); `index` is the rule's position in module.rules, whose rule-scope blocks open
// the chain (npos for an else clause: its blocks are the first clause's).
std::vector<ChainLink> annotation_chain(const std::vector<const lang::Module*>& modules, const lang::Module& module,
                                        const lang::Rule& rule, std::size_t index);

// The rule-scope links opening `chain` (how many).
std::size_t rule_scope_links(const std::vector<ChainLink>& chain);

}  // namespace gavel::compiler
