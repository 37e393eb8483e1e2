#pragma once
// OPA's copy propagation of partial evaluation results
// (v1/topdown/copypropagation): `input.x = a; a > 1` becomes `input.x > 1`.
// Variables equal to each other collapse into one (a live one when there is
// one), variables equal to a constant become the constant, and a variable
// bound to a ref or a call is replaced by it where that stays valid Rego.
// The live variables (the query's own, the unknowns) are kept.

#include "compiler/ast/var_set.hpp"
#include "engine/partial/program.hpp"

namespace gavel::partial {

class CopyPropagator {
public:
    CopyPropagator(compiler::VarSet livevars, const Program& program) : live_(std::move(livevars)), program_(program) {}
    CopyPropagator& ensure_non_empty_body(bool yes) {
        ensure_non_empty_ = yes;
        return *this;
    }
    Body apply(const Body& query);

private:
    compiler::VarSet live_;
    const Program& program_;
    bool ensure_non_empty_ = false;
    int next_local_ = 0;
};

}  // namespace gavel::partial
