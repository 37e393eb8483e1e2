#include "runtime/eval/evaluator.hpp"
#include "runtime/eval/document_builder.hpp"
#include "runtime/eval/repeatable.hpp"

#include <boost/container/static_vector.hpp>
#include <fmt/format.h>

#include "support/small_vector.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <unordered_map>

#include "runtime/json.hpp"
#include "runtime/stack_limit.hpp"
#include "runtime/byte_compare.hpp"
#include "runtime/value_format.hpp"  // set_path
#include "support/split_escaped.hpp"

namespace gavel::eval {
using gavel::set_path;

namespace {

// Thrown to end an evaluation at once (conflicts, cancellation, strict errors); caught in run().
struct Halt {
    EvalError error;
};

bool truthy(const Value& v) { return !(v.is_bool() && !v.as_bool()); }

}  // namespace

// The bindings of one rule, function or query evaluation. Small frames live
// inline, so most rule evaluations allocate nothing for them.
// A slot points at its bound value (null: unbound). Binding happens inside a
// continuation that receives the value, so the value outlives the binding;
// pointing at it instead of copying it saves two atomic reference-count
// updates per binding.
struct Evaluator::Frame {
    using Slots = boost::container::small_vector<const Value*, 16>;
    Slots slots;
    explicit Frame(uint32_t n) : slots(n, nullptr) {}
    bool bound(uint32_t slot) const noexcept { return slots[slot] != nullptr; }
    // Binds `slot` to `v` while `k` runs.
    template <class K>
    void bind(uint32_t slot, const Value& v, K&& k) {
        slots[slot] = &v;
        k();
        slots[slot] = nullptr;
    }
};

namespace {

// The value of a constant or a bound local; null for any other term.
inline const Value* known_value(const Evaluator::Frame& f, const PTerm& t) {
    if (t.op == TermOp::Const) return &t.value;
    if (t.op == TermOp::Local) return f.slots[t.slot];  // null while unbound
    return nullptr;
}

// The values of an indexed comprehension's key slots as one key: the value of one slot, or
// an array of them in the slots' order.
Value key_of(const Evaluator::Frame& f, const std::vector<uint32_t>& slots) {
    if (slots.size() == 1) return *f.slots[slots[0]];
    runtime::ArrayBuilder b(slots.size());
    for (uint32_t slot : slots) b.push_back(*f.slots[slot]);
    return b.build();
}

}  // namespace

Evaluator::Evaluator(const Program& program, const EvalSettings& settings)
    : program_(program), settings_(settings), cache_(program.rule_sets.size(), RuleCache{}) {
    input_ = settings.input;
    stack_floor_ = runtime::stack_floor();
    builtin_context_.print = settings.print;
    builtin_context_.allow_net = program.allow_net;
    builtin_context_.deadline = settings.deadline;
    builtin_context_.cancel = settings.cancel;
    builtin_context_.memory.start(settings.max_memory);
    if (settings.runtime_info) builtin_context_.runtime_info = *settings.runtime_info;
    if (settings.tracer)  // trace("msg") becomes a Note event
        builtin_context_.trace = [this](std::string_view message) {
            if (!settings_.tracer) return;
            TraceEvent event;
            event.op = TraceOp::Note;
            event.text = message;
            if (traced_call_) {
                event.file = traced_call_->file();
                event.line = traced_call_->line;
                event.col = traced_call_->col;
            }
            event.depth = static_cast<uint32_t>(depth_);
            settings_.tracer->trace(event);
        };
}

void Evaluator::halt(std::string code, std::string message, const lang::Location& loc) {
    EvalError e;
    e.code = std::move(code);
    e.message = std::move(message);
    e.file = std::string(loc.file());
    e.line = loc.line;
    e.col = loc.col;
    if (e.file.empty()) e.text = std::string(loc.text());
    throw Halt{std::move(e)};
}

namespace {

// The work a builtin's result stands for: one unit, more for large collections and strings.
uint32_t result_work(const Value& v) {
    std::size_t size = 0;
    // (Objects count as one: the size of a lazily read object would build it.)
    if (v.is_array() || v.is_set()) size = v.size() / 8;
    else if (v.is_string()) size = v.as_string().size() / 1024;
    return static_cast<uint32_t>(1 + std::min<std::size_t>(size, 1u << 20));
}

}  // namespace

void Evaluator::tick(uint32_t work) {
    uint32_t before = ticks_;
    ticks_ += work;
    if ((before >> 10) == (ticks_ >> 10)) return;
    if ((settings_.cancel && settings_.cancel->load(std::memory_order_relaxed)) ||
        std::chrono::steady_clock::now() > settings_.deadline || builtin_context_.memory.exceeded())
        cancelled();
}

void Evaluator::cancelled() {
    if (builtin_context_.memory.exceeded())
        halt("eval_cancel_error",
             fmt::format("evaluation exceeded its memory limit ({} bytes)", builtin_context_.memory.limit()), {});
    halt("eval_cancel_error", "caller cancelled query execution", {});
}

std::optional<EvalError> Evaluator::run(const PlannedQuery& query, SolutionSink sink) {
    Frame frame(query.slots);
    try {
        eval_body(frame, query.body, 0,
                  [&] { sink(std::span<const Value* const>(frame.slots.data(), frame.slots.size())); });
    } catch (const Halt& h) {
        // OPA records a builtin error and evaluates on; in strict mode the first one
        // recorded is the answer, even when a later error (a conflict) ended evaluation.
        if (first_builtin_error_) return first_builtin_error_;
        return h.error;
    }
    return first_builtin_error_;
}

// ---- bodies and expressions -------------------------------------------------------

// Each expression of a body nests the evaluation of the next: a body long
// enough, or rules nested deep enough, would exhaust the stack.
void Evaluator::check_stack(const PBody& body, std::size_t i) {
    if (runtime::stack_position() < stack_floor_)
        halt("eval_internal_error",
             fmt::format("evaluation too deep: it reached the limit of this thread's stack ({} KiB); "
                         "a body, rule chain or recursion this deep cannot be evaluated",
                         runtime::stack_size() / 1024),
             body.exprs[i].loc);
}

void Evaluator::eval_body(Frame& f, const PBody& body, std::size_t i, Cont k) {
    if (i == body.exprs.size()) {
        k();
        return;
    }
    if (runtime::stack_position() < stack_floor_) [[unlikely]]
        check_stack(body, i);
    tick();
    eval_expr(f, body.exprs[i], [&] { eval_body(f, body, i + 1, k); });
}

void Evaluator::eval_body_until(Frame& f, const PBody& body, std::size_t i, std::size_t end, Cont k) {
    if (i == end) {
        k();
        return;
    }
    check_stack(body, i);
    tick();
    eval_expr(f, body.exprs[i], [&] { eval_body_until(f, body, i + 1, end, k); });
}

void Evaluator::eval_expr(Frame& f, const PExpr& e, Cont k) {
    if (!e.withs.empty()) {
        eval_with(f, e, k);
        return;
    }
    eval_expr_plain(f, e, k);
}

void Evaluator::eval_expr_plain(Frame& f, const PExpr& e, Cont k) {
    if (settings_.tracer) [[unlikely]] {
        if (traced_expr_ != &e) {
            trace_expr(f, e, k);  // calls back here with traced_expr_ == &e
            return;
        }
        traced_expr_ = nullptr;
    }
    switch (e.op) {
        case ExprOp::Truthy:
            if (e.result_slot < 0 && e.a.op == TermOp::Call && replaced_by_rule_ref(*e.a.callee)) {
                // A condition's call of a function replaced by a rule ref holds once its arguments
                // are known: OPA's evalCallValue tests the unevaluated ref against `false`.
                ValueList args;
                eval_elems(f, e.a.elems, 0, args, [&](ValueList&) { k(); });
                return;
            }
            eval_term(f, e.a, [&](const Value& v) {
                if (!truthy(v)) return;
                if (e.result_slot < 0) k();
                else f.bind(static_cast<uint32_t>(e.result_slot), v, k);
            });
            return;
        case ExprOp::Unify: unify(f, e.a, e.b, k); return;
        case ExprOp::Iterate: {
            const PIteration& it = *e.iteration;
            auto each = [&](const Value& key, const Value& value) {
                if (it.key_present) {
                    unify_value(f, it.key, key, [&] { unify_value(f, it.value, value, k); });
                } else {
                    unify_value(f, it.value, value, k);
                }
            };
            if (it.domain.op == TermOp::Set) {  // `some x in {input.b, __local9__}`
                each_set_literal_term(f, it.domain, [&](const Value& v) { each(v, v); });
                return;
            }
            eval_term(f, it.domain, [&](const Value& domain) {
                if (domain.is_array()) {
                    auto elems = domain.array_elements();
                    for (std::size_t i = 0; i < elems.size() && !cut_; ++i)
                        each(Value::integer(static_cast<int64_t>(i)), elems[i]);
                } else if (domain.is_object()) {
                    for (const auto& entry : domain.object_entries()) {
                        if (cut_) break;
                        each(entry.key, entry.value);
                    }
                } else if (domain.is_set()) {
                    for (const auto& v : domain.set_elements()) {
                        if (cut_) break;
                        each(v, v);
                    }
                }
            });
            return;
        }
        case ExprOp::Every: {
            bool all = true;
            const PIteration& it = *e.iteration;
            eval_term(f, it.domain, [&](const Value& domain) {
                auto check = [&](const Value& key, const Value& value) {
                    if (!all) return;
                    // Each element is checked on its own; the first success is enough.
                    bool found = first_solution(f, [&](Cont done) {
                        auto body = [&] { eval_body(f, *e.body, 0, done); };
                        if (it.key_present) unify_value(f, it.key, key, [&] { unify_value(f, it.value, value, body); });
                        else unify_value(f, it.value, value, body);
                    });
                    if (!found) all = false;
                };
                if (domain.is_array()) {
                    auto elems = domain.array_elements();
                    for (std::size_t i = 0; i < elems.size(); ++i)
                        check(Value::integer(static_cast<int64_t>(i)), elems[i]);
                } else if (domain.is_object()) {
                    for (const auto& entry : domain.object_entries()) check(entry.key, entry.value);
                } else if (domain.is_set()) {
                    for (const auto& v : domain.set_elements()) check(v, v);
                }
                // A domain that is no collection cannot be iterated: `every` fails, as in OPA.
                if (!domain.is_array() && !domain.is_object() && !domain.is_set()) all = false;
                if (all) k();
                all = true;
            });
            return;
        }
        case ExprOp::Not: {
            // `not f(x)` over known operands is decided by one call, without a search.
            if (e.body->exprs.size() == 1 && !settings_.tracer) {
                const PExpr& inner = e.body->exprs.front();
                if (inner.op == ExprOp::Truthy && inner.a.op == TermOp::Call && inner.withs.empty() &&
                    inner.result_slot < 0) {
                    Value v;
                    if (Direct d = direct_call(f, inner.a, v); d != Direct::Unknown) {
                        if (d == Direct::Undefined || !truthy(v)) k();
                        return;
                    }
                }
            }
            if (!first_solution(f, [&](Cont done) { eval_body(f, *e.body, 0, done); })) k();
            return;
        }
        // `and` / `or` are conditions: they hold or not, once, whatever their operands iterate.
        case ExprOp::And:
            if (first_solution(f, [&](Cont done) { eval_body(f, *e.body, 0, done); })) k();
            return;
        case ExprOp::Or:
            for (const auto& alt : e.alternatives) {
                if (first_solution(f, [&](Cont done) { eval_body(f, *alt, 0, done); })) {
                    k();
                    return;
                }
            }
            return;
    }
}

// A default rule's value. Its body is `true` unless the compiler moved the
// value's computation there (`default p := [x | ...]`).
std::optional<Value> Evaluator::default_value(const PRule& rule) {
    Frame frame(rule.slots);
    std::optional<Value> out;
    first_solution(frame, [&](Cont done) {
        eval_body(frame, rule.body, 0, [&] {
            eval_term(frame, rule.value, [&](const Value& v) {
                if (!out) out = v;
            });
            done();
        });
    });
    return out;
}

// Runs `search` until its first solution, then cuts the remaining search short.
bool Evaluator::first_solution(Frame& f, FunctionRef<void(Cont)> search) {
    (void)f;
    bool found = false;
    search([&] {
        found = true;
        cut_ = true;
    });
    cut_ = false;
    return found;
}

// `with`: evaluate the expression under replaced input, data or functions, with
// fresh caches; each solution found continues at once, outside that context, which
// comes back for the next one (OPA's evalWithPop / evalWithPush around the rest of the
// query): a strict builtin error after the expression comes before a conflict in its
// later solutions, as in OPA.
void Evaluator::eval_with(Frame& f, const PExpr& e, Cont k) {
    boost::container::small_vector<Value, 4> values(e.withs.size());
    for (std::size_t i = 0; i < e.withs.size(); ++i) {
        if (e.withs[i].replacement || e.withs[i].deferred) continue;
        bool got = false;
        eval_term(f, e.withs[i].value, [&](const Value& v) {
            if (!got) values[i] = v;
            got = true;
        });
        if (!got) return;  // an undefined with value makes the expression undefined
    }
    // Values bound before this expression may live in the caches set aside below (an inline
    // small_vector moves its elements, leaving fresh entries where they were): while the
    // expression runs, the frame reads copies of them; outside it the caches are in place.
    Frame::Slots before = f.slots;
    boost::container::small_vector<Value, 16> pinned;
    pinned.reserve(f.slots.size());
    for (auto& slot : f.slots)
        if (slot) slot = &pinned.emplace_back(*slot);
    // The other context: first the one the expression runs in, then, once swapped in, the one
    // outside it. `values` stays put until this call returns: the members below point into it.
    struct Context {
        const Value* input;
        decltype(data_overrides_) data;
        decltype(function_overrides_) functions;
        RuleCaches cache;
        FunctionCache function_cache;
        ComprehensionIndexes comprehension_indexes;
        KeptValues kept_values;
    } other{input_,          data_overrides_,        function_overrides_, RuleCaches(program_.rule_sets.size()),
            FunctionCache{}, ComprehensionIndexes{}, KeptValues{}};
    for (std::size_t i = 0; i < e.withs.size(); ++i) {
        const PWith& w = e.withs[i];
        switch (w.target) {
            case PWith::Target::Input:
                if (!w.path.empty())
                    values[i] = set_path(other.input ? *other.input : Value::empty_object(), w.path, values[i]);
                other.input = &values[i];
                break;
            case PWith::Target::Data: other.data.emplace_back(w.path, &values[i]); break;
            case PWith::Target::Function:
                if (w.replacement) other.functions[w.function_name] = {w.replacement, nullptr, nullptr};
                else if (w.deferred) other.functions[w.function_name] = {nullptr, nullptr, &w.value};
                else other.functions[w.function_name] = {nullptr, &values[i], nullptr};
                break;
        }
    }
    auto swap_context = [&] {
        std::swap(input_, other.input);
        data_overrides_.swap(other.data);
        function_overrides_.swap(other.functions);
        cache_.swap(other.cache);
        std::swap(function_cache_, other.function_cache);
        comprehension_indexes_.swap(other.comprehension_indexes);
        kept_values_.swap(other.kept_values);
    };
    swap_context();
    bool inside = true;
    try {
        eval_expr_plain(f, e, [&] {
            // A solution's bindings may point at values that go away with the replacements
            // (a `with` input, a value computed inside): the continuation reads copies.
            boost::container::small_vector<std::optional<Value>, 16> copy(f.slots.size());
            for (std::size_t i = 0; i < f.slots.size(); ++i)
                if (f.slots[i]) copy[i] = *f.slots[i];
            Frame::Slots inner = f.slots;
            for (std::size_t i = 0; i < copy.size(); ++i)
                f.slots[i] = before[i] ? before[i] : copy[i] ? &*copy[i] : nullptr;
            swap_context();
            inside = false;
            k();
            swap_context();
            inside = true;
            f.slots = std::move(inner);
        });
    } catch (...) {
        if (inside) swap_context();
        f.slots = std::move(before);
        throw;
    }
    swap_context();
    f.slots = std::move(before);
}

// ---- unification ------------------------------------------------------------------

bool Evaluator::has_unbound(const Frame& f, const PTerm& t) const {
    switch (t.op) {
        case TermOp::Local: return !f.bound(t.slot);
        case TermOp::Array:
        case TermOp::Set:
            for (const auto& e : t.elems)
                if (has_unbound(f, e)) return true;
            return false;
        case TermOp::Object:
            for (const auto& [k, v] : t.items)
                if (has_unbound(f, v)) return true;
            return false;
        default: return false;
    }
}

void Evaluator::unify(Frame& f, const PTerm& a, const PTerm& b, Cont k) {
    // `x := <value known now>` (hoisted operands, assignments): bound at once.
    if (a.op == TermOp::Local && !f.bound(a.slot)) {
        const Value* v = nullptr;
        Direct d = direct_value(f, b, v);
        if (d == Direct::Found) {
            f.bind(a.slot, *v, k);
            return;
        }
        if (d == Direct::Undefined) return;
        if (b.op == TermOp::Call) {
            Value result;
            d = direct_call(f, b, result);
            if (d == Direct::Found) f.bind(a.slot, result, k);
            if (d != Direct::Unknown) return;
        }
    }
    if (a.op == TermOp::Array && b.op == TermOp::Array) {
        if (a.elems.size() != b.elems.size()) return;
        // Element-wise, so both sides may hold unbound variables.
        auto step = [&](auto& self, std::size_t i) -> void {
            if (i == a.elems.size()) {
                k();
                return;
            }
            unify(f, a.elems[i], b.elems[i], [&] { self(self, i + 1); });
        };
        step(step, 0);
        return;
    }
    if (a.op == TermOp::Object && b.op == TermOp::Object && a.items.size() == b.items.size() && has_unbound(f, a) &&
        has_unbound(f, b)) {
        // Both sides are patterns: match values under equal constant keys.
        std::vector<std::pair<const PTerm*, const PTerm*>> pairs;
        for (const auto& [ka, va] : a.items) {
            if (ka.op != TermOp::Const) return;
            const PTerm* match = nullptr;
            for (const auto& [kb, vb] : b.items)
                if (kb.op == TermOp::Const && kb.value == ka.value) match = &vb;
            if (!match) return;
            pairs.emplace_back(&va, match);
        }
        auto step = [&](auto& self, std::size_t i) -> void {
            if (i == pairs.size()) {
                k();
                return;
            }
            unify(f, *pairs[i].first, *pairs[i].second, [&] { self(self, i + 1); });
        };
        step(step, 0);
        return;
    }
    if (has_unbound(f, a)) {
        eval_term(f, b, [&](const Value& v) { unify_value(f, a, v, k); });
    } else {
        eval_term(f, a, [&](const Value& v) {
            // OPA (biunify) fails a value against a comprehension of another kind without
            // evaluating it: `x = {k: v | ...}` with x bound to 1 runs none of its calls.
            if ((b.op == TermOp::ArrayCompr && !v.is_array()) || (b.op == TermOp::SetCompr && !v.is_set()) ||
                (b.op == TermOp::ObjectCompr && !v.is_object()))
                return;
            unify_value(f, b, v, k);
        });
    }
}

void Evaluator::unify_value(Frame& f, const PTerm& p, const Value& v, Cont k) {
    switch (p.op) {
        case TermOp::Const:
            if (p.value == v) k();
            return;
        case TermOp::Local:
            if (f.bound(p.slot)) {
                if (*f.slots[p.slot] == v) k();
                return;
            }
            f.bind(p.slot, v, k);
            return;
        case TermOp::Array: {
            if (!has_unbound(f, p)) break;
            if (!v.is_array() || v.size() != p.elems.size()) return;
            auto elems = v.array_elements();
            auto step = [&](auto& self, std::size_t i) -> void {
                if (i == p.elems.size()) {
                    k();
                    return;
                }
                unify_value(f, p.elems[i], elems[i], [&] { self(self, i + 1); });
            };
            step(step, 0);
            return;
        }
        case TermOp::Object: {
            if (!has_unbound(f, p)) break;
            if (!v.is_object() || v.size() != p.items.size()) return;
            auto step = [&](auto& self, std::size_t i) -> void {
                if (i == p.items.size()) {
                    k();
                    return;
                }
                eval_term(f, p.items[i].first, [&](const Value& key) {
                    const Value* found = v.find(key);
                    if (found) unify_value(f, p.items[i].second, *found, [&] { self(self, i + 1); });
                });
            };
            step(step, 0);
            return;
        }
        default: break;
    }
    eval_term(f, p, [&](const Value& pv) {
        if (pv == v) k();
    });
}

// ---- terms ------------------------------------------------------------------------

// The one value of `t` if it can be had now, without iterating or calling: a
// constant, a bound local, input, or a ref from input or a bound local by
// such keys. Unknown: evaluate it with eval_term.
Evaluator::Direct Evaluator::direct_value(const Frame& f, const PTerm& t, const Value*& out) const {
    switch (t.op) {
        case TermOp::Const:
        case TermOp::Local: out = known_value(f, t); return out ? Direct::Found : Direct::Unknown;
        case TermOp::Input: out = input_; return input_ ? Direct::Found : Direct::Undefined;
        case TermOp::Ref: {
            const PTerm& head = t.elems[0];
            if (head.op == TermOp::Data) return direct_settled_rule(f, t, out);
            const Value* v = head.op == TermOp::Input   ? input_
                             : head.op == TermOp::Local ? f.slots[head.slot]
                                                        : nullptr;
            if (!v && head.op != TermOp::Input) return Direct::Unknown;
            return direct_below(f, v, t, 1, out);
        }
        default: return Direct::Unknown;
    }
}

// What `v` holds at the ref's parts from `from` on, when each part is known now.
Evaluator::Direct Evaluator::direct_below(const Frame& f, const Value* v, const PTerm& ref, std::size_t from,
                                          const Value*& out) const {
    for (std::size_t i = from; i < ref.elems.size(); ++i)
        if (!known_value(f, ref.elems[i])) return Direct::Unknown;
    for (std::size_t i = from; i < ref.elems.size() && v; ++i)
        v = ref_child(*v, *known_value(f, ref.elems[i]), ref.elems[i].hint, false);
    out = v;
    return v ? Direct::Found : Direct::Undefined;
}

// A ref into a complete rule whose value this evaluation has settled already (`count(s) > i`
// in a loop or a function): read from the rule cache, as walk_data would reach it, without a
// walk and a continuation per use. Unknown when the walk could decide otherwise: `with` on
// data, base data at the rule's path (it wins), rules below it, a value not computed yet.
Evaluator::Direct Evaluator::direct_settled_rule(const Frame& f, const PTerm& ref, const Value*& out) const {
    const DataNode* node = ref.data_prefix;
    if (!node || !node->rules || node->rules->kind != RuleKind::Complete || !node->children.empty() ||
        !data_overrides_.empty() || settings_.tracer)
        return Direct::Unknown;
    const RuleCache& cached = cache_[node->rules->index];
    if (cached.state != RuleCache::State::Done) return Direct::Unknown;
    const Value* base = &program_.base_data;
    for (std::size_t i = 1; i <= ref.data_prefix_length && base; ++i)
        base = base->is_object() ? base->find(ref.elems[i].value.as_string()) : nullptr;
    if (base) return Direct::Unknown;
    return direct_below(f, cached.value ? &*cached.value : nullptr, ref, 1 + ref.data_prefix_length, out);
}

void Evaluator::eval_elems(Frame& f, const std::vector<PTerm>& elems, std::size_t i, ValueList& acc,
                           FunctionRef<void(ValueList&)> k) {
    // Elements known now are taken in a loop; the first that may iterate or
    // call goes through eval_term, which continues with the rest.
    std::size_t taken = 0;
    Direct d = Direct::Found;
    for (; i < elems.size(); ++i) {
        const Value* v = nullptr;
        d = direct_value(f, elems[i], v);
        if (d != Direct::Found) break;
        acc.push_back(*v);
        ++taken;
    }
    if (i == elems.size()) {
        k(acc);
    } else if (d == Direct::Unknown) {
        eval_term(f, elems[i], [&](const Value& v) {
            acc.push_back(v);
            eval_elems(f, elems, i + 1, acc, k);
            acc.pop_back();
        });
    }
    for (; taken > 0; --taken) acc.pop_back();
}

void Evaluator::eval_items(Frame& f, const std::vector<PTermPair>& items, std::size_t i, ValueList& acc,
                           FunctionRef<void(ValueList&)> k) {
    if (i == items.size()) {
        k(acc);
        return;
    }
    eval_term(f, items[i].first, [&](const Value& key) {
        acc.push_back(key);
        eval_term(f, items[i].second, [&](const Value& value) {
            acc.push_back(value);
            eval_items(f, items, i + 1, acc, k);
            acc.pop_back();
        });
        acc.pop_back();
    });
}

void Evaluator::eval_term(Frame& f, const PTerm& t, ValueCont k) {
    switch (t.op) {
        case TermOp::Const: k(t.value); return;
        case TermOp::Local:
            if (f.bound(t.slot)) k(*f.slots[t.slot]);
            return;
        case TermOp::Input:
            if (input_) k(*input_);
            return;
        case TermOp::Data: {
            DataPath path;
            if (auto v = materialize(&program_.root, &program_.base_data, path)) k(*v);
            return;
        }
        case TermOp::Ref: {
            const Value* v = nullptr;
            switch (direct_value(f, t, v)) {
                case Direct::Found: k(*v); return;
                case Direct::Undefined: return;
                case Direct::Unknown: eval_ref(f, t, k); return;
            }
            return;
        }
        case TermOp::Array: {
            ValueList acc;
            eval_elems(f, t.elems, 0, acc, [&](ValueList& values) {
                k(Value::array_of(std::span<const Value>(values.data(), values.size())));
            });
            return;
        }
        case TermOp::Set: {
            ValueList acc;
            eval_elems(f, t.elems, 0, acc, [&](ValueList& values) {
                runtime::SetBuilder b(values.size());
                for (const auto& v : values) b.insert(v);
                k(b.build());
            });
            return;
        }
        case TermOp::Object: {
            ValueList acc;
            eval_items(f, t.items, 0, acc, [&](ValueList& values) {
                runtime::ObjectBuilder b(values.size() / 2);
                for (std::size_t i = 0; i + 1 < values.size(); i += 2) b.insert(values[i], values[i + 1]);
                auto checked = b.build_checked();
                k(checked.conflict ? object_with_duplicates(t, values) : checked.value);
            });
            return;
        }
        case TermOp::Call: {
            Value v;
            switch (direct_call(f, t, v)) {
                case Direct::Found: k(v); return;
                case Direct::Undefined: return;
                case Direct::Unknown: eval_call(f, t, k); return;
            }
            return;
        }
        case TermOp::ArrayCompr:
        case TermOp::SetCompr:
        case TermOp::ObjectCompr: eval_comprehension(f, t, k); return;
    }
}

// An object literal whose items evaluated to one key twice (`{"x": 1, "x": y}`, `{k1: 1,
// k2: 2}` with k1 = k2) is no error in OPA: plugging it inserts the items in the order of
// their key terms (constants by value, then variables), and the last one inserted wins.
Value Evaluator::object_with_duplicates(const PTerm& t, const ValueList& values) {
    std::vector<std::size_t> order(t.items.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto rank = [&](std::size_t i) { return t.items[i].first.op == TermOp::Const ? 0 : 1; };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const PTerm& x = t.items[a].first;
        const PTerm& y = t.items[b].first;
        if (rank(a) != rank(b)) return rank(a) < rank(b);
        if (x.op == TermOp::Const) return x.value < y.value;
        if (x.op == TermOp::Local && y.op == TermOp::Local) return x.slot < y.slot;
        return false;
    });
    runtime::ObjectBuilder b(order.size());
    for (std::size_t i : order) b.insert(values[2 * i], values[2 * i + 1]);
    return b.build(runtime::DuplicateKeys::LastWins);
}

