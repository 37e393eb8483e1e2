// engine/gatekeeper: match (each criterion, globs, namespaceSelector), the
// de-duplication of violations, Gatekeeper's rules for template Rego, the
// review input, enforcement actions, and gator's assertion semantics.

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/gatekeeper/gatekeeper.hpp"
#include "engine/gatekeeper/template_rules.hpp"
#include "lang/parse.hpp"
#include "runtime/json.hpp"
#include "webhook/gatekeeper_policies.hpp"
#include "webhook/webhook_config.hpp"

namespace gk = gavel::gatekeeper;
using gavel::runtime::to_json;
using gavel::runtime::Value;

namespace {

Value json(std::string_view text) {
    auto r = gavel::runtime::parse_json(text);
    REQUIRE_MESSAGE(r.ok, r.error.message);
    return r.value;
}

gk::Match match_of(std::string_view text) {
    gk::Match m;
    std::string error;
    REQUIRE_MESSAGE(gk::parse_match(json(text), m, error), error);
    return m;
}

Value pod(std::string_view ns, std::string_view labels = "{}", std::string_view name = "web") {
    std::string meta = "{\"name\":\"" + std::string(name) + "\",\"labels\":" + std::string(labels);
    if (!ns.empty()) meta += ",\"namespace\":\"" + std::string(ns) + "\"";
    return json("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":" + meta + "}}");
}

bool matched(const gk::Match& m, const Value& obj, const Value* ns = nullptr) {
    auto r = gk::matches(m, {&obj, ns, "Original"});
    REQUIRE_MESSAGE(r.error.empty(), r.error);
    return r.matched;
}

gk::SourcedObject sourced(std::string_view yaml) {
    auto read = gk::read_objects(yaml, "test.yaml");
    REQUIRE_MESSAGE(read.ok(), read.error->message);
    REQUIRE(read.objects.size() == 1);
    return read.objects[0];
}

// A template with `rego` (v0) for kind T.
std::string template_yaml(std::string_view rego, std::string_view libs = "") {
    std::string y =
        "apiVersion: templates.gatekeeper.sh/v1\nkind: ConstraintTemplate\nmetadata:\n  name: t\nspec:\n"
        "  crd:\n    spec:\n      names:\n        kind: T\n  targets:\n    - target: admission.k8s.gatekeeper.sh\n"
        "      rego: |\n";
    std::string indented;
    for (char c : std::string(rego)) {
        if (indented.empty() || indented.back() == '\n') indented += "        ";
        indented += c;
    }
    y += indented + "\n";
    if (!libs.empty()) {
        y += "      libs:\n        - |\n";
        std::string lib;
        for (char c : std::string(libs)) {
            if (lib.empty() || lib.back() == '\n') lib += "          ";
            lib += c;
        }
        y += lib + "\n";
    }
    return y;
}

std::shared_ptr<const gk::PolicySet> build(std::string_view tmpl, std::vector<std::string> constraints,
                                           gavel::lang::Diagnostics& errors) {
    gk::PolicySetBuilder b;
    b.add_template(sourced(tmpl), errors);
    for (const auto& c : constraints) b.add_constraint(sourced(c), errors);
    return b.build(errors);
}

std::string constraint_yaml(std::string_view name, std::string_view spec = "{}") {
    return "apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: T\nmetadata:\n  name: " + std::string(name) +
           "\nspec: " + std::string(spec) + "\n";
}

}  // namespace

TEST_CASE("gatekeeper match: kinds, with groups and wildcards") {
    auto m = match_of(
        R"({"kinds": [{"apiGroups": ["apps"], "kinds": ["Deployment"]}, {"apiGroups": [""], "kinds": ["Pod"]}]})");
    CHECK(matched(m, pod("a")));
    CHECK_FALSE(matched(m, json(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}})")));
    CHECK_FALSE(matched(m, json(R"({"apiVersion":"extensions/v1beta1","kind":"Deployment","metadata":{"name":"d"}})")));
    CHECK(matched(m, json(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}})")));
    auto any_group = match_of(R"({"kinds": [{"apiGroups": ["*"], "kinds": ["Deployment"]}]})");
    CHECK(
        matched(any_group, json(R"({"apiVersion":"extensions/v1beta1","kind":"Deployment","metadata":{"name":"d"}})")));
    auto no_kinds_listed = match_of(R"({"kinds": [{"apiGroups": ["apps"]}]})");
    CHECK(matched(no_kinds_listed, json(R"({"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"d"}})")));
    CHECK_FALSE(matched(no_kinds_listed, pod("a")));
}

