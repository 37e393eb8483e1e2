// gavel test PATH...: run the policy unit tests below PATH, as `opa test` does.
//
// Loading is `gavel eval -d`'s (engine/loader.hpp); discovery and evaluation
// are the library's (engine/testing.hpp); this file parses flags, prints and
// sets the exit status: 0 when every test passed, 2 when a test failed, raised
// an error or was skipped (todo_test_; unless --exit-zero-on-skipped), 1 when the policies could not be loaded or
// compiled (errors on stderr with file:line:col) or no test ran with
// --fail-on-empty. The reports are in cli/test_runner/.

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "cli/commands.hpp"
#include "stdlib/go_time.hpp"
#include "cli/test_runner/go_format.hpp"
#include "cli/test_runner/report.hpp"
#include "cli/test_runner/session.hpp"
#include "engine/directory_walk.hpp"

namespace gavel::cli {

namespace {

using namespace test_runner;

struct TestCliOptions {
    std::vector<std::string> paths;
    bool bundle = false;  // -b: the paths are bundles
    bool verbose = false;
    std::string format = "pretty";
    std::string run;
    bool v0_compatible = false;
    bool strict = false;
    std::string schema;
    std::string timeout;
    unsigned parallel = 0;
    bool bench = false;
    bool benchmem = true;
    std::string benchtime = "1s";
    int count = 1;
    bool fail_on_empty = false;
    bool exit_zero_on_skipped = false;
    std::string target = "rego";
    std::vector<std::string> ignore;
    bool coverage = false;
    double threshold = 0;
    bool var_values = false;
    std::string explain;
    bool watch = false;
};

// Every file below the paths with its modification time: what --watch compares.
// (The walk follows links as loading does, and never loops.)
std::map<std::string, std::int64_t> snapshot(const std::vector<std::string>& paths) {
    std::map<std::string, std::int64_t> out;
    for (const auto& path : paths)
        for (const auto& e : engine::walk_directory(path))
            if (e.kind == engine::WalkEntry::Kind::File) out[e.path] = e.modified_ns;
    return out;
}

int run_once(const TestCliOptions& opts, const SessionOptions& session) {
    SessionResult result = run_session(session);
    if (!result.schema_error.empty()) {
        std::cerr << result.schema_error << "\n";
        return 1;
    }
    if (!result.errors.empty()) {
        std::cerr << (result.errors.size() == 1 ? "1 error occurred: "
                                                : std::to_string(result.errors.size()) + " errors occurred:\n");
        for (const auto& e : result.errors) std::cerr << e << "\n";
        return 1;
    }
    if (result.results.empty() && opts.fail_on_empty) {
        std::cerr << "no test cases found\n";
        return 1;
    }
    Counts counts = count_results(result.results);
    // As OPA: a skipped test is not a pass either, unless --exit-zero-on-skipped.
    bool skipped_fails = counts.skip > 0 && !opts.exit_zero_on_skipped;
    int status = counts.fail + counts.error > 0 || skipped_fails ? 2 : 0;
    if (opts.coverage) {
        CoverageReport report = coverage_report(result.coverable, result.covered);
        std::cout << report.json << "\n";
        if (opts.threshold > 0 && report.coverage < opts.threshold) {
            std::cerr << fmt::format("Code coverage threshold not met: got {:.2f} instead of {:.2f}\n", report.coverage,
                                     opts.threshold);
            status = 2;
        }
        return status;
    }
    if (opts.format == "json") {
        print_json(std::cout, result.results);
    } else {
        ReportOptions ro;
        ro.verbose = opts.verbose;
        ro.var_values = opts.var_values || (!opts.explain.empty() && opts.explain != "notes");
        ro.benchmem = opts.benchmem;
        ro.gobench = opts.format == "gobench";
        print_pretty(std::cout, result.results, ro);
    }
    std::cout.flush();
    return status;
}

int run_test_command(const TestCliOptions& opts) {
    if (opts.format != "pretty" && opts.format != "json" && opts.format != "gobench") {
        std::cerr << "invalid --format " << opts.format << ": want pretty, json or gobench\n";
        return 1;
    }
    if (!opts.explain.empty() && opts.explain != "fails" && opts.explain != "full" && opts.explain != "notes" &&
        opts.explain != "debug") {
        std::cerr << "invalid --explain " << opts.explain << ": want fails, full, notes or debug\n";
        return 1;
    }
    if (opts.target != "rego") {
        std::cerr << "unsupported --target " << opts.target << ": gavel evaluates Rego directly (rego)\n";
        return 1;
    }
    SessionOptions session;
    session.paths = opts.paths.empty() ? std::vector<std::string>{"."} : opts.paths;
    session.ignore = opts.ignore;
    session.bundle = opts.bundle;
    session.v0_compatible = opts.v0_compatible;
    session.strict = opts.strict;
    session.schema = opts.schema;
    session.run = opts.run;
    session.count = opts.count;
    session.bench = opts.bench;
    session.coverage = opts.coverage;
    // As OPA: -v prints failing tests' traces, --explain chooses which steps
    // (notes and failures by default); without -v there is no trace.
    if (opts.verbose) {
        if (opts.explain == "full" || opts.explain == "debug") session.trace = "full";
        else if (!opts.explain.empty()) session.trace = opts.explain;
        else session.trace = "notes+fails";
    }
    session.parallel = opts.parallel ? opts.parallel : std::max(1u, std::thread::hardware_concurrency());
    // OPA's default: 5s per test, 30s when benchmarking.
    session.timeout = opts.bench ? std::chrono::seconds(30) : std::chrono::seconds(5);
    if (!opts.timeout.empty()) {
        auto t = stdlib::go_time::parse_flag_duration(opts.timeout);
        if (!t) {
            std::cerr << "invalid --timeout " << opts.timeout << ": want a duration such as 5s or 100ms\n";
            return 1;
        }
        if (t->count() > 0) session.timeout = *t;
    }
    auto benchtime = stdlib::go_time::parse_flag_duration(opts.benchtime);
    if (!benchtime || benchtime->count() <= 0) {
        std::cerr << "invalid --benchtime " << opts.benchtime << "\n";
        return 1;
    }
    session.benchtime = *benchtime;

    int status = run_once(opts, session);
    if (!opts.watch) return status;
    auto seen = snapshot(session.paths);
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        auto now = snapshot(session.paths);
        if (now == seen) continue;
        seen = std::move(now);
        std::cout << "\n" << std::string(80, '#') << "\nWatcher: re-running tests\n" << std::string(80, '#') << "\n\n";
        run_once(opts, session);
    }
}

}  // namespace

