// Stage: the METADATA blocks of all modules by what they annotate (OPA's
// setAnnotationSet, compiler/annotation_set.hpp). Two package-, document- or
// subpackages-scope blocks for one path are an error, as in OPA; the type
// checker reads the `schemas:` that apply to each rule from the set.

#include "compiler/annotation_set.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

void set_annotation_set(CompileContext& ctx) {
    std::vector<lang::Diagnostic> errors;
    ctx.annotation_set = AnnotationSet::build(ctx.modules, errors);
    for (auto& e : errors)
        if (!ctx.error(std::move(e))) break;
}

}  // namespace gavel::compiler
