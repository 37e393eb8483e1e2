#include "engine/gatekeeper/verify.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "engine/gatekeeper/kube_object.hpp"
#include "engine/gatekeeper/policy_set.hpp"
#include "runtime/json.hpp"

namespace gavel::gatekeeper {

namespace fs = std::filesystem;
using runtime::Value;
using Clock = std::chrono::steady_clock;

bool TestResult::failed() const {
    if (error) return true;
    return std::any_of(cases.begin(), cases.end(), [](const CaseResult& c) { return c.error.has_value(); });
}

bool SuiteResult::failed() const {
    if (error) return true;
    return std::any_of(tests.begin(), tests.end(), [](const TestResult& t) { return t.failed(); });
}

namespace {

std::shared_ptr<re2::RE2> compile_regex(const std::string& pattern, std::string& error) {
    re2::RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_shared<re2::RE2>(pattern, options);
    if (!re->ok()) {
        error = re->error();
        return nullptr;
    }
    return re;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Go's %v of a []string: [a b c]
std::string go_list(const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + items[i];
    return out + "]";
}

bool is_yaml_name(const fs::path& p) {
    auto ext = p.extension().string();
    return ext == ".yaml" || ext == ".yml";
}

std::string join(const std::string& dir, const std::string& rel) {
    return (fs::path(dir) / fs::path(rel).relative_path()).lexically_normal().string();
}

std::string str_field(const Value& v, std::string_view key) {
    const Value* f = v.is_object() ? v.find(key) : nullptr;
    return f && f->is_string() ? std::string(f->as_string()) : std::string();
}

bool bool_field(const Value& v, std::string_view key) {
    const Value* f = v.is_object() ? v.find(key) : nullptr;
    return f && f->is_bool() && f->as_bool();
}

std::span<const Value> list_field(const Value& v, std::string_view key) {
    const Value* f = v.is_object() ? v.find(key) : nullptr;
    return f && f->is_array() ? f->array_elements() : std::span<const Value>{};
}

AssertionSpec assertion_of(const Value& a) {
    AssertionSpec spec;
    if (const Value* v = a.is_object() ? a.find("violations") : nullptr; v && !v->is_null()) {
        std::int64_t n = 0;
        if (v->is_string()) spec.violations_text = std::string(v->as_string());
        else if (v->is_number() && v->as_int64(n)) spec.violations_count = n;
        else spec.violations_invalid_type = true;
    }
    if (const Value* m = a.is_object() ? a.find("message") : nullptr; m && m->is_string())
        spec.message = std::string(m->as_string());
    return spec;
}

}  // namespace

std::optional<VerifyFilter> VerifyFilter::parse(const std::string& run, std::string& error) {
    VerifyFilter f;
    if (run.empty()) return f;
    auto sep = run.find("//");
    if (sep != std::string::npos && run.find("//", sep + 2) != std::string::npos) {
        error = "invalid test filter: a filter may include at most one \"//\"";
        return std::nullopt;
    }
    std::string why;
    if (sep == std::string::npos) {
        f.either_ = compile_regex(run, why);
    } else {
        f.test_ = compile_regex(run.substr(0, sep), why);
        if (f.test_) f.case_ = compile_regex(run.substr(sep + 2), why);
    }
    if (!why.empty()) {
        error = "invalid test filter: " + why;
        return std::nullopt;
    }
    return f;
}

bool VerifyFilter::matches_case(const std::string& test, const std::string& case_name) const {
    if (either_) return re2::RE2::PartialMatch(case_name, *either_) || re2::RE2::PartialMatch(test, *either_);
    if (test_) return re2::RE2::PartialMatch(case_name, *case_) && re2::RE2::PartialMatch(test, *test_);
    return true;
}

bool VerifyFilter::matches_test(const std::string& test, const std::vector<std::string>& cases) const {
    if (either_) {
        if (re2::RE2::PartialMatch(test, *either_)) return true;
        return std::any_of(cases.begin(), cases.end(), [&](const std::string& c) { return matches_case(test, c); });
    }
    if (test_) return re2::RE2::PartialMatch(test, *test_);
    return true;
}

std::optional<std::string> check_assertion(const AssertionSpec& a, const std::vector<std::string>& messages) {
    std::shared_ptr<re2::RE2> re;
    if (a.message) {
        std::string why;
        re = compile_regex(*a.message, why);
        if (!re) return "message contains invalid regular expression: error parsing regexp: " + why;
    }
    long long matching = 0;
    for (const auto& m : messages)
        if (!re || re2::RE2::PartialMatch(m, *re)) ++matching;
    std::string containing = a.message ? " containing \"" + *a.message + "\"" : "";
    std::string invalid =
        "invalid yaml: assertion.violation, if set, must be a nonnegative integer, \"yes\", or \"no\"";
    std::optional<std::string> problem;
    if (a.violations_invalid_type) return invalid;
    if (a.violations_count) {
        if (*a.violations_count < 0) return invalid;
        if (matching != *a.violations_count)
            problem = "unexpected number of violations: got " + std::to_string(matching) + " violations" + containing +
                      " but want exactly " + std::to_string(*a.violations_count);
    } else {
        std::string want = a.violations_text.value_or("yes");
        if (want == "yes") {
            if (matching == 0)
                problem = "unexpected number of violations: got 0 violations" + containing + " but want at least 1";
        } else if (want == "no") {
            if (matching > 0)
                problem = "unexpected number of violations: got " + std::to_string(matching) + " violations" +
                          containing + " but want none";
        } else {
            return invalid;
        }
    }
    if (problem) return *problem + ": got messages " + go_list(messages);
    return std::nullopt;
}

bool find_suites(const std::string& target, std::vector<std::string>& suites, std::string& error) {
    std::string path = target;
    bool recursive = false;
    if (path.size() >= 3 && path.ends_with("...")) {
        recursive = true;
        path.resize(path.size() - 3);
        if (path.empty()) path = ".";
    }
    std::error_code ec;
    auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
        error = "listing test files: stat " + path + ": no such file or directory";
        return false;
    }
    std::vector<fs::path> files;
    if (!fs::is_directory(status)) {
        if (recursive) {
            error = "listing test files: can only recursively traverse directories, not a directory: \"" + path + "\"";
            return false;
        }
        if (!is_yaml_name(path)) {
            error = "listing test files: unsupported extension: \"" + fs::path(path).extension().string() + "\"";
            return false;
        }
        files.push_back(path);
    } else if (!recursive) {
        for (const auto& e : fs::directory_iterator(path, ec))
            if (!e.is_directory() && is_yaml_name(e.path())) files.push_back(e.path());
    } else {
        for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
             it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (ec) break;
            if (it.depth() > 64) it.disable_recursion_pending();
            if (!it->is_directory() && is_yaml_name(it->path())) files.push_back(it->path());
        }
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        auto read = read_first_object_file(f.string());
        if (!read.ok()) {
            // An empty file or one whose first document has no kind is no suite; a YAML error is.
            if (read.error->message.find("YAML") != std::string::npos) {
                error = "listing test files: invalid yaml: parsing yaml file \"" + f.string() +
                        "\": " + read.error->message;
                return false;
            }
            continue;
        }
        auto gvk = gvk_of(read.objects[0].value);
        if (gvk.group == "test.gatekeeper.sh" && gvk.kind == "Suite") suites.push_back(f.lexically_normal().string());
    }
    return true;
}

