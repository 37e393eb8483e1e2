// The text report of `opa test` (its PrettyReporter):
//
//   FAILURES / SUMMARY sections (verbose runs with failures), then per file
//   (a blank line between files) a "<file>:" header and one line per reported
//   test -- every test with -v, otherwise only those that did not pass -- as
//   "data.pkg.test_x: PASS (1.2ms)", FAIL, ERROR (the error on the next line) or
//   SKIPPED, and under it the test's sub-results, indented by depth (failed
//   ones, or all with -v); a rule of dashes and the PASS: / FAIL: / SKIPPED: /
//   ERROR: n/total lines, which count a test with sub-results once per leaf.
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

const char* value_kind(const runtime::Value& v) {
    if (v.is_set()) return "a set";
    if (v.is_object()) return "an object";
    if (v.is_array()) return "an array";
    if (v.is_string()) return "a string";
    if (v.is_number()) return "a number";
    if (v.is_null()) return "null";
    return "not a boolean";
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
        out << "  " << r.test.file << ":" << r.test.line;
        // A test passes only when true: say what it was instead (a `contains` test is a set).
        if (r.not_boolean) out << ": the test's value is " << value_kind(*r.not_boolean) << ", not true";
        out << "\n";
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

// Every sub-result, depth first in key order, with its depth (1 at the top), as OPA's SubResultMap.Iter.
template <typename Visit>
void each_sub_result(const std::vector<testing::SubResult>& level, const Visit& visit,
                     std::vector<const testing::SubResult*>& lineage) {
    for (const auto& sub : level) {
        lineage.push_back(&sub);
        visit(sub, lineage);
        each_sub_result(sub.cases, visit, lineage);
        lineage.pop_back();
    }
}

template <typename Visit>
void each_sub_result(const std::vector<testing::SubResult>& level, const Visit& visit) {
    std::vector<const testing::SubResult*> lineage;
    each_sub_result(level, visit, lineage);
}

const char* sub_outcome(const testing::SubResult& sub) { return sub.fail ? "FAIL" : "PASS"; }

// Under the test's line: each sub-result indented by its depth.
void print_sub_results(std::ostream& out, const testing::TestResult& r, bool verbose) {
    each_sub_result(r.cases, [&](const testing::SubResult& sub, const std::vector<const testing::SubResult*>& lineage) {
        if (sub.fail || verbose)
            out << std::string(2 * lineage.size(), ' ') << sub.name << ": " << sub_outcome(sub) << "\n";
    });
}

// In the FAILURES section: each failed leaf with its whole lineage, one more indent a level.
void print_failed_lineages(std::ostream& out, const testing::TestResult& r) {
    each_sub_result(r.cases, [&](const testing::SubResult& sub, const std::vector<const testing::SubResult*>& lineage) {
        if (!sub.fail || !sub.leaf()) return;
        for (std::size_t d = 0; d < lineage.size(); ++d)
            out << std::string(2 * (d + 1), ' ') << lineage[d]->key << ": " << sub_outcome(sub) << "\n";
    });
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
            // Only leaves count, as in OPA's PrettyReporter.
            each_sub_result(r.cases, [&](const testing::SubResult& sub, const auto&) {
                if (sub.leaf()) (sub.fail ? c.fail : c.pass) += 1;
            });
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
            print_failed_lineages(out, r);
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
                if (!last_file.empty()) out << "\n";  // a blank line between files, as OPA
                out << r.test.file << ":\n";
                last_file = r.test.file;
            }
            dirty = true;
            out << status_line(r) << "\n";
            if (!options.verbose) {
                print_failure_detail(out, r, options);
                print_trace(out, rep.trace);
            }
            print_sub_results(out, r, options.verbose);
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