TEST_CASE("gatekeeper match: namespaces and excludedNamespaces with globs") {
    CHECK(gk::wildcard_matches("kube-*", "kube-system"));
    CHECK_FALSE(gk::wildcard_matches("kube-*", "my-kube-system"));
    CHECK(gk::wildcard_matches("*-system", "gatekeeper-system"));
    CHECK_FALSE(gk::wildcard_matches("*-system", "system-x"));
    CHECK(gk::wildcard_matches("*sys*", "a-sys-b"));
    CHECK(gk::wildcard_matches("*", "anything"));
    CHECK_FALSE(gk::wildcard_matches("kube", "kube-system"));  // no * : exact
    CHECK_FALSE(gk::wildcard_matches("ku*be", "kube"));        // * only at the ends

    auto excluded = match_of(R"({"excludedNamespaces": ["kube-*", "gatekeeper-system"]})");
    CHECK_FALSE(matched(excluded, pod("kube-public")));
    CHECK_FALSE(matched(excluded, pod("gatekeeper-system")));
    CHECK(matched(excluded, pod("default")));
    CHECK(matched(excluded, pod("")));  // cluster-scoped: nothing to exclude
    // A Namespace is "in" itself.
    CHECK_FALSE(matched(excluded, json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kube-system"}})")));

    auto only = match_of(R"({"namespaces": ["prod-*"]})");
    CHECK(matched(only, pod("prod-eu")));
    CHECK_FALSE(matched(only, pod("dev")));
    // The Namespace object, when known, names the namespace.
    Value ns = json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"prod-us"}})");
    CHECK(matched(only, pod(""), &ns));
}

TEST_CASE("gatekeeper match: labelSelector operators") {
    auto m = match_of(R"({"labelSelector": {"matchLabels": {"app": "web"},
        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]},
                             {"key": "legacy", "operator": "DoesNotExist"},
                             {"key": "env", "operator": "NotIn", "values": ["dev"]}]}})");
    CHECK(matched(m, pod("x", R"({"app":"web","tier":"a"})")));
    CHECK(matched(m, pod("x", R"({"app":"web","tier":"b","env":"prod"})")));
    CHECK_FALSE(matched(m, pod("x", R"({"app":"web","tier":"c"})")));
    CHECK_FALSE(matched(m, pod("x", R"({"app":"api","tier":"a"})")));
    CHECK_FALSE(matched(m, pod("x", R"({"app":"web","tier":"a","legacy":"1"})")));
    CHECK_FALSE(matched(m, pod("x", R"({"app":"web","tier":"a","env":"dev"})")));
    auto exists = match_of(R"({"labelSelector": {"matchExpressions": [{"key": "owner", "operator": "Exists"}]}})");
    CHECK(matched(exists, pod("x", R"({"owner":""})")));
    CHECK_FALSE(matched(exists, pod("x")));
    CHECK(matched(match_of(R"({"labelSelector": {}})"), pod("x")));  // empty selector: everything

    gk::Match bad;
    std::string error;
    CHECK_FALSE(gk::parse_match(json(R"({"labelSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}})"),
                                bad, error));
    CHECK(error.find("must be specified") != std::string::npos);
    CHECK_FALSE(gk::parse_match(json(R"({"labelSelector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}})"),
                                bad, error));
}

TEST_CASE("gatekeeper match: namespaceSelector needs the Namespace of a namespaced object") {
    auto m = match_of(R"({"namespaceSelector": {"matchLabels": {"env": "prod"}}})");
    Value prod = json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop","labels":{"env":"prod"}}})");
    Value dev = json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"lab","labels":{"env":"dev"}}})");
    Value p = pod("shop");
    CHECK(matched(m, p, &prod));
    CHECK_FALSE(matched(m, p, &dev));
    CHECK(matched(m, prod));  // a Namespace: its own labels
    CHECK_FALSE(matched(m, dev));
    CHECK(matched(m, pod("")));  // cluster-scoped objects match
    auto missing = gk::matches(m, {&p, nullptr, "Original"});
    CHECK_FALSE(missing.matched);
    CHECK(missing.error == "namespace selector for namespace-scoped object but missing Namespace");
}

