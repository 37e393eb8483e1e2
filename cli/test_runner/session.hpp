#pragma once
// One `gavel test` run: load the paths, discover and filter the tests, run
// them (in parallel, in a deterministic order), benchmark the passing ones.

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/test_runner/report.hpp"

namespace gavel::cli::test_runner {

struct SessionOptions {
    std::vector<std::string> paths;
    std::vector<std::string> ignore;  // glob patterns matched against file and directory names
    bool bundle = false;              // -b: the paths are bundles (directories or .tar.gz)
    bool v0_compatible = false;
    bool strict = false;  // compiler strict mode
    std::string schema;   // -s: a JSON Schema file (for input) or a directory of them
    std::string run;      // RE2 pattern matched against data.pkg.test_x; empty: all
    std::chrono::nanoseconds timeout = std::chrono::seconds(5);
    unsigned parallel = 1;
    int count = 1;
    bool bench = false;
    std::chrono::nanoseconds benchtime = std::chrono::seconds(1);
    bool coverage = false;
    bool explain = true;  // locate failures (re-runs only the failing tests, traced)
    // The trace of failing tests to print: none, "full" (--explain full|debug),
    // "notes", "fails", or "notes+fails" (-v without --explain, as OPA).
    std::string trace;
};

struct SessionResult {
    std::string schema_error;         // -s could not be read: printed as it is
    std::vector<std::string> errors;  // load, parse and compile errors, as printed
    std::vector<Reported> results;
    std::map<std::string, std::set<uint32_t>> coverable, covered;
};

SessionResult run_session(const SessionOptions& options);

}  // namespace gavel::cli::test_runner
