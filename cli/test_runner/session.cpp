#include "cli/test_runner/session.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>

#include "cli/ignore_paths.hpp"
#include "cli/repl/trace_printer.hpp"
#include "engine/loader.hpp"
#include "engine/bundle/load.hpp"
#include "engine/schema_loader.hpp"

namespace gavel::cli {
// Defined in cli/alloc_counter.cpp: the calling thread's allocation counts.
void alloc_counts(std::uint64_t& allocs, std::uint64_t& bytes) noexcept;
}  // namespace gavel::cli

namespace gavel::cli::test_runner {

namespace {

std::string error_text(const lang::Diagnostic& d) { return d.code.empty() ? d.message : d.pretty(); }

// Go's testing.Benchmark: grow the iteration count until one round takes benchtime.
BenchmarkResult benchmark(const testing::TestRunner& runner, std::size_t i, std::chrono::nanoseconds benchtime) {
    auto round = [&](uint64_t n) {
        BenchmarkResult r;
        r.n = n;
        uint64_t a0, b0, a1, b1;
        alloc_counts(a0, b0);
        auto start = std::chrono::steady_clock::now();
        for (uint64_t k = 0; k < n; ++k) runner.run_quietly(i, &r.eval_ns);
        r.total_ns = static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
        alloc_counts(a1, b1);
        r.allocs = a1 - a0;
        r.bytes = b1 - b0;
        return r;
    };
    const uint64_t target = static_cast<uint64_t>(benchtime.count());
    BenchmarkResult r = round(1);
    while (r.total_ns < target && r.n < 1000000000ULL) {
        uint64_t prev = r.n;
        uint64_t n = target * prev / std::max<uint64_t>(r.total_ns, 1);
        n += n / 5;
        n = std::min(n, 100 * prev);
        n = std::max(n, prev + 1);
        n = std::min<uint64_t>(n, 1000000000ULL);
        r = round(n);
    }
    return r;
}

}  // namespace

SessionResult run_session(const SessionOptions& options) {
    SessionResult out;
    engine::LoadOptions load_options;
    load_options.v0_compatible = options.v0_compatible;
    engine::bundle::BundleReadOptions bundle_options;
    bundle_options.skip_verify = true;  // as `opa test -b`: tests read bundles, they do not check who signed them
    bundle_options.v0_compatible = options.v0_compatible;
    engine::LoadResult loaded = options.bundle
                                    ? engine::bundle::load_bundles(options.paths, bundle_options)
                                    : engine::load_paths(without_ignored(options.paths, options.ignore), load_options);
    if (!loaded.ok()) {
        for (const auto& d : loaded.errors) out.errors.push_back(error_text(d));
        return out;
    }

    EngineOptions engine_options;
    if (!options.schema.empty()) {  // read once the policies are, as `opa test` does
        auto schemas = engine::load_schemas(options.schema);
        if (!schemas.schemas) {
            out.schema_error = schemas.error;
            return out;
        }
        engine_options.schemas = std::move(schemas.schemas);
    }
    engine_options.v0_compatible = options.v0_compatible;
    engine_options.strict = options.strict;
    engine_options.number_duplicate_tests = true;
    // The run compiles once; the test runner reads the tests' syntax before that, and
    // only the coverage report needs the parsed modules afterwards.
    engine_options.keep_parsed_modules = options.coverage;
    Engine engine(engine_options);
    lang::Diagnostics load_errors = engine::add_to_engine(engine, std::move(loaded));
    if (!load_errors.empty()) {
        for (const auto& d : load_errors) out.errors.push_back(error_text(d));
        return out;
    }

    std::vector<testing::TestCase> tests = testing::discover(engine.rules());
    if (!options.run.empty()) {
        RE2 pattern(options.run, RE2::Quiet);
        if (!pattern.ok()) {
            out.errors.push_back("--run: invalid regular expression: " + pattern.error());
            return out;
        }
        std::erase_if(tests, [&](const testing::TestCase& t) { return !RE2::PartialMatch(t.full_name(), pattern); });
    }
    testing::TestRunner runner(engine);
    lang::Diagnostics compile_errors = runner.prepare(std::move(tests));
    if (!compile_errors.empty()) {
        for (const auto& d : compile_errors) out.errors.push_back(error_text(d));
        return out;
    }
    const std::size_t n = runner.tests().size();
    testing::RunOptions run_options;
    run_options.timeout = options.timeout;
    run_options.coverage = options.coverage;
    if (options.coverage) out.coverable = runner.coverable_lines();

    for (int round = 0; round < std::max(options.count, 1); ++round) {
        std::vector<Reported> results(n);
        std::atomic<std::size_t> next{0};
        auto work = [&] {
            for (std::size_t i; (i = next.fetch_add(1)) < n;) results[i].result = runner.run(i, run_options);
        };
        unsigned threads = std::max(1u, std::min<unsigned>(options.parallel, static_cast<unsigned>(n)));
        if (threads <= 1) {
            work();
        } else {
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
            for (auto& t : pool) t.join();
        }
        for (std::size_t i = 0; i < n; ++i) {
            auto& r = results[i].result;
            for (auto& [file, lines] : r.covered) out.covered[file].insert(lines.begin(), lines.end());
            if (options.explain && r.fail && !r.error) {
                // Only failing tests pay for tracing: run again to see where.
                testing::RunOptions explain = run_options;
                explain.explain = true;
                explain.coverage = false;
                repl::TracePrinter printer(runner.tests()[i].query);  // OPA's pretty trace, framed by the test's query
                if (!options.trace.empty()) explain.tracer = &printer;
                auto again = runner.run(i, explain);
                r.failed_at = std::move(again.failed_at);
                if (options.trace == "notes") printer.keep_lineage_of({TraceOp::Note});
                else if (options.trace == "fails") printer.keep_lineage_of({TraceOp::Fail});
                else if (options.trace == "notes+fails") printer.keep_lineage_of({TraceOp::Note, TraceOp::Fail});
                if (!options.trace.empty()) results[i].trace = printer.text();
            }
            if (options.bench && r.pass()) results[i].bench = benchmark(runner, i, options.benchtime);
        }
        for (auto& r : results) out.results.push_back(std::move(r));
    }
    return out;
}

}  // namespace gavel::cli::test_runner