TEST_CASE("gatekeeper match: scope, name and source") {
    auto cluster = match_of(R"({"scope": "Cluster"})");
    auto namespaced = match_of(R"({"scope": "Namespaced"})");
    Value ns = json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}})");
    CHECK(matched(cluster, pod("")));
    CHECK(matched(cluster, ns));
    CHECK_FALSE(matched(cluster, pod("a")));
    CHECK(matched(namespaced, pod("a")));
    CHECK_FALSE(matched(namespaced, ns));
    auto name = match_of(R"({"name": "web-*"})");
    CHECK(matched(name, pod("a", "{}", "web-1")));
    CHECK_FALSE(matched(name, pod("a", "{}", "api")));
    Value generated = json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"web-"}})");
    CHECK(matched(name, generated));
    auto generated_only = match_of(R"({"source": "Generated"})");
    CHECK_FALSE(matched(generated_only, pod("a")));
}

TEST_CASE("gatekeeper violations: de-duplicated on (msg, details); details default to {}; results need msg") {
    gavel::lang::Diagnostics errors;
    auto set = build(template_yaml(R"(package t
violation[{"msg": "same", "n": 1}] { true }
violation[{"msg": "same", "n": 2}] { true }
violation[{"msg": "same", "details": {}}] { true }
violation[{"msg": "same", "details": {"k": 1}}] { true }
violation[{"no_msg": true}] { true }
violation["a string"] { true }
)"),
                     {constraint_yaml("c")}, errors);
    REQUIRE_MESSAGE(errors.empty(), errors.items().front().message);
    auto outcome = set->review(gk::review_of_object(pod("a"), Value(), false), {});
    REQUIRE_FALSE(outcome.error);
    REQUIRE(outcome.violations.size() == 2);
    CHECK(outcome.violations[0].message == "same");
    CHECK(to_json(outcome.violations[0].details) == "{}");
    CHECK(to_json(outcome.violations[1].details) == R"({"k":1})");

    // A `violation` that is an object: the hook's `violation[r]` takes the keys whose value is not false.
    auto object_rule = build(template_yaml(R"(package t
violation[{"msg": "kept"}] = 1 { true }
violation[{"msg": "dropped"}] = false { true }
)"),
                             {constraint_yaml("c")}, errors);
    REQUIRE(errors.empty());
    outcome = object_rule->review(gk::review_of_object(pod("a"), Value(), false), {});
    REQUIRE(outcome.violations.size() == 1);
    CHECK(outcome.violations[0].message == "kept");
}

TEST_CASE(
    "gatekeeper violations: a msg that is no string fails the review; an eval error is the constraint's violation") {
    gavel::lang::Diagnostics errors;
    auto bad_msg = build(template_yaml("package t\nviolation[{\"msg\": 7}] { true }"), {constraint_yaml("c")}, errors);
    REQUIRE(errors.empty());
    auto outcome = bad_msg->review(gk::review_of_object(pod("a"), Value(), false), {});
    REQUIRE(outcome.error);
    CHECK(outcome.error->find("expected string") != std::string::npos);

    auto conflict = build(template_yaml("package t\nx = 1 { true }\nx = 2 { true }\nviolation[{\"msg\": \"m\"}] { x }"),
                          {constraint_yaml("c")}, errors);
    REQUIRE(errors.empty());
    outcome = conflict->review(gk::review_of_object(pod("a"), Value(), false), {});
    REQUIRE_FALSE(outcome.error);
    REQUIRE(outcome.violations.size() == 1);
    CHECK(outcome.violations[0].message.find("eval_conflict_error") != std::string::npos);
}

