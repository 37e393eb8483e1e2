// Whole decisions: the image-registry policy over AdmissionReviews with 1, 10,
// 100 and 1000 containers, with the input already parsed and including JSON
// parsing; a gatekeeper-style required-labels policy; a join of N pods and services.

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "engine/engine.hpp"
#include "runtime/json.hpp"
#include "test/bench/admission_review.hpp"

namespace {

const char* kImageRegistry = R"(package kubernetes.admission

deny contains msg if {
	input.request.kind.kind == "Pod"
	some container in input.request.object.spec.containers
	not startswith(container.image, "hooli.com/")
	msg := sprintf("image '%v' comes from untrusted registry", [container.image])
}
)";

const char* kRequiredLabels = R"(package k8srequiredlabels

violation contains {"msg": msg, "details": {"missing_labels": missing}} if {
	provided := {label | input.review.object.metadata.labels[label]}
	required := {label | some label in input.parameters.labels}
	missing := required - provided
	count(missing) > 0
	msg := sprintf("you must provide labels: %v", [missing])
}
)";

gavel::PreparedQuery prepare(const char* policy, const char* query) {
    gavel::Engine engine;
    if (!engine.add_policy("policy.rego", policy).empty()) std::abort();
    auto q = engine.prepare(query);
    if (!q.ok()) std::abort();
    return *q.value;
}

// `query` evaluated in the benchmark's loop, one row expected each time.
void eval_one_row(benchmark::State& state, const gavel::PreparedQuery& query, const gavel::EvalOptions& options) {
    for (auto _ : state) {
        auto r = query.eval(options);
        if (r.rows.size() != 1) state.SkipWithError("unexpected result");
        benchmark::DoNotOptimize(r);
    }
}

void BM_ImageRegistryParsedInput(benchmark::State& state) {
    static const auto query = prepare(kImageRegistry, "data.kubernetes.admission.deny");
    auto input =
        gavel::runtime::parse_json(gavel::bench::admission_review(static_cast<std::size_t>(state.range(0)))).value;
    gavel::EvalOptions options;
    options.input = &input;
    eval_one_row(state, query, options);
    state.counters["containers"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_ImageRegistryParsedInput)->Arg(1)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

void BM_ImageRegistryWithJsonParsing(benchmark::State& state) {
    static const auto query = prepare(kImageRegistry, "data.kubernetes.admission.deny");
    const std::string text = gavel::bench::admission_review(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        auto input = gavel::runtime::parse_json(text);
        gavel::EvalOptions options;
        options.input = &input.value;
        auto r = query.eval(options);
        benchmark::DoNotOptimize(r);
    }
    state.SetBytesProcessed(static_cast<int64_t>(text.size() * state.iterations()));
}
BENCHMARK(BM_ImageRegistryWithJsonParsing)->Arg(1)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

void BM_RequiredLabels(benchmark::State& state) {
    static const auto query = prepare(kRequiredLabels, "data.k8srequiredlabels.violation");
    auto input = gavel::runtime::parse_json(R"({"parameters": {"labels": ["app", "owner", "tier"]},
        "review": {"object": {"metadata": {"labels": {"app": "web", "env": "prod", "team": "a"}}}}})")
                     .value;
    gavel::EvalOptions options;
    options.input = &input;
    for (auto _ : state) {
        auto r = query.eval(options);
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_RequiredLabels)->Unit(benchmark::kMicrosecond);

}  // namespace

