#pragma once
// The evaluation plan: what the planner makes of the AST. Names are resolved
// (locals are frame slots, rule references are data paths, calls point at a
// builtin or a function's RuleSet), constants are Values, and body literals
// are in an order where every variable is bound before it is needed.

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/compiler.hpp"
#include "lang/location.hpp"
#include "runtime/value.hpp"
#include "runtime/builtin.hpp"

namespace gavel::eval {

using runtime::Value;

struct PBody;
struct RuleSet;

enum class TermOp : uint8_t {
    Const,        // value
    Local,        // slot
    Input,        // the input document
    Data,         // the data document root
    Ref,          // elems = head, then parts
    Array,        // elems
    Set,          // elems
    Object,       // items
    Call,         // callee, elems = args
    ArrayCompr,   // elems[0] = value, body
    SetCompr,     // elems[0] = value, body
    ObjectCompr,  // elems[0] = key, elems[1] = value, body
};

struct Callee {
    std::string name;                           // as written, dotted: "count", "data.lib.f"
    const runtime::Builtin* builtin = nullptr;  // a builtin ...
    const RuleSet* function = nullptr;          // ... or a user function
};

struct PTermPair;  // an object item: key and value (below)

// An atomic a plan can be copied with: plans are built by copying parts, evaluations
// (on any thread) update what they learn in place.
template <class T>
struct CopyableAtomic {
    mutable std::atomic<T> value{};
    CopyableAtomic() = default;
    CopyableAtomic(const CopyableAtomic& o) noexcept : value(o.value.load(std::memory_order_relaxed)) {}
    CopyableAtomic& operator=(const CopyableAtomic& o) noexcept {
        value.store(o.value.load(std::memory_order_relaxed), std::memory_order_relaxed);
        return *this;
    }
    T load() const noexcept { return value.load(std::memory_order_relaxed); }
    void store(T v) const noexcept { value.store(v, std::memory_order_relaxed); }
};

// Where a constant key was last found in the objects a ref step looked it up
// in: objects of one shape (the containers of a Pod) keep a key at one index,
// so one equality test replaces a binary search. Only a guess, checked before
// use; shared by threads evaluating one plan, hence atomic (relaxed).
struct LookupHint {
    CopyableAtomic<uint32_t> index;
};

struct DataNode;

struct PTerm {
    TermOp op = TermOp::Const;
    bool nested_calls = false;  // a Call with calls among its arguments
    // A builtin call in a function's body that reads nothing of the call's frame (constants,
    // input, data at constant paths, calls like it): one value per query and `with` context,
    // kept after it is first computed (`object.get(object.get(input, "parameters", {}), ...)`
    // in Gatekeeper's is_exempt, called once per container).
    bool closed = false;
    Value value;
    LookupHint hint;  // Const parts of refs
    uint32_t slot = 0;
    // A ref into data whose leading keys are constant strings naming nodes of the
    // rule tree with no rules on the way (`data.kubernetes.admission.deny`): the
    // node they reach, found once when planned, and how many keys that is.
    const DataNode* data_prefix = nullptr;
    uint32_t data_prefix_length = 0;
    std::vector<PTerm> elems;
    std::vector<PTermPair> items;
    std::shared_ptr<const Callee> callee;
    std::shared_ptr<PBody> body;
    lang::Location loc;
};

// A pair of its own rather than std::pair<PTerm, PTerm> inside PTerm:
// std::pair needs complete types, which PTerm is not within its own definition.
struct PTermPair {
    PTerm first;   // the key
    PTerm second;  // the value
    PTermPair() = default;
    PTermPair(PTerm key, PTerm value) : first(std::move(key)), second(std::move(value)) {}
};

enum class ExprOp : uint8_t {
    Truthy,   // a: defined and not false
    Unify,    // a = b (also := after planning)
    Iterate,  // value = domain[key] with key a fresh variable (`some k, v in domain`): key (optional), value, domain
    Every,    // every k, v in domain { body }
    Not,      // not { body }
    And,      // body: all of the nested literals (experimental `and`, blocks)
    Or,       // alternatives: each child body in turn
};

struct PWith {
    enum class Target : uint8_t { Input, Data, Function } target = Target::Input;
    std::vector<std::string> path;  // data path below `data`, or the function name parts
    std::string function_name;      // dotted name of the builtin or function replaced
    PTerm value;
    std::shared_ptr<const Callee> replacement;  // Function target replaced by another function
    // Function target replaced by a ref naming a node of the rule tree (`with f as r`): OPA keeps
    // such a value unevaluated, so it is evaluated where the function is called, if it is.
    bool deferred = false;
    lang::Location loc;
};

// What Iterate and Every range over: `value = domain[key]` (the key may be absent).
struct PIteration {
    PTerm key, value, domain;
    bool key_present = false;
};

struct PExpr {
    ExprOp op = ExprOp::Truthy;
    PTerm a, b;
    // Iterate / Every only: kept apart so the common literals stay small (a
    // program holds one PExpr per literal of every rule).
    std::unique_ptr<PIteration> iteration;
    std::shared_ptr<PBody> body;                       // Not, Every, And
    std::vector<std::shared_ptr<PBody>> alternatives;  // Or
    std::vector<PWith> withs;
    lang::Location loc;  // loc.text() is the literal's source text, for results and messages
    // Truthy in a query: the value is also bound here (a captured query
    // expression that must be true: `x.image == "a"` among others).
    int32_t result_slot = -1;
};

struct PBody {
    std::vector<PExpr> exprs;
    uint32_t first_local = 0;  // slots below this belong to enclosing bodies
    // A comprehension's body that OPA indexes: the slots of the outer variables it binds
    // itself, by whose values its answers are grouped (comprehension_index.hpp).
    std::vector<uint32_t> index_keys;
    // A comprehension's body that reads no outer variable at all (comprehension_index.hpp,
    // no keys): one value per query and `with` context, kept after its first evaluation
    // when evaluating it again would show nothing more (Repeatable, looked at on first
    // use: 0 not yet, 1 repeatable, 2 not).
    bool closed = false;
    CopyableAtomic<uint8_t> repeatable;
};

enum class RuleKind : uint8_t { Complete, PartialSet, PartialObject, Function };

// OPA's rule index (v1/ast/index.go), as one clause's guards: OPA looks up the
// refs its bodies test (`input.kind = "Pod"`, `x := data.d.z`, `[x, _] =
// input.pair`, a function argument compared with a constant, the value
// `glob.match` tests) BEFORE evaluating them, and skips a clause whose ref is
// undefined or does not match. The guards are what a body requires, so checking
// them first changes only what a skipped body would have done before failing:
// a builtin error it raised (strict mode), a print.
struct IndexGuard {
    enum class Root : uint8_t { Input, Data, Arg };
    enum class Pattern : uint8_t {
        Defined,  // `ref = x` (x a variable): the ref has a value
        Scalar,   // `ref = "a"`: the value is this scalar
        Array,    // `ref = [x, "a"]` (or a glob pattern): an array of this length, scalars where given
    };
    Root root = Root::Input;
    Pattern pattern = Pattern::Defined;
    uint32_t arg = 0;                         // Arg: the argument's position
    std::vector<Value> path;                  // Input, Data: the constant parts below the root
    PTerm ref;                                // Data: the ref, evaluated as a base document (with `with` overrides)
    Value scalar;                             // Scalar
    std::vector<std::optional<Value>> elems;  // Array: nullopt matches any element
    // Array: a string value also matches when split at one of these (OPA's glob.match
    // mappers: every glob delimiter the rule set uses on this ref).
    std::vector<std::string> delimiters;
    // Tested by one of the body's first literals, before anything with an effect (a call, a
    // rule): running the body decides alike, so only early-exit lookups check it.
    bool implied = false;
    // For OPA's order of refs in its trie: where the clause first tested the ref (the
    // `input`/`data` term), and how many of its literals did (a later one replaces the guard).
    lang::Location loc;
    uint32_t tests = 1;
};

// One rule definition (and its else chain).
struct PRule {
    std::vector<IndexGuard> guards;  // checked before the body (OPA's rule index); this clause only
    bool check_guards = false;       // some guard is not implied by the body's first literals
    PBody body;
    std::vector<PTerm> key_path;  // PartialObject: the dynamic key parts; PartialSet: the element (one term)
    PTerm value;                  // the produced value (true when not written)
    std::vector<PTerm> params;    // Function arguments (patterns)
    std::shared_ptr<PRule> else_rule;
    uint32_t slots = 0;  // frame size
    bool is_default = false;
    // Its place among the clauses that share leading literals (RuleSet::shared_prefixes): the
    // group's position there (-1: none), and its own among the group's members.
    int32_t shared_prefix = -1;
    uint32_t shared_prefix_member = 0;
    lang::Location loc;

