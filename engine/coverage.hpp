#pragma once
// Line coverage as OPA's cover package counts it (`opa test --coverage`,
// `opa eval --coverage`): a line can be covered when it holds a rule head or
// starts a body expression (default rules excepted); it is covered when
// evaluation evaluated an expression there or exited a rule clause there.

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "engine/engine.hpp"
#include "lang/ast.hpp"

namespace gavel::coverage {

using Lines = std::map<std::string, std::set<uint32_t>>;  // file -> line numbers

// The coverable lines of one module, added to `out`.
void add_coverable_lines(const lang::Module& module, std::set<uint32_t>& out);

// Records the lines an evaluation reached; pass it as (or chain it from) EvalOptions::tracer.
class CoverageTracer final : public Tracer {
public:
    void trace(const TraceEvent& event) override;
    const Lines& covered() const { return covered_; }
    Lines take() { return std::move(covered_); }

private:
    Lines covered_;
    std::set<uint32_t>* current_ = nullptr;  // covered_[current_file_]: most events stay in one file
    std::string current_file_;
};

}  // namespace gavel::coverage