void Evaluator::eval_comprehension(Frame& f, const PTerm& t, ValueCont k) {
    if (!t.body->index_keys.empty() && !settings_.tracer) {
        if (const Value* indexed = indexed_comprehension(f, t)) {
            // A copy: what `k` goes on to evaluate may build other indexes.
            const Value answer = *indexed;
            k(answer);
            return;
        }
    } else if (t.body->closed && !settings_.tracer && repeats_unseen(t)) {
        // It reads no outer variable: the value of its first evaluation in this `with` context.
        if (const Value* kept = kept_value(t)) {
            const Value answer = *kept;  // a copy: the continuation may keep others
            k(answer);
            return;
        }
        collect_comprehension(f, t, [&](const Value& v) {
            keep_value(t, v);
            k(v);
        });
        return;
    }
    collect_comprehension(f, t, k);
}

// A closed term's value, kept for this `with` context. The list is searched linearly: past a
// bound (a policy with very many closed terms) further values are computed each time instead.
const Value* Evaluator::kept_value(const PTerm& t) const {
    for (const auto& [term, value] : kept_values_)
        if (term == &t) return &value;
    return nullptr;
}

void Evaluator::keep_value(const PTerm& t, const Value& v) {
    constexpr std::size_t kMaxKeptValues = 64;
    if (kept_values_.size() < kMaxKeptValues) kept_values_.emplace_back(&t, v);
}

