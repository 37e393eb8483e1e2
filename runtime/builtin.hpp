#pragma once
// The interface between the evaluator and the builtin functions: what a call
// receives (evaluated operands, per-evaluation context) and returns (a value,
// undefined, or an error). The implementations live in stdlib/, which
// registers them into a BuiltinRegistry; the evaluator knows only this header.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lang/builtins.hpp"
#include "runtime/work_budget.hpp"
#include "runtime/value.hpp"

namespace gavel::runtime {

// What a builtin returns: a value, undefined, or an error (OPA's code and message).
struct BuiltinResult {
    enum class Status : uint8_t {
        Value,
        Undefined,
        TypeError,
        BuiltinError,
        Conflict,
        Cancelled
    } status = Status::Undefined;
    Value value;
    std::string message;

    static BuiltinResult of(Value v) { return {Status::Value, std::move(v), {}}; }
    static BuiltinResult undefined() { return {}; }
    static BuiltinResult type_error(std::string m) { return {Status::TypeError, {}, std::move(m)}; }
    static BuiltinResult error(std::string m) { return {Status::BuiltinError, {}, std::move(m)}; }
    // More than one value where one is allowed: ends the evaluation (eval_conflict_error), strict or not.
    static BuiltinResult conflict(std::string m) { return {Status::Conflict, {}, std::move(m)}; }
    // The query's deadline passed, it was cancelled, or its memory limit would be
    // crossed during the call: ends the evaluation (eval_cancel_error).
    static BuiltinResult cancelled() { return {Status::Cancelled, {}, {}}; }
};

// Per-evaluation state a builtin may need (e.g. time.now_ns fixed within one
// query), and the query's deadline, cancellation and memory limit (WorkBudget):
// a builtin whose work grows with its input asks spend() in its loops and
// affords() before a large allocation, and returns cancelled() when told to
// stop. http.send waits no longer than the deadline.
struct BuiltinContext : WorkBudget {
    // time.now_ns: the wall clock when a builtin first asks, then fixed for the query
    // (set by tests to pin it). Most decisions never ask, and pay no clock read.
    std::optional<int64_t> now_ns;
    int64_t now() {
        if (!now_ns)
            now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
        return *now_ns;
    }
    std::function<void(std::string_view)> print;
    std::uint64_t prints = 0;  // print() calls so far: evaluation that printed nothing can be skipped unseen
    // Results of nondeterministic builtins (rand.intn, uuid.rfc4122) by a key of
    // the builtin's choosing, so they are stable within one query.
    std::unordered_map<std::string, Value> memo;
    Value runtime_info = Value::empty_object();   // opa.runtime()
    std::function<void(std::string_view)> trace;  // trace(): a note for the tracer, if any
    bool allow_net = false;                       // http.send may reach the network
};

using BuiltinImpl = std::function<BuiltinResult(std::span<const Value> args, BuiltinContext& ctx)>;

// A relation (OPA's `walk`) yields many outputs for one call: it hands each to
// `emit`, which returns false when the caller wants no more. Its own result is
// undefined when done, or an error.
using BuiltinEmit = std::function<bool(const Value& output)>;
using RelationImpl =
    std::function<BuiltinResult(std::span<const Value> args, BuiltinContext& ctx, const BuiltinEmit& emit)>;

// An implementation of a builtin, joined with its declaration (lang/builtins.hpp).
struct Builtin {
    std::string name;       // dotted: "count", "io.jwt.decode"
    std::size_t arity = 0;  // number of operands (the result is extra)
    BuiltinImpl impl;
    RelationImpl relation;                          // set instead of impl for relations
    std::shared_ptr<const lang::BuiltinDecl> decl;  // signature and flags; set when registered
};

// Implementations by name. The evaluator calls through it; stdlib fills the
// standard one (stdlib/registry.hpp), an embedder may add its own.
class BuiltinRegistry {
public:
    // Adds or replaces `b`; its declaration is the table's unless `b.decl` is set.
    void add(Builtin b);
    const Builtin* find(std::string_view name) const;
    std::vector<const Builtin*> all() const;  // sorted by name

private:
    std::unordered_map<std::string, Builtin> by_name_;
};
}  // namespace gavel::runtime
