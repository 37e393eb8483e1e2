// Evaluations' memory limit (EvalOptions::max_memory): the evaluator compares
// what its thread holds, by the program's byte source, against the limit.
#include <doctest/doctest.h>

#include "engine/engine.hpp"
#include "runtime/json.hpp"
#include "runtime/memory_meter.hpp"

namespace {

// A stand-in for the gavel binary's allocation counter: each read "holds" 1 MiB more.
thread_local std::int64_t t_fake_held = 0;
std::int64_t growing_source() noexcept { return t_fake_held += 1 << 20; }

struct SourceGuard {
    gavel::runtime::ThreadBytesSource saved = gavel::runtime::thread_bytes_source();
    explicit SourceGuard(gavel::runtime::ThreadBytesSource s) { gavel::runtime::set_thread_bytes_source(s); }
    ~SourceGuard() { gavel::runtime::set_thread_bytes_source(saved); }
};

gavel::EvalResult eval_with_limit(std::uint64_t limit) {
    gavel::Engine engine;
    REQUIRE(engine.add_policy("p.rego", "package p\n\nn := count([x | some x in numbers.range(1, 200000); x > 0])\n")
                .empty());
    auto q = engine.prepare("data.p.n");
    REQUIRE(q.ok());
    gavel::EvalOptions options;
    options.max_memory = limit;
    return q.value->eval(options);
}

}  // namespace

TEST_CASE("memory budget: exceeded past the limit, measured from its start") {
    SourceGuard guard(&growing_source);
    gavel::runtime::MemoryBudget budget;
    budget.start(2u << 20);          // the baseline read
    CHECK_FALSE(budget.exceeded());  // 1 MiB more
    CHECK_FALSE(budget.exceeded());  // 2 MiB: at the limit, not past it
    CHECK(budget.exceeded());        // 3 MiB
    t_fake_held -= 64 << 20;         // the allocation that crossed it is freed
    CHECK(budget.exceeded());        // still exceeded: the evaluation is over, and says why
    budget.start(2u << 20);
    CHECK_FALSE(budget.exceeded());  // a new start forgets it
    gavel::runtime::MemoryBudget unlimited;
    unlimited.start(0);
    CHECK_FALSE(unlimited.exceeded());
}

TEST_CASE("memory budget: an evaluation past its limit ends in eval_cancel_error naming the limit") {
    SourceGuard guard(&growing_source);
    auto r = eval_with_limit(64u << 20);
    REQUIRE(r.error);
    CHECK(r.error->code == "eval_cancel_error");
    CHECK(r.error->message == "evaluation exceeded its memory limit (67108864 bytes)");
}

TEST_CASE("memory budget: no limit, or no byte source, changes nothing") {
    {
        SourceGuard guard(&growing_source);
        auto r = eval_with_limit(0);
        REQUIRE(r.ok());
        CHECK(gavel::runtime::to_json(r.rows.at(0).expressions.at(0).value) == "200000");
    }
    SourceGuard none(nullptr);
    auto r = eval_with_limit(1);
    REQUIRE(r.ok());
}
