// webhook/ without sockets: JSON Patch, AdmissionReview in and out, the policy
// store's snapshots and rollbacks, the router of each listener, the worker pool,
// webhook-config.

#include <doctest/doctest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "runtime/json.hpp"
#include "support/base64.hpp"
#include "webhook/admission.hpp"
#include "webhook/json_patch.hpp"
#include "webhook/metrics.hpp"
#include "webhook/policy_store.hpp"
#include "webhook/service.hpp"
#include "webhook/path_limits.hpp"
#include "webhook/worker_pool.hpp"

using gavel::runtime::parse_json;
using gavel::runtime::to_json;
using gavel::runtime::Value;
namespace wh = gavel::webhook;

namespace {

Value json(std::string_view text) {
    auto r = parse_json(text);
    REQUIRE_MESSAGE(r.ok, r.error.message);
    return r.value;
}

std::string decode_base64(std::string_view in) {
    static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned buffer = 0;
    int bits = 0;
    for (char c : in) {
        if (c == '=') break;
        buffer = (buffer << 6) | static_cast<unsigned>(alphabet.find(c));
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((buffer >> bits) & 0xff));
        }
    }
    return out;
}

const char* kReview = R"({"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1",
  "request": {"uid": "u-1", "kind": {"kind": "Pod"}, "namespace": "default", "operation": "CREATE",
              "object": {"metadata": {"name": "p"}, "spec": {"containers": [{"image": "nginx"}]}}}})";

wh::HttpRequest request(std::string method, std::string target, std::string body = {}) {
    wh::HttpRequest r;
    r.method = std::move(method);
    r.target = std::move(target);
    r.body = std::move(body);
    return r;
}

}  // namespace

TEST_CASE("json pointers: escapes both ways") {
    CHECK(wh::json_pointer({"a/b", "c~d", ""}) == "/a~1b/c~0d/");
    auto p = wh::parse_json_pointer("/a~1b/c~0d");
    REQUIRE(p);
    CHECK(*p == std::vector<std::string>{"a/b", "c~d"});
    CHECK(wh::parse_json_pointer("/")->empty());
    CHECK_FALSE(wh::parse_json_pointer("a"));
    CHECK_FALSE(wh::parse_json_pointer("/a~2"));
}

TEST_CASE("json patch: RFC 6902 operations, all or nothing") {
    Value doc = json(R"({"a": {"b": [1, 2, 3]}, "c": "x"})");
    std::string error;
    auto out = wh::apply_json_patch(doc, json(R"([{"op": "add", "path": "/a/b/-", "value": 4},
                                             {"op": "add", "path": "/a/b/0", "value": 0},
                                             {"op": "remove", "path": "/c"},
                                             {"op": "replace", "path": "/a/b/1", "value": 10},
                                             {"op": "copy", "from": "/a/b", "path": "/d"},
                                             {"op": "move", "from": "/d", "path": "/e"},
                                             {"op": "test", "path": "/e/0", "value": 0}])"),
                                    {}, error);
    REQUIRE_MESSAGE(out, error);
    CHECK(to_json(*out) == R"({"a":{"b":[0,10,2,3,4]},"e":[0,10,2,3,4]})");
    // A failing op leaves nothing half applied (the caller keeps `doc`).
    CHECK_FALSE(wh::apply_json_patch(doc, json(R"([{"op": "remove", "path": "/c"}, {"op": "remove", "path": "/zz"}])"),
                                     {}, error));
    CHECK(error.find("/zz") != std::string::npos);
    CHECK_FALSE(wh::apply_json_patch(doc, json(R"([{"op": "test", "path": "/c", "value": "y"}])"), {}, error));
    CHECK_FALSE(wh::apply_json_patch(doc, json(R"([{"op": "add", "path": "/a/b/9", "value": 1}])"), {}, error));
    CHECK_FALSE(wh::apply_json_patch(doc, json(R"({"op": "add"})"), {}, error));
    // Below a base path, "/" is the base itself (kube-mgmt's delete).
    auto removed = wh::apply_json_patch(doc, json(R"([{"op": "remove", "path": "/"}])"), {"a", "b"}, error);
    REQUIRE(removed);
    CHECK(to_json(*removed) == R"({"a":{},"c":"x"})");
}

