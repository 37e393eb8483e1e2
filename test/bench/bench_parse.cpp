// Parse throughput over every module of OPA's conformance suite.

#include <benchmark/benchmark.h>

#include "lang/parse.hpp"
#include "test/bench/conformance_modules.hpp"

namespace {

void BM_ParseConformanceModules(benchmark::State& state) {
    static const auto modules = gavel::bench::load_conformance_modules();
    std::size_t bytes = 0;
    for (const auto& m : modules) bytes += m.text.size();
    std::size_t failures = 0;
    for (auto _ : state) {
        for (const auto& m : modules) {
            gavel::lang::ParseOptions options;
            options.v0_compatible = m.v0;
            options.experimental_keywords = m.experimental;
            auto r = gavel::lang::parse_module("bench.rego", m.text, options);
            failures += !r.ok();
            benchmark::DoNotOptimize(r);
        }
    }
    if (failures) state.SkipWithError("a conformance module failed to parse");
    state.SetBytesProcessed(static_cast<int64_t>(bytes * state.iterations()));
    state.counters["modules"] = static_cast<double>(modules.size());
}
BENCHMARK(BM_ParseConformanceModules)->Unit(benchmark::kMillisecond);

// One typical admission policy, parsed again and again.
void BM_ParseImageRegistryPolicy(benchmark::State& state) {
    const std::string text = R"(package kubernetes.admission

deny contains msg if {
	input.request.kind.kind == "Pod"
	some container in input.request.object.spec.containers
	not startswith(container.image, "hooli.com/")
	msg := sprintf("image '%v' comes from untrusted registry", [container.image])
}
)";
    for (auto _ : state) {
        auto r = gavel::lang::parse_module("policy.rego", text);
        benchmark::DoNotOptimize(r);
    }
    state.SetBytesProcessed(static_cast<int64_t>(text.size() * state.iterations()));
}
BENCHMARK(BM_ParseImageRegistryPolicy)->Unit(benchmark::kMicrosecond);

}  // namespace