TEST_CASE("gatekeeper review: a template's matching constraints are one query of Gatekeeper's driver") {
    // f conflicts under constraint b's parameters only: Gatekeeper's one query of the
    // template fails, so every matching constraint of it has the error as its violation
    // (frameworks' driver gives each constraint of the query the error); c does not match a Pod.
    std::string rego =
        "package t\nf = 1 { true }\nf = 2 { input.parameters.n == 2 }\n"
        "violation[{\"msg\": m}] { f; m := sprintf(\"n=%v\", [input.parameters.n]) }";
    std::string pods_only = "{match: {kinds: [{apiGroups: [''], kinds: [Pod]}]}, parameters: {n: ";
    std::string deployments = "{match: {kinds: [{apiGroups: [apps], kinds: [Deployment]}]}, parameters: {n: 2}}";
    gavel::lang::Diagnostics errors;
    auto set = build(template_yaml(rego),
                     {constraint_yaml("a", pods_only + "1}}"), constraint_yaml("b", pods_only + "2}}"),
                      constraint_yaml("c", deployments)},
                     errors);
    REQUIRE(errors.empty());
    auto outcome = set->review(gk::review_of_object(pod("x"), Value(), false), {});
    REQUIRE_FALSE(outcome.error);
    REQUIRE(outcome.violations.size() == 2);
    CHECK(outcome.violations[0].constraint->name == "a");
    CHECK(outcome.violations[1].constraint->name == "b");
    for (const auto& v : outcome.violations) CHECK(v.message.find("eval_conflict_error") != std::string::npos);

    // Without b, each constraint gets the violations of its own parameters.
    set = build(template_yaml(rego),
                {constraint_yaml("a", pods_only + "1}}"), constraint_yaml("a2", pods_only + "3}}"),
                 constraint_yaml("c", deployments)},
                errors);
    REQUIRE(errors.empty());
    outcome = set->review(gk::review_of_object(pod("x"), Value(), false), {});
    REQUIRE(outcome.violations.size() == 2);
    CHECK(outcome.violations[0].constraint->name == "a");
    CHECK(outcome.violations[0].message == "n=1");
    CHECK(outcome.violations[1].constraint->name == "a2");
    CHECK(outcome.violations[1].message == "n=3");
}

TEST_CASE("gatekeeper review: constraints come from an index by kind and namespace, in (kind, name) order") {
    gk::ConstraintIndex index;
    index.add(0, match_of(R"({"kinds":[{"apiGroups":[""],"kinds":["Pod"]}]})"));
    index.add(1, match_of(R"({"kinds":[{"apiGroups":["apps"],"kinds":["Deployment","*"]}]})"));
    index.add(2, match_of(R"({})"));
    index.add(3, match_of(R"({"kinds":[{"kinds":["Pod"]}],"namespaces":["shop","web"]})"));
    index.add(4, match_of(R"({"namespaces":["kube-*"]})"));
    index.add(5, match_of(R"({"kinds":[{"apiGroups":["*"],"kinds":[]}],"namespaces":["web"]})"));
    auto lookup = [&](std::string_view group, std::string_view kind, std::optional<std::string_view> ns) {
        gk::ConstraintIndex::Ids out;
        index.candidates(group, kind, ns, out);
        return std::vector<std::uint32_t>(out.begin(), out.end());
    };
    CHECK(lookup("", "Pod", "shop") == std::vector<std::uint32_t>{0, 2, 3, 4});
    CHECK(lookup("", "Pod", "web") == std::vector<std::uint32_t>{0, 2, 3, 4, 5});
    CHECK(lookup("", "Pod", "other") == std::vector<std::uint32_t>{0, 2, 4});
    CHECK(lookup("", "Pod", std::nullopt) == std::vector<std::uint32_t>{0, 2, 3, 4, 5});  // no namespace to rule out
    CHECK(lookup("apps", "ReplicaSet", "web") == std::vector<std::uint32_t>{1, 2, 4, 5});
    CHECK(lookup("batch", "Job", "shop") == std::vector<std::uint32_t>{2, 4});
    gk::ConstraintIndex::Ids both;  // the object and the old object: the union
    index.candidates("", "Pod", "shop", both);
    index.candidates("apps", "Deployment", "shop", both);
    CHECK(std::vector<std::uint32_t>(both.begin(), both.end()) == std::vector<std::uint32_t>{0, 1, 2, 3, 4});

    // Through a review: only what matches, and in Gatekeeper's order of kinds and names.
    gavel::lang::Diagnostics errors;
    gk::PolicySetBuilder b;
    b.add_template(sourced(template_yaml("package t\nviolation[{\"msg\": \"t\"}] { true }")), errors);
    std::string u = template_yaml("package u\nviolation[{\"msg\": \"u\"}] { true }");
    u.replace(u.find("name: t"), 7, "name: u").replace(u.find("kind: T"), 7, "kind: U");
    b.add_template(sourced(u), errors);
    std::string u_constraint = constraint_yaml("u-any");
    u_constraint.replace(u_constraint.find("kind: T"), 7, "kind: U");
    b.add_constraint(sourced(u_constraint), errors);
    b.add_constraint(sourced(constraint_yaml("z-shop", "{match: {namespaces: [shop]}}")), errors);
    b.add_constraint(sourced(constraint_yaml("y-web", "{match: {namespaces: [web]}}")), errors);
    b.add_constraint(sourced(constraint_yaml("x-jobs", "{match: {kinds: [{apiGroups: [batch], kinds: [Job]}]}}")),
                     errors);
    b.add_constraint(sourced(constraint_yaml("w-all")), errors);
    auto set = b.build(errors);
    REQUIRE(errors.empty());
    auto outcome = set->review(gk::review_of_object(pod("shop"), Value(), false), {});
    std::vector<std::string> names;
    for (const auto& v : outcome.violations) names.push_back(v.constraint->kind + "/" + v.constraint->name);
    CHECK(names == std::vector<std::string>{"T/w-all", "T/z-shop", "U/u-any"});
}

