#pragma once
// The METADATA blocks of all modules by what they annotate (OPA's
// AnnotationSet): rule-scope blocks by their rule, package-scope blocks by
// package path, and document- and subpackages-scope blocks by path (a rule's
// path up to its first variable part, a package's path), in one tree as OPA
// keeps them. The type checker asks it which `schemas:` apply to a rule.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lang/ast.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::compiler {

class AnnotationSet {
public:
    // OPA's BuildAnnotationSet over the modules (in file order). A second
    // package-, document- or subpackages-scope block for one path is an error
    // ("document annotation redeclared: file:row", at the second block).
    static std::shared_ptr<const AnnotationSet> build(const std::vector<lang::Module*>& modules,
                                                      std::vector<lang::Diagnostic>& errors);

    // The `schemas:` entries that apply to a rule clause, weakest first (OPA's
    // getRuleAnnotation): enclosing subpackages scopes from the root down, the
    // package's scope, the document's, then the rule's own blocks (only for
    // the first clause of an else chain, the one they are written above).
    std::vector<const lang::SchemaAnnotation*> schemas_for(const lang::Module& module, const lang::Rule& rule,
                                                           bool first_clause) const;

private:
    std::map<const lang::Rule*, std::vector<const lang::Annotation*>> by_rule_;
    std::map<std::vector<std::string>, const lang::Annotation*> by_package_;
    std::map<std::vector<std::string>, const lang::Annotation*> by_path_;  // document and subpackages scopes
    bool has_schemas_ = false;  // any block with `schemas:` (most policies have none: nothing to look up)
};

}  // namespace gavel::compiler
