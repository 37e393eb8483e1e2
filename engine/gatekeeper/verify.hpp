#pragma once
// `gator verify` suites (test.gatekeeper.sh/v1alpha1 Suite) with gator's
// semantics (gatekeeper pkg/gator/verify):
//   * a path is a suite file, a directory (its own files), or DIR/... (recursively);
//     every YAML file there is read, and those whose first document is a Suite run;
//   * each test loads its template and constraint (paths relative to the suite); a
//     test marked `invalid` passes when the constraint fails validation;
//   * each case reviews its object (exactly one in the file; an AdmissionReview of
//     admission.k8s.io is reviewed as the request it carries) with the case's
//     inventory in data.inventory, and runs every assertion on all results:
//     `violations` yes (the default) / no / N counts the results whose message the
//     `message` regular expression (RE2, unanchored) matches;
//   * skip: true skips a suite, test or case; --run REGEX selects tests and cases
//     (TEST//CASE selects cases of matching tests).

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace re2 {
class RE2;
}

namespace gavel::gatekeeper {

struct CaseResult {
    std::string name;
    bool skipped = false;
    std::optional<std::string> error;
    double seconds = 0;
    std::string print;  // print() output of the templates
};

struct TestResult {
    std::string name;
    bool skipped = false;
    std::optional<std::string> error;
    double seconds = 0;
    std::vector<CaseResult> cases;
    bool failed() const;
};

struct SuiteResult {
    std::string path;
    bool skipped = false;
    std::optional<std::string> error;
    double seconds = 0;
    std::vector<TestResult> tests;
    bool failed() const;
};

class VerifyFilter {
public:
    // "" matches everything; "A" tests or cases matching A; "A//B" cases matching B in tests matching A.
    static std::optional<VerifyFilter> parse(const std::string& run, std::string& error);
    bool matches_test(const std::string& test, const std::vector<std::string>& cases) const;
    bool matches_case(const std::string& test, const std::string& case_name) const;

private:
    std::shared_ptr<re2::RE2> either_, test_, case_;
};

// The suite files a path names, in gator's order; an error for a path that is
// missing or a file that is not YAML or cannot be parsed.
bool find_suites(const std::string& path, std::vector<std::string>& suites, std::string& error);

SuiteResult run_suite(const std::string& suite_file, const std::string& display_path, const VerifyFilter& filter);

struct AssertionSpec {
    std::optional<std::string> violations_text;  // "yes", "no", or something invalid
    std::optional<long long> violations_count;   // an integer
    bool violations_invalid_type = false;        // neither (a boolean, a list ...)
    std::optional<std::string> message;
};

// Assertion semantics alone (for tests): `violations` as read from YAML (null, "yes", "no", an
// integer, or anything else: an error), an optional message regex, and the results' messages.
std::optional<std::string> check_assertion(const AssertionSpec& assertion, const std::vector<std::string>& messages);

}  // namespace gavel::gatekeeper
