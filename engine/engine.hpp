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

#include "support/small_vector.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/schema_set.hpp"
#include "engine/compared_constants.hpp"
#include "engine/partial/filters.hpp"
#include "engine/partial/support.hpp"
#include "lang/diagnostics.hpp"
#include "runtime/eval/eval_error.hpp"
#include "runtime/eval/tracing.hpp"
#include "runtime/value.hpp"

namespace gavel::lang {
struct Module;
}

namespace gavel {

struct EngineOptions {
    bool v0_compatible = false;          // parse modules in the pre-1.0 dialect unless they import rego.v1
    bool experimental_keywords = false;  // allow the experimental `and` / `or` keywords
    bool allow_net = false;              // http.send may reach the network (else "unallowed host")
    // As `opa test`: each definition of a `test_` rule is a test of its own, the
    // second and later renamed `test_x#01`, `test_x#02` ... (lang/test_names.hpp).
    bool number_duplicate_tests = false;
    // A rule where base data is too is "conflicting rule for data path ... found", as
    // `opa eval`, `opa test` and OPA's server compile. OPA's own conformance harness
    // compiles without this check (its cases expect the data to win): off for that only.
    bool check_data_conflicts = true;
    // OPA's strict mode (`-S`): unused imports, local assignments and function
    // arguments, duplicate imports, shadowed input/data and deprecated builtins
    // are errors in every module and query.
    bool strict = false;
    // The builtins policies may call, from a capabilities file (`--capabilities`):
    // others are undefined functions, as OPA. Unset: every builtin.
    std::optional<std::set<std::string>> allowed_builtins = std::nullopt;
    // Compile errors reported before "error limit reached" (0: no limit); OPA's default.
    std::size_t max_errors = 10;
    // JSON Schemas for the type checker (`-s`, engine/schema_loader.hpp): the
    // schema of `input` and those METADATA `schemas:` annotations name.
    std::shared_ptr<const compiler::SchemaSet> schemas = nullptr;
    // Off for a one-shot run (gavel test): the first compilation takes the parsed modules
    // over instead of copying them, so the engine holds one AST of each module, not two.
    // The rules' bodies then move on from the compiled modules into the evaluation plan.
    // From then on rules(), parsed_modules() and coverable_lines() list nothing, a policy
    // or data change refuses to compile (there is nothing left to compile again), and so
    // do partial evaluation and compared_constants() (they read the bodies).
    bool keep_parsed_modules = true;
};

struct ExpressionResult {
    runtime::Value value;
    std::string_view text;  // the expression's source text (its row keeps it alive)
    uint32_t line = 0;
    uint32_t col = 0;
};

// One solution of a query. The containers hold one element inline: most
// decisions have one row of one expression, and they then allocate nothing.
struct ResultRow {
    boost::container::small_vector<ExpressionResult, 1> expressions;  // one per query expression
    std::vector<std::pair<std::string, runtime::Value>> bindings;     // the query's variables, sorted by name
    std::shared_ptr<const void> text_owner;  // what the expressions' text points into (the prepared query)
};
using ResultRows = boost::container::small_vector<ResultRow, 1>;

// Named timers in nanoseconds, as `opa eval --metrics` names them (timer_rego_query_eval_ns ...).
// The names are string literals (static storage), so recording one allocates nothing.
using Metrics = boost::container::small_vector<std::pair<std::string_view, uint64_t>, 2>;

struct EvalResult {
    ResultRows rows;                 // empty: undefined
    std::optional<EvalError> error;  // with strict builtin errors, rows found before the error are kept
    Metrics metrics;
    bool ok() const { return !error; }
};

struct EvalOptions {
    const runtime::Value* input = nullptr;  // null: input is undefined
    Tracer* tracer = nullptr;               // null: no tracing (the fast path)
    bool strict_builtin_errors = false;     // stop at the first builtin error instead of treating the call as undefined
    std::chrono::nanoseconds timeout{0};    // 0: none; on expiry the result is eval_cancel_error
    const std::atomic<bool>* cancel = nullptr;              // set to true from another thread to cancel
    std::function<void(std::string_view)> print = nullptr;  // where print() output goes; stderr when empty
    const runtime::Value* runtime_info = nullptr;           // what opa.runtime() returns ({} when null)
    // Bytes the evaluation may hold on its thread beyond what the thread held
    // when it started (0: no limit); past it the result is eval_cancel_error.
    // Enforced only in programs that count allocations (runtime/memory_meter.hpp:
    // the gavel binary does); elsewhere it has no effect.
    std::uint64_t max_memory = 0;
    // Time the evaluation into EvalResult::metrics (timer_rego_query_eval_ns ...), as
    // OPA's rego.Metrics asks for; off, a decision reads no clock (unless it has a timeout).
    bool metrics = false;
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

// Partial evaluation (OPA's rego.Partial): the query evaluated as far as what
// is known allows, the rest left as residual queries and support rules.
struct PartialQueryOptions {
    // Refs that are unknown ("input", "input.user", "data.x"); unset: `input`
    // (an empty list: nothing is unknown).
    std::optional<std::vector<std::string>> unknowns = std::nullopt;
    std::vector<std::string> disable_inlining = {};  // refs whose rules become support rules
    bool shallow_inlining = false;                   // inline only rules that are fully known
    bool nondeterministic_builtins = false;          // evaluate them (rand.intn ...) when their operands are known
    bool rule_indexing = true;                       // false: evaluate every rule, as data filters do
    std::string package = {};                        // as QueryOptions
    std::vector<std::string> imports = {};
};

struct PartialOptions {
    const runtime::Value* input = nullptr;
    std::chrono::nanoseconds timeout{0};
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(std::string_view)> print = nullptr;
    bool strict_builtin_errors = false;
};

struct PartialResult {
    std::vector<lang::Body> queries;              // residual queries: any of them true means the query is
    std::vector<partial::SupportModule> support;  // rules the queries refer to (data.partial...)
    std::optional<EvalError> error;
    Metrics metrics;  // timer_rego_partial_eval_ns
    bool ok() const { return !error; }
    // {"queries":[...],"support":[...]} as OPA's AST JSON (compact; empty lists left out).
    std::string json() const;
};

class PreparedPartial {
public:
    PartialResult run(const PartialOptions& options = {}) const;  // thread-safe

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

// One rule of the loaded modules, for tools (test discovery, completion): what
// is defined where. Every definition is listed (a rule defined by several
// clauses appears once per clause), in file order.
struct RuleInfo {
    std::string package;  // "data.a.b"
    std::string name;     // the first name of the rule's head: `p` for `p`, `p.q[x]` and `p[x]`
    std::string path;     // the rule's data path up to its first variable part: "data.a.b.p.q"
    std::string file;
    uint32_t line = 0;
    uint32_t col = 0;
    bool multi_value = false;  // a partial set or object: `p contains x`, `p[x]` (v0), `p[x] := v`, `p.q[x] if`
    bool function = false;     // `f(x) := ...`
    bool is_default = false;
};

// A builtin supplied by the embedder: receives evaluated arguments, returns a
// value, or nothing for undefined. Errors are reported with `error`.
struct BuiltinCall {
    std::vector<runtime::Value> args;
    std::string error;  // set to fail the call with eval_builtin_error
};
using BuiltinFunction = std::function<std::optional<runtime::Value>(BuiltinCall&)>;

// A builtin's entry in the builtin table. Signatures use gavel's notation
// (lang/types.hpp): "(string, array[number]) => boolean", unions with
// "|", objects as object[string: any] or {"key": number}.
struct BuiltinDeclaration {
    std::string name;  // dotted: "acme.lookup"
    std::string signature;
    std::vector<std::string> categories;  // shown by `capabilities`; free-form
    bool nondeterministic = false;        // its results may differ between calls (listed as such)
};

class Engine {
public:
    explicit Engine(EngineOptions options = {});
    ~Engine();
    Engine(Engine&&) noexcept;
    Engine& operator=(Engine&&) noexcept;