void add_test_command(CLI::App& app) {
    auto opts = std::make_shared<TestCliOptions>();
    auto* cmd =
        app.add_subcommand("test", "Run the policy unit tests (rules named test_*) below the paths, as opa test");
    cmd->add_option("paths", opts->paths, "Policy and data files or directories (default: .)");
    cmd->add_flag("-b,--bundle", opts->bundle, "Load paths as bundle files or root directories");
    cmd->add_flag("-v,--verbose", opts->verbose, "List every test with its duration and print() output");
    cmd->add_option("-f,--format", opts->format,
                    "Output format: pretty, json, or gobench (pretty, benchmarks named as Go's)")
        ->capture_default_str();
    cmd->add_option("-r,--run", opts->run, "Run only tests whose data.pkg.test_name matches this regular expression");
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse policies in the pre-1.0 Rego dialect");
    cmd->add_flag(
        "-S,--strict", opts->strict,
        "Enable compiler strict mode (unused imports and assignments, duplicate imports, deprecated builtins ...)");
    cmd->add_option("-s,--schema", opts->schema,
                    "JSON Schema for type checking: a file types input everywhere; a directory's a/b.json is "
                    "schema.a.b for METADATA schemas: annotations");
    cmd->add_flag("--v1-compatible")->description("Rego v1 (the default; accepted for OPA compatibility)");
    cmd->add_option("--timeout", opts->timeout, "Timeout per test as a duration (default 5s, 30s with --bench)");
    cmd->add_option("-t,--target", opts->target, "Runtime to exercise: rego (OPA's wasm target is not supported)");
    cmd->add_option("-p,--parallel", opts->parallel, "Tests run at once (default: the number of cores)");
    cmd->add_flag("--bench", opts->bench, "Benchmark the passing tests (Go benchmark lines)");
    cmd->add_flag("--benchmem{true},!--no-benchmem", opts->benchmem, "Report allocations with --bench (default true)");
    cmd->add_option("--benchtime", opts->benchtime, "Time to run each benchmark for (gavel; default 1s)");
    cmd->add_option("--count", opts->count, "Run the tests this many times")->check(CLI::PositiveNumber);
    cmd->add_flag("--fail-on-empty", opts->fail_on_empty, "Exit with status 1 when no test was found");
    cmd->add_flag("-z,--exit-zero-on-skipped", opts->exit_zero_on_skipped,
                  "Exit with status 0 when tests were skipped but none failed (else skipped tests exit 2, as OPA)");
    cmd->add_option("--ignore", opts->ignore, "Ignore files and directories whose name matches this glob (repeatable)")
        ->allow_extra_args(false);
    cmd->add_flag("-c,--coverage", opts->coverage, "Print the coverage report (JSON) instead of the results");
    cmd->add_option("--threshold", opts->threshold, "With --coverage: exit 2 below this percentage");
    cmd->add_flag("--var-values", opts->var_values, "For failing tests, show the values in the expression that failed");
    cmd->add_option("--explain", opts->explain,
                    "Explain failures: fails (as --var-values); full / debug add the whole evaluation trace");
    cmd->add_flag("-w,--watch", opts->watch, "Re-run the tests whenever a file below the paths changes");
    cmd->callback([opts] { exit_status() = run_test_command(*opts); });
}

}  // namespace gavel::cli