namespace {

struct TestSetup {
    PolicySetBuilder builder;
    std::shared_ptr<const PolicySet> set;
};

// The template and constraint of a test; an error as gator words it.
std::optional<std::string> set_up_test(const std::string& dir, const Value& test, TestSetup& setup) {
    std::string template_path = str_field(test, "template");
    if (template_path.empty()) return "invalid Suite: missing template";
    auto t = read_first_object_file(join(dir, template_path));
    if (!t.ok()) return "reading ConstraintTemplate from \"" + join(dir, template_path) + "\": " + t.error->message;
    if (!is_template_object(t.objects[0].value))
        return "path \"" + join(dir, template_path) + "\": not a ConstraintTemplate";
    lang::Diagnostics errors;
    std::vector<std::string> unsupported;
    if (!setup.builder.add_template(t.objects[0], errors, &unsupported)) {
        if (!unsupported.empty()) return "adding template: " + unsupported.front();
        return "adding template: " + errors.items().front().message;
    }
    std::string constraint_path = str_field(test, "constraint");
    if (constraint_path.empty()) return "invalid Suite: missing constraint";
    auto c = read_first_object_file(join(dir, constraint_path));
    if (!c.ok()) return c.error->message;
    if (!is_constraint_object(c.objects[0].value)) return "not a Constraint";
    setup.builder.add_constraint(c.objects[0], errors);
    setup.set = setup.builder.build(errors);
    if (!errors.empty()) {
        const auto& first = errors.items().front().message;
        bool template_error = first.find("#") != std::string::npos || first.find(".rego") != std::string::npos ||
                              first.find("ConstraintTemplate") != std::string::npos;
        return (template_error ? "adding template: " : "adding constraint: ") + first;
    }
    return std::nullopt;
}

std::optional<std::string> run_case(const std::string& dir, const Value& test_case, const TestSetup& setup,
                                    CaseResult& result) {
    std::string object_path = str_field(test_case, "object");
    if (object_path.empty()) return "invalid Case: must define object";
    auto assertions = list_field(test_case, "assertions");
    if (assertions.empty()) return "invalid Case: assertions must be non-empty";
    std::string full = join(dir, object_path);
    auto objects = read_objects_file(full);
    if (!objects.ok()) return "reading \"" + full + "\": invalid yaml: " + objects.error->message;
    if (objects.objects.empty()) return "missing objects: path \"" + full + "\" defines no YAML objects";
    if (objects.objects.size() != 1)
        return "object file must contain exactly one object: \"" + full + "\" defines " +
               std::to_string(objects.objects.size()) + " objects";
    std::shared_ptr<const PolicySet> set = setup.set;
    auto inventory = list_field(test_case, "inventory");
    if (!inventory.empty()) {
        PolicySetBuilder builder = setup.builder;
        for (const auto& p : inventory) {
            std::string inv = join(dir, p.is_string() ? std::string(p.as_string()) : std::string());
            auto inv_objects = read_objects_file(inv);
            if (!inv_objects.ok()) return "reading \"" + inv + "\": invalid yaml: " + inv_objects.error->message;
            if (inv_objects.objects.empty()) return "missing objects: path \"" + inv + "\" defines no YAML objects";
            for (const auto& o : inv_objects.objects) {
                std::string error;
                if (!builder.add_inventory_object(o.value, error)) {
                    auto gvk = gvk_of(o.value);
                    return "unable to add object to data.inventory: " + gvk.api_version() + ", Kind=" + gvk.kind + " " +
                           std::string(object_namespace(o.value)) + "/" + std::string(object_name(o.value)) + ": " +
                           error;
                }
            }
        }
        lang::Diagnostics errors;
        set = builder.build(errors, setup.set.get());
        if (!errors.empty()) return errors.items().front().message;
    }
    const Value& object = objects.objects[0].value;
    auto gvk = gvk_of(object);
    std::optional<Review> review;
    if (gvk.kind == "AdmissionReview" && gvk.group == "admission.k8s.io") {
        const Value* request = object.find("request");
        if (!request || request->is_null())
            return "missing an AdmissionRequest object: request did not actually pass in an AdmissionRequest";
        std::string error;
        review = review_of_request(*request, Value(), false, error);
        if (!review) return "no object or oldObject found to review: " + error;
    } else {
        review = review_of_object(object, Value(), false);
    }
    ReviewOptions options;
    options.enforcement_point = kGatorEnforcementPoint;
    options.control.print = [&result](std::string_view s) {
        result.print.append(s);
        result.print.push_back('\n');
    };
    ReviewOutcome outcome = set->review(*review, options);
    if (outcome.error)
        return "reviewing " + gvk.api_version() + ", Kind=" + gvk.kind + " " + std::string(object_namespace(object)) +
               "/" + std::string(object_name(object)) + ": " + *outcome.error;
    std::vector<std::string> messages;
    for (const auto& v : outcome.violations) messages.push_back(v.message);
    for (const auto& a : assertions)
        if (auto problem = check_assertion(assertion_of(a), messages)) return problem;
    return std::nullopt;
}

}  // namespace

