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
//   * Each test is evaluated alone (its own query `data.pkg.test_x`, the rule's
//     name whatever follows it in the head, fresh caches), under a timeout.
//   * What passes depends on the head, as in OPA's tester (runTest, by
//     Head.DocKind): a test written as a partial object (`test_x[name] if`,
//     `test_x[k] := v`, v0 `test_x[k] = v { }`, any head with a variable part
//     after the name) reports its keys as sub-results: a key passes when its
//     value is `true` (or, nested, when all of its own keys pass); a case the
//     body started (its key bound) but did not produce failed; the test fails
//     when one of them does. No key at all passes (the value is `{}`). Any other
//     test -- `test_x if`, `test_x := v`, and multi-value `test_x contains v` /
//     v0 `test_x[v] { }`, whose value is a set -- passes only when its value is
//     exactly `true`.
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
    bool skip = false;            // todo_test_
    bool partial_object = false;  // reports sub-results (see above); settled by TestRunner::prepare
    std::string full_name() const { return package + "." + name; }
};

// The tests among an engine's rules, in file order, each test name (query) once.
std::vector<TestCase> discover(const std::vector<RuleInfo>& rules);

// One case of a partial-object test (OPA's SubResult): a key of the test's value.
struct SubResult {
    std::string key;   // a string key as is, any other as compact JSON (as OPA's termToString)
    std::string name;  // what is printed for it: the key, but "" when its value was null (as OPA)
    bool fail = false;
    std::vector<SubResult> cases;  // a nested object's keys, sorted by key

    bool leaf() const { return cases.empty(); }
};

// Where a failing test stopped: a top-level expression of its body that failed.
struct FailedExpression {
    std::string file;
    uint32_t line = 0;
    uint32_t col = 0;
    std::string text;
    std::vector<std::pair<std::string, runtime::Value>> bindings;                 // its variables' values
    std::vector<std::pair<std::string, std::optional<runtime::Value>>> operands;  // its operands' values
};

struct TestResult {
    TestCase test;
    bool fail = false;
    bool skip = false;
    std::optional<EvalError> error;
    std::chrono::nanoseconds duration{0};
    std::string output;                                 // print() lines, each ending in '\n'
    std::vector<SubResult> cases;                       // partial-object tests: the sub-results, sorted by key
    std::optional<runtime::Value> not_boolean;          // a failed test's value when it was not a boolean (e.g. a set)
    std::optional<FailedExpression> failed_at;          // with RunOptions::explain
    std::map<std::string, std::set<uint32_t>> covered;  // with RunOptions::coverage: file -> lines
    bool pass() const { return !fail && !skip && !error; }
};

struct RunOptions {
    std::chrono::nanoseconds timeout = std::chrono::seconds(5);  // per test; 0: none
    bool explain = false;                                        // find the failing expression of failing tests
    bool coverage = false;                                       // record the lines evaluation reached
    Tracer* tracer = nullptr;  // also sees every evaluation step (e.g. to print a trace)
};

class TestRunner {
public:
    // `engine` must hold the policies and data. What only the syntax knows (a test
    // body's top-level expressions, a head's parts) is read from its parsed modules.
    explicit TestRunner(Engine& engine);
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
