// JSON throughput on AdmissionReviews: parsing (simdjson) and writing (fmt).

#include <benchmark/benchmark.h>

#include "runtime/json.hpp"
#include "test/bench/admission_review.hpp"

namespace {

void BM_ParseAdmissionReview(benchmark::State& state) {
    const std::string text = gavel::bench::admission_review_of_size(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        auto r = gavel::runtime::parse_json(text);
        if (!r.ok) {
            state.SkipWithError("parse failed");
            break;
        }
        benchmark::DoNotOptimize(r);
    }
    state.SetBytesProcessed(static_cast<int64_t>(text.size() * state.iterations()));
}
BENCHMARK(BM_ParseAdmissionReview)->Arg(1 << 20)->Arg(4 << 10)->Unit(benchmark::kMicrosecond);

// The webhook's typical request: a Pod with `containers` containers (10: ~5.7 KB).
void BM_ParseAdmissionReviewContainers(benchmark::State& state) {
    const std::string text = gavel::bench::admission_review(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        auto r = gavel::runtime::parse_json(text);
        if (!r.ok) {
            state.SkipWithError("parse failed");
            break;
        }
        benchmark::DoNotOptimize(r);
    }
    state.SetBytesProcessed(static_cast<int64_t>(text.size() * state.iterations()));
}
BENCHMARK(BM_ParseAdmissionReviewContainers)->Arg(10)->Unit(benchmark::kMicrosecond);

void BM_WriteAdmissionReview(benchmark::State& state) {
    const std::string text = gavel::bench::admission_review_of_size(static_cast<std::size_t>(state.range(0)));
    auto value = gavel::runtime::parse_json(text).value;
    std::size_t bytes = 0;
    for (auto _ : state) {
        std::string out = gavel::runtime::to_json(value);
        bytes += out.size();
        benchmark::DoNotOptimize(out);
    }
    state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_WriteAdmissionReview)->Arg(1 << 20)->Unit(benchmark::kMicrosecond);

}  // namespace