TEST_CASE("json patch: long paths are walked in a loop, and bounded") {
    // A document 512 levels deep (the path limit), patched at its bottom.
    std::vector<std::string> path(wh::kMaxPathSegments - 1, "a");
    Value doc = Value::object({{Value::string("leaf"), Value::integer(1)}});
    for (std::size_t i = 0; i < path.size(); ++i) doc = Value::object({{Value::string("a"), doc}});
    std::string pointer = wh::json_pointer(path) + "/b";
    std::string error;
    auto out =
        wh::apply_json_patch(doc, json(R"([{"op": "add", "path": ")" + pointer + R"(", "value": 2}])"), {}, error);
    REQUIRE_MESSAGE(out, error);
    const Value* at = wh::value_at(*out, path);
    REQUIRE(at);
    CHECK(to_json(*at) == R"({"b":2,"leaf":1})");
    // One segment more is refused, below a base too.
    CHECK_FALSE(
        wh::apply_json_patch(doc, json(R"([{"op": "add", "path": ")" + pointer + R"(/c", "value": 2}])"), {}, error));
    CHECK(error == "path too deep: 513 segments (the limit is 512)");
    CHECK_FALSE(wh::apply_json_patch(doc, json(R"([{"op": "add", "path": "/x", "value": 2}])"),
                                     std::vector<std::string>(wh::kMaxPathSegments, "a"), error));
    // A copy below itself may not nest the document beyond kMaxDataDepth.
    auto copy = json(R"([{"op": "copy", "from": "/a", "path": ")" + pointer + R"("}])");
    auto once = wh::apply_json_patch(doc, copy, {}, error);
    REQUIRE_MESSAGE(once, error);
    CHECK_FALSE(wh::apply_json_patch(*once, copy, {}, error));
    CHECK(error == "the document would nest deeper than 1512 levels");
}

TEST_CASE("admission: parse_review rejects what is not an AdmissionReview") {
    wh::ReviewRequest r;
    std::string error;
    CHECK(wh::parse_review(kReview, r, error));
    CHECK(r.api_version == "admission.k8s.io/v1");
    CHECK(r.uid == Value::string("u-1"));
    CHECK_FALSE(wh::parse_review("{", r, error));
    CHECK(error.rfind("malformed JSON", 0) == 0);
    CHECK_FALSE(
        wh::parse_review(R"({"kind": "Pod", "apiVersion": "admission.k8s.io/v1", "request": {"uid": "x"}})", r, error));
    CHECK_FALSE(
        wh::parse_review(R"({"kind": "AdmissionReview", "apiVersion": "v1", "request": {"uid": "x"}})", r, error));
    CHECK_FALSE(wh::parse_review(
        R"({"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1", "request": {"uid": ""}})", r, error));
    CHECK(error == "request.uid is missing");
}

TEST_CASE("admission: response from conventional rules") {
    wh::ReviewRequest r;
    std::string error;
    REQUIRE(wh::parse_review(kReview, r, error));
    auto d = wh::decision_from_rules(r, json(R"({"deny": ["b", "a"], "violation": [{"msg": "c", "code": 409}],
                                                 "warn": ["w"], "audit_annotations": {"k": 1}})"),
                                     false);
    CHECK(d.outcome == wh::AdmissionDecision::Outcome::Denied);
    CHECK(
        to_json(d.review) ==
        R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"allowed":false,)"
        R"("auditAnnotations":{"k":"1"},"status":{"code":409,"message":"b, a, c","reason":"Conflict"},"uid":"u-1","warnings":["w"]}})");

    auto m = wh::decision_from_rules(
        r, json(R"({"patch": [{"op": "add", "path": ["metadata", "labels", "a/b~c"], "value": "v"}]})"), false);
    CHECK(m.outcome == wh::AdmissionDecision::Outcome::Allowed);
    const Value* patch = m.review.find("response")->find("patch");
    REQUIRE(patch);
    CHECK(decode_base64(patch->as_string()) == R"([{"op":"add","path":"/metadata/labels/a~1b~0c","value":"v"}])");
    CHECK(m.review.find("response")->find("patchType")->as_string() == "JSONPatch");

    auto bad = wh::decision_from_rules(r, json(R"({"patch": [{"path": "/x"}]})"), false);
    CHECK(bad.outcome == wh::AdmissionDecision::Outcome::Error);
    CHECK(bad.review.find("response")->find("status")->find("code")->as_number().to_string() == "500");
    auto open = wh::decision_from_rules(r, json(R"({"patch": [{"path": "/x"}]})"), true);
    CHECK(open.review.find("response")->find("allowed")->as_bool());
    CHECK(open.review.find("response")->find("warnings")->size() == 1);
}

