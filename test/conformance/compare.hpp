// Judging one case: the engine's outcome against what the case expects,
// compared as SOURCE.md ("How OPA runs a case") describes.
#pragma once

#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "test/conformance/suite.hpp"

namespace gavel::conformance {

struct Verdict {
    bool pass = false;
    std::string why;  // for failures: expected vs actual, or the error
};

// A value in the JSON form OPA compares: sets become arrays (canonical order),
// non-string object keys become their JSON text. (JSON text round trip.)
Value json_form(const Value& v);

// `v` with its elements sorted in OPA's value order when it is an array.
Value sorted_if_array(const Value& v);

// The engine's rows as a set of binding objects {name: json_form(value)};
// `ignore_generated_vars` drops names starting with "__localq"; `sort_bindings`
// sorts each top-level binding value.
Value actual_rows(const ResultRows& rows, bool ignore_generated_vars, bool sort_bindings);

// The expected rows (objects from want_result) as a set, sorted the same way.
Value expected_rows(const std::vector<Value>& rows, bool sort_bindings);

// Result rows, error code, error text (substring of EvalError::to_string()),
// want_defined: every expectation the case states must hold, and an error the
// case does not expect fails it.
Verdict judge(const Case& c, const EvalResult& result);

}  // namespace gavel::conformance