TEST_CASE("gatekeeper templates: only those that read data.inventory are compiled again when it changes") {
    gavel::lang::Diagnostics errors;
    gk::PolicySetBuilder b;
    b.add_template(sourced(template_yaml("package t\nviolation[{\"msg\": \"t\"}] { true }")), errors);
    std::string u = template_yaml("package u\nviolation[{\"msg\": \"u\"}] { data.inventory.cluster }");
    u.replace(u.find("name: t"), 7, "name: u").replace(u.find("kind: T"), 7, "kind: U");
    b.add_template(sourced(u), errors);
    std::string v =
        template_yaml("package v\nviolation[{\"msg\": \"v\"}] { data.lib.v.f }", "package lib.v\nf { true }");
    v.replace(v.find("name: t"), 7, "name: v").replace(v.find("kind: T"), 7, "kind: V");
    b.add_template(sourced(v), errors);
    // (A rule cannot read `data` whole: that includes the rule, a recursion error as in OPA.)
    auto first = b.build(errors);
    REQUIRE(errors.empty());
    CHECK_FALSE(first->entries().at("V").compiled->reads_inventory());  // data.lib is not the inventory
    std::string error;
    REQUIRE(
        b.add_inventory_object(json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}})"), error));
    auto second = b.build(errors, first.get());
    REQUIRE(errors.empty());
    CHECK(second->entries().at("T").compiled == first->entries().at("T").compiled);
    CHECK_FALSE(first->entries().at("T").compiled->reads_inventory());
    CHECK(second->entries().at("U").compiled != first->entries().at("U").compiled);
    CHECK(second->entries().at("U").compiled->reads_inventory());
}

TEST_CASE("gatekeeper templates: Gatekeeper's compile rules") {
    auto check = [](std::string_view rego, std::vector<std::string> libs = {}) {
        gavel::lang::ParseOptions po;
        po.v0_compatible = true;
        auto entry = gavel::lang::parse_module("t.rego", std::string(rego), po);
        REQUIRE(entry.ok());
        std::vector<gavel::lang::ModuleResult> parsed;
        std::vector<const gavel::lang::Module*> mods;
        for (auto& l : libs) parsed.push_back(gavel::lang::parse_module("lib.rego", l, po));
        for (auto& p : parsed) {
            REQUIRE(p.ok());
            mods.push_back(&*p.module);
        }
        auto d = gk::check_template_modules(*entry.module, mods);
        return d.empty() ? std::string() : d.items().front().message;
    };
    CHECK(check("package x\nviolation[{\"msg\": \"m\"}] { data.inventory.cluster[_] }") == "");
    CHECK(check("package x\nimport data.lib.helpers\nviolation[{\"msg\": m}] { m := helpers.msg }",
                {"package lib.helpers\nmsg := \"m\""}) == "");
    CHECK(check("package x\ndeny[m] { m := 1 }").find("missing required rules: [violation]") != std::string::npos);
    CHECK(check("package x\nviolation[{\"msg\": \"m\"}] { data.other.x }").find("disallowed ref data.other.x") !=
          std::string::npos);
    CHECK(check("package x\nviolation[{\"msg\": \"m\"}] { data.x.y }").find("disallowed ref") != std::string::npos);
    CHECK(check("package x\nimport input.review\nviolation[{\"msg\": \"m\"}] { true }").find("cannot import input") !=
          std::string::npos);
    CHECK(check("package x\nimport data.kubernetes\nviolation[{\"msg\": \"m\"}] { true }").find("bad import") !=
          std::string::npos);
    CHECK(check("package x\nimport future.keywords.in\nviolation[{\"msg\": \"m\"}] { 1 in [1] }") == "");
    CHECK(check("package x\nviolation[{\"msg\": \"m\"}] { true }", {"package helpers\nx := 1"})
              .find("not found in lib prefixes") != std::string::npos);
    CHECK(check("package x\nviolation[{\"msg\": \"m\"}] { true }", {"package lib\nx := 1"})
              .find("not found in lib prefixes") != std::string::npos);
}

