// Builtin throughput, called through the builtin table as the evaluator calls
// them: sprintf with mixed verbs, regex.match on a cached pattern, and
// json.marshal of a Kubernetes-sized object.

#include <benchmark/benchmark.h>

#include <vector>

#include "runtime/json.hpp"
#include "stdlib/registry.hpp"

namespace {

using gavel::runtime::Value;

const gavel::stdlib::Builtin& builtin(const char* name) { return *gavel::stdlib::standard_registry().find(name); }

void run(benchmark::State& state, const char* name, std::vector<Value> args) {
    const auto& b = builtin(name);
    gavel::stdlib::BuiltinContext ctx;
    for (auto _ : state) {
        auto r = b.impl(args, ctx);
        if (r.status != gavel::stdlib::BuiltinResult::Status::Value) {
            state.SkipWithError("builtin failed");
            break;
        }
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_Sprintf(benchmark::State& state) {
    run(state, "sprintf",
        {Value::string("container %q in %s uses image %v (%d restarts, %.2f cpu)"),
         Value::array({Value::string("nginx"), Value::string("default"),
                       Value::string("registry.example.com/nginx:1.25"), Value::integer(3),
                       Value::from_double(0.25)})});
}
BENCHMARK(BM_Sprintf);

void BM_RegexMatchCached(benchmark::State& state) {
    run(state, "regex.match",
        {Value::string(R"(^([a-z0-9.-]+\.)?example\.com/[a-z0-9/_-]+(:[a-zA-Z0-9._-]+)?$)"),
         Value::string("registry.example.com/team/nginx:1.25")});
}
BENCHMARK(BM_RegexMatchCached);

void BM_JsonMarshal(benchmark::State& state) {
    auto pod =
        gavel::runtime::parse_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default",
      "labels":{"app":"web","team":"platform","tier":"frontend"},"annotations":{"owner":"someone@example.com"}},
      "spec":{"containers":[{"name":"nginx","image":"registry.example.com/nginx:1.25","ports":[{"containerPort":80}],
      "resources":{"limits":{"cpu":"500m","memory":"128Mi"}}},{"name":"sidecar","image":"registry.example.com/envoy:1.29",
      "args":["--config","/etc/envoy.yaml"]}],"nodeSelector":{"disktype":"ssd"}}})");
    run(state, "json.marshal", {pod.value});
}
BENCHMARK(BM_JsonMarshal);

}  // namespace
