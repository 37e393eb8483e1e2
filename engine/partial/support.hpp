#pragma once
// The support modules of a partial evaluation result: rules the residual
// queries refer to (as data.partial...), in OPA's head shape.

#include <string>
#include <vector>

#include "lang/ast.hpp"

namespace gavel::partial {

struct SupportRule {
    std::string name;                 // Head.Name: empty for rules named by a longer ref
    std::vector<lang::TermPtr> ref;   // Head.Reference: a var, then parts
    std::vector<lang::TermPtr> args;  // functions
    lang::TermPtr key;                // partial sets (and OPA's key of two-part single-value refs)
    lang::TermPtr value;
    bool is_default = false;
    lang::Body body;
};

struct SupportModule {
    std::vector<lang::TermPtr> package;  // data, then string parts
    std::vector<SupportRule> rules;
};

}  // namespace gavel::partial