// Whether a closed comprehension shows nothing when evaluated again (runtime/eval/repeatable.hpp):
// looked at on its first use, the verdict kept in the plan.
bool Evaluator::repeats_unseen(const PTerm& comprehension) const {
    const auto& verdict = comprehension.body->repeatable;
    uint8_t v = verdict.load();
    if (v == 0) {
        Repeatable repeatable(program_);
        v = repeatable.comprehension(comprehension) ? 1 : 2;
        verdict.store(v);
    }
    return v == 1;
}

void Evaluator::collect_comprehension(Frame& f, const PTerm& t, ValueCont k) {
    if (++depth_ > settings_.max_depth) halt("eval_internal_error", "evaluation too deep", t.loc);
    runtime::ArrayBuilder array;
    runtime::SetBuilder set;
    runtime::ObjectBuilder object;
    bool conflict = false;
    // Under strict builtin errors, which comes first matters: a key given a second value is
    // a conflict at once, before a later solution's builtin error (OPA inserts as it goes).
    std::unordered_map<Value, Value> keys_seen;
    eval_body(f, *t.body, 0, [&] {
        if (t.op == TermOp::ObjectCompr) {
            eval_term(f, t.elems[0], [&](const Value& key) {
                eval_term(f, t.elems[1], [&](const Value& value) {
                    if (settings_.strict_builtin_errors) {
                        auto [seen, fresh] = keys_seen.try_emplace(key, value);
                        if (!fresh && seen->second != value)
                            halt("eval_conflict_error", "object keys must be unique", t.loc);
                    }
                    object.insert(key, value);
                });
            });
        } else {
            eval_term(f, t.elems[0], [&](const Value& v) {
                if (t.op == TermOp::ArrayCompr) array.push_back(v);
                else set.insert(v);
            });
        }
    });
    --depth_;
    if (t.op == TermOp::ObjectCompr) {
        auto checked = object.build_checked();
        conflict = checked.conflict;
        if (conflict) halt("eval_conflict_error", "object keys must be unique", t.loc);
        k(checked.value);
        return;
    }
    k(t.op == TermOp::ArrayCompr ? array.build() : set.build());
}

