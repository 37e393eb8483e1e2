// gavel verify: runs gator's test suites (engine/gatekeeper/verify.hpp) and
// prints as `gator verify` does: failures always, every test and case with -v,
// "PASS" or "FAIL" last; exit 0 when everything passed, 1 otherwise.
// --format json prints [{suite, test, case, status, message}] instead.

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "engine/gatekeeper/gatekeeper.hpp"
#include "runtime/json.hpp"

namespace gavel::cli {

namespace {

using runtime::Value;

struct VerifyCliOptions {
    std::vector<std::string> paths;
    bool verbose = false;
    std::string run;
    std::string format = "pretty";
};

std::string duration(double seconds) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3fs", seconds);
    return buf;
}

void print_case(const gatekeeper::CaseResult& c, bool verbose) {
    if (verbose) {
        if (c.skipped) {
            std::cout << "    === SKIP  " << c.name << "\n";
            return;
        }
        std::cout << "    === RUN   " << c.name << "\n";
        if (!c.print.empty()) {
            std::cout << "        === PRINT ===\n";
            std::string text = c.print;
            if (text.ends_with('\n')) text.pop_back();
            std::size_t start = 0;
            while (start <= text.size()) {
                auto end = text.find('\n', start);
                std::cout << "        " << text.substr(start, end - start) << "\n";
                if (end == std::string::npos) break;
                start = end + 1;
            }
        }
    }
    if (c.error)
        std::cout << "    --- FAIL: " << c.name << "\t(" << duration(c.seconds) << ")\n        " << *c.error << "\n";
    else if (verbose && !c.skipped) std::cout << "    --- PASS: " << c.name << "\t(" << duration(c.seconds) << ")\n";
}

void print_test(const gatekeeper::TestResult& t, bool verbose) {
    if (verbose) {
        if (t.skipped) {
            std::cout << "=== SKIP  " << t.name << "\n";
            return;
        }
        std::cout << "=== RUN   " << t.name << "\n";
    }
    for (const auto& c : t.cases) print_case(c, verbose);
    if (t.failed()) {
        std::cout << "--- FAIL: " << t.name << "\t(" << duration(t.seconds) << ")\n";
        if (t.error) std::cout << "  " << *t.error << "\n";
    } else if (verbose) {
        std::cout << "--- PASS: " << t.name << "\t(" << duration(t.seconds) << ")\n";
    }
}

Value json_results(const std::vector<gatekeeper::SuiteResult>& suites) {
    auto str = [](std::string_view s) { return Value::string(s); };
    runtime::ArrayBuilder list;
    auto entry = [&](const std::string& suite, const std::string& test, const std::string& c, std::string_view status,
                     const std::string& message) {
        list.push_back(Value::object({{str("suite"), str(suite)},
                                      {str("test"), str(test)},
                                      {str("case"), str(c)},
                                      {str("status"), str(status)},
                                      {str("message"), str(message)}}));
    };
    for (const auto& s : suites) {
        if (s.skipped) entry(s.path, "", "", "SKIP", "");
        if (s.error) entry(s.path, "", "", "FAIL", *s.error);
        for (const auto& t : s.tests) {
            if (t.skipped) entry(s.path, t.name, "", "SKIP", "");
            if (t.error) entry(s.path, t.name, "", "FAIL", *t.error);
            else if (!t.skipped && t.cases.empty()) entry(s.path, t.name, "", "PASS", "");
            for (const auto& c : t.cases)
                entry(s.path, t.name, c.name, c.skipped ? "SKIP" : c.error ? "FAIL" : "PASS", c.error.value_or(""));
        }
    }
    return list.build();
}

int run_verify(const VerifyCliOptions& o) {
    if (o.format != "pretty" && o.format != "json") {
        std::cerr << "gavel verify: --format must be pretty or json\n";
        return 1;
    }
    std::string error;
    auto filter = gatekeeper::VerifyFilter::parse(o.run, error);
    if (!filter) {
        std::cerr << "gavel verify: compiling filter: " << error << "\n";
        return 1;
    }
    std::vector<std::pair<std::string, std::string>> suites;  // file, as shown
    for (const auto& p : o.paths) {
        std::vector<std::string> files;
        if (!gatekeeper::find_suites(p, files, error)) {
            std::cerr << "gavel verify: " << error << "\n";
            return 1;
        }
        for (auto& f : files) suites.emplace_back(f, f);
    }
    std::vector<gatekeeper::SuiteResult> results;
    bool failed = false;
    for (const auto& [file, shown] : suites) {
        results.push_back(gatekeeper::run_suite(file, shown, *filter));
        const auto& r = results.back();
        failed = failed || r.failed();
        if (o.format != "pretty") continue;
        for (const auto& t : r.tests) print_test(t, o.verbose);
        if (r.failed()) {
            std::cout << "FAIL\t" << r.path << "\t" << duration(r.seconds) << "\n";
            if (r.error) std::cout << "  " << *r.error << "\n";
        } else {
            std::cout << "ok\t" << r.path << "\t" << duration(r.seconds) << "\n";
        }
        std::cout.flush();
    }
    if (o.format == "json") std::cout << runtime::to_json(json_results(results), runtime::JsonStyle::Pretty) << "\n";
    else std::cout << (failed ? "FAIL" : "PASS") << "\n\n";
    return failed ? 1 : 0;
}

}  // namespace

void add_verify_command(CLI::App& app) {
    auto opts = std::make_shared<VerifyCliOptions>();
    auto* cmd =
        app.add_subcommand("verify", "Run gator verify suites of Gatekeeper ConstraintTemplates and Constraints");
    cmd->add_option("paths", opts->paths, "Suite files or directories (DIR/... for every directory below)")->required();
    cmd->add_flag("-v,--verbose", opts->verbose, "Print every test and case");
    cmd->add_option("-r,--run", opts->run, "Regular expression selecting tests and cases (TEST//CASE)");
    cmd->add_option("-f,--format", opts->format, "pretty or json")->capture_default_str();
    cmd->callback([opts] { exit_status() = run_verify(*opts); });
}

}  // namespace gavel::cli
