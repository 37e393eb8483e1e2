#pragma once
// Whether evaluating part of a plan again shows nothing that evaluating it once would
// not: no `with`, no print, no trace note, no nondeterministic builtin and no builtin of
// the embedder's own (it may count its calls), in it or in any function it calls. OPA
// keeps a function's defined results only, so a function that is undefined runs again,
// and would print again: a call is looked at down to the functions it reaches.
//
// Clauses share such leading literals (shared_prefix.hpp), and the function cache keys
// the containers a quiet function is called with by identity (RuleSet::quiet).

#include <unordered_map>

#include "runtime/eval/plan.hpp"

namespace gavel::eval {

class Repeatable {
public:
    explicit Repeatable(const Program& program) : program_(program) {}

    bool expr(const PExpr& e, std::size_t depth = 0);
    bool comprehension(const PTerm& t) { return term(t, 0); }
    bool builtin(const runtime::Builtin& b) const;
    bool function(const RuleSet& fn, std::size_t depth = 0);

private:
    bool body(const PBody& b, std::size_t depth);
    bool term(const PTerm& t, std::size_t depth);

    const Program& program_;
    std::unordered_map<const RuleSet*, bool> functions_;
};

}  // namespace gavel::eval
