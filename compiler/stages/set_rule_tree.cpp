// Stage: the module tree (packages) and the rule tree (rules by path), as
// OPA's setModuleTree and setRuleTree.

#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

void set_rule_tree(CompileContext& ctx) {
    ctx.owned_trees = build_trees(ctx.modules);
    ctx.rule_tree = ctx.owned_trees.rules.get();
    ctx.module_tree = ctx.owned_trees.modules.get();
}

}  // namespace gavel::compiler
