#pragma once
// The embedding API of gavel: add policies and data, prepare a query once,
// evaluate it many times, from many threads at once.
//
//   gavel::Engine engine;
//   engine.add_policy("policy.rego", text);            // parse errors come back as Diagnostics
//   engine.add_data(gavel::runtime::parse_json(R"({"kubernetes": {}})").value);
//   auto q = engine.prepare("data.kubernetes.admission.deny");
//   auto r = q.value->eval({.input = &input});         // thread-safe
//
// A PreparedQuery holds an immutable compiled program and data snapshot; later
// changes to the Engine do not affect it. No global mutable state.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lang/diagnostics.hpp"
#include "runtime/value.hpp"

namespace gavel {

struct EngineOptions {
    bool v0_compatible = false;          // parse modules in the pre-1.0 dialect unless they import rego.v1
    bool experimental_keywords = false;  // allow the experimental `and` / `or` keywords
};

// An evaluation error as OPA reports it: code, message and where.
struct EvalError {
    std::string code;     // eval_conflict_error, eval_type_error, eval_builtin_error, eval_cancel_error ...
    std::string message;
    std::string file;     // empty when the error has no location
    uint32_t line = 0;
    uint32_t col = 0;

    // "<file>:<line>: <code>: <message>", or "<code>: <message>" without a location (OPA's form).
    std::string to_string() const;
};

struct ExpressionResult {
    runtime::Value value;
    std::string text;  // the expression's source text
    uint32_t line = 0;
    uint32_t col = 0;
};

// One solution of a query.
struct ResultRow {
    std::vector<ExpressionResult> expressions;                     // one per query expression
    std::vector<std::pair<std::string, runtime::Value>> bindings;  // the query's variables, sorted by name
};

// Named timers in nanoseconds, as `opa eval --metrics` names them (timer_rego_query_eval_ns ...).
using Metrics = std::vector<std::pair<std::string, uint64_t>>;

struct EvalResult {
    std::vector<ResultRow> rows;    // empty: undefined
    std::optional<EvalError> error; // with strict builtin errors, rows found before the error are kept
    Metrics metrics;
    bool ok() const { return !error; }
};

struct EvalOptions {
    const runtime::Value* input = nullptr;      // null: input is undefined
    bool strict_builtin_errors = false;         // stop at the first builtin error instead of treating the call as undefined
    std::chrono::nanoseconds timeout{0};        // 0: none; on expiry the result is eval_cancel_error
    const std::atomic<bool>* cancel = nullptr;  // set to true from another thread to cancel
    std::function<void(std::string_view)> print;  // where print() output goes; stderr when empty
};

class Program;  // compiled modules + data snapshot (runtime/eval)

class PreparedQuery {
public:
    EvalResult eval(const EvalOptions& options = {}) const;
    // The variables the query binds, in result order.
    const std::vector<std::string>& variables() const;

private:
    friend class Engine;
    struct State;
    std::shared_ptr<const State> state_;
};

template <class T>
struct Prepared {
    std::optional<T> value;
    lang::Diagnostics diagnostics;  // parse and compile errors with file:line:col
    Metrics metrics;                // timer_rego_module_compile_ns, timer_rego_query_compile_ns ...
    bool ok() const { return value.has_value(); }
};

// A builtin supplied by the embedder: receives evaluated arguments, returns a
// value, or nothing for undefined. Errors are reported with `error`.
struct BuiltinCall {
    std::vector<runtime::Value> args;
    std::string error;  // set to fail the call with eval_builtin_error
};
using BuiltinFunction = std::function<std::optional<runtime::Value>(BuiltinCall&)>;

class Engine {
public:
    explicit Engine(EngineOptions options = {});
    ~Engine();
    Engine(Engine&&) noexcept;
    Engine& operator=(Engine&&) noexcept;

    // Parses a module; it replaces a module of the same file name. Returns parse errors (empty on success).
    lang::Diagnostics add_policy(std::string file, std::string text);
    void remove_policy(const std::string& file);

    // Merges `data` into the data tree at `path` (empty: the root). Conflicting
    // values at one path are an error message; nothing is changed then.
    std::optional<std::string> add_data(const runtime::Value& data, const std::vector<std::string>& path = {});

    // Makes an embedder's function callable from policies by its (dotted) name.
    void register_builtin(std::string name, std::size_t arity, BuiltinFunction fn);
    // The names of the builtins policies can call (gavel's and registered ones), sorted;
    // for tools such as the REPL's completion.
    std::vector<std::string> builtin_names() const;

    // Compiles the modules (once per change) and the query.
    Prepared<PreparedQuery> prepare(std::string_view query);

    // All current compile errors of the modules (empty when they compile).
    lang::Diagnostics check();

    // A Rego term (not JSON: sets, trailing commas, 1.0) as a value, e.g. for test inputs.
    static Prepared<runtime::Value> parse_term(std::string_view text);

    const EngineOptions& options() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gavel