const Value* Evaluator::indexed_comprehension(const Frame& f, const PTerm& t) {
    const auto& keys = t.body->index_keys;
    for (uint32_t slot : keys)
        if (!f.bound(slot)) return nullptr;  // OPA looks up the unbound variable itself: no answer
    auto index = comprehension_indexes_.find(&t);
    if (index == comprehension_indexes_.end()) {
        ComprehensionIndex built = build_comprehension_index(f, t);
        index = comprehension_indexes_.emplace(&t, std::move(built)).first;
    }
    auto found = index->second.find(key_of(f, keys));
    return found == index->second.end() ? nullptr : &found->second;
}

Evaluator::ComprehensionIndex Evaluator::build_comprehension_index(const Frame& outer, const PTerm& t) {
    if (++depth_ > settings_.max_depth) halt("eval_internal_error", "evaluation too deep", t.loc);
    const auto& keys = t.body->index_keys;
    // The body names no outer variable but its keys (comprehension_index.hpp): a frame of
    // the same layout with nothing bound.
    Frame frame(static_cast<uint32_t>(outer.slots.size()));
    struct Group {
        runtime::ArrayBuilder array;
        runtime::SetBuilder set;
        runtime::ObjectBuilder object;
    };
    std::unordered_map<Value, Group> groups;
    eval_body(frame, *t.body, 0, [&] {
        for (uint32_t slot : keys)
            if (!frame.bound(slot)) return;  // no outer value can ask for this solution
        Group& group = groups[key_of(frame, keys)];
        if (t.op == TermOp::ObjectCompr) {
            // OPA inserts into the cached object without a conflict check: a later value wins.
            eval_term(frame, t.elems[0], [&](const Value& key) {
                eval_term(frame, t.elems[1], [&](const Value& value) { group.object.insert(key, value); });
            });
        } else {
            eval_term(frame, t.elems[0], [&](const Value& v) {
                if (t.op == TermOp::ArrayCompr) group.array.push_back(v);
                else group.set.insert(v);
            });
        }
    });
    --depth_;
    ComprehensionIndex out;
    out.reserve(groups.size());
    for (auto& [key, group] : groups)
        out.emplace(key, t.op == TermOp::ArrayCompr ? group.array.build()
                         : t.op == TermOp::SetCompr ? group.set.build()
                                                    : group.object.build(runtime::DuplicateKeys::LastWins));
    return out;
}

// ---- references ---------------------------------------------------------------------

void Evaluator::eval_ref(Frame& f, const PTerm& ref, ValueCont k) {
    const PTerm& head = ref.elems[0];
    switch (head.op) {
        case TermOp::Input:
            if (input_) walk_value(f, *input_, ref, 1, k);
            return;
        case TermOp::Data: {
            DataPath path;  // most paths fit inline: no allocation for the walk down
            if (ref.data_prefix && data_overrides_.empty()) {
                // The walk's first steps, planned: only base data is looked up along them.
                const Value* base = &program_.base_data;
                for (std::size_t i = 1; i <= ref.data_prefix_length; ++i) {
                    std::string_view name = ref.elems[i].value.as_string();
                    base = base && base->is_object() ? base->find(name) : nullptr;
                    path.emplace_back(name);
                }
                walk_data(f, ref.data_prefix, base, ref, 1 + ref.data_prefix_length, path, k);
                return;
            }
            walk_data(f, &program_.root, &program_.base_data, ref, 1, path, k);
            return;
        }
        case TermOp::Set:
            if (has_unbound(f, ref.elems[1])) {  // `{input.b, __local9__}[x]`
                each_set_literal_term(f, head, [&](const Value& v) {
                    unify_value(f, ref.elems[1], v, [&] { walk_value(f, v, ref, 2, k); });
                });
                return;
            }
            [[fallthrough]];
        default: eval_term(f, head, [&](const Value& v) { walk_value(f, v, ref, 1, k); });
    }
}

// A set literal that is no constant, iterated where it is written: OPA takes its terms
// one by one (in the order the planner sorted them), without merging equal values.
void Evaluator::each_set_literal_term(Frame& f, const PTerm& set, ValueCont each) {
    ValueList acc;
    eval_elems(f, set.elems, 0, acc, [&](ValueList& values) {
        for (std::size_t i = 0; i < values.size() && !cut_; ++i) each(values[i]);
    });
}

namespace {

// `obj[key]` for an object and a string key, trying the hinted index first.
const Value* find_hinted(const Value& obj, const Value& key, const LookupHint& hint) {
    auto entries = obj.object_entries();
    uint32_t guess = hint.index.load();
    if (guess < entries.size()) {
        const Value& k = entries[guess].key;
        if (k.identical(key) || (k.is_string() && runtime::same_bytes(k.as_string(), key.as_string())))
            return &entries[guess].value;
    }
    const Value* found = obj.find(key);
    if (found) {
        // `found` is the value of an entry: its index is its distance in entries.
        auto index = static_cast<uint32_t>(
            (reinterpret_cast<const char*>(found) - reinterpret_cast<const char*>(entries.data())) /
            sizeof(entries[0]));
        if (index != guess) hint.index.store(index);
    }
    return found;
}

}  // namespace

// One step of a ref: `v[key]`, or null when undefined. A set member is its
// own value, so `key` must outlive the walk. `hint`: where the key was found last.
namespace {

// Go's strconv.Atoi: an optional sign and decimal digits, within int64.
bool go_atoi(std::string_view s, int64_t& out) {
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s.empty()) return false;
    unsigned __int128 magnitude = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        magnitude = magnitude * 10 + static_cast<unsigned>(c - '0');
        if (magnitude > static_cast<unsigned __int128>(INT64_MAX) + 1) return false;
    }
    if (!negative && magnitude > static_cast<unsigned __int128>(INT64_MAX)) return false;
    out = negative ? static_cast<int64_t>(-static_cast<__int128>(magnitude)) : static_cast<int64_t>(magnitude);
    return true;
}

}  // namespace

const Value* Evaluator::ref_child(const Value& v, const Value& key, const LookupHint& hint, bool base_data) {
    if (v.is_object()) {
        if (const Value* child = key.is_string() ? find_hinted(v, key, hint) : v.find(key)) return child;
        // Base data is stored JSON: `data.x[2]` reads the key "2", as OPA's store does.
        if (base_data && key.is_number()) return v.find(Value::string(key.as_number().to_string()));
        return nullptr;
    }
    if (v.is_array()) {
        // As OPA: an index is a number written as an integer (`a[1.0]` is undefined); base data
        // is stored JSON, read by path strings, so there `data.a["1"]` is element 1 too.
        int64_t index;
        bool is_index = key.is_number()                ? key.as_written_int64(index)
                        : base_data && key.is_string() ? go_atoi(key.as_string(), index)
                                                       : false;
        if (is_index && index >= 0 && static_cast<std::size_t>(index) < v.size())
            return &v.array_elements()[static_cast<std::size_t>(index)];
        return nullptr;
    }
    if (v.is_set() && v.contains(key)) return &key;
    return nullptr;
}

void Evaluator::walk_value(Frame& f, const Value& start, const PTerm& ref, std::size_t i, ValueCont k, bool base_data) {
    // Keys known already (constants, bound locals) are looked up in a loop,
    // with no continuation per step.
    const Value* v = &start;
    for (; i < ref.elems.size(); ++i) {
        const Value* key = known_value(f, ref.elems[i]);
        if (!key) break;
        v = ref_child(*v, *key, ref.elems[i].hint, base_data);
        if (!v) return;
    }
    if (i == ref.elems.size()) {
        k(*v);
        return;
    }
    const PTerm& part = ref.elems[i];
    if (has_unbound(f, part)) {
        // Iterate: the part is a pattern matched against every key.
        if (v->is_array()) {
            auto elems = v->array_elements();
            for (std::size_t j = 0; j < elems.size() && !cut_; ++j)
                unify_value(f, part, Value::integer(static_cast<int64_t>(j)),
                            [&] { walk_value(f, elems[j], ref, i + 1, k, base_data); });
        } else if (v->is_object()) {
            for (const auto& entry : v->object_entries())
                if (!cut_)
                    unify_value(f, part, entry.key, [&] { walk_value(f, entry.value, ref, i + 1, k, base_data); });
        } else if (v->is_set()) {
            for (const auto& elem : v->set_elements())
                if (!cut_) unify_value(f, part, elem, [&] { walk_value(f, elem, ref, i + 1, k, base_data); });
        }
        return;
    }
    eval_term(f, part, [&](const Value& key) {
        if (const Value* child = ref_child(*v, key, part.hint, base_data))
            walk_value(f, *child, ref, i + 1, k, base_data);
    });
}

// Is some data path at or below `path` replaced by `with`?
bool Evaluator::overridden_below(const DataPath& path) const {
    for (const auto& [opath, value] : data_overrides_)
        if (opath.size() >= path.size() && std::equal(path.begin(), path.end(), opath.begin())) return true;
    return false;
}

// `doc` (the document at `path`) with the `with` replacements below it applied, in order.
Value Evaluator::patch_overrides(Value doc, const DataPath& path) const {
    for (const auto& [opath, value] : data_overrides_) {
        if (opath.size() <= path.size() || !std::equal(path.begin(), path.end(), opath.begin())) continue;
        doc = set_path(doc, std::span<const std::string>(opath).subspan(path.size()), *value);
    }
    return doc;
}

const Value* Evaluator::data_override(const DataPath& path) const {
    for (auto it = data_overrides_.rbegin(); it != data_overrides_.rend(); ++it)
        if (std::ranges::equal(it->first, path)) return it->second;
    return nullptr;
}

