// The text report of `opa test` (its PrettyReporter):
//
//   FAILURES / SUMMARY sections (verbose runs with failures), then per file a
//   "<file>:" header and one line per reported test -- every test with -v,
//   otherwise only those that did not pass -- as "data.pkg.test_x: PASS (1.2ms)",
//   FAIL, ERROR (the error on the next line) or SKIPPED; a rule of dashes and
//   the PASS: / FAIL: / SKIPPED: / ERROR: n/total lines.
//
// Beyond OPA: a failing test names where it failed, "  <file>:<line>: <the
// expression>" (the test body's expression that failed, else the test rule),
// and with --var-values the values of that expression's operands and variables.

#include <string_view>

#include "cli/test_runner/report.hpp"
#include "runtime/value_format.hpp"

namespace gavel::cli::test_runner {

namespace {

const std::string kRule(80, '-');

std::string outcome(const testing::TestResult& r) {
    if (r.skip) return "SKIPPED";
    if (r.error) return "ERROR";
    if (r.fail) return "FAIL";
    return "PASS";
}

std::string status_line(const testing::TestResult& r) {
    std::string line = r.test.full_name() + ": " + outcome(r);
    if (!r.skip) line += " (" + go_duration(r.duration) + ")";
    return line;
}

std::string first_line(std::string_view s) { return std::string(s.substr(0, s.find('\n'))); }

void print_trace(std::ostream& out, const std::string& trace) {
    if (trace.empty()) return;
    out << "\n";
    std::string_view text(trace);
    while (!text.empty()) {
        std::size_t nl = text.find('\n');
        out << "  " << text.substr(0, nl) << "\n";
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
}

void print_failure_detail(std::ostream& out, const testing::TestResult& r, const ReportOptions& options) {
    if (!r.fail || r.error) return;
    if (!r.failed_at) {
        out << "  " << r.test.file << ":" << r.test.line << "\n";
        return;
    }
    const auto& f = *r.failed_at;
    out << "  " << f.file << ":" << f.line << ": " << first_line(f.text) << "\n";
    if (!options.var_values) return;
    for (const auto& [text, value] : f.operands) {
        std::string shown = value ? format_value(*value) : "undefined";
        if (shown == text) continue;  // a constant says nothing new
        out << "    " << first_line(text) << " = " << shown << "\n";
    }
    for (const auto& [name, value] : f.bindings) {
        bool listed = false;
        for (const auto& op : f.operands) listed |= op.first == name;
        if (!listed) out << "    " << name << " = " << format_value(value) << "\n";
    }
}

void print_output(std::ostream& out, const std::string& output) {
    std::size_t end = output.find_last_not_of(" \t\r\n");
    if (end == std::string::npos) return;
    std::size_t begin = output.find_first_not_of(" \t\r\n");
    out << "\n";
    std::string_view text(output.data() + begin, end + 1 - begin);
    while (!text.empty()) {
        std::size_t nl = text.find('\n');
        out << "  " << text.substr(0, nl) << "\n";
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    out << "\n";
}

}  // namespace

Counts count_results(const std::vector<Reported>& results) {
    Counts c;
    for (const auto& rep : results) {
        const auto& r = rep.result;
        if (r.skip) ++c.skip;
        else if (r.error) ++c.error;
        else if (!r.cases.empty()) {
            for (const auto& sub : r.cases) (sub.fail ? c.fail : c.pass) += 1;
        } else if (r.fail) ++c.fail;
        else ++c.pass;
    }
    return c;
}

void print_pretty(std::ostream& out, const std::vector<Reported>& results, const ReportOptions& options) {
    Counts counts = count_results(results);
    if (counts.fail > 0 && options.verbose) {
        out << "FAILURES\n" << kRule << "\n";
        for (const auto& rep : results) {
            const auto& r = rep.result;
            if (!r.fail || r.error) continue;
            out << status_line(r) << "\n";
            print_failure_detail(out, r, options);
            for (const auto& sub : r.cases)
                if (sub.fail) out << "  " << sub.name << ": FAIL\n";
            print_trace(out, rep.trace);
            out << "\n";
        }
        out << "SUMMARY\n" << kRule << "\n";
    }
    bool dirty = false;
    std::string last_file;
    for (const auto& rep : results) {
        const auto& r = rep.result;
        if (r.pass() && rep.bench) {
            dirty = true;
            out << (options.gobench ? go_benchmark_name(r.test.full_name()) : r.test.full_name()) << "\t"
                << go_benchmark_line(*rep.bench);
            if (options.benchmem) out << "\t" << go_benchmark_mem(*rep.bench);
            out << "\n";
            continue;
        }
        if (options.verbose || !r.pass()) {
            if (r.test.file != last_file) {
                out << r.test.file << ":\n";
                last_file = r.test.file;
            }
            dirty = true;
            out << status_line(r) << "\n";
            if (!options.verbose) {
                print_failure_detail(out, r, options);
                print_trace(out, rep.trace);
            }
            for (const auto& sub : r.cases)
                if (options.verbose || sub.fail) out << "  " << sub.name << ": " << (sub.fail ? "FAIL" : "PASS") << "\n";
            if (!r.output.empty() && (options.verbose || !r.pass())) print_output(out, r.output);
        }
        if (r.error) out << "  " << r.error->to_string() << "\n";
    }
    if (dirty) out << kRule << "\n";
    std::size_t total = counts.total();
    if (counts.pass) out << "PASS: " << counts.pass << "/" << total << "\n";
    if (counts.fail) out << "FAIL: " << counts.fail << "/" << total << "\n";
    if (counts.skip) out << "SKIPPED: " << counts.skip << "/" << total << "\n";
    if (counts.error) out << "ERROR: " << counts.error << "/" << total << "\n";
}

}  // namespace gavel::cli::test_runner
