// A /validate/ package without deny never allows silently: rules that look like a
// misspelt conventional admission rule (webhook/misspelt_rules.hpp), and the failure
// decision for a /validate/ request to a package that cannot deny or warn.

#include <doctest/doctest.h>

#include "webhook/admission.hpp"
#include "webhook/misspelt_rules.hpp"
#include "webhook/policy_store.hpp"
#include "webhook/service.hpp"

namespace wh = gavel::webhook;

namespace {

std::string resembles(std::string_view name, std::set<std::string, std::less<>> package_rules = {}) {
    return wh::resembled_conventional_rule(name, package_rules).value_or("-");
}

const char* kReview = R"({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
  "request": {"uid": "u-1", "kind": {"kind": "Pod"}, "operation": "CREATE", "object": {}}})";

wh::HttpRequest post(std::string target) {
    wh::HttpRequest r;
    r.method = "POST";
    r.target = std::move(target);
    r.body = kReview;
    return r;
}

}  // namespace

TEST_CASE("misspelt rules: case, one slip that keeps the letters, plurals where the rule is missing") {
    // Other letter case, and audit_annotations as Kubernetes spells it.
    CHECK(resembles("Deny") == "deny");
    CHECK(resembles("WARN") == "warn");
    CHECK(resembles("Violation") == "violation");
    CHECK(resembles("auditAnnotations") == "audit_annotations");
    // Adjacent letters swapped, a letter doubled, a letter left out.
    CHECK(resembles("dney") == "deny");
    CHECK(resembles("denny") == "deny");
    CHECK(resembles("dny") == "deny");
    CHECK(resembles("wran") == "warn");
    CHECK(resembles("warnn") == "warn");
    CHECK(resembles("ptach") == "patch");
    CHECK(resembles("pacth") == "patch");
    CHECK(resembles("violaiton") == "violation");
    CHECK(resembles("violaton") == "violation");
    CHECK(resembles("voilation") == "violation");
    CHECK(resembles("audit_annotation") == "audit_annotations");
    // violation is long enough for any one-letter slip.
    CHECK(resembles("violatiom") == "violation");
    CHECK(resembles("vioFlation") == "violation");
    // Plurals, unless the package has the rule they would count.
    CHECK(resembles("denies") == "deny");
    CHECK(resembles("violations") == "violation");
    CHECK(resembles("warns") == "warn");
    CHECK(resembles("patches") == "patch");
    CHECK(resembles("violations", {"deny", "violations"}) == "-");
    CHECK(resembles("denies", {"violation", "denies"}) == "-");
    CHECK(resembles("patches", {"patch", "patches"}) == "-");
    CHECK(resembles("warns", {"warn", "warns"}) == "-");
    // A misspelling is one even beside the rule spelt right.
    CHECK(resembles("dney", {"deny", "dney"}) == "deny");
}

TEST_CASE("misspelt rules: real rule names are not taken for misspellings") {
    // One letter replaced in a short name makes words that are rules of their own.
    for (const char* name : {"path",
                             "match",
                             "batch",
                             "ward",
                             "warm",
                             "dent",
                             "main",
                             "paths",
                             "warning",
                             "warnings",
                             "denied",
                             "allow",
                             "violating",
                             "_deny",
                             "deny_privileged",
                             "deny",
                             "violation",
                             "warn",
                             "patch",
                             "audit_annotations",
                             "test_deny",
                             "is_violation",
                             "general_violation"})
        CHECK_MESSAGE(resembles(name) == "-", name);
}

TEST_CASE("misspelt rules: once per package and name, at the first definition; functions are not rules") {
    std::vector<gavel::RuleInfo> rules;
    auto add = [&](std::string package, std::string name, uint32_t line, bool function = false) {
        gavel::RuleInfo r;
        r.package = std::move(package);
        r.name = std::move(name);
        r.file = "p.rego";
        r.line = line;
        r.col = 1;
        r.function = function;
        rules.push_back(r);
    };
    add("data.a", "denny", 3);
    add("data.a", "denny", 7);
    add("data.b", "denny", 9);
    add("data.c", "dney", 2, true);
    add("data.d", "deny", 1);
    add("data.d", "violations", 2);
    auto found = wh::misspelt_rules(rules);
    REQUIRE(found.size() == 2);
    CHECK(found[0].package == "data.a");
    CHECK(found[0].line == 3);
    CHECK(found[0].resembles == "deny");
    CHECK(found[1].package == "data.b");
    CHECK(wh::misspelling_text(found[0]) == "rule denny looks like a misspelling of deny");
}

TEST_CASE("/validate/ for a package that defines no deny or violation rule: the failure decision") {
    auto store = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{});
    auto metrics = std::make_shared<wh::Metrics>();
    REQUIRE(
        store
            ->put_policy("typo.rego", "package k.typo\n\ndenny contains \"no\" if input.request.kind.kind == \"Pod\"\n")
            .ok());
    REQUIRE(store->put_policy("warn.rego", "package k.warnonly\n\nwarn contains \"careful\" if true\n").ok());
    REQUIRE(
        store
            ->put_policy("mut.rego",
                         "package k.mut\n\npatch contains {\"op\": \"add\", \"path\": \"/x\", \"value\": 1} if true\n")
            .ok());
    REQUIRE(store->put_policy("ok.rego", "package k.ok\n\ndeny contains \"no\" if input.request.kind.kind == \"Pod\"\n")
                .ok());
    REQUIRE(store->current()->misspelt_rules.size() == 1);

    wh::Service closed(wh::ServiceOptions{}, store, metrics);
    auto typo = post("/validate/k/typo");
    auto resp = closed.handle_now(wh::Listener::Admission, typo);
    CHECK(resp.status == 200);
    CHECK(resp.body.find(R"("allowed":false)") != std::string::npos);
    CHECK(resp.body.find(R"("code":500)") != std::string::npos);
    CHECK(resp.body.find("policy evaluation failed: package data.k.typo defines no deny or violation rule "
                         "(rule denny looks like a misspelling of deny)") != std::string::npos);
    // A mutating package asked to validate cannot either.
    auto mut = post("/validate/k/mut");
    CHECK(closed.handle_now(wh::Listener::Admission, mut)
              .body.find("package data.k.mut defines no deny or violation rule") != std::string::npos);
    // ... but it mutates; a package that warns validates (with warnings); deny denies.
    auto mutate = post("/mutate/k/mut");
    CHECK(closed.handle_now(wh::Listener::Admission, mutate).body.find(R"("patchType":"JSONPatch")") !=
          std::string::npos);
    auto warn = post("/validate/k/warnonly");
    resp = closed.handle_now(wh::Listener::Admission, warn);
    CHECK(resp.body.find(R"("allowed":true)") != std::string::npos);
    CHECK(resp.body.find(R"("warnings":["careful"])") != std::string::npos);
    auto ok = post("/validate/k/ok");
    CHECK(closed.handle_now(wh::Listener::Admission, ok).body.find(R"("code":403)") != std::string::npos);

    // --fail-open: allowed, with the reason as a warning.
    wh::ServiceOptions open_options;
    open_options.fail_open = true;
    wh::Service open(open_options, store, metrics);
    auto typo_open = post("/validate/k/typo");
    resp = open.handle_now(wh::Listener::Admission, typo_open);
    CHECK(resp.body.find(R"("allowed":true)") != std::string::npos);
    CHECK(resp.body.find("allowed by --fail-open: package data.k.typo defines no deny or violation rule") !=
          std::string::npos);
}
