// conformance_runner: runs OPA's topdown conformance cases
// (../shared/conformance/opa, format and semantics in its SOURCE.md) through
// gavel's embedding API and reports per folder, per version and in total.
//
//   conformance_runner [--dir DIR] [--filter SUBSTRING]... [-v] [-q]
//                      [--baseline FILE | --update-baseline FILE [--allow-shrink]]
//                      [--timeout SECONDS] [--slowest N]
//
// The last line of the output is always "N passed, N failed" (", N skipped" if any).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <vector>

#include "engine/engine.hpp"
#include "test/conformance/baseline.hpp"
#include "test/conformance/compare.hpp"
#include "test/conformance/suite.hpp"
#include "test/conformance/test_builtins.hpp"

#ifndef GAVEL_CONFORMANCE_DIR
#define GAVEL_CONFORMANCE_DIR ""
#endif

namespace fs = std::filesystem;
using namespace gavel;
using namespace gavel::conformance;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    fs::path dir = GAVEL_CONFORMANCE_DIR;
    bool dir_given = false;  // --dir or GAVEL_CONFORMANCE_DIR named it: its absence is an error
    std::vector<std::string> filters;
    bool verbose = false;
    bool quiet = false;
    std::optional<fs::path> baseline;         // --baseline: check
    std::optional<fs::path> update_baseline;  // --update-baseline: rewrite
    bool allow_shrink = false;
    double timeout_seconds = 10;
    std::size_t slowest = 0;
};

void usage(std::ostream& out) {
    out << "usage: conformance_runner [options]\n"
           "  --dir DIR                the conformance suite (default: " GAVEL_CONFORMANCE_DIR
           ")\n"
           "  --filter SUBSTRING       only cases whose id (v1/folder/file.yaml#index) or note contains it\n"
           "                           (repeatable: any match selects)\n"
           "  -v, --verbose            print each failing (and skipped) case with the reason\n"
           "  -q, --quiet              no per-folder lines\n"
           "  --baseline FILE          fail (exit 1) if a case listed in FILE fails; list newly passing cases\n"
           "  --update-baseline FILE   add the passing cases to FILE (never drops a listed case ...)\n"
           "  --allow-shrink           ... unless this is given\n"
           "  --timeout SECONDS        evaluation timeout per case (default 10)\n"
           "  --slowest N              print the N slowest cases\n";
}

std::optional<Options> parse_args(int argc, char** argv) {
    Options o;
    if (const char* env = std::getenv("GAVEL_CONFORMANCE_DIR"); env && *env) o.dir = env, o.dir_given = true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::optional<std::string> {
            if (i + 1 >= argc) {
                std::cerr << "conformance_runner: " << a << " needs a value\n";
                return std::nullopt;
            }
            return std::string(argv[++i]);
        };
        if (a == "-h" || a == "--help") {
            usage(std::cout);
            std::exit(0);
        } else if (a == "-v" || a == "--verbose") {
            o.verbose = true;
        } else if (a == "-q" || a == "--quiet") {
            o.quiet = true;
        } else if (a == "--allow-shrink") {
            o.allow_shrink = true;
        } else if (a == "--dir" || a == "--filter" || a == "--baseline" || a == "--update-baseline" ||
                   a == "--timeout" || a == "--slowest") {
            auto v = value();
            if (!v) return std::nullopt;
            if (a == "--dir") o.dir = *v, o.dir_given = true;
            else if (a == "--filter") o.filters.push_back(*v);
            else if (a == "--baseline") o.baseline = *v;
            else if (a == "--update-baseline") o.update_baseline = *v;
            else if (a == "--timeout" || a == "--slowest") {
                char* end = nullptr;
                double d = std::strtod(v->c_str(), &end);
                if (end == v->c_str() || *end != '\0' || !(d >= 0)) {
                    std::cerr << "conformance_runner: bad number for " << a << ": " << *v << "\n";
                    return std::nullopt;
                }
                if (a == "--timeout") o.timeout_seconds = d;
                else o.slowest = static_cast<std::size_t>(d);
            }
        } else {
            std::cerr << "conformance_runner: unknown argument " << a << "\n";
            usage(std::cerr);
            return std::nullopt;
        }
    }
    if (o.baseline && o.update_baseline) {
        std::cerr << "conformance_runner: --baseline and --update-baseline are exclusive\n";
        return std::nullopt;
    }
    if (o.allow_shrink && !o.update_baseline) {
        std::cerr << "conformance_runner: --allow-shrink only goes with --update-baseline\n";
        return std::nullopt;
    }
    return o;
}

