#pragma once
// Fresh variable names for what the compiler introduces: `__local0__`,
// `__local1__` ... (`__localq0__` in queries), skipping any name the
// policies already use, as OPA's localVarGenerator does.

#include <string>

#include "compiler/ast/var_set.hpp"

namespace gavel::compiler {

class VarGenerator {
public:
    VarGenerator() = default;
    VarGenerator(std::string prefix, VarSet exclude) : prefix_(std::move(prefix)), exclude_(std::move(exclude)) {}

    std::string next() {
        while (true) {
            std::string v = prefix_ + std::to_string(counter_++) + "__";
            if (!exclude_.count(v)) return v;
        }
    }

private:
    std::string prefix_ = "__local";
    VarSet exclude_;
    std::size_t counter_ = 0;
};

}  // namespace gavel::compiler