TEST_CASE("gatekeeper templates: v0 by default, v1 with version v1, CEL-only is unsupported") {
    gavel::lang::Diagnostics errors;
    // `contains` is not a keyword in v0: a v1 rule fails to parse there.
    build(template_yaml("package t\nviolation contains {\"msg\": \"m\"} if true"), {}, errors);
    CHECK_FALSE(errors.empty());
    auto cel = gk::read_template(sourced(R"(apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: t}
spec:
  crd: {spec: {names: {kind: T}}}
  targets:
    - target: admission.k8s.gatekeeper.sh
      code:
        - engine: K8sNativeValidation
          source: {validations: [{expression: "true"}]}
)"));
    CHECK(cel.unsupported);
    CHECK(cel.error.find("K8sNativeValidation") != std::string::npos);
    auto v1 = gk::read_template(sourced(R"(apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: t}
spec:
  crd: {spec: {names: {kind: T}}}
  targets:
    - target: admission.k8s.gatekeeper.sh
      code:
        - engine: Rego
          source: {version: v1, rego: "package t\nviolation contains {\"msg\": \"m\"} if true"}
)"));
    REQUIRE(v1.value);
    CHECK(v1.value->rego_v1);
    auto misnamed = gk::read_template(sourced(
        "apiVersion: templates.gatekeeper.sh/v1\nkind: ConstraintTemplate\nmetadata: {name: x}\n"
        "spec: {crd: {spec: {names: {kind: T}}}, targets: [{target: admission.k8s.gatekeeper.sh, rego: p}]}\n"));
    CHECK(misnamed.error.find("is not equal to the lowercase") != std::string::npos);
}

TEST_CASE("gatekeeper constraints: parameters get the schema's defaults; enforcement actions per point") {
    gk::ConstraintTemplate t;
    t.parameters_schema = json(R"({"type":"object","properties":{"flag":{"type":"boolean","default":true},
        "items":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer","default":3}}}}}})");
    auto c = gk::read_constraint(sourced(constraint_yaml("c", "{parameters: {items: [{}, {n: 1}]}}")), &t);
    REQUIRE(c.value);
    CHECK(to_json(c.value->parameters) == R"({"flag":true,"items":[{"n":3},{"n":1}]})");
    auto none = gk::read_constraint(sourced(constraint_yaml("c")), &t);
    CHECK(to_json(none.value->parameters) == "{}");  // no parameters: nothing to default into

    auto scoped =
        gk::read_constraint(sourced(constraint_yaml("c", R"({enforcementAction: scoped, scopedEnforcementActions: [
        {action: warn, enforcementPoints: [{name: validation.gatekeeper.sh}]}, {action: deny, enforcementPoints: [{name: "*"}]}]})")),
                            &t);
    REQUIRE(scoped.value);
    CHECK(scoped.value->actions_at(gk::kWebhookEnforcementPoint) == std::vector<std::string>{"deny", "warn"});
    CHECK(scoped.value->actions_at(gk::kAuditEnforcementPoint) == std::vector<std::string>{"deny"});
    auto unscoped = gk::read_constraint(sourced(constraint_yaml("c", "{enforcementAction: scoped}")), &t);
    CHECK_FALSE(unscoped.value);
}

TEST_CASE("gatekeeper review input: the AdmissionRequest as Gatekeeper marshals it") {
    Value obj = pod("shop");
    auto r = gk::review_of_object(obj, Value(), false);
    CHECK(
        to_json(r.request) ==
        R"({"kind":{"group":"","kind":"Pod","version":"v1"},"name":"web","namespace":"shop","namespaceObject":null,"object":)" +
            to_json(obj) +
            R"(,"oldObject":null,"operation":"","options":null,"resource":{"group":"","resource":"","version":""},"uid":"","userInfo":{}})");
    std::string error;
    auto del = gk::review_of_request(
        json(R"({"operation":"DELETE","oldObject":{"kind":"Pod","metadata":{"name":"x"}}})"), Value(), false, error);
    REQUIRE(del);
    CHECK(to_json(*del->request.find("object")) == R"({"kind":"Pod","metadata":{"name":"x"}})");
    CHECK_FALSE(
        gk::review_of_request(json(R"({"operation":"DELETE","object":{"kind":"Pod"}})"), Value(), false, error));
    CHECK_FALSE(gk::review_of_request(json(R"({"operation":"CREATE"})"), Value(), false, error));
}

TEST_CASE("gatekeeper objects: gator's reader splits documents and keeps file lines") {
    auto read =
        gk::read_objects("# c\napiVersion: v1\nkind: A\nmetadata: {name: a}\n---\n\nkind: B\nflag: yes\n", "f.yaml");
    REQUIRE(read.ok());
    REQUIRE(read.objects.size() == 2);
    CHECK(read.objects[0].line == 2);
    CHECK(read.objects[1].line == 7);
    CHECK(to_json(*read.objects[1].value.find("flag")) == "\"yes\"");  // go-yaml v3: yes is a string
    auto bad = gk::read_objects("kind: A\n---\nkind: [\n", "f.yaml");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error->file == "f.yaml");
    CHECK(bad.error->line >= 3);
    auto no_kind = gk::read_objects("apiVersion: v1\n", "f.yaml");
    CHECK_FALSE(no_kind.ok());
}