    // Parses a module; it replaces a module of the same file name. Returns parse errors (empty on success).
    lang::Diagnostics add_policy(std::string file, std::string text);
    // The same, with this module's dialect chosen per call (a bundle manifest's
    // rego_version); unset fields fall back to the EngineOptions.
    struct PolicyOptions {
        std::optional<bool> v0_compatible;
    };
    lang::Diagnostics add_policy(std::string file, std::string text, const PolicyOptions& options);
    void remove_policy(const std::string& file);

    // Merges `data` into the data tree at `path` (empty: the root). Conflicting
    // values at one path are an error message; nothing is changed then.
    std::optional<std::string> add_data(const runtime::Value& data, const std::vector<std::string>& path = {});

    // Replaces the document at `path` (empty: the whole data tree, which must then be an
    // object), creating missing objects on the way. A non-object on the way is an error.
    std::optional<std::string> set_data(const runtime::Value& data, const std::vector<std::string>& path = {});
    // Removes the document at `path`; false when there is none.
    bool remove_data(const std::vector<std::string>& path);
    // The base data tree (all data added so far).
    const runtime::Value& data() const;

    // Makes an embedder's function callable from policies by its (dotted) name.
    void register_builtin(std::string name, std::size_t arity, BuiltinFunction fn);
    // The same, declared as gavel declares its own builtins: the arity follows the
    // signature, and capabilities() lists its types. A malformed signature is an
    // error (nothing is registered then).
    std::optional<std::string> register_builtin(const BuiltinDeclaration& declaration, BuiltinFunction fn);
    // OPA's capabilities document (`opa capabilities`) for gavel's builtins and the registered ones.
    runtime::Value capabilities() const;
    // The names of the builtins policies can call (gavel's and registered ones), sorted;
    // for tools such as the REPL's completion.
    std::vector<std::string> builtin_names() const;