void Evaluator::walk_data(Frame& f, const DataNode* node, const Value* base, const PTerm& ref, std::size_t i,
                          DataPath& path, ValueCont k) {
    // As OPA reads its store: wherever the walk is outside the rule tree, ends at a node
    // that is not a rule, or enumerates a node's keys (evalTree's extent and enumerate).
    if (!node || (!node->rules && (i == ref.elems.size() || has_unbound(f, ref.elems[i])))) read_base_data_ = true;
    if (!data_overrides_.empty()) {
        if (const Value* replaced = data_override(path)) {
            walk_value(f, *replaced, ref, i, k);
            return;
        }
    }
    if (!node) {
        if (base && data_overrides_.empty()) {
            walk_value(f, *base, ref, i, k, true);
        } else if (base || overridden_below(path)) {
            walk_value(f, patch_overrides(base ? *base : Value::empty_object(), path), ref, i, k, true);
        }
        return;
    }
    if (node->rules) {
        if (node->rules->kind == RuleKind::Function && node->rules->arity != 0) return;
        // A partial set or object with a known key: only that key is needed,
        // but the whole document is computed once and cached. Rules below a
        // rule's path (ref heads of other depths) merge into its value.
        // Base data at a rule's path wins, as in OPA.
        if (!base && node->children.empty() && node->rules->kind == RuleKind::Complete) {
            walk_complete_rule(f, *node->rules, ref, i, k);
            return;
        }
        auto v = base                                                      ? std::optional<Value>(*base)
                 : node->children.empty() || !names_child(f, node, ref, i) ? rule_value(*node->rules)
                                                                           : materialize(node, base, path);
        if (v) walk_value(f, *v, ref, i, k);
        return;
    }
    if (i == ref.elems.size()) {
        if (auto v = materialize(node, base, path)) k(*v);
        return;
    }
    const PTerm& part = ref.elems[i];
    auto step = [&](std::string_view name) {
        auto child = node->children.find(name);
        const Value* base_child = base && base->is_object() ? base->find(name) : nullptr;
        path.push_back(name);
        if (child != node->children.end()) {
            walk_data(f, child->second.get(), base_child, ref, i + 1, path, k);
        } else if (base_child || (!data_overrides_.empty() && overridden_below(path))) {
            walk_data(f, nullptr, base_child, ref, i + 1, path, k);
        } else {
            read_base_data_ = true;  // OPA looks the path up in its store, in vain
        }
        path.pop_back();
    };
    if (has_unbound(f, part)) {
        std::vector<std::string> names;
        for (const auto& [name, child] : node->children) names.push_back(name);
        if (base && base->is_object())
            for (const auto& entry : base->object_entries())
                if (entry.key.is_string() && !node->children.count(entry.key.as_string()))
                    names.emplace_back(entry.key.as_string());
        // As OPA: data.system is not part of a walk of the data root (only named, it is read).
        if (path.empty()) names.erase(std::remove(names.begin(), names.end(), "system"), names.end());
        std::sort(names.begin(), names.end());
        for (const auto& name : names)
            if (!cut_) unify_value(f, part, Value::string(name), [&] { step(name); });
        return;
    }
    eval_term(f, part, [&](const Value& key) {
        // Data is JSON: its keys are strings, and `data[2]` means `data["2"]`, as in OPA.
        if (key.is_string()) step(key.as_string());
        else if (key.is_number()) step(key.as_number().to_string());  // the text lives until step returns
    });
}

// Out of line: walk_data stays small on the paths partial rules take.
[[gnu::noinline]] void Evaluator::walk_complete_rule(Frame& f, const RuleSet& rules, const PTerm& ref, std::size_t i,
                                                     ValueCont k) {
    complete_rule_then(rules, [&](const Value& v) { walk_value(f, v, ref, i, k); });
}

// Whether the ref's next part may name a child of the node (rules with deeper ground
// heads): false when it is a known key that names none, for then OPA's rule tree
// evaluates only the rules at the node, not those below it.
bool Evaluator::names_child(const Frame& f, const DataNode* node, const PTerm& ref, std::size_t i) const {
    if (i >= ref.elems.size()) return true;
    const Value* key = nullptr;
    if (direct_value(f, ref.elems[i], key) != Direct::Found || !key) return true;
    if (key->is_string()) return node->children.count(key->as_string()) > 0;
    if (key->is_number()) return node->children.count(key->as_number().to_string()) > 0;
    return false;
}

// The document at a node of the rule tree: base data merged with every rule below.
std::optional<Value> Evaluator::materialize(const DataNode* node, const Value* base, DataPath& path,
                                            bool in_partial_document) {
    if (base && (!path.empty() || base->size() > 0)) read_base_data_ = true;
    if (!data_overrides_.empty())
        if (const Value* replaced = data_override(path)) return *replaced;
    if (!node) {
        if (data_overrides_.empty()) return base ? std::optional<Value>(*base) : std::nullopt;
        if (!base && !overridden_below(path)) return std::nullopt;
        return patch_overrides(base ? *base : Value::empty_object(), path);
    }
    std::optional<Value> own;
    const bool children_in_partial_document = in_partial_document || (node->rules && !all_keys_constant(*node->rules));
    // The documents below, when their rules run first (DataNode::children_first).
    std::vector<std::optional<Value>> below;
    auto child_document = [&](const std::string& name, const DataNode* child) {
        const Value* base_child = base && base->is_object() ? base->find(std::string_view(name)) : nullptr;
        path.push_back(name);
        auto v = materialize(child, base_child, path, children_in_partial_document);
        path.pop_back();
        return v;
    };
    if (node->rules) {
        if (node->rules->kind == RuleKind::Function && node->rules->arity != 0) return std::nullopt;
        if (base) return *base;
        if (node->children_first)
            for (const auto& [name, child] : node->children)
                below.push_back(path.empty() && name == "system" ? std::nullopt : child_document(name, child.get()));
        own = rule_value(*node->rules);
        if (node->children.empty()) return own;
        if (own && !own->is_object())
            halt("eval_conflict_error", fmt::format("rule {} conflicts with rules below it", node->rules->dotted()),
                 node->rules->loc);
    }
    runtime::ObjectBuilder b;
    // As OPA: the data root leaves out data.system (its rules and its base documents).
    const bool root = path.empty();
    auto hidden = [root](const Value& key) { return root && key.is_string() && key.as_string() == "system"; };
    if (own)
        for (const auto& entry : own->object_entries())
            if (!entry.key.is_string() || !node->children.count(entry.key.as_string()))
                b.insert(entry.key, entry.value);
    if (base && base->is_object())
        for (const auto& entry : base->object_entries())
            if ((!entry.key.is_string() || !node->children.count(entry.key.as_string())) && !hidden(entry.key))
                b.insert(entry.key, entry.value);
    std::size_t child_index = 0;
    for (const auto& [name, child] : node->children) {
        const std::size_t at = child_index++;
        if (root && name == "system") continue;
        auto v = below.empty() ? child_document(name, child.get()) : std::move(below[at]);
        const Value* mine = own && own->is_object() ? own->find(std::string_view(name)) : nullptr;
        if (mine && v) {
            bool conflict = false;
            std::size_t depth = node->rules->rules.empty() ? 0 : node->rules->rules[0]->key_path.size();
            v = merge_documents(*mine, *v, depth == 0 ? 0 : depth - 1, conflict);
            if (conflict)
                halt("eval_conflict_error", "object keys must be unique",
                     child->rules ? child->rules->loc : node->rules->loc);
        } else if (mine) {
            v = *mine;
        }
        if (v) b.insert(Value::string(name), std::move(*v));
    }
    for (const auto& [opath, value] : data_overrides_) {
        // An override below this node that the walk above did not reach.
        if (opath.size() == path.size() + 1 && std::equal(path.begin(), path.end(), opath.begin()) &&
            !node->children.count(opath.back()))
            b.insert(Value::string(opath.back()), *value);
    }
    Value built = b.build();
    if (in_partial_document && !own && !base && built.size() == 0) return std::nullopt;
    return built;
}

// Two documents at one path: a rule's value (`a`, whose leaves lie `depth`
// levels down) and what rules below its path produce (`b`). Objects merge key
// by key and sets of partial set rules unite; a leaf of `a` that `b` also
// defines is a conflict, as is any other pair of differing values.
Value Evaluator::merge_documents(const Value& a, const Value& b, std::size_t depth, bool& conflict) {
    if (a.is_set() && b.is_set()) {
        runtime::SetBuilder out;
        for (const auto& e : a.set_elements()) out.insert(e);
        for (const auto& e : b.set_elements()) out.insert(e);
        return out.build();
    }
    if (depth == 0 || !a.is_object() || !b.is_object()) {
        if (a != b) conflict = true;
        return a;
    }
    runtime::ObjectBuilder out;
    for (const auto& entry : a.object_entries()) {
        const Value* other = b.find(entry.key);
        out.insert(entry.key, other ? merge_documents(entry.value, *other, depth - 1, conflict) : entry.value);
    }
    for (const auto& entry : b.object_entries())
        if (!a.find(entry.key)) out.insert(entry.key, entry.value);
    return out.build();
}

// ---- rules ------------------------------------------------------------------------

std::optional<Value> Evaluator::rule_value(const RuleSet& rules) {
    RuleCache& c = cache_[rules.index];
    if (c.state == RuleCache::State::Done) return c.value;
    if (c.state == RuleCache::State::InProgress)
        halt("rego_recursion_error", fmt::format("rule {} is recursive", rules.dotted()), rules.loc);
    c.state = RuleCache::State::InProgress;
    if (++depth_ > settings_.max_depth) halt("eval_internal_error", "evaluation too deep", rules.loc);
    std::optional<Value> v = compute_rule(rules);
    --depth_;
    RuleCache& after = cache_[rules.index];  // the cache may have been swapped by `with`
    after.state = RuleCache::State::Done;
    after.value = v;
    return v;
}

void Evaluator::eval_rule_chain(const PRule& rule, FunctionRef<void(Frame&, const PRule&)> k) {
    for (const PRule* r = &rule; r; r = r->else_rule.get()) {
        if (r->check_guards && !guards_hold(*r, nullptr)) continue;  // the index skips it
        Frame frame(r->slots);
        bool any = false;
        if (settings_.tracer) [[unlikely]]
            trace_clause(TraceOp::Enter, *r, frame);
        eval_body(frame, r->body, 0, [&] {
            any = true;
            if (settings_.tracer) [[unlikely]]
                trace_clause(TraceOp::Exit, *r, frame);
            k(frame, *r);
        });
        if (any) return;
    }
}

// The solutions of one group's shared literals, recorded by the first clause of the
// group that runs: per solution, the value of each slot of SharedPrefix::slots (or none).
struct Evaluator::PrefixSolutions {
    enum class State : uint8_t { None, Recorded, Abandoned } state = State::None;
    std::size_t count = 0;  // solutions (a group's literals may name no variable)
    std::vector<std::optional<Value>> values;
};