TEST_CASE("gator assertions: yes / no / N, message regex, invalid values") {
    using Spec = gk::AssertionSpec;
    std::vector<std::string> two = {"label owner missing", "image latest"};
    CHECK_FALSE(gk::check_assertion(Spec{}, two));  // default: yes
    CHECK(gk::check_assertion(Spec{}, {}).value() ==
          "unexpected number of violations: got 0 violations but want at least 1: got messages []");
    CHECK_FALSE(gk::check_assertion(Spec{"no", {}, false, {}}, {}));
    CHECK(gk::check_assertion(Spec{"no", {}, false, {}}, two).value().find("got 2 violations but want none") !=
          std::string::npos);
    CHECK_FALSE(gk::check_assertion(Spec{{}, 2, false, {}}, two));
    CHECK(gk::check_assertion(Spec{{}, 1, false, {}}, two)
              .value()
              .find("want exactly 1: got messages [label owner missing image latest]") != std::string::npos);
    CHECK_FALSE(gk::check_assertion(Spec{{}, 1, false, "own.r"}, two));  // unanchored RE2
    CHECK_FALSE(gk::check_assertion(Spec{"no", {}, false, "^latest"}, two));
    CHECK(gk::check_assertion(Spec{"maybe", {}, false, {}}, two).value().find("must be a nonnegative integer") !=
          std::string::npos);
    CHECK(gk::check_assertion(Spec{{}, -1, false, {}}, two).value().find("must be a nonnegative integer") !=
          std::string::npos);
    CHECK(gk::check_assertion(Spec{{}, {}, true, {}}, two).value().find("must be a nonnegative integer") !=
          std::string::npos);
    CHECK(gk::check_assertion(Spec{{}, {}, false, "("}, two).value().find("invalid regular expression") !=
          std::string::npos);

    std::string error;
    auto f = gk::VerifyFilter::parse("labels//missing", error);
    REQUIRE(f);
    CHECK(f->matches_case("required-labels", "missing-owner"));
    CHECK_FALSE(f->matches_case("required-labels", "present"));
    CHECK_FALSE(f->matches_test("images", {"missing"}));
    auto either = gk::VerifyFilter::parse("missing", error);
    CHECK(either->matches_test("images", {"missing-tag"}));
    CHECK_FALSE(gk::VerifyFilter::parse("a//b//c", error));
}

