#pragma once
// What a query decided, as the evaluation tests compare it with OPA's answer:
// the first expression's value as JSON, "undefined", or the error's code.

#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "engine/engine.hpp"
#include "runtime/json.hpp"

namespace gavel::test {

inline std::string outcome_text(const EvalResult& r) {
    if (!r.ok()) return r.error->code;
    if (r.rows.empty()) return "undefined";
    return runtime::to_json(r.rows[0].expressions.at(0).value);
}

// A query's outcome over one policy, base data and input (JSON texts; null: none).
struct Setup {
    const char* policy = nullptr;
    const char* data = nullptr;
    const char* input = nullptr;
    bool strict_builtin_errors = false;
};

// A query evaluated over one policy, base data and input; print() lines (each ending in
// a newline) go to `printed` when given.
inline EvalResult eval_of(std::string_view query, const Setup& s, std::string* printed = nullptr) {
    Engine engine;
    if (s.policy) REQUIRE(engine.add_policy("test.rego", s.policy).empty());
    if (s.data) REQUIRE_FALSE(engine.add_data(runtime::parse_json(s.data).value).has_value());
    auto q = engine.prepare(std::string(query));
    REQUIRE(q.ok());
    runtime::ParseResult input;
    EvalOptions o;
    if (s.input) {
        input = runtime::parse_json(s.input);
        o.input = &input.value;
    }
    o.strict_builtin_errors = s.strict_builtin_errors;
    if (printed) o.print = [printed](std::string_view line) { *printed += std::string(line) + "\n"; };
    return q.value->eval(o);
}

inline std::string outcome_of(std::string_view query, const Setup& s) { return outcome_text(eval_of(query, s)); }

// The first expression's value as JSON, "undefined", or the error's code and message.
inline std::string value_or_error_text(const EvalResult& r) {
    if (!r.ok()) return r.error->code + ": " + r.error->message;
    if (r.rows.empty()) return "undefined";
    return runtime::to_json(r.rows[0].expressions.at(0).value);
}

}  // namespace gavel::test