TEST_CASE("admission: system.main keeps the policy's response, fixes uid and envelope") {
    wh::ReviewRequest r;
    std::string error;
    REQUIRE(wh::parse_review(kReview, r, error));
    auto d = wh::decision_from_main(r, json(R"({"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview",
                                               "response": {"allowed": false, "uid": "wrong", "status": {"message": "no"}}})"),
                                    true, "data.system.main", false);
    CHECK(d.outcome == wh::AdmissionDecision::Outcome::Denied);
    CHECK(to_json(d.review) == R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",)"
                               R"("response":{"allowed":false,"status":{"message":"no"},"uid":"u-1"}})");
    CHECK(wh::decision_from_main(r, Value(), false, "data.system.main", false).outcome ==
          wh::AdmissionDecision::Outcome::Error);
    CHECK(wh::decision_from_main(r, json(R"({"response": {}})"), true, "m", false).outcome ==
          wh::AdmissionDecision::Outcome::Error);
}

TEST_CASE("base64 like RFC 4648") {
    CHECK(gavel::support::base64_encode("") == "");
    CHECK(gavel::support::base64_encode("f") == "Zg==");
    CHECK(gavel::support::base64_encode("fo") == "Zm8=");
    CHECK(gavel::support::base64_encode("foobar") == "Zm9vYmFy");
}

TEST_CASE("policy store: writes publish new snapshots; failed writes change nothing") {
    auto store = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{"data.a.p"});
    auto before = store->current();
    REQUIRE(store->put_policy("a.rego", "package a\n\np := data.x\n").ok());
    auto one = store->current();
    CHECK(one->generation > before->generation);
    CHECK(store->put_data({"x"}, Value::integer(1), false).ok());
    auto two = store->current();
    auto q = store->query("data.a.p");
    REQUIRE(q.query);
    CHECK(to_json(q.query->eval().rows.at(0).expressions.at(0).value) == "1");

    // A policy that does not compile is rejected with its errors; the world stays as it was.
    auto bad = store->put_policy("b.rego", "package b\n\nq if y > 1\n");
    CHECK_FALSE(bad.ok());
    CHECK(bad.status == 400);
    REQUIRE_FALSE(bad.errors.empty());
    CHECK(bad.errors.items()[0].file == "b.rego");
    CHECK(store->current() == two);
    CHECK(store->current()->policies.count("b.rego") == 0);
    // ... and the engine was rolled back: the next good write does not carry b.rego along.
    CHECK(store->put_data({"x"}, Value::integer(2), false).ok());
    CHECK(store->current()->policies.size() == 1);

    // Old snapshots stay usable and unchanged.
    auto old = wh::value_at(two->data, {"x"});
    REQUIRE(old);
    CHECK(to_json(*old) == "1");

    CHECK(store->delete_data({"nope"}).status == 404);
    CHECK(store->put_data({"x"}, Value::integer(3), true).status == 304);
    CHECK(store->patch_data({}, json(R"([{"op": "add", "path": "/y", "value": {"z": 1}}])")).ok());
    CHECK(to_json(store->current()->data) == R"({"x":2,"y":{"z":1}})");
    CHECK(store->delete_policy("a.rego").ok());
    CHECK(store->delete_policy("a.rego").status == 404);
}

