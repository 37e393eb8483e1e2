// gavel bench QUERY: prepare a query once, evaluate it over and over, report
// the time per evaluation, as `opa bench` does (Go's testing.Benchmark loop).
//
//   -d/--data, -i/--input, -I/--stdin-input, --stdin, --v0-compatible  as for eval
//   --benchtime D   run each benchmark for at least D (Go duration, default 1s)
//   --count N       run the benchmark N times (default 1), one report each
//   --format pretty|json|gobench
//        pretty  (default) a table: samples, ns/op, B/op, allocs/op
//        json    Go's testing.BenchmarkResult: {"N","T","Bytes","MemAllocs","MemBytes","Extra"}
//        gobench "BenchmarkOPAEval  N  x ns/op  y B/op  z allocs/op" (Go benchmark format)
//   --benchmem      report allocations (default on; --benchmem=false to turn off)
//   --fail          an undefined result fails the benchmark (default on, as in opa)
//   --e2e           each iteration also parses the input document from its text
//                   (opa's --e2e runs against a server; gavel's measures
//                   "input bytes -> decision")
// Allocations are counted by the gavel binary's operator new (cli/alloc_counter.cpp)
// on the evaluating thread: C++ heap allocations, not malloc calls of C libraries.
// Errors: printed like eval's (JSON errors for --format json, text on stderr
// otherwise) and exit status 1, as opa bench.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/output_errors.hpp"
#include "stdlib/go_time.hpp"
#include "engine/engine.hpp"
#include "runtime/file_read.hpp"
#include "runtime/json.hpp"
#include "engine/loader.hpp"
#include "runtime/yaml.hpp"