    PRule() = default;
    PRule(const PRule&) = delete;
    PRule& operator=(const PRule&) = delete;
    // An else chain can be thousands of clauses long: released in a loop, not by recursion.
    ~PRule() {
        std::shared_ptr<PRule> next = std::move(else_rule);
        while (next && next.use_count() == 1) {
            std::shared_ptr<PRule> after = std::move(next->else_rule);
            next = std::move(after);
        }
    }
};

// Rules of one set grouped by the scalar their guard requires at one input path, so
// a decision with many rules looks at the guards of only those that can match.
struct RuleIndex {
    std::vector<Value> path;
    std::unordered_map<Value, std::vector<std::size_t>> by_value;  // rule positions, ascending
    std::vector<std::size_t> unindexed;                            // rules without a condition on path
};

// Clauses of one partial set or object that begin with the same literals, up to the
// names of their variables (Gatekeeper's `container := input.review.object.spec[field][_];
// not is_exempt(container)` before each of a dozen checks). The first of them to run
// records the solutions of those literals; the others take the recorded solutions in the
// same order instead of searching again (runtime/eval/shared_prefix.hpp).
struct SharedPrefix {
    uint32_t length = 0;  // the literals shared
    // Per member clause (PRule::shared_prefix_member): the slots the shared literals name,
    // in one order for every member (a solution is their values in that order).
    std::vector<std::vector<uint32_t>> slots;
};

// All definitions of one rule path.
struct RuleSet {
    std::unique_ptr<RuleIndex> rule_index;  // when enough rules test the same input path
    std::vector<std::string> path;          // below data
    RuleKind kind = RuleKind::Complete;
    std::size_t arity = 0;
    std::vector<std::shared_ptr<PRule>> rules;
    std::shared_ptr<PRule> default_rule;
    std::vector<SharedPrefix> shared_prefixes;  // PartialSet and PartialObject only
    // Function: running it again shows nothing (repeatable.hpp), so its cache entries
    // may key container arguments by identity (function_cache.hpp).
    bool quiet = false;
    std::size_t index = 0;  // position in Program::rule_sets (cache slot)
    // Complete rules or functions whose every clause has one and the same
    // constant value: the first success is the answer (OPA's early exit).
    bool early_exit = false;
    // Some clause has guards, and the clauses without any produce one constant:
    // the clauses a lookup keeps may all produce one value, and OPA exits early then.
    bool guarded_early_exit = false;
    // OPA's rule tree has a node for every constant key of a ref head (`p[1][2] := v`,
    // `p[null].a := v`, `p[1] contains v`), and a node no rule put a value at or below
    // still shows in the document: {} (an empty set where the rule is a partial set).
    // The key paths of those nodes below this set's path (none when a rule has a variable
    // first key: the whole set is then one document).
    struct TreeNode {
        std::vector<Value> keys;
        bool set = false;
    };
    std::vector<TreeNode> tree_nodes;
    // A rule set above this one has a variable key (`p[x] := ...` over `p.a[y] := ...`): OPA
    // evaluates this set as part of that document, where a partial set or object that
    // produced nothing is no key at all (undefined, not empty).
    bool below_variable_keys = false;
    // Each rule's head's constant keys after this set's path, up to its first variable
    // key: the node of OPA's rule tree the rule sits at (its head's ground prefix).
    std::vector<std::vector<Value>> head_ground_keys;
    lang::Location loc;
    std::string dotted() const;
};

// The rule tree: packages and rules by path, for walking `data`.
struct DataNode {
    // By name; std::less<> finds a string_view without making a string of it.
    std::map<std::string, std::unique_ptr<DataNode>, std::less<>> children;
    RuleSet* rules = nullptr;  // the rules defined exactly at this path
    bool has_rules_below = false;
    // The rules below run before the node's own when its document is built: OPA indexes a
    // node with a variable key together with the rules below it, and its index puts rules
    // testing nothing (`o["a"] := 5 if { to_number(x) }`) before rules that test input or
    // data (`o[k] := v if { z := input.one; ... }`), which decides whose error comes first.
    bool children_first = false;
};

}  // namespace gavel::eval