namespace {

// 200 rules, each for one resource kind: the index lets one decision try only its own.
void BM_ManyRulesIndexed(benchmark::State& state) {
    static const auto query = [] {
        std::string policy = "package many\n\n";
        for (int i = 0; i < 200; ++i)
            policy += "deny contains \"kind " + std::to_string(i) + "\" if {\n\tinput.request.kind.kind == \"Kind" +
                      std::to_string(i) + "\"\n\tinput.request.operation == \"CREATE\"\n}\n\n";
        gavel::Engine engine;
        if (!engine.add_policy("many.rego", policy).empty()) std::abort();
        return *engine.prepare("data.many.deny").value;
    }();
    auto input = gavel::runtime::parse_json(R"({"request": {"kind": {"kind": "Kind7"}, "operation": "CREATE"}})").value;
    gavel::EvalOptions options;
    options.input = &input;
    for (auto _ : state) {
        auto r = query.eval(options);
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_ManyRulesIndexed)->Unit(benchmark::kMicrosecond);

// N pods joined to N services by app (a comprehension over the services per pod): OPA's
// comprehension index evaluates the comprehension once and groups it by app, O(N), where
// one evaluation per pod is O(N * N).
void BM_ComprehensionJoin(benchmark::State& state) {
    const auto n = static_cast<int>(state.range(0));
    std::string pods, services;
    for (int i = 0; i < n; ++i) {
        if (i) {
            pods += ',';
            services += ',';
        }
        pods += fmt::format(R"({{"name": "p{}", "app": "a{}"}})", i, i % 200);
        services += fmt::format(R"({{"name": "s{}", "app": "a{}"}})", i, i % 250);
    }
    gavel::Engine engine;
    if (!engine
             .add_policy("join.rego", R"(package join

import rego.v1

pod_services[pod.name] := names if {
	some pod in input.pods
	app := pod.app
	names := [s.name | some s in input.services; s.app = app]
}
)")
             .empty())
        std::abort();
    const auto query = *engine.prepare("data.join.pod_services").value;
    auto input = gavel::runtime::parse_json("{\"pods\": [" + pods + "], \"services\": [" + services + "]}").value;
    gavel::EvalOptions options;
    options.input = &input;
    for (auto _ : state) {
        auto r = query.eval(options);
        if (r.rows.size() != 1 || r.rows[0].expressions[0].value.size() != static_cast<std::size_t>(n))
            state.SkipWithError("unexpected result");
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(BM_ComprehensionJoin)->Arg(100)->Arg(1000)->Unit(benchmark::kMicrosecond);

// `query` over one policy and an input, evaluated in the benchmark's loop (one row expected).
void bench_query(benchmark::State& state, const char* policy, const char* query, const std::string& input_json) {
    gavel::Engine engine;
    if (!engine.add_policy("bench.rego", policy).empty()) std::abort();
    const auto prepared = *engine.prepare(query).value;
    auto input = gavel::runtime::parse_json(input_json).value;
    gavel::EvalOptions options;
    options.input = &input;
    eval_one_row(state, prepared, options);
}

// A complete rule read in a loop and in a function (Gatekeeper's probe_type_set): after
// its first use each read is the rule cache's value, not a walk of the rule tree.
void BM_SettledRuleInLoop(benchmark::State& state) {
    std::string containers;
    for (int i = 0; i < 100; ++i) containers += fmt::format(R"({}{{"c{}": {{}}, "httpGet": 1}})", i ? "," : "", i);
    bench_query(state, R"(package loop

import rego.v1

types := {t | some t in input.types}

missing(c) if count(types - {f | c[f]}) == count(types)

n := count([i | some i in numbers.range(1, 1000); count(types) > i % 4])

m := count([c | some c in input.containers; missing(c)])
)",
                "[data.loop.n, data.loop.m]",
                R"({"types": ["httpGet", "exec", "tcpSocket"], "containers": [)" + containers + "]}");
}
BENCHMARK(BM_SettledRuleInLoop)->Unit(benchmark::kMicrosecond);

// A comprehension that reads nothing of its clause, inside a loop (Gatekeeper's
// `required := {r | r := input.parameters.limits[_]}` per container): kept after its
// first evaluation.
void BM_ClosedComprehensionInLoop(benchmark::State& state) {
    std::string containers;
    for (int i = 0; i < 100; ++i) containers += fmt::format(R"({}{{"cpu": {}, "memory": 1}})", i ? "," : "", i);
    bench_query(state, R"(package closed

import rego.v1

missing contains [i, m] if {
	some i, c in input.containers
	required := {r | some r in input.required}
	provided := {k | some k, _ in c}
	some m in required - provided
}
)",
                "data.closed.missing",
                R"({"required": ["cpu", "memory", "storage", "gpu"], "containers": [)" + containers + "]}");
}
BENCHMARK(BM_ClosedComprehensionInLoop)->Unit(benchmark::kMicrosecond);

// A function reading the input's parameters the same way at every call (Gatekeeper's
// is_exempt over 1,000 containers): the call reading nothing of its frame is kept.
void BM_FunctionClosedCall(benchmark::State& state) {
    std::string containers;
    for (int i = 0; i < 1000; ++i) containers += fmt::format(R"({}{{"image": "img{}"}})", i ? "," : "", i);
    bench_query(state, R"(package exempt

import rego.v1

is_exempt(c) if {
	images := object.get(object.get(input, "parameters", {}), "exemptImages", [])
	some prefix in images
	startswith(c.image, prefix)
}

n := count([c | some c in input.containers; not is_exempt(c)])
)",
                "data.exempt.n", R"({"parameters": {}, "containers": [)" + containers + "]}");
}
BENCHMARK(BM_FunctionClosedCall)->Unit(benchmark::kMicrosecond);

// A chain of N rules, each using the one before: compiling it is linear in N
// (the recursion check once searched from every rule, quadratic).
void BM_CompileRuleChain(benchmark::State& state) {
    std::string policy = "package chain\n\nr0 := 1\n";
    for (int i = 1; i < state.range(0); ++i)
        policy += 'r' + std::to_string(i) + " := [r" + std::to_string(i - 1) + "]\n";
    for (auto _ : state) {
        gavel::Engine engine;
        if (!engine.add_policy("chain.rego", policy).empty() || !engine.check().empty()) std::abort();
    }
}
BENCHMARK(BM_CompileRuleChain)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// One body of N closures, `every` expressions and assigned comprehensions in turn: the
// safety check, the print rewrite and the template-string rewrite once copied what encloses
// each closure, or re-derived it, per closure (quadratic).
void BM_CompileLongBodyOfClosures(benchmark::State& state) {
    std::string policy = "package closures\n\nr if {\n";
    for (int i = 0; i < state.range(0); ++i) {
        const std::string n = std::to_string(i);
        policy += i % 2 ? "\ty" + n + " := [z | z := " + n + "]\n"
                        : "\tevery x" + n + " in input.a { x" + n + " > " + n + " }\n";
    }
    policy += "}\n";
    for (auto _ : state) {
        gavel::Engine engine;
        if (!engine.add_policy("closures.rego", policy).empty() || !engine.check().empty()) std::abort();
    }
}
BENCHMARK(BM_CompileLongBodyOfClosures)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