TEST_CASE("gatekeeper webhook: denials, warnings and dryrun worded as Gatekeeper") {
    auto dir = std::string("/tmp/gavel-unit-gatekeeper-") + std::to_string(::getpid());
    std::filesystem::create_directories(dir);
    auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir + "/" + name) << text; };
    write("t.yaml",
          template_yaml(
              "package t\nviolation[{\"msg\": m}] { m := sprintf(\"bad %v\", [input.review.object.metadata.name]) }"));
    write("deny.yaml", constraint_yaml("a-deny"));
    write("warn.yaml", constraint_yaml("b-warn", "{enforcementAction: warn}"));
    write("dry.yaml", constraint_yaml("c-dry", "{enforcementAction: dryrun}"));
    gavel::webhook::GatekeeperPolicies policies({dir});
    gavel::lang::Diagnostics errors;
    REQUIRE(policies.poll(errors) == gavel::webhook::GatekeeperPolicies::Poll::Reloaded);
    gavel::webhook::ReviewRequest req;
    std::string error;
    REQUIRE(gavel::webhook::parse_review(
        R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u",
        "kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"x",
        "object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"x"}}}})",
        req, error));
    auto d = gavel::webhook::gatekeeper_decision(req, policies, {});
    CHECK(d.outcome == gavel::webhook::AdmissionDecision::Outcome::Denied);
    CHECK(
        to_json(*d.review.find("response")) ==
        R"({"allowed":false,"status":{"code":403,"message":"[a-deny] bad p","reason":"Forbidden"},"uid":"u","warnings":["[b-warn] bad p"]})");
    CHECK(policies.render_metrics().find("enforcement_action=\"dryrun\"} 1") != std::string::npos);
    std::filesystem::remove(dir + "/deny.yaml");
    REQUIRE(policies.poll(errors) == gavel::webhook::GatekeeperPolicies::Poll::Reloaded);
    d = gavel::webhook::gatekeeper_decision(req, policies, {});
    CHECK(to_json(*d.review.find("response")) ==
          R"({"allowed":true,"status":{"code":299},"uid":"u","warnings":["[b-warn] bad p"]})");
    write("broken.yaml", "apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: Unknown\nmetadata: {name: z}\n");
    CHECK(policies.poll(errors) == gavel::webhook::GatekeeperPolicies::Poll::Failed);
    CHECK(policies.current()->constraint_count() == 2);  // the last good set stays
    std::filesystem::remove_all(dir);

    // webhook-config --gatekeeper: the constraints' kinds, mapped to resources as for policies.
    gavel::webhook::WebhookConfigOptions wo;
    wo.url = "https://gavel.example:8443";
    std::vector<gavel::webhook::WebhookConfiguration> configs;
    error.clear();
    REQUIRE(gavel::webhook::build_gatekeeper_configuration({{{"apps"}, {"Deployment"}}, {{""}, {"Pod", "Ingress"}}}, wo,
                                                           configs, error));
    REQUIRE(configs.size() == 1);
    CHECK(configs[0].name == "gavel-gatekeeper");
    CHECK(configs[0].yaml.find("url: \"https://gavel.example:8443/gatekeeper\"") != std::string::npos);
    CHECK(configs[0].yaml.find("resources: [\"deployments\"]") != std::string::npos);
    CHECK(configs[0].yaml.find("resources: [\"pods\"]") != std::string::npos);
    CHECK(configs[0].yaml.find("apiGroups: [\"networking.k8s.io\"]") != std::string::npos);
    configs.clear();
    CHECK_FALSE(gavel::webhook::build_gatekeeper_configuration({{{"apps"}, {"*"}}}, wo, configs, error));
    CHECK(error.find("--all-resources") != std::string::npos);
    wo.all_resources = true;
    REQUIRE(gavel::webhook::build_gatekeeper_configuration({{{"apps"}, {"*"}}}, wo, configs, error));
    CHECK(configs.at(0).yaml.find("resources: [\"*\"]") != std::string::npos);
}