SuiteResult run_suite(const std::string& suite_file, const std::string& display_path, const VerifyFilter& filter) {
    SuiteResult suite;
    suite.path = display_path;
    auto start = Clock::now();
    auto read = read_first_object_file(suite_file);
    if (!read.ok()) {
        suite.error = read.error->message;
        return suite;
    }
    const Value& doc = read.objects[0].value;
    if (bool_field(doc, "skip")) {
        suite.skipped = true;
        return suite;
    }
    std::string dir = fs::path(suite_file).parent_path().string();
    for (const auto& test : list_field(doc, "tests")) {
        TestResult tr;
        tr.name = str_field(test, "name");
        auto test_start = Clock::now();
        auto cases = list_field(test, "cases");
        std::vector<std::string> case_names;
        for (const auto& c : cases) case_names.push_back(str_field(c, "name"));
        if (bool_field(test, "skip") || !filter.matches_test(tr.name, case_names)) {
            tr.skipped = true;
            suite.tests.push_back(std::move(tr));
            continue;
        }
        TestSetup setup;
        auto error = set_up_test(dir, test, setup);
        if (bool_field(test, "invalid")) {
            bool schema_error = error && error->find("schema validation failed") != std::string::npos;
            if (!schema_error)
                tr.error = "constraint should have failed schema validation: got error " + error.value_or("<nil>") +
                           " but want schema validation failed";
        } else if (error) {
            tr.error = *error;
        } else {
            for (std::size_t i = 0; i < cases.size(); ++i) {
                CaseResult cr;
                cr.name = case_names[i];
                if (bool_field(cases[i], "skip") || !filter.matches_case(tr.name, cr.name)) {
                    cr.skipped = true;
                    tr.cases.push_back(std::move(cr));
                    continue;
                }
                auto case_start = Clock::now();
                cr.error = run_case(dir, cases[i], setup, cr);
                cr.seconds = seconds_since(case_start);
                tr.cases.push_back(std::move(cr));
            }
        }
        tr.seconds = seconds_since(test_start);
        suite.tests.push_back(std::move(tr));
    }
    suite.seconds = seconds_since(start);
    return suite;
}

}  // namespace gavel::gatekeeper
