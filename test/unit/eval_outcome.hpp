#pragma once
// What a query decided, as the evaluation tests compare it with OPA's answer:
// the first expression's value as JSON, "undefined", or the error's code.

#include <string>

#include "engine/engine.hpp"
#include "runtime/json.hpp"

namespace gavel::test {

inline std::string outcome_text(const EvalResult& r) {
    if (!r.ok()) return r.error->code;
    if (r.rows.empty()) return "undefined";
    return runtime::to_json(r.rows[0].expressions.at(0).value);
}

}  // namespace gavel::test