    struct QueryOptions {
        // As OPA's rego package: each expression's value is captured (`1 == 2`
        // has the value false, a single `data.p.allow` that is false too).
        // Off, the query is compiled as it is written: what OPA's REPL checks first.
        bool capture_values = true;
        // Where the query is written, as `opa eval --package` / `--import`:
        // rules of the package may be named without `data.` and a prefix, and
        // imports bind names ("data.lib.k8s", "data.x as y").
        std::string package = {};
        std::vector<std::string> imports = {};
        // Built-ins the query itself may not call: a type error, as OPA's server has it for
        // http.send in ad-hoc queries ("unsafe built-in function calls in expression").
        std::set<std::string> unsafe_builtins = {};
    };
    // Compiles the modules (once per change) and the query.
    Prepared<PreparedQuery> prepare(std::string_view query, const QueryOptions& options);
    Prepared<PreparedQuery> prepare(std::string_view query) { return prepare(query, QueryOptions{}); }

    // Compiles the modules and a query for partial evaluation (OPA's PrepareForPartial):
    // `==` in the query is read as `=`, unknowns and inlining options are fixed here.
    Prepared<PreparedPartial> prepare_partial(std::string_view query, const PartialQueryOptions& options = {});
    // prepare_partial, then run.
    Prepared<PartialResult> partial(std::string_view query, const PartialQueryOptions& query_options = {},
                                    const PartialOptions& options = {});
    // Data filtering: the unknowns and mask rule the METADATA `compile:` blocks of the
    // rule at `path` ({"filters", "include"}, below data) give (engine/partial/filters.hpp);
    // compile errors of the modules in `errors`.
    partial::FilterAnnotations filter_annotations(const std::vector<std::string>& path);

    // The rules of the added modules (parsed, not necessarily compiling), by file then position.
    std::vector<RuleInfo> rules() const;

    // The added modules as parsed (not rewritten by compilation), by file name; valid
    // until a policy is added or removed. Tools read their syntax here rather than parse
    // the sources a second time.
    std::vector<std::pair<std::string_view, const lang::Module*>> parsed_modules() const;

    // The lines of the added modules coverage can reach (rule heads, body
    // expressions), per file: what `--coverage` reports against (engine/coverage.hpp).
    std::map<std::string, std::set<uint32_t>> coverable_lines() const;

    // All current compile errors of the modules (empty when they compile).
    lang::Diagnostics check();
    // Module `file` after compilation (rewritten as OPA's compiler rewrites it) as OPA's
    // AST JSON, what OPA's REST API shows as a policy's "ast"; nullopt when there is no
    // such module or the modules do not compile.
    std::optional<std::string> compiled_module_json(const std::string& file);

    // The constants each package's compiled rules compare these references with
    // (engine/compared_constants.hpp); empty with `errors` set when the modules do not compile.
    std::vector<ComparedConstants> compared_constants(const std::vector<std::string>& refs, lang::Diagnostics& errors);

    // A Rego term (not JSON: sets, trailing commas, 1.0) as a value, e.g. for test inputs.
    static Prepared<runtime::Value> parse_term(std::string_view text);

    const EngineOptions& options() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gavel
