#pragma once
// Printing test results as `opa test` does: the pretty text report, the JSON
// array of results, and the coverage report.

#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "cli/test_runner/go_format.hpp"
#include "engine/testing.hpp"

namespace gavel::cli::test_runner {

struct Reported {
    testing::TestResult result;
    std::optional<BenchmarkResult> bench;  // --bench, passing tests
    std::string trace;                     // --explain full, failing tests: the evaluation trace
};

struct ReportOptions {
    bool verbose = false;
    bool var_values = false;  // show the failed expression's variables and operands
    bool benchmem = true;
    bool gobench = false;  // --format gobench: benchmark lines named as Go benchmarks
};

// Results as OPA counts them: each case of a multi-value test counts once.
struct Counts {
    std::size_t pass = 0, fail = 0, skip = 0, error = 0;
    std::size_t total() const { return pass + fail + skip + error; }
};
Counts count_results(const std::vector<Reported>& results);

void print_pretty(std::ostream& out, const std::vector<Reported>& results, const ReportOptions& options);
void print_json(std::ostream& out, const std::vector<Reported>& results);

// OPA's cover.Report as JSON: per file covered / not_covered row ranges, line
// counts and the percentage; and the percentage alone (for --threshold).
struct CoverageReport {
    std::string json;
    double coverage = 0;
};
CoverageReport coverage_report(const std::map<std::string, std::set<uint32_t>>& coverable,
                               const std::map<std::string, std::set<uint32_t>>& covered);

}  // namespace gavel::cli::test_runner
