// Gatekeeper mode: one review of a 10-container Pod against 40 constraints of
// gatekeeper-library's templates (PolicySet::review, as `serve --gatekeeper`
// runs it per request), and each template's share of it. The set is made by
// test/bench/gatekeeper_load_set.py from a library checkout; these cases read
// it from $GAVEL_GATEKEEPER_LOAD_SET (its policies/ and review.json) and are
// skipped without it.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/gatekeeper/gatekeeper.hpp"
#include "runtime/json.hpp"

namespace {

using namespace gavel;

struct LoadSet {
    std::shared_ptr<const gatekeeper::PolicySet> set;
    std::optional<gatekeeper::Review> review;
    std::string review_text;  // the AdmissionReview as a request body
    std::string error;        // why there is none
};

const LoadSet& load_set() {
    static const LoadSet loaded = [] {
        LoadSet out;
        const char* dir = std::getenv("GAVEL_GATEKEEPER_LOAD_SET");
        if (!dir || !*dir) {
            out.error = "set GAVEL_GATEKEEPER_LOAD_SET (test/bench/gatekeeper_load_set.py LIBRARY DIR)";
            return out;
        }
        auto files = gatekeeper::read_object_paths({std::string(dir) + "/policies"});
        lang::Diagnostics errors = files.errors;
        gatekeeper::PolicySetBuilder builder;
        builder.add_objects(files.objects, errors, nullptr, false);
        out.set = builder.build(errors);
        if (!errors.empty()) {
            out.error = "the load set does not compile: " + errors.opa_text();
            return out;
        }
        std::ifstream in(std::string(dir) + "/review.json");
        std::stringstream text;
        text << in.rdbuf();
        out.review_text = text.str();
        auto parsed = runtime::parse_json(out.review_text);
        const runtime::Value* request = parsed.value.is_object() ? parsed.value.find("request") : nullptr;
        if (!request) {
            out.error = "no review.json with a request in the load set";
            return out;
        }
        std::string why;
        out.review = gatekeeper::review_of_request(*request, runtime::Value(), true, why);
        if (!out.review) out.error = why;
        return out;
    }();
    return loaded;
}

// The load set, or null when there is none: the benchmark is then skipped, saying why.
const LoadSet* usable_load_set(benchmark::State& state) {
    const LoadSet& s = load_set();
    if (s.review) return &s;
    state.SkipWithError(s.error.c_str());
    return nullptr;
}

// As `serve --gatekeeper` reviews an admission request.
gatekeeper::ReviewOptions admission_options() {
    gatekeeper::ReviewOptions options;
    options.filter_operations = true;
    return options;
}

void BM_GatekeeperReview40Constraints(benchmark::State& state) {
    const LoadSet* loaded = usable_load_set(state);
    if (!loaded) return;
    const LoadSet& s = *loaded;
    const gatekeeper::ReviewOptions options = admission_options();
    std::size_t violations = 0;
    for (auto _ : state) {
        auto outcome = s.set->review(*s.review, options);
        if (outcome.error) state.SkipWithError(outcome.error->c_str());
        violations = outcome.violations.size();
        benchmark::DoNotOptimize(outcome);
    }
    state.counters["constraints"] = static_cast<double>(s.set->constraint_count());
    state.counters["violations"] = static_cast<double>(violations);
}
BENCHMARK(BM_GatekeeperReview40Constraints)->Unit(benchmark::kMicrosecond);

// The same from the request body, as the server runs it: the review is read anew each
// time, so nothing a previous review computed on its values (hashes, lazily read
// members) is there to reuse.
void BM_GatekeeperReview40ConstraintsFromBody(benchmark::State& state) {
    const LoadSet* loaded = usable_load_set(state);
    if (!loaded) return;
    const LoadSet& s = *loaded;
    const gatekeeper::ReviewOptions options = admission_options();
    for (auto _ : state) {
        auto parsed = runtime::parse_json(s.review_text);
        std::string why;
        auto review = gatekeeper::review_of_request(*parsed.value.find("request"), runtime::Value(), true, why);
        if (!review) {
            state.SkipWithError(why.c_str());
            break;
        }
        auto outcome = s.set->review(*review, options);
        if (outcome.error) state.SkipWithError(outcome.error->c_str());
        benchmark::DoNotOptimize(outcome);
    }
}
BENCHMARK(BM_GatekeeperReview40ConstraintsFromBody)->Unit(benchmark::kMicrosecond);

// The same review against the i-th (template, constraint) pair alone: where the time goes.
void BM_GatekeeperReviewOneConstraint(benchmark::State& state) {
    const LoadSet* loaded = usable_load_set(state);
    if (!loaded) return;
    const LoadSet& s = *loaded;
    char name[8];
    std::snprintf(name, sizeof name, "%02d", static_cast<int>(state.range(0)));
    const char* dir = std::getenv("GAVEL_GATEKEEPER_LOAD_SET");
    auto files = gatekeeper::read_object_paths(
        {std::string(dir) + "/policies/t" + name + ".yaml", std::string(dir) + "/policies/c" + name + ".yaml"});
    lang::Diagnostics errors = files.errors;
    gatekeeper::PolicySetBuilder builder;
    builder.add_objects(files.objects, errors, nullptr, false);
    auto set = builder.build(errors);
    if (!errors.empty() || set->entries().empty()) {
        state.SkipWithError("the pair does not compile");
        return;
    }
    const gatekeeper::ReviewOptions options = admission_options();
    std::size_t violations = 0;
    for (auto _ : state) {
        auto outcome = set->review(*s.review, options);
        violations = outcome.violations.size();
        benchmark::DoNotOptimize(outcome);
    }
    state.counters["violations"] = static_cast<double>(violations);
    state.SetLabel(set->entries().begin()->first);
}
BENCHMARK(BM_GatekeeperReviewOneConstraint)->DenseRange(0, 39)->Unit(benchmark::kMicrosecond);

// One template with N constraints, all matching a Pod, none violated: what each
// constraint costs beyond the template's own work (here a comparison).
void BM_GatekeeperOneTemplateManyConstraints(benchmark::State& state) {
    const LoadSet* loaded = usable_load_set(state);
    if (!loaded) return;
    const LoadSet& s = *loaded;
    std::string text = R"(apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: k8sminreplicas}
spec:
  crd: {spec: {names: {kind: K8sMinReplicas}}}
  targets:
    - target: admission.k8s.gatekeeper.sh
      rego: |
        package k8sminreplicas
        violation[{"msg": msg}] {
          count(input.review.object.spec.containers) > input.parameters.max
          msg := sprintf("more than %v containers", [input.parameters.max])
        }
)";
    for (int i = 0; i < state.range(0); ++i)
        text += "---\napiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sMinReplicas\nmetadata: {name: c" +
                std::to_string(i) + "}\nspec: {match: {kinds: [{apiGroups: [''], kinds: [Pod]}]}, parameters: {max: " +
                std::to_string(100 + i) + "}}\n";
    auto objects = gatekeeper::read_objects(text, "bench.yaml");
    lang::Diagnostics errors;
    gatekeeper::PolicySetBuilder builder;
    builder.add_objects(objects.objects, errors, nullptr, false);
    auto set = builder.build(errors);
    if (!objects.ok() || !errors.empty() || set->constraint_count() != static_cast<std::size_t>(state.range(0))) {
        state.SkipWithError("the synthetic template does not compile");
        return;
    }
    const gatekeeper::ReviewOptions options = admission_options();
    for (auto _ : state) {
        auto outcome = set->review(*s.review, options);
        if (!outcome.violations.empty()) state.SkipWithError("unexpected violations");
        benchmark::DoNotOptimize(outcome);
    }
}
BENCHMARK(BM_GatekeeperOneTemplateManyConstraints)->Arg(1)->Arg(10)->Unit(benchmark::kMicrosecond);

}  // namespace