bool selected(const Options& o, const std::string& id, const std::string& note) {
    if (o.filters.empty()) return true;
    for (const auto& f : o.filters)
        if (id.find(f) != std::string::npos || note.find(f) != std::string::npos) return true;
    return false;
}

// ---- crash and hang guards ---------------------------------------------------------
// A crash names the case it happened in; a case that outlives its evaluation
// timeout by far (a hang outside evaluation, e.g. in compilation) ends the run
// with its name instead of blocking CI until meson's timeout.

char g_current_case[1024] = "(none)";

void on_crash(int sig) {
    static const char prefix[] = "\nconformance_runner: crashed (signal) while running case ";
    (void)!::write(2, prefix, sizeof prefix - 1);
    (void)!::write(2, g_current_case, std::strlen(g_current_case));
    (void)!::write(2, "\n", 1);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

class Watchdog {
public:
    explicit Watchdog(std::chrono::seconds limit) : limit_(limit), thread_([this] { loop(); }) {}
    ~Watchdog() {
        {
            std::lock_guard lock(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    void start(const std::string& id) {
        std::lock_guard lock(mu_);
        id_ = id;
        started_ = Clock::now();
        busy_ = true;
    }
    void done() {
        std::lock_guard lock(mu_);
        busy_ = false;
    }

private:
    void loop() {
        std::unique_lock lock(mu_);
        while (!stop_) {
            cv_.wait_for(lock, std::chrono::seconds(1));
            if (busy_ && Clock::now() - started_ > limit_) {
                std::cerr << "\nconformance_runner: case " << id_ << " still running after " << limit_.count()
                          << " s (the evaluation timeout did not stop it); aborting the run\n";
                std::cerr.flush();
                std::_Exit(3);
            }
        }
    }

    std::chrono::seconds limit_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::string id_;
    Clock::time_point started_;
    bool busy_ = false;
    bool stop_ = false;
    std::thread thread_;
};

// ---- running one case ----------------------------------------------------------------

enum class Status { Pass, Fail, Skip };

struct Outcome {
    Status status = Status::Fail;
    std::string why;
    double seconds = 0;
};

Outcome fail(std::string why) { return {Status::Fail, std::move(why)}; }

Outcome run_case(const Case& c, const Options& o) {
    if (!c.load_error.empty()) return fail("cannot load case: " + c.load_error);
    if (!c.skip_reason.empty()) return {Status::Skip, c.skip_reason};

    // OPA's topdown harness compiles without the rule/data path check: its cases expect data to win.
    Engine engine(EngineOptions{
        .v0_compatible = c.v0, .experimental_keywords = c.experimental_keywords, .check_data_conflicts = false});
    register_test_builtins(engine);

    for (std::size_t i = 0; i < c.modules.size(); ++i) {
        const std::string name = "test-" + std::to_string(i) + ".rego";
        auto diags = engine.add_policy(name, c.modules[i]);
        if (!diags.empty()) return fail("parse error (no case expects one):\n" + diags.format());
    }
    if (c.data) {
        if (auto err = engine.add_data(*c.data)) return fail("add_data: " + *err);
    }
    std::optional<runtime::Value> input;
    if (c.input_term) {
        auto term = Engine::parse_term(*c.input_term);
        if (!term.ok()) return fail("input_term does not parse:\n" + term.diagnostics.format());
        input = std::move(*term.value);
    } else if (c.input) {
        input = *c.input;
    }

    auto prepared = engine.prepare(c.query);
    if (!prepared.ok()) return fail("compile error (no case expects one):\n" + prepared.diagnostics.format());

    EvalOptions eval;
    eval.input = input ? &*input : nullptr;
    eval.strict_builtin_errors = c.strict_error;
    eval.timeout =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(o.timeout_seconds));
    eval.print = [](std::string_view) {};  // print() output is not part of any expectation
    EvalResult result = prepared.value->eval(eval);

    Verdict v = judge(c, result);
    return {v.pass ? Status::Pass : Status::Fail, std::move(v.why)};
}

std::string indent(std::string_view text, const std::string& pad) {
    while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    std::string out = pad;
    for (char ch : text) {
        out += ch;
        if (ch == '\n') out += pad;
    }
    return out;
}

struct Tally {
    std::size_t pass = 0, fail = 0, skip = 0;
    void add(Status s) { (s == Status::Pass ? pass : s == Status::Fail ? fail : skip) += 1; }
};

void print_tally(const std::string& label, const Tally& t) {
    std::cout << label << ": " << t.pass << "/" << (t.pass + t.fail);
    if (t.skip) std::cout << " (" << t.skip << " skipped)";
    std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    auto parsed = parse_args(argc, argv);
    if (!parsed) return 2;
    const Options& o = *parsed;

    std::optional<Baseline> baseline;
    const fs::path* baseline_path = o.baseline ? &*o.baseline : o.update_baseline ? &*o.update_baseline : nullptr;
    if (baseline_path) {
        std::string err;
        if (o.update_baseline && !fs::exists(*baseline_path)) {
            baseline = Baseline{};
        } else if (!(baseline = read_baseline(*baseline_path, err))) {
            std::cerr << "conformance_runner: " << err << "\n";
            return 2;
        }
    }

    if (o.dir.empty() || !fs::is_directory(o.dir / "v1")) {
        std::cerr << "conformance_runner: no conformance suite at '" << o.dir.string()
                  << "' (expected v0/ and v1/ folders; use --dir)\n";
        // The default place is outside this repository: a checkout without it skips (meson's 77).
        if (!o.dir_given) {
            std::cerr
                << "SKIPPED: OPA's conformance suite lives outside this repository, in ../shared/conformance/opa\n";
            return 77;
        }
        return 2;
    }

    const auto t_load = Clock::now();
    const std::vector<Case> cases = load_suite(o.dir);
    const double load_seconds = std::chrono::duration<double>(Clock::now() - t_load).count();

    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_crash);
    const auto watchdog_limit = std::chrono::seconds(std::max<long>(60, static_cast<long>(3 * o.timeout_seconds) + 30));
    Watchdog watchdog(watchdog_limit);

    std::map<std::string, Tally> folders;
    Tally v0, v1, all;
    std::vector<std::pair<const Case*, Outcome>> outcomes;
    outcomes.reserve(cases.size());

    const auto t_run = Clock::now();
    for (const Case& c : cases) {
        if (!selected(o, c.id, c.note)) continue;
        std::snprintf(g_current_case, sizeof g_current_case, "%s (%s)", c.id.c_str(), c.note.c_str());
        watchdog.start(c.id);
        const auto t0 = Clock::now();
        Outcome out;
        try {
            out = run_case(c, o);
        } catch (const std::exception& e) {
            out = fail(std::string("exception: ") + e.what());
        } catch (...) {
            out = fail("unknown exception");
        }
        out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        watchdog.done();

        folders[c.folder].add(out.status);
        (c.v0 ? v0 : v1).add(out.status);
        all.add(out.status);
        if (o.verbose && out.status != Status::Pass) {
            std::cout << (out.status == Status::Fail ? "FAIL " : "SKIP ") << c.id << "  " << c.note << "\n"
                      << "  query: " << c.query << "\n"
                      << indent(out.why, "  ") << "\n";
        }
        outcomes.emplace_back(&c, std::move(out));
    }
    const double run_seconds = std::chrono::duration<double>(Clock::now() - t_run).count();

    if (!o.quiet)
        for (const auto& [folder, t] : folders) print_tally(folder, t);
    if (v0.pass + v0.fail + v0.skip) print_tally("v0", v0);
    if (v1.pass + v1.fail + v1.skip) print_tally("v1", v1);

    if (o.slowest) {
        std::vector<std::pair<const Case*, Outcome>*> by_time;
        for (auto& p : outcomes) by_time.push_back(&p);
        const std::size_t n = std::min(o.slowest, by_time.size());
        std::partial_sort(by_time.begin(), by_time.begin() + n, by_time.end(),
                          [](auto* a, auto* b) { return a->second.seconds > b->second.seconds; });
        std::cout << "slowest cases:\n";
        for (std::size_t i = 0; i < n; ++i) {
            char secs[32];
            std::snprintf(secs, sizeof secs, "%8.3f", by_time[i]->second.seconds);
            std::cout << "  " << secs << " s  " << by_time[i]->first->id << "\n";
        }
    }
    std::cout << "time: loading " << static_cast<long>(load_seconds * 1000) << " ms, running "
              << static_cast<long>(run_seconds * 1000) << " ms\n";

    int exit_code = all.fail ? 1 : 0;

    if (baseline) {
        // Listed cases that are no longer in the suite (within the filter) count as failing.
        std::map<std::string, bool> ran;  // id -> passed
        for (const auto& [c, out] : outcomes) ran[c->id] = out.status == Status::Pass;
        std::set<std::string> known;
        for (const Case& c : cases) known.insert(c.id);
        std::vector<std::string> regressed, missing, newly;
        std::size_t checked = 0;
        for (const auto& id : *baseline) {
            auto it = ran.find(id);
            if (it != ran.end()) {
                ++checked;
                if (!it->second) regressed.push_back(id);
            } else if (!known.count(id) && selected(o, id, "")) {
                missing.push_back(id);
            }
        }
        for (const auto& [id, passed] : ran)
            if (passed && !baseline->count(id)) newly.push_back(id);

        const fs::path& file = *baseline_path;
        if (o.baseline) {
            exit_code = 0;
            if (!regressed.empty()) {
                std::cout << "baseline: " << regressed.size() << " listed case(s) now fail:\n";
                for (const auto& id : regressed) std::cout << "  " << id << "\n";
                exit_code = 1;
            }
            if (!missing.empty()) {
                std::cout << "baseline: " << missing.size() << " listed case(s) are not in the suite:\n";
                for (const auto& id : missing) std::cout << "  " << id << "\n";
                exit_code = 1;
            }
            if (!newly.empty()) {
                std::cout << "baseline: " << newly.size() << " case(s) pass but are not listed:\n";
                for (const auto& id : newly) std::cout << "  " << id << "\n";
                std::cout << "baseline: record them with: conformance_runner --update-baseline " << file.string()
                          << "\n";
            }
            if (exit_code == 0) std::cout << "baseline: all " << checked << " listed case(s) that ran pass\n";
        } else {
            std::vector<std::string> dropped = regressed;
            dropped.insert(dropped.end(), missing.begin(), missing.end());
            if (!dropped.empty() && !o.allow_shrink) {
                std::cout << "baseline: refusing to drop " << dropped.size()
                          << " listed case(s) that fail or are gone (pass --allow-shrink to drop them):\n";
                for (const auto& id : dropped) std::cout << "  " << id << "\n";
                exit_code = 1;
            } else {
                Baseline next = *baseline;
                for (const auto& id : dropped) next.erase(id);
                for (const auto& id : newly) next.insert(id);
                std::string err;
                if (!write_baseline(file, next, err)) {
                    std::cerr << "conformance_runner: " << err << "\n";
                    return 2;
                }
                std::cout << "baseline: " << file.string() << ": " << newly.size() << " added, " << dropped.size()
                          << " dropped, " << next.size() << " listed\n";
                exit_code = 0;
            }
        }
    }

    std::cout << all.pass << " passed, " << all.fail << " failed";
    if (all.skip) std::cout << ", " << all.skip << " skipped";
    std::cout << std::endl;
    return exit_code;
}