TEST_CASE("policy store: directory content replaces its own policies and top-level data keys only") {
    auto store = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{});
    REQUIRE(store->put_data({"kubernetes"}, json(R"({"pods": {}})"), false).ok());
    REQUIRE(
        store->replace_directory_content({{"d/a.rego", "package a\n\np := 1\n"}}, json(R"({"cfg": 1})"), "h1").ok());
    REQUIRE(
        store->replace_directory_content({{"d/b.rego", "package b\n\np := 2\n"}}, json(R"({"cfg2": 2})"), "h2").ok());
    auto snap = store->current();
    CHECK(snap->policies.count("d/a.rego") == 0);
    CHECK(snap->policies.count("d/b.rego") == 1);
    CHECK(to_json(snap->data) == R"({"cfg2":2,"kubernetes":{"pods":{}}})");
    auto bad = store->replace_directory_content({{"d/b.rego", "package b\n\np := \n"}}, json("{}"), "h3");
    CHECK_FALSE(bad.ok());
    CHECK(store->current() == snap);
}

TEST_CASE("policy store: bundles activated together may use each other's rules; roots may not overlap") {
    auto store = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{});
    wh::PolicyStore::BundleContent lib, app;
    lib.modules.emplace_back("lib/users.rego", "package lib.users\n\nis_admin(u) if u in data.lib.admins\n", false);
    lib.data = json(R"({"lib": {"admins": ["alice"]}, "stray": 1})");
    lib.roots = {"lib"};
    app.modules.emplace_back("app/policy.rego",
                             "package app\n\nimport data.lib.users\n\nallow if users.is_admin(input.user)\n", false);
    app.roots = {"app"};
    // One at a time, the first does not compile without the other ...
    CHECK_FALSE(store->activate_bundle("app", app).ok());
    // ... together they do, and each bundle's data lands below its own roots only.
    REQUIRE(store->activate_bundles({{"app", app}, {"lib", lib}}).ok());
    CHECK(to_json(store->current()->data) == R"({"lib":{"admins":["alice"]}})");
    auto q = store->query("data.app.allow with input.user as \"alice\"");
    REQUIRE(q.query);
    CHECK(to_json(q.query->eval().rows.at(0).expressions.at(0).value) == "true");
    // Roots overlapping within the step are refused, as against an active bundle.
    wh::PolicyStore::BundleContent x, y;
    x.roots = {"x"};
    y.roots = {"x/y"};
    auto r = store->activate_bundles({{"x", x}, {"y", y}});
    CHECK(r.status == 409);
    CHECK(r.message == "detected overlapping roots in manifests for these bundles: [x, y]");
    CHECK(store->activate_bundle("z", y).ok());
    CHECK(store->activate_bundle("w", x).message ==
          "detected overlapping roots in manifests for these bundles: [w, z]");
}

TEST_CASE("policy store: readers keep evaluating while writers swap snapshots") {
    auto store = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{"data.v.value"});
    REQUIRE(store->put_policy("v.rego", "package v\n\nvalue := data.n * 2\n").ok());
    REQUIRE(store->put_data({"n"}, Value::integer(0), false).ok());
    std::atomic<bool> stop{false};
    std::atomic<int> odd{0};
    std::thread reader([&] {
        while (!stop) {
            auto q = store->query("data.v.value");
            if (!q.query) continue;
            auto r = q.query->eval();
            std::int64_t v = 0;
            if (r.rows.empty() || !r.rows[0].expressions[0].value.as_int64(v) || v % 2) ++odd;
        }
    });
    for (int i = 1; i <= 200; ++i) REQUIRE(store->put_data({"n"}, Value::integer(i), false).ok());
    stop = true;
    reader.join();
    CHECK(odd == 0);  // every answer came from one whole world
}