namespace {

// Beyond this many recorded values a group's clauses search on their own (memory).
constexpr std::size_t kMaxRecordedValues = 1 << 16;

}  // namespace

void Evaluator::eval_clauses(const RuleSet& rules, const RuleList& candidates,
                             FunctionRef<void(Frame&, const PRule&)> k) {
    boost::container::small_vector<PrefixSolutions, 2> solutions(rules.shared_prefixes.size());
    for (const PRule* rule : candidates) {
        if (rule->shared_prefix < 0) {
            eval_rule_chain(*rule, k);
            continue;
        }
        const SharedPrefix& shared = rules.shared_prefixes[static_cast<std::size_t>(rule->shared_prefix)];
        PrefixSolutions& found = solutions[static_cast<std::size_t>(rule->shared_prefix)];
        const std::vector<uint32_t>& slots = shared.slots[rule->shared_prefix_member];
        if (found.state == PrefixSolutions::State::Abandoned) {
            eval_rule_chain(*rule, k);
            continue;
        }
        if (rule->check_guards && !guards_hold(*rule, nullptr)) continue;  // the index skips it (as eval_rule_chain)
        Frame frame(rule->slots);
        auto rest = [&] {
            eval_body_until(frame, rule->body, shared.length, rule->body.exprs.size(), [&] { k(frame, *rule); });
        };
        if (found.state == PrefixSolutions::State::Recorded) {
            for (std::size_t n = 0; n < found.count && !cut_; ++n) {
                for (std::size_t j = 0; j < slots.size(); ++j) {
                    const std::optional<Value>& v = found.values[n * slots.size() + j];
                    frame.slots[slots[j]] = v ? &*v : nullptr;
                }
                rest();
            }
            for (uint32_t s : slots) frame.slots[s] = nullptr;
            continue;
        }
        bool recording = true;
        eval_body_until(frame, rule->body, 0, shared.length, [&] {
            if (recording &&
                (found.values.size() + slots.size() > kMaxRecordedValues || found.count == kMaxRecordedValues)) {
                recording = false;
                found.values = {};
            }
            if (recording) {
                ++found.count;
                for (uint32_t s : slots) {
                    const Value* v = frame.slots[s];
                    found.values.push_back(v ? std::optional<Value>(*v) : std::nullopt);
                }
            }
            rest();
        });
        // A search cut short has not seen every solution.
        found.state = recording && !cut_ ? PrefixSolutions::State::Recorded : PrefixSolutions::State::Abandoned;
        if (found.state == PrefixSolutions::State::Abandoned) found.values = {};
    }
}

// The input document at a constant path, or null.
const Value* Evaluator::input_at(const std::vector<Value>& path) const {
    LookupHint no_hint;
    const Value* v = input_;
    for (std::size_t i = 0; i < path.size() && v; ++i) v = ref_child(*v, path[i], no_hint, false);
    return v;
}

// The rules of a set that can match the current input, in their original order
// (a pre-filter by one input path; each clause's own guards are checked when it is tried).
void Evaluator::candidate_rules(const RuleSet& rules, RuleList& out) const {
    if (rules.rule_index) {
        std::vector<std::size_t> picked = rules.rule_index->unindexed;
        if (const Value* v = input_at(rules.rule_index->path)) {
            auto it = rules.rule_index->by_value.find(*v);
            if (it != rules.rule_index->by_value.end())
                picked.insert(picked.end(), it->second.begin(), it->second.end());
        }
        std::sort(picked.begin(), picked.end());
        for (std::size_t i : picked) out.push_back(rules.rules[i].get());
        return;
    }
    for (const auto& r : rules.rules) out.push_back(r.get());
}

namespace {

bool is_scalar(const Value& v) { return v.is_null() || v.is_bool() || v.is_number() || v.is_string(); }

bool array_matches(const IndexGuard& g, std::span<const Value> elems) {
    if (elems.size() != g.elems.size()) return false;
    for (std::size_t i = 0; i < elems.size(); ++i)
        if (g.elems[i] && (!is_scalar(elems[i]) || elems[i] != *g.elems[i])) return false;
    return true;
}

// OPA's trie traversal for one guard: the value, or (arrays) the string split at a glob delimiter.
bool guard_matches(const IndexGuard& g, const Value& v) {
    switch (g.pattern) {
        case IndexGuard::Pattern::Defined: return true;
        case IndexGuard::Pattern::Scalar: return is_scalar(v) && v == g.scalar;
        case IndexGuard::Pattern::Array:
            if (v.is_array() && array_matches(g, v.array_elements())) return true;
            if (v.is_string())
                for (const auto& d : g.delimiters) {
                    std::vector<Value> parts;
                    for (auto& part : support::split_escaped(v.as_string(), d)) parts.push_back(Value::string(part));
                    if (array_matches(g, parts)) return true;
                }
            return false;
    }
    return false;
}

}  // namespace

// Whether OPA's rule index keeps this clause: each guarded ref has a value that matches.
bool Evaluator::guards_hold(const PRule& r, const ValueList* args) {
    for (const auto& g : r.guards) {
        switch (g.root) {
            case IndexGuard::Root::Input: {
                const Value* v = input_at(g.path);
                if (!v || !guard_matches(g, *v)) return false;
                break;
            }
            case IndexGuard::Root::Arg:
                if (!args || g.arg >= args->size() || !guard_matches(g, (*args)[g.arg])) return false;
                break;
            case IndexGuard::Root::Data: {
                // OPA's index reads the store: base data (and `with` replacements), never rules.
                std::optional<Value> found;
                Frame frame(0);
                DataPath path;
                walk_data(frame, nullptr, &program_.base_data, g.ref, 1, path, [&](const Value& v) { found = v; });
                if (!found || !guard_matches(g, *found)) return false;
                break;
            }
        }
    }
    return true;
}

// OPA's EarlyExit for one lookup: every clause the index keeps produces one constant.
bool Evaluator::lookup_exits_early(const RuleSet& rules, const ValueList* args) {
    const Value* value = nullptr;
    for (const auto& rule : rules.rules)
        for (const PRule* r = rule.get(); r; r = r->else_rule.get()) {
            if (!r->guards.empty() && !guards_hold(*r, args)) continue;
            if (r->value.op != TermOp::Const || (value && *value != r->value.value)) return false;
            value = &r->value.value;
        }
    return true;
}

// A complete rule's value, given to `k` as OPA's evalVirtualComplete does: the first
// value found goes on at once (cached, so the rest of the query sees it), and the
// remaining rules run afterwards, where a different value is a conflict. So what the
// rest of the query does (a builtin error, a print) comes before a later rule's
// conflict or error. A consumer that needed one answer (an early exit) still lets the
// remaining rules run for their conflicts, and stops after (OPA's deferred early exit).
void Evaluator::complete_rule_then(const RuleSet& rules, ValueCont k) {
    {
        RuleCache& c = cache_[rules.index];
        if (c.state == RuleCache::State::Done) {
            if (c.value) k(*c.value);
            return;
        }
        if (c.state == RuleCache::State::InProgress)
            halt("rego_recursion_error", fmt::format("rule {} is recursive", rules.dotted()), rules.loc);
        c.state = RuleCache::State::InProgress;
    }
    if (++depth_ > settings_.max_depth) halt("eval_internal_error", "evaluation too deep", rules.loc);
    RuleList candidates;
    candidate_rules(rules, candidates);
    bool consumer_cut = false;  // the rest of the query set cut_: it has what it needed
    auto settle = [&](const Value& v) {
        RuleCache& c = cache_[rules.index];
        c.state = RuleCache::State::Done;
        c.value = v;
        --depth_;
        k(v);
        ++depth_;
        consumer_cut = cut_;  // it has what it needed; the other rules still run, for conflicts
        cut_ = false;
    };
    std::optional<Value> result = complete_value(rules, candidates, settle);
    --depth_;
    if (result) {
        cut_ = consumer_cut;  // OPA's deferred early exit
        return;
    }
    std::optional<Value> fallback;
    if (rules.default_rule) fallback = default_value(*rules.default_rule);
    RuleCache& c = cache_[rules.index];
    c.state = RuleCache::State::Done;
    c.value = fallback;
    if (fallback) k(*fallback);
}

// The value the candidate clauses of a complete rule produce, without its default: the
// first one found goes to `first` at once; a different later value is a conflict, an equal
// one (2 after 2.0) leaves the first in place, as in OPA. When every clause gives one and
// the same value, the first success ends the search (OPA's early exit).
std::optional<Value> Evaluator::complete_value(const RuleSet& rules, const RuleList& candidates, ValueCont first) {
    std::optional<Value> result;
    const bool early_exit = rules.early_exit || (rules.guarded_early_exit && lookup_exits_early(rules, nullptr));
    for (const PRule* rule : candidates) {
        if (result && early_exit) break;
        eval_rule_chain(*rule, [&](Frame& frame, const PRule& clause) {
            eval_term(frame, clause.value, [&](const Value& v) {
                if (result) {
                    if (*result != v)
                        halt("eval_conflict_error", "complete rules must not produce multiple outputs", clause.loc);
                    return;
                }
                result = v;
                first(*result);
                if (early_exit) cut_ = true;
            });
        });
        cut_ = false;
    }
    return result;
}

