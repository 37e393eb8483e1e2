#pragma once
// Policy unit tests, as `opa test` runs them: discovery, one evaluation per
// test, and what the outcome was. The library owns this (not the CLI) so that
// every front end (the CLI's `gavel test`, an editor integration, the REPL)
// runs tests with the same semantics; printing is the front end's business.
//
//   * A test is a rule whose name starts with `test_`, in any package; a rule
//     named `todo_test_...` is a skipped test. Functions are never tests.
//     Each definition of a test is a test of its own, as in OPA: the second
//     `test_x` is reported as `test_x#01` (EngineOptions::number_duplicate_tests).
//   * Each test is evaluated alone (its own query `data.pkg.test_x`, fresh
//     caches), under a timeout. It passes when it is defined and exactly `true`.
//   * A multi-value test (`test_x contains name if`, `test_x[name] if`, v0
//     `test_x[name] { }`) reports one case per member: a set member is a passing
//     case; an object member passes when its value is `true` (so `test_x[name] :=
//     ok if` can report failing cases too). No member at all is a failure.
//   * print() output is captured per test.
//   * Optionally, the run is traced: for a failing test the expression of the
//     test's body that failed, with its variables' and operands' values
//     (explain), and the lines that evaluation reached (coverage).

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "lang/diagnostics.hpp"
#include "engine/engine.hpp"
#include "runtime/value.hpp"

namespace gavel::testing {

struct TestCase {
    std::string package;  // "data.a.b"
    std::string name;     // "test_x" (or "todo_test_x"; "test_x#01" for a second definition)
    std::string query;    // the rule's path as a query: data.pkg["test_x#01"]
    std::string file;
    uint32_t line = 0;
    uint32_t col = 0;
    bool skip = false;         // todo_test_
    bool multi_value = false;  // one result per case
    std::string full_name() const { return package + "." + name; }
};

// The tests among an engine's rules, in file order, each rule path once.
std::vector<TestCase> discover(const std::vector<RuleInfo>& rules);

// One case of a multi-value test.
struct SubResult {
    std::string name;  // the member: a string as is, anything else as Rego prints it
    bool fail = false;
};

// Where a failing test stopped: a top-level expression of its body that failed.
struct FailedExpression {
    std::string file;
    uint32_t line = 0;
    uint32_t col = 0;
    std::string text;
    std::vector<std::pair<std::string, runtime::Value>> bindings;                // its variables' values
    std::vector<std::pair<std::string, std::optional<runtime::Value>>> operands;  // its operands' values
};

struct TestResult {
    TestCase test;
    bool fail = false;
    bool skip = false;
    std::optional<EvalError> error;
    std::chrono::nanoseconds duration{0};
    std::string output;  // print() lines, each ending in '\n'
    std::vector<SubResult> cases;
    std::optional<FailedExpression> failed_at;            // with RunOptions::explain
    std::map<std::string, std::set<uint32_t>> covered;  // with RunOptions::coverage: file -> lines
    bool pass() const { return !fail && !skip && !error; }
};

struct RunOptions {
    std::chrono::nanoseconds timeout = std::chrono::seconds(5);  // per test; 0: none
    bool explain = false;   // find the failing expression of failing tests
    bool coverage = false;  // record the lines evaluation reached
    Tracer* tracer = nullptr;  // also sees every evaluation step (e.g. to print a trace)
};

// The policies' sources, for what only the syntax knows (a test body's
// top-level expressions, the lines coverage can reach).
struct PolicySource {
    std::string file;
    std::string text;
    std::optional<bool> v0_compatible;  // its dialect when not the engine's (a bundle manifest's)
};

class TestRunner {
public:
    // `engine` must hold the policies and data; `sources` the same policies' text.
    TestRunner(Engine& engine, std::vector<PolicySource> sources);
    ~TestRunner();

    // Compiles the tests' queries; compile errors of the policies come back here.
    lang::Diagnostics prepare(std::vector<TestCase> tests);
    const std::vector<TestCase>& tests() const;

    // Runs test i (skipped tests are not evaluated). Thread-safe.
    TestResult run(std::size_t i, const RunOptions& options) const;
    // One evaluation of test i, nothing recorded: true when it passed (for benchmarks).
    // Adds the evaluation's timer_rego_query_eval_ns to *eval_ns when given.
    bool run_quietly(std::size_t i, uint64_t* eval_ns = nullptr) const;

    // Lines that can be covered (rule heads and body expressions), per file.
    std::map<std::string, std::set<uint32_t>> coverable_lines() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gavel::testing