namespace gavel::cli {

// Defined in cli/alloc_counter.cpp: the calling thread's allocation counts.
void alloc_counts(std::uint64_t& allocs, std::uint64_t& bytes) noexcept;

namespace {

using runtime::Value;

struct BenchOptions {
    std::string query;  // a std::string: CLI11 would split a vector's "[1, 2]"
    std::vector<std::string> data;
    std::string input;
    bool stdin_input = false;
    bool stdin_query = false;
    bool v0_compatible = false;
    std::string benchtime = "1s";
    int count = 1;
    std::string format = "pretty";
    bool benchmem = true;
    bool fail = true;
    bool e2e = false;
};

struct BenchResult {
    std::uint64_t n = 0;
    std::uint64_t ns = 0;
    std::uint64_t allocs = 0;
    std::uint64_t bytes = 0;
};

// Go's testing prettyPrint: ten places before the point, three significant digits for small values.
std::string pretty_float(double x) {
    double y = std::fabs(x);
    if (y == 0 || y >= 99.95) return fmt::format("{:10.0f}", x);
    if (y >= 9.995) return fmt::format("{:12.1f}", x);
    if (y >= 0.9995) return fmt::format("{:13.2f}", x);
    if (y >= 0.09995) return fmt::format("{:14.3f}", x);
    if (y >= 0.009995) return fmt::format("{:15.4f}", x);
    if (y >= 0.0009995) return fmt::format("{:16.5f}", x);
    return fmt::format("{:17.6f}", x);
}

std::string trim_left(const std::string& s) {
    auto i = s.find_first_not_of(' ');
    return i == std::string::npos ? std::string() : s.substr(i);
}

// JSON, or else YAML (OPA's util.Unmarshal).
bool parse_input(const std::string& text, Value& out, std::string& error) {
    auto parsed = runtime::parse_json_or_yaml(text);
    if (!parsed) {
        error = parsed.error.message;
        return false;
    }
    out = std::move(parsed.value);
    return true;
}

// Errors as eval prints them: {"errors": [...]} on stdout in JSON, the text on stderr otherwise.
void print_errors(const BenchOptions& opts, const std::vector<OutputError>& errors) {
    if (opts.format == "json") {
        Json doc = Json::object();
        doc.add("errors", errors_json(errors));
        std::cout << encode(doc);
        return;
    }
    std::cerr << errors_text(errors) << "\n";
}

void print_result(const BenchOptions& opts, const BenchResult& r) {
    const double ns_op = r.n ? static_cast<double>(r.ns) / static_cast<double>(r.n) : 0;
    const std::uint64_t allocs_op = r.n ? r.allocs / r.n : 0;
    const std::uint64_t bytes_op = r.n ? r.bytes / r.n : 0;
    if (opts.format == "json") {
        std::cout << fmt::format(
            "{{\n  \"N\": {},\n  \"T\": {},\n  \"Bytes\": 0,\n  \"MemAllocs\": {},\n  \"MemBytes\": {},\n  \"Extra\": "
            "{{}}\n}}\n",
            r.n, r.ns, opts.benchmem ? r.allocs : 0, opts.benchmem ? r.bytes : 0);
    } else if (opts.format == "gobench") {
        std::string line = fmt::format("BenchmarkOPAEval\t{:8d}\t{} ns/op", r.n, pretty_float(ns_op));
        if (opts.benchmem) line += fmt::format("\t{:8d} B/op\t{:8d} allocs/op", bytes_op, allocs_op);
        std::cout << line << "\n";
    } else {
        std::vector<std::pair<std::string, std::string>> rows = {{"samples", std::to_string(r.n)},
                                                                 {"ns/op", trim_left(pretty_float(ns_op))}};
        if (opts.benchmem) {
            rows.emplace_back("B/op", std::to_string(bytes_op));
            rows.emplace_back("allocs/op", std::to_string(allocs_op));
        }
        std::size_t w0 = 0, w1 = 0;
        for (const auto& [k, v] : rows) {
            w0 = std::max(w0, k.size());
            w1 = std::max(w1, v.size());
        }
        std::string rule = "+" + std::string(w0 + 2, '-') + "+" + std::string(w1 + 2, '-') + "+\n";
        std::string out = rule;
        for (const auto& [k, v] : rows)
            out += "| " + k + std::string(w0 - k.size(), ' ') + " | " + std::string(w1 - v.size(), ' ') + v + " |\n";
        std::cout << out << rule;
    }
    std::cout.flush();
}

int run_bench(const BenchOptions& opts) {
    if (!opts.query.empty() && opts.stdin_query) {
        std::cerr << "Error: specify query argument or --stdin but not both\n";
        return 1;
    }
    if (opts.query.empty() && !opts.stdin_query) {
        std::cerr << "Error: specify query argument or --stdin\n";
        return 1;
    }
    if (opts.stdin_input && !opts.input.empty()) {
        std::cerr << "Error: specify --stdin-input or --input but not both\n";
        return 1;
    }
    auto benchtime = stdlib::go_time::parse_flag_duration(opts.benchtime);
    if (!benchtime) {
        std::cerr << "Error: invalid argument \"" << opts.benchtime << "\" for \"--benchtime\" flag\n";
        return 1;
    }

    std::string query = opts.query;
    if (opts.stdin_query) {
        runtime::FileRead read = runtime::read_whole_stream(STDIN_FILENO, "stdin");
        if (!read.ok) {
            print_errors(opts, {plain_error(read.message)});
            return 1;
        }
        query = std::move(read.text);
    }

    std::optional<std::string> input_text;
    if (opts.stdin_input || !opts.input.empty()) {
        runtime::FileRead read =
            opts.stdin_input ? runtime::read_whole_stream(STDIN_FILENO, "stdin") : runtime::read_whole_file(opts.input);
        if (!read.ok) {
            print_errors(opts, {plain_error(read.message)});
            return 1;
        }
        input_text = std::move(read.text);
    }
    Value input;
    if (input_text) {
        std::string error;
        if (!parse_input(*input_text, input, error)) {
            print_errors(opts, {plain_error("unable to parse input: " + error)});
            return 1;
        }
    }

    EngineOptions engine_options;
    engine_options.v0_compatible = opts.v0_compatible;
    Engine engine(engine_options);
    engine::LoadOptions load_options;
    load_options.v0_compatible = opts.v0_compatible;
    std::vector<OutputError> errors;
    for (const auto& d : engine::load_into(engine, opts.data, load_options)) errors.push_back(from_diagnostic(d));
    if (!errors.empty()) {
        print_errors(opts, errors);
        return 1;
    }
    Prepared<PreparedQuery> prepared = engine.prepare(query);
    if (!prepared.ok()) {
        for (const auto& d : prepared.diagnostics) errors.push_back(from_diagnostic(d));
        if (errors.empty()) errors.push_back(plain_error("query could not be prepared"));
        print_errors(opts, errors);
        return 1;
    }
    const PreparedQuery& pq = *prepared.value;

    // One evaluation; an error message when it fails.
    auto once = [&](Value& parsed) -> std::optional<OutputError> {
        EvalOptions eo;
        if (input_text) {
            if (opts.e2e) {
                std::string error;
                if (!parse_input(*input_text, parsed, error)) return plain_error("unable to parse input: " + error);
            }
            eo.input = opts.e2e ? &parsed : &input;
        }
        EvalResult r = pq.eval(eo);
        if (r.error) {
            const EvalError& e = *r.error;
            return from_eval_error(e);
        }
        if (r.rows.empty() && opts.fail) return plain_error("undefined result");
        return std::nullopt;
    };

    // n iterations: the time and allocations they took.
    auto run = [&](std::uint64_t n, BenchResult& out) -> std::optional<OutputError> {
        Value parsed;
        std::uint64_t a0, b0, a1, b1;
        alloc_counts(a0, b0);
        auto start = std::chrono::steady_clock::now();
        for (std::uint64_t i = 0; i < n; ++i) {
            if (auto err = once(parsed)) return err;
        }
        auto elapsed = std::chrono::steady_clock::now() - start;
        alloc_counts(a1, b1);
        out.n = n;
        out.ns = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
        out.allocs = a1 - a0;
        out.bytes = b1 - b0;
        return std::nullopt;
    };

    const std::uint64_t goal = static_cast<std::uint64_t>(benchtime->count());
    for (int c = 0; c < std::max(1, opts.count); ++c) {
        // Go's testing.B.launch: grow n (by the measured rate, +20%, at most 100x)
        // until one run takes at least the bench time.
        BenchResult result;
        std::uint64_t n = 1;
        if (auto err = run(n, result)) {
            print_errors(opts, {*err});
            return 1;
        }
        while (result.ns < goal && n < 1'000'000'000) {
            const std::uint64_t last = n;
            const std::uint64_t prev_ns = std::max<std::uint64_t>(result.ns, 1);
            long double predicted = static_cast<long double>(goal) * static_cast<long double>(last) / prev_ns;
            predicted *= 1.2L;
            n = predicted > 1e9L ? 1'000'000'000ULL : static_cast<std::uint64_t>(predicted);
            n = std::min(n, 100 * last);
            n = std::max(n, last + 1);
            n = std::min<std::uint64_t>(n, 1'000'000'000);
            if (auto err = run(n, result)) {
                print_errors(opts, {*err});
                return 1;
            }
        }
        print_result(opts, result);
    }
    return 0;
}

}  // namespace

void add_bench_command(CLI::App& app) {
    auto opts = std::make_shared<BenchOptions>();
    auto* cmd = app.add_subcommand("bench", "Benchmark a Rego query (like opa bench)");
    cmd->add_option("query", opts->query, "The query to benchmark");
    cmd->add_option("-d,--data", opts->data, "Policy or data file or directory (repeatable)")->allow_extra_args(false);
    cmd->add_option("-i,--input", opts->input, "Input document file (JSON or YAML)");
    cmd->add_flag("-I,--stdin-input", opts->stdin_input, "Read the input document from stdin");
    cmd->add_flag("--stdin", opts->stdin_query, "Read the query from stdin");
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse policies and the query in the pre-1.0 Rego dialect");
    // OPA 0.x scripts pass --v1-compatible; v1 is the default here, so it changes nothing.
    cmd->add_flag("--v1-compatible")->description("Rego v1 (the default; accepted for OPA compatibility)");
    cmd->add_option("--benchtime", opts->benchtime, "Minimum time per benchmark run (Go duration)")
        ->capture_default_str();
    cmd->add_option("--count", opts->count, "Number of benchmark runs")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("-f,--format", opts->format, "Output format: pretty, json, gobench")
        ->capture_default_str()
        ->check(CLI::IsMember({"pretty", "json", "gobench"}));
    cmd->add_flag("--benchmem", opts->benchmem, "Report memory allocations (default true; --benchmem=false)");
    cmd->add_flag("--fail", opts->fail, "An undefined result fails the benchmark (default true; --fail=false)");
    cmd->add_flag("--e2e", opts->e2e, "Parse the input document in every iteration");
    cmd->callback([opts] { exit_status() = run_bench(*opts); });
}

}  // namespace gavel::cli