std::optional<Value> Evaluator::compute_rule(const RuleSet& rules) {
    RuleList candidates;
    candidate_rules(rules, candidates);
    switch (rules.kind) {
        case RuleKind::Complete: {
            std::optional<Value> result = complete_value(rules, candidates, [](const Value&) {});
            if (!result && rules.default_rule) {
                result = default_value(*rules.default_rule);
            }
            return result;
        }
        case RuleKind::PartialSet:
            if (rules.rules.empty() || rules.rules[0]->key_path.empty()) {
                runtime::SetBuilder set;
                auto element = [&](Frame& frame, const PRule& clause) {
                    eval_term(frame, clause.value, [&](const Value& v) { set.insert(v); });
                };
                if (shares_prefixes(rules)) eval_clauses(rules, candidates, element);
                else
                    for (const PRule* rule : candidates) eval_rule_chain(*rule, element);
                Value built = set.build();
                if (rules.below_variable_keys && built.size() == 0) return std::nullopt;
                return built;
            }
            [[fallthrough]];
        case RuleKind::PartialObject: {
            DocumentBuilder document(rules.kind == RuleKind::PartialSet);
            auto entry = [&](Frame& frame, const PRule& clause) {
                ValueList keys;
                eval_elems(frame, clause.key_path, 0, keys, [&](ValueList& key_values) {
                    eval_term(frame, clause.value, [&](const Value& v) {
                        if (!document.insert(std::span<const Value>(key_values.data(), key_values.size()), v))
                            halt("eval_conflict_error", "object keys must be unique", clause.loc);
                    });
                });
            };
            if (shares_prefixes(rules)) eval_clauses(rules, candidates, entry);
            else
                for (const PRule* rule : candidates) eval_rule_chain(*rule, entry);
            if (const PRule* d = rules.default_rule.get()) {
                if (d->key_path.empty()) {
                    if (document.empty()) return default_value(*d);
                } else if (all_keys_constant(rules)) {
                    // `default p[1] := "a"`: the default of the one key its head names. OPA's rule
                    // tree files it under that key, and leaves it out when a rule with a variable
                    // key (`p[x] := ...`) makes the whole set one document.
                    Frame frame(d->slots);
                    ValueList keys;
                    eval_elems(frame, d->key_path, 0, keys, [&](ValueList& key_values) {
                        std::span<const Value> path(key_values.data(), key_values.size());
                        if (document.holds(path)) return;
                        if (auto v = default_value(*d)) document.insert(path, *v);
                    });
                }
            }
            for (const auto& node : rules.tree_nodes) document.ensure(node.keys, node.set);
            if (rules.below_variable_keys && document.empty()) return std::nullopt;
            return document.build();
        }
        case RuleKind::Function: {
            // A function without arguments is also a document: `data.pkg` shows its value, as in OPA.
            if (rules.arity != 0) return std::nullopt;
            std::optional<Value> result;
            ValueList no_args;
            PTerm site;
            site.loc = rules.loc;
            call_function(rules, no_args, site, [&](const Value& v) { result = v; });
            return result;
        }
    }
    return std::nullopt;
}

// ---- calls ------------------------------------------------------------------------

namespace {

constexpr std::size_t kMaxDirectArgs = 6;
// How deep calls nested in arguments are taken directly (`x + 1 > 5`, `substring(s, count(s) - 1, -1)`);
// deeper ones go through eval_call.
constexpr std::size_t kMaxDirectNesting = 4;

}  // namespace

// The arguments of a call taken at once, borrowed (as in ValueList: each outlives the
// call): values direct_value has, values of nested calls (owned here), and at the top
// one array literal of known values (`sprintf(fmt, [x])`), which borrows its items
// (runtime/scratch_array.hpp).
struct Evaluator::DirectArgs {
    struct alignas(Value) Slot {
        unsigned char bytes[sizeof(Value)];
    };
    std::array<Slot, kMaxDirectArgs> slots;
    boost::container::static_vector<Value, kMaxDirectArgs> nested;  // made only for nested calls
    std::size_t size = 0;
    runtime::ScratchArray* array = nullptr;
    ~DirectArgs() {
        if (array) array->finish();
    }
    void set(std::size_t i, const Value& v) noexcept { std::memcpy(&slots[i], &v, sizeof(Value)); }
    std::span<const Value> values() const noexcept { return {reinterpret_cast<const Value*>(slots.data()), size}; }
};

// An argument that is an array literal is taken at once at the top of a direct call only,
// with few items, one such array at a time (scratch_array_).
bool Evaluator::direct_array_literal(const PTerm& arg, std::size_t depth) const {
    return arg.op == TermOp::Array && depth == 0 && arg.elems.size() <= kMaxDirectArgs && !scratch_array_.busy();
}

bool Evaluator::direct_args_known(const Frame& f, const PTerm& call, std::size_t depth) const {
    if (call.elems.size() > kMaxDirectArgs || depth > kMaxDirectNesting) return false;
    for (const PTerm& arg : call.elems) {
        if (arg.op == TermOp::Call) {
            const Callee& callee = *arg.callee;
            const bool direct = callee.function ? !settings_.tracer
                                                : callee.builtin && callee.builtin->impl && !callee.builtin->relation;
            if (!direct || !direct_args_known(f, arg, depth + 1)) return false;
            continue;
        }
        const Value* v = nullptr;
        if (direct_value(f, arg, v) != Direct::Unknown) continue;  // known, or undefined: the call is
        if (!direct_array_literal(arg, depth)) return false;
        for (const PTerm& item : arg.elems)
            if (direct_value(f, item, v) == Direct::Unknown) return false;
    }
    return true;
}

// In order, as eval_elems takes them: the first undefined argument ends it.
Evaluator::Direct Evaluator::direct_args(const Frame& f, const PTerm& call, std::size_t depth, DirectArgs& out) {
    // Without nested calls nothing runs before an unknown argument is met: no check first.
    if (depth == 0 && call.nested_calls && !direct_args_known(f, call, 0)) return Direct::Unknown;
    out.size = call.elems.size();
    for (std::size_t i = 0; i < out.size; ++i) {
        const PTerm& arg = call.elems[i];
        if (arg.op == TermOp::Call) {
            Value& value = out.nested.emplace_back();
            if (Direct d = direct_call(f, arg, value, depth + 1); d != Direct::Found) return d;
            out.set(i, value);
            continue;
        }
        const Value* v = nullptr;
        Direct d = direct_value(f, arg, v);
        if (d == Direct::Unknown) {  // an array literal of known values (direct_args_known)
            if (!direct_array_literal(arg, depth)) return Direct::Unknown;
            std::array<DirectArgs::Slot, kMaxDirectArgs> items;
            for (std::size_t j = 0; j < arg.elems.size(); ++j) {
                const Value* item = nullptr;
                if (Direct di = direct_value(f, arg.elems[j], item); di != Direct::Found) return di;
                std::memcpy(&items[j], item, sizeof(Value));
            }
            v = &scratch_array_.make(
                std::span<const Value>(reinterpret_cast<const Value*>(items.data()), arg.elems.size()));
            out.array = &scratch_array_;
        } else if (d == Direct::Undefined) {
            return d;
        }
        out.set(i, *v);
    }
    return Direct::Found;
}

// The value of a builtin call whose arguments are all known now (direct_args): the
// builtin is called once, with no continuation per argument. A user function's answer
// the same way (cached_call). Unknown: evaluate it with eval_call (relations, mocks,
// arguments that iterate, nesting deeper than kMaxDirectNesting).
Evaluator::Direct Evaluator::direct_call(const Frame& f, const PTerm& call, Value& out, std::size_t depth) {
    const Callee& callee = *call.callee;
    const runtime::Builtin* builtin = callee.builtin;
    if (!function_overrides_.empty() || call.elems.size() > kMaxDirectArgs) return Direct::Unknown;
    if (callee.function) return cached_call(f, call, out, depth);
    if (!builtin || !builtin->impl) return Direct::Unknown;
    const bool keep = call.closed && !settings_.tracer;
    if (keep)
        if (const Value* kept = kept_value(call)) {
            out = *kept;
            return Direct::Found;
        }
    DirectArgs args;
    if (Direct d = direct_args(f, call, depth, args); d != Direct::Found) return d;
    if (settings_.tracer) [[unlikely]]
        traced_call_ = &call.loc;  // where a trace() note comes from
    runtime::BuiltinResult r = builtin->impl(args.values(), builtin_context_);
    if (r.status == runtime::BuiltinResult::Status::Value) {
        tick(result_work(r.value));
        if (keep) keep_value(call, r.value);
        out = std::move(r.value);
        return Direct::Found;
    }
    if (r.status != runtime::BuiltinResult::Status::Undefined) builtin_failed(r, callee.name, call.loc);
    return Direct::Undefined;
}

Evaluator::Direct Evaluator::cached_call(const Frame& f, const PTerm& call, Value& out, std::size_t depth) {
    if (settings_.tracer) return Direct::Unknown;  // the call's evaluation is traced
    DirectArgs direct;
    if (Direct d = direct_args(f, call, depth, direct); d != Direct::Found) return d;
    const RuleSet& fn = *call.callee->function;
    const std::span<const Value> arg_values = direct.values();
    const std::uint64_t key_hash = FunctionCache::key_hash(fn, arg_values, fn.quiet);
    if (const std::optional<Value>* cached = function_cache_.find(fn, arg_values, key_hash, fn.quiet)) {
        if (!*cached) return Direct::Undefined;
        out = **cached;
        return Direct::Found;
    }
    // Not cached: its arguments are known, so it runs now, as eval_call would run it.
    ValueList args;
    for (const Value& v : arg_values) args.push_back(v);
    std::optional<Value> computed = run_function(fn, args, call, key_hash);
    if (!computed) return Direct::Undefined;
    out = std::move(*computed);
    return Direct::Found;
}

void Evaluator::eval_call(Frame& f, const PTerm& call, ValueCont k) {
    ValueList acc;
    const Callee& callee = *call.callee;
    // `foo == input.foos[foo]`: an argument that is a still unbound variable is
    // taken after the others, whose refs may bind it.
    bool deferred = false;
    for (const auto& arg : call.elems) deferred |= arg.op == TermOp::Local && !f.bound(arg.slot);
    if (!deferred) {
        eval_elems(f, call.elems, 0, acc, [&](ValueList& args) { invoke(callee, args, call, k); });
        return;
    }
    std::vector<PTerm> reordered;
    std::vector<std::size_t> position;
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t i = 0; i < call.elems.size(); ++i) {
            bool late = call.elems[i].op == TermOp::Local && !f.bound(call.elems[i].slot);
            if (late == (pass == 1)) {
                reordered.push_back(call.elems[i]);
                position.push_back(i);
            }
        }
    eval_elems(f, reordered, 0, acc, [&](ValueList& values) {
        ValueList args(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) args.set(position[i], values[i]);
        invoke(callee, args, call, k);
    });
}

bool Evaluator::replaced_by_rule_ref(const Callee& callee) const {
    if (function_overrides_.empty()) return false;
    auto it = function_overrides_.find(callee.name);
    return it != function_overrides_.end() && it->second.deferred;
}

