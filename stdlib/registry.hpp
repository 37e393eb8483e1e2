#pragma once
// The builtin table: every builtin is declared once by name, arity and
// implementation. The planner resolves calls against it, the evaluator calls
// through it, and `gavel capabilities` lists it.

#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/value.hpp"
#include "stdlib/signature.hpp"

namespace gavel::stdlib {

// What a builtin returns: a value, undefined, or an error (OPA's code and message).
struct BuiltinResult {
    enum class Status : uint8_t { Value, Undefined, TypeError, BuiltinError } status = Status::Undefined;
    runtime::Value value;
    std::string message;

    static BuiltinResult of(runtime::Value v) { return {Status::Value, std::move(v), {}}; }
    static BuiltinResult undefined() { return {}; }
    static BuiltinResult type_error(std::string m) { return {Status::TypeError, {}, std::move(m)}; }
    static BuiltinResult error(std::string m) { return {Status::BuiltinError, {}, std::move(m)}; }
};

// Per-evaluation state a builtin may need (e.g. time.now_ns fixed within one query).
struct BuiltinContext {
    // time.now_ns: the wall clock when a builtin first asks, then fixed for the query
    // (set by tests to pin it). Most decisions never ask, and pay no clock read.
    std::optional<int64_t> now_ns;
    int64_t now() {
        if (!now_ns)
            now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
        return *now_ns;
    }
    std::function<void(std::string_view)> print;
    // Results of nondeterministic builtins (rand.intn, uuid.rfc4122) by a key of
    // the builtin's choosing, so they are stable within one query.
    std::unordered_map<std::string, runtime::Value> memo;
    runtime::Value runtime_info = runtime::Value::empty_object();  // opa.runtime()
    std::function<void(std::string_view)> trace;                    // trace(): a note for the tracer, if any
    bool allow_net = false;                                         // http.send may reach the network
    // The query's deadline: http.send waits no longer than this.
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

using BuiltinImpl = std::function<BuiltinResult(std::span<const runtime::Value> args, BuiltinContext& ctx)>;

// A relation (OPA's `walk`) yields many outputs for one call: it hands each to
// `emit`, which returns false when the caller wants no more. Its own result is
// undefined when done, or an error.
using BuiltinEmit = std::function<bool(const runtime::Value& output)>;
using RelationImpl =
    std::function<BuiltinResult(std::span<const runtime::Value> args, BuiltinContext& ctx, const BuiltinEmit& emit)>;

struct Builtin {
    std::string name;          // dotted: "count", "io.jwt.decode"
    std::size_t arity = 0;     // number of operands (the result is extra)
    BuiltinImpl impl;
    RelationImpl relation;     // set instead of impl for relations
    bool deprecated = false;   // only in v0-compatible mode
    bool nondeterministic = false;
    std::string infix;         // operator spelling, if any ("+", "==")
    std::shared_ptr<const Signature> signature;  // from the builtin table (builtin_table.cpp)
    std::vector<std::string> categories;
    bool native = false;  // the evaluator implements it (=, :=, print): declared, never called
};

// A declaration of the builtin table applied to a Builtin: signature (arity
// follows it), categories and flags. Returns an error for a bad declaration.
struct BuiltinDeclaration;
std::optional<std::string> apply_declaration(const BuiltinDeclaration& d, Builtin& b);

class Registry {
public:
    void add(Builtin b);
    const Builtin* find(std::string_view name) const;
    std::vector<const Builtin*> all() const;  // sorted by name

    // The registry with every builtin gavel ships.
    static const Registry& standard();

    // Table entries with no implementation registered: those the evaluator
    // implements itself (flag "native": =, :=, print) and any not done yet.
    const std::vector<Builtin>& declared_only() const { return declared_only_; }

private:
    std::unordered_map<std::string, Builtin> by_name_;
    std::vector<Builtin> declared_only_;
};

// Helpers for implementations: OPA's operand error messages.
std::string operand_type_error(std::string_view builtin, std::size_t index, std::string_view want,
                               const runtime::Value& got);

// Each family registers its builtins (one file per family).
void register_comparison(Registry& r);
void register_arithmetic(Registry& r);
void register_sets(Registry& r);
void register_aggregates(Registry& r);
void register_strings(Registry& r);
void register_types(Registry& r);
void register_regex(Registry& r);
void register_objects(Registry& r);
void register_arrays(Registry& r);
void register_json(Registry& r);
void register_casts(Registry& r);
void register_graph(Registry& r);
void register_encoding(Registry& r);
void register_time(Registry& r);
void register_units(Registry& r);
void register_semver(Registry& r);
void register_numbers(Registry& r);
void register_uuid(Registry& r);
void register_crypto(Registry& r);
void register_jwt(Registry& r);
void register_net(Registry& r);
void register_walk(Registry& r);
void register_deprecated(Registry& r);
void register_rego(Registry& r);
void register_providers(Registry& r);
void register_http(Registry& r);
void register_graphql(Registry& r);

}  // namespace gavel::stdlib