namespace gavel::eval {

// The parts a walk over a plan visits, in order: a term's elements, items and comprehension
// body; a literal's operands, iteration terms and nested bodies (not its `with`s). Stops at
// the first visit that returns false, and says whether all returned true.
template <class TermVisit, class BodyVisit>
bool each_part(const PTerm& t, TermVisit&& term, BodyVisit&& body) {
    for (const PTerm& e : t.elems)
        if (!term(e)) return false;
    for (const PTermPair& item : t.items)
        if (!term(item.first) || !term(item.second)) return false;
    return !t.body || body(*t.body);
}

template <class TermVisit, class BodyVisit>
bool each_part(const PExpr& e, TermVisit&& term, BodyVisit&& body) {
    if (!term(e.a) || !term(e.b)) return false;
    if (e.iteration && (!term(e.iteration->key) || !term(e.iteration->value) || !term(e.iteration->domain)))
        return false;
    if (e.body && !body(*e.body)) return false;
    for (const auto& alternative : e.alternatives)
        if (!body(*alternative)) return false;
    return true;
}

// No rule of the set has a variable key (`p[1] := ...`, not `p[x] := ...`).
inline bool all_keys_constant(const RuleSet& rules) {
    for (const auto& rule : rules.rules)
        for (const PRule* r = rule.get(); r; r = r->else_rule.get())
            for (const PTerm& k : r->key_path)
                if (k.op != TermOp::Const) return false;
    return true;
}

// A compiled set of modules with its data: immutable once built, shared by
// every evaluation.
struct Program {
    std::shared_ptr<const compiler::CompiledModules> compiled;  // what queries are compiled against
    std::vector<std::unique_ptr<RuleSet>> rule_sets;
    DataNode root;
    Value base_data = Value::empty_object();
    std::map<std::string, runtime::Builtin> custom_builtins;  // the embedder's own
    const runtime::BuiltinRegistry* builtins = nullptr;
    bool strict = false;
    bool v0_compatible = false;  // queries are v0: deprecated builtins allowed
    bool allow_net = false;      // http.send may reach the network

    const runtime::Builtin* find_builtin(std::string_view name) const;
    const DataNode* node_at(const std::vector<std::string>& path) const;
};

// One expression of a query's result, as OPA reports it: each expression of
// the compiled query the compiler did not generate, in its order there, with
// the value captured for it (true when it has none: `x := 1`, `x = y`).
struct QueryExpression {
    std::string text;
    lang::Location loc;
    int32_t slot = -1;  // the capture variable's slot, or -1
};

// A query planned against a Program.
struct PlannedQuery {
    PBody body;
    uint32_t slots = 0;
    std::vector<std::pair<std::string, uint32_t>> variables;  // user-visible, sorted by name
    std::vector<QueryExpression> expressions;
};

}  // namespace gavel::eval