TEST_CASE("service: admission routes, REST API and errors") {
    auto store = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{});
    auto metrics = std::make_shared<wh::Metrics>();
    wh::ServiceOptions options;
    options.token = "t";
    wh::Service service(options, store, metrics);
    REQUIRE(store
                ->put_policy("p.rego", R"(package k8s.images

deny contains sprintf("bad image %v", [c.image]) if {
	some c in input.request.object.spec.containers
	not startswith(c.image, data.registry)
}
)")
                .ok());
    REQUIRE(store->put_data({"registry"}, Value::string("hooli.com/"), false).ok());
    {
        // The package's admission query is prepared when the snapshot is published.
        auto snap = store->current();
        REQUIRE(snap->conventional_rules.count("data.k8s.images") == 1);
        std::lock_guard lock(snap->cache_mutex);
        CHECK(snap->queries.count(wh::conventional_rules_query("data.k8s.images",
                                                               snap->conventional_rules.at("data.k8s.images"))) == 1);
    }

    auto req = request("POST", "/validate/k8s/images", kReview);
    auto resp = service.handle_now(wh::Listener::Admission, req);
    CHECK(resp.status == 200);
    CHECK(resp.body.find(R"("message":"bad image nginx")") != std::string::npos);

    auto put = request("PUT", "/v1/data/registry", R"("")");
    CHECK(service.handle_now(wh::Listener::Rest, put).status == 401);
    put.headers.emplace_back("Authorization", "Bearer t");
    CHECK(service.handle_now(wh::Listener::Rest, put).status == 204);
    resp = service.handle_now(wh::Listener::Admission, req);
    CHECK(resp.body.find(R"("allowed":true)") != std::string::npos);

    auto unknown = request("POST", "/validate/k8s/nothing", kReview);
    resp = service.handle_now(wh::Listener::Admission, unknown);
    CHECK(resp.body.find("no policy defines package data.k8s.nothing") != std::string::npos);

    auto malformed = request("POST", "/validate/k8s/images", "{\"kind\":");
    resp = service.handle_now(wh::Listener::Admission, malformed);
    CHECK(resp.status == 400);
    auto get = request("GET", "/v1/data/k8s/images/deny");
    get.headers.emplace_back("Authorization", "Bearer t");
    CHECK(service.handle_now(wh::Listener::Rest, get).body == "{\"result\":[]}\n");
    auto bad_path = request("GET", "/v1/data/%zz");
    CHECK(service.handle_now(wh::Listener::Rest, bad_path).status == 400);
    auto missing = request("GET", "/nowhere");
    CHECK(service.handle_now(wh::Listener::Admission, missing).status == 404);
    CHECK(metrics->render(true, "h").find(
              R"(gavel_http_requests_total{endpoint="/validate",decision="denied",code="200"} 1)") !=
          std::string::npos);
}