void Evaluator::invoke(const Callee& callee, ValueList& args, const PTerm& call, ValueCont k) {
    if (!function_overrides_.empty()) {
        auto it = function_overrides_.find(callee.name);
        if (it != function_overrides_.end()) {
            if (it->second.value) {
                k(*it->second.value);
                return;
            }
            if (it->second.deferred) {  // a ref into data: no locals to read
                Frame none(0);
                eval_term(none, *it->second.deferred, k);
                return;
            }
            const Callee& replacement = *it->second.function;
            // A mock runs with no mocks in force: it may call what it replaces,
            // and never another mock (OPA's semantics). What follows the call (the
            // continuation) runs with the caller's mocks again.
            struct Swapped {
                Evaluator& ev;
                decltype(function_overrides_)& other;
                Swapped(Evaluator& e, decltype(function_overrides_)& o) : ev(e), other(o) {
                    ev.function_overrides_.swap(other);
                }
                ~Swapped() { ev.function_overrides_.swap(other); }
            };
            decltype(function_overrides_) callers;  // the mock's own: none
            Swapped in_mock(*this, callers);
            invoke(replacement, args, call, [&](const Value& v) {
                Swapped after_call(*this, callers);
                k(v);
            });
            return;
        }
    }
    if (callee.function) {
        call_function(*callee.function, args, call, k);
        return;
    }
    if (!callee.builtin) return;
    if (callee.builtin->relation) {  // walk: the continuation runs once per output
        runtime::BuiltinResult r = callee.builtin->relation(std::span<const Value>(args.data(), args.size()),
                                                            builtin_context_, [&](const Value& out) {
                                                                k(out);
                                                                return !cut_;
                                                            });
        // An error, or the evaluation stopped inside it (cancelled: its deadline or memory limit).
        if (r.status != runtime::BuiltinResult::Status::Value && r.status != runtime::BuiltinResult::Status::Undefined)
            builtin_failed(r, callee.name, call.loc);
        return;
    }
    if (settings_.tracer) [[unlikely]]
        traced_call_ = &call.loc;  // where a trace() note comes from
    runtime::BuiltinResult r = callee.builtin->impl(std::span<const Value>(args.data(), args.size()), builtin_context_);
    if (r.status == runtime::BuiltinResult::Status::Value) {
        tick(result_work(r.value));
        k(r.value);
        return;
    }
    if (r.status == runtime::BuiltinResult::Status::Undefined) return;
    builtin_failed(r, callee.name, call.loc);
}

void Evaluator::builtin_failed(const runtime::BuiltinResult& r, const std::string& name, const lang::Location& loc) {
    if (r.status == runtime::BuiltinResult::Status::Conflict) halt("eval_conflict_error", r.message, loc);
    if (r.status == runtime::BuiltinResult::Status::Cancelled) cancelled();
    if (!settings_.strict_builtin_errors) return;  // the call is undefined
    if (first_builtin_error_) return;
    EvalError e;
    e.code = r.status == runtime::BuiltinResult::Status::TypeError ? "eval_type_error" : "eval_builtin_error";
    e.message = name + ": " + r.message;
    e.file = std::string(loc.file());
    e.line = loc.line;
    e.col = loc.col;
    if (e.file.empty()) e.text = std::string(loc.text());
    first_builtin_error_ = std::move(e);
}

void Evaluator::call_function(const RuleSet& fn, const ValueList& args, const PTerm& call, ValueCont k) {
    const std::span<const Value> arg_values(args.data(), args.size());
    const std::uint64_t key_hash = FunctionCache::key_hash(fn, arg_values, fn.quiet);
    if (const std::optional<Value>* cached = function_cache_.find(fn, arg_values, key_hash, fn.quiet)) {
        // A copy: what `k` goes on to evaluate may add entries, which moves the cache's
        // own, while the rest of the query still borrows this value (an argument list).
        if (*cached) {
            const Value answer = **cached;
            k(answer);
        }
        return;
    }
    if (std::optional<Value> result = run_function(fn, args, call, key_hash)) k(*result);
}

std::optional<Value> Evaluator::run_function(const RuleSet& fn, const ValueList& args, const PTerm& call,
                                             std::uint64_t key_hash) {
    const std::uint64_t prints_before = builtin_context_.prints;
    if (++depth_ > settings_.max_depth)
        halt("eval_internal_error", "evaluation too deep (recursive function?)", call.loc);
    std::optional<Value> result;
    const bool early_exit = fn.early_exit || (fn.guarded_early_exit && lookup_exits_early(fn, &args));
    for (const auto& rule : fn.rules) {
        if (result && early_exit) break;
        for (const PRule* r = rule.get(); r; r = r->else_rule.get()) {
            if (r->check_guards && !guards_hold(*r, &args)) continue;  // the index skips it
            Frame frame(r->slots);
            bool any = false;
            if (settings_.tracer) [[unlikely]]
                trace_clause(TraceOp::Enter, *r, frame);
            auto bind_params = [&](auto& self, std::size_t i) -> void {
                if (i == r->params.size()) {
                    eval_body(frame, r->body, 0, [&] {
                        any = true;
                        if (settings_.tracer) [[unlikely]]
                            trace_clause(TraceOp::Exit, *r, frame);
                        eval_term(frame, r->value, [&](const Value& v) {
                            if (result && *result != v)
                                halt("eval_conflict_error",
                                     "functions must not produce multiple outputs for same inputs", r->loc);
                            result = v;
                            if (early_exit) cut_ = true;  // one value for every clause: done (OPA's early exit)
                        });
                    });
                    return;
                }
                unify_value(frame, r->params[i], args[i], [&] { self(self, i + 1); });
            };
            bind_params(bind_params, 0);
            cut_ = false;
            if (any) break;
        }
    }
    if (!result && fn.default_rule) result = default_value(*fn.default_rule);
    --depth_;
    if (result || (builtin_context_.prints == prints_before && !settings_.tracer))
        function_cache_.put(fn, {args.data(), args.size()}, key_hash, fn.quiet, result);
    return result;
}

// ---- tracing (settings_.tracer set; see TraceEvent in engine/engine.hpp) -------------

struct Evaluator::TraceContext {
    Evaluator* evaluator;
    Frame* frame;
    const PExpr* expr;
};

namespace {

bool is_variable_name(std::string_view s) {
    if (s.empty() || s == "_") return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return !std::isdigit(static_cast<unsigned char>(s[0]));
}

// The locals written in a term (not inside comprehension bodies), by name as written.
void collect_locals(const PTerm& t, std::vector<std::pair<std::string, uint32_t>>& out) {
    if (t.op == TermOp::Local) {
        std::string_view name = t.loc.text();
        if (!is_variable_name(name)) return;
        for (const auto& seen : out)
            if (seen.first == name) return;
        out.emplace_back(std::string(name), t.slot);
        return;
    }
    for (const auto& e : t.elems) collect_locals(e, out);
    for (const auto& [k, v] : t.items) {
        collect_locals(k, out);
        collect_locals(v, out);
    }
}

void collect_expr_locals(const PExpr& e, std::vector<std::pair<std::string, uint32_t>>& out) {
    for (const PTerm* t : {&e.a, &e.b}) collect_locals(*t, out);
    if (e.iteration)
        for (const PTerm* t : {&e.iteration->key, &e.iteration->value, &e.iteration->domain}) collect_locals(*t, out);
    for (const auto& w : e.withs) collect_locals(w.value, out);
}

}  // namespace

std::vector<std::pair<std::string, Value>> Evaluator::trace_bindings(const void* context) {
    const auto& ctx = *static_cast<const TraceContext*>(context);
    std::vector<std::pair<std::string, uint32_t>> locals;
    collect_expr_locals(*ctx.expr, locals);
    std::vector<std::pair<std::string, Value>> out;
    for (const auto& [name, slot] : locals)
        if (slot < ctx.frame->slots.size() && ctx.frame->bound(slot)) out.emplace_back(name, *ctx.frame->slots[slot]);
    return out;
}

std::vector<std::pair<std::string, std::optional<Value>>> Evaluator::trace_operands(const void* context) {
    const auto& ctx = *static_cast<const TraceContext*>(context);
    const PExpr& e = *ctx.expr;
    std::vector<const PTerm*> operands;
    if (e.op == ExprOp::Unify) {
        operands = {&e.a, &e.b};
    } else if (e.op == ExprOp::Truthy && e.a.op == TermOp::Call) {
        for (const auto& arg : e.a.elems) operands.push_back(&arg);
    } else if (e.op == ExprOp::Truthy) {
        operands = {&e.a};
    }
    Evaluator& ev = *ctx.evaluator;
    Tracer* tracer = ev.settings_.tracer;
    ev.settings_.tracer = nullptr;  // operands are evaluated quietly
    std::vector<std::pair<std::string, std::optional<Value>>> out;
    for (const PTerm* t : operands) {
        if (t->op == TermOp::Const) continue;  // a constant says nothing new
        std::optional<Value> value;
        std::vector<std::pair<std::string, uint32_t>> locals;
        collect_locals(*t, locals);
        bool unbound = false;
        for (const auto& [name, slot] : locals) unbound |= !ctx.frame->bound(slot);
        if (!unbound) {
            try {
                ev.eval_term(*ctx.frame, *t, [&](const Value& v) {
                    if (!value) value = v;
                    ev.cut_ = true;
                });
            } catch (const Halt&) {}
            ev.cut_ = false;
        }
        out.emplace_back(std::string(t->loc.text()), std::move(value));
    }
    ev.settings_.tracer = tracer;
    return out;
}

void Evaluator::trace_expr(Frame& f, const PExpr& e, Cont k) {
    TraceContext context{this, &f, &e};
    auto emit = [&](TraceOp op) {
        TraceEvent event;
        event.op = op;
        event.file = e.loc.file();
        event.line = e.loc.line;
        event.col = e.loc.col;
        event.text = e.loc.text();
        event.depth = static_cast<uint32_t>(depth_);
        event.context = &context;
        event.bindings_fn = &Evaluator::trace_bindings;
        if (op == TraceOp::Fail) event.operands_fn = &Evaluator::trace_operands;
        settings_.tracer->trace(event);
    };
    emit(TraceOp::Eval);
    bool any = false;
    traced_expr_ = &e;
    eval_expr_plain(f, e, [&] {
        any = true;
        k();
        if (!cut_ && settings_.tracer) emit(TraceOp::Redo);
    });
    if (!any && !cut_ && settings_.tracer) emit(TraceOp::Fail);
}

void Evaluator::trace_clause(TraceOp op, const PRule& rule, Frame& f) {
    (void)f;
    std::string_view text = rule.loc.text();
    text = text.substr(0, text.find('\n'));
    TraceEvent event;
    event.op = op;
    event.file = rule.loc.file();
    event.line = rule.loc.line;
    event.col = rule.loc.col;
    event.text = text;
    event.depth = static_cast<uint32_t>(depth_);
    settings_.tracer->trace(event);
}

}  // namespace gavel::eval
