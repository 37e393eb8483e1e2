#pragma once
// `# METADATA` comment blocks: their YAML is checked and kept on the Module,
// attached to the package or rule that follows the block.

#include "lang/ast.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::lang {

void attach_annotations(Module& module, Diagnostics& diagnostics);

}  // namespace gavel::lang