TEST_CASE("service: OPA's request histogram names the handlers OPA's instrumentation would") {
    auto store = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{});
    REQUIRE(store
                ->put_policy("authz.rego",
                             "package system.authz\n\ndefault allow := false\n\nallow if input.method == \"GET\"\n")
                .ok());
    REQUIRE(
        store->put_policy("k.rego", "package k\n\ndeny contains \"no\" if input.request.kind.kind == \"Pod\"\n").ok());
    auto count = [](const std::shared_ptr<wh::Metrics>& m, const std::string& labels) {
        std::string text = m->render(true, "h");
        std::string prefix = "http_request_duration_seconds_count{" + labels + "} ";
        auto at = text.find(prefix);
        return at == std::string::npos ? std::string("none")
                                       : text.substr(at + prefix.size(), text.find('\n', at) - at - prefix.size());
    };
    using L = wh::Listener;
    SUBCASE("without authorization") {
        auto metrics = std::make_shared<wh::Metrics>();
        wh::Service service(wh::ServiceOptions{}, store, metrics);
        for (auto [method, target] : std::vector<std::pair<std::string, std::string>>{{"GET", "/v1/data"},
                                                                                      {"GET", "/v1/data/"},
                                                                                      {"HEAD", "/v1/data"},
                                                                                      {"BREW", "/v1/data"},
                                                                                      {"GET", "/nope"},
                                                                                      {"POST", "/health"},
                                                                                      {"GET", "/metrics"},
                                                                                      {"GET", "/v1//data"}}) {
            auto req = request(method, target);
            service.handle_now(L::Api, req);
        }
        auto review = request("POST", "/validate/k", kReview);
        service.handle_now(L::Admission, review);
        CHECK(count(metrics, R"(code="200",handler="v1/data",method="get")") == "1");
        CHECK(count(metrics, R"(code="301",handler="v1/data",method="get")") == "1");  // OPA's trailing-slash redirect
        CHECK(count(metrics, R"(code="405",handler="v1/data",method="head")") == "1");
        CHECK(count(metrics, R"(code="405",handler="catchall",method="unknown")") == "1");
        CHECK(count(metrics, R"(code="200",handler="validate",method="post")") == "1");
        // Go's own 404, 405 and redirect, and /metrics: no OPA handler ran, nothing recorded.
        std::string text = metrics->render(true, "h");
        CHECK(text.find(R"(http_request_duration_seconds_count{code="404")") == std::string::npos);
        CHECK(text.find("handler=\"health\"") == std::string::npos);
        CHECK(text.find("handler=\"metrics\"") == std::string::npos);
        CHECK(text.find(R"(code="301",handler="v1/data",method="get"} 1)") != std::string::npos);
    }
    SUBCASE("with --authorization=basic: the authorizer is a handler of its own") {
        auto metrics = std::make_shared<wh::Metrics>();
        wh::ServiceOptions options;
        options.api.authorization = true;
        wh::Service service(options, store, metrics);
        for (auto [method, target] : std::vector<std::pair<std::string, std::string>>{{"GET", "/v1/data"},
                                                                                      {"POST", "/v1/data"},
                                                                                      {"GET", "/nope"},
                                                                                      {"HEAD", "/v1/data"},
                                                                                      {"GET", "/metrics"}}) {
            auto req = request(method, target);
            service.handle_now(L::Api, req);
        }
        auto health = request("GET", "/health");
        service.handle_now(L::Diagnostic, health);
        CHECK(count(metrics, R"(code="200",handler="authz",method="get")") == "3");  // /v1/data, /metrics, /health
        CHECK(count(metrics, R"(code="200",handler="v1/data",method="get")") == "1");
        CHECK(count(metrics, R"(code="200",handler="health",method="get")") == "1");
        CHECK(count(metrics, R"(code="401",handler="authz",method="post")") == "1");  // refused: v1/data never ran
        CHECK(count(metrics, R"(code="401",handler="v1/data",method="post")") == "none");
        CHECK(count(metrics, R"(code="404",handler="authz",method="get")") == "1");
        CHECK(count(metrics, R"(code="405",handler="authz",method="head")") == "1");
    }
}

TEST_CASE("service: a request cancelled at shutdown counts in OPA's http_request_cancellations") {
    auto store = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{});
    REQUIRE(store->put_policy("k.rego", "package k\n\nx := 1\n").ok());
    auto metrics = std::make_shared<wh::Metrics>();
    auto service = std::make_shared<wh::Service>(wh::ServiceOptions{}, store, metrics);
    auto pool = std::make_shared<wh::WorkerPool>("eval", 1, 4);
    service->set_pools(pool, pool);
    pool->cancel();  // what the shutdown does once the grace period is over
    std::promise<int> answered;
    service->handle(wh::Listener::Api, request("GET", "/v1/data/k/x"),
                    [&](wh::HttpResponse resp) { answered.set_value(resp.status); });
    int status = answered.get_future().get();
    std::string text = metrics->render(true, "h");
    CHECK(text.find("# TYPE http_request_cancellations counter") != std::string::npos);
    CHECK(text.find("http_request_cancellations{code=\"" + std::to_string(status) +
                    "\",handler=\"v1/data\",method=\"GET\"} 1") != std::string::npos);
    pool->stop();
}

TEST_CASE("service: each listener serves its own routes only") {
    auto store = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{});
    auto metrics = std::make_shared<wh::Metrics>();
    wh::Service service(wh::ServiceOptions{}, store, metrics);
    service.set_ready(true);
    REQUIRE(
        store->put_policy("p.rego", "package k\n\ndeny contains \"no\" if input.request.kind.kind == \"Pod\"\n").ok());
    using L = wh::Listener;
    auto status = [&](L listener, std::string method, std::string target, std::string body = {}) {
        auto req = request(std::move(method), std::move(target), std::move(body));
        return service.handle_now(listener, req).status;
    };
    CHECK(status(L::Admission, "POST", "/validate/k", kReview) == 200);
    CHECK(status(L::Admission, "PUT", "/v1/policies/x", "package x") == 404);
    CHECK(status(L::Admission, "PUT", "/v1/data/x", "{}") == 404);
    CHECK(status(L::Admission, "GET", "/health") == 404);
    CHECK(status(L::Admission, "GET", "/metrics") == 404);
    CHECK(status(L::Rest, "PUT", "/v1/data/x", "{}") == 204);
    CHECK(status(L::Rest, "GET", "/v1/policies") == 200);
    CHECK(status(L::Rest, "POST", "/validate/k", kReview) == 404);
    CHECK(status(L::Rest, "GET", "/health") == 200);  // OPA's API serves health too
    CHECK(status(L::Diagnostic, "GET", "/health") == 200);
    CHECK(status(L::Diagnostic, "GET", "/health/ready") == 200);
    CHECK(status(L::Diagnostic, "GET", "/metrics") == 200);
    CHECK(status(L::Diagnostic, "GET", "/v1/data/x") == 404);
    CHECK(status(L::Diagnostic, "POST", "/", kReview) == 404);
    service.set_ready(false);
    CHECK(status(L::Diagnostic, "GET", "/health/ready") == 503);
    CHECK(status(L::Diagnostic, "GET", "/health") == 200);
    // Paths: 512 segments below /v1/data or /validate, not one more.
    std::string deep;
    for (std::size_t i = 0; i < wh::kMaxPathSegments; ++i) deep += "/a";
    CHECK(status(L::Rest, "PUT", "/v1/data" + deep, "{}") == 204);
    CHECK(status(L::Rest, "PUT", "/v1/data" + deep + "/a", "{}") == 400);
    CHECK(status(L::Rest, "GET", "/v1/data" + deep + "/a") == 400);
    CHECK(status(L::Admission, "POST", "/validate" + deep + "/a", kReview) == 400);
}

TEST_CASE("worker pool: a bounded queue refuses at once, stop finishes the queue, cancel reaches tasks") {
    wh::WorkerPool pool("test", 1, 1);
    std::mutex m;
    std::condition_variable cv;
    bool release = false;
    std::atomic<int> ran{0};
    auto blocker = [&](const std::atomic<bool>&) {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return release; });
        ++ran;
    };
    wh::WorkerPool::Task t1 = blocker, t2 = [&](const std::atomic<bool>&) { ++ran; }, t3 = t2;
    REQUIRE(pool.try_submit(t1));
    while (pool.pending() != 1 || pool.render_metrics().find("gavel_test_workers_busy 1") == std::string::npos)
        std::this_thread::yield();
    CHECK(pool.try_submit(t2));        // waits in the queue
    CHECK_FALSE(pool.try_submit(t3));  // the queue is full: refused, not blocked
    CHECK(t3);                         // and left to the caller
    CHECK(pool.render_metrics().find("gavel_test_rejected_total 1") != std::string::npos);
    {
        std::lock_guard lock(m);
        release = true;
    }
    cv.notify_all();
    CHECK(pool.stop());
    CHECK(ran == 2);
    wh::WorkerPool::Task late = t2;
    CHECK_FALSE(pool.try_submit(late));  // stopped

    // Past the deadline, the cancel flag reaches a running task, which then ends.
    wh::WorkerPool cancelling("c", 1, 0);
    std::atomic<bool> saw_cancel{false};
    wh::WorkerPool::Task spin = [&](const std::atomic<bool>& cancel) {
        while (!cancel) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        saw_cancel = true;
    };
    REQUIRE(cancelling.try_submit(spin));
    CHECK(cancelling.stop(std::chrono::steady_clock::now() + std::chrono::milliseconds(20)));
    CHECK(saw_cancel);
}
