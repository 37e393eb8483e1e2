// Partial evaluation (Engine::partial): what the residual queries and support
// modules mean. For hand-written policies and random inputs, evaluating the
// residue with the unknowns bound must give what evaluating the policy gives:
//
//   * a query `data.p.allow` holds (is defined and not false) exactly when one
//     of the residual queries succeeds;
//   * a query `x = data.p.v` gives the same values of x from the residue as
//     from the policy.
//
// The residual queries are evaluated as Rego text (`-f source`), with the
// support modules added as policies beside the original ones, so the printer
// is checked too. Each policy runs with OPA's default inlining, with its
// helper rules kept as support rules (--disable-inlining) and shallowly inlined.

#include <doctest/doctest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/partial/residual.hpp"
#include "runtime/json.hpp"

using gavel::Engine;
using gavel::EvalOptions;
using gavel::PartialOptions;
using gavel::PartialQueryOptions;
using gavel::runtime::parse_json;
using gavel::runtime::to_json;
using gavel::runtime::Value;

namespace {

Value json(const std::string& text) {
    auto r = parse_json(text);
    REQUIRE_MESSAGE(r.ok, text);
    return r.value;
}

// input.user is known, input.res (a resource) unknown; fields are left out at random.
struct InputGen {
    std::mt19937 rng;
    explicit InputGen(unsigned seed) : rng(seed) {}

    std::string pick(const std::vector<std::string>& xs) { return xs[rng() % xs.size()]; }
    bool coin(int percent) { return static_cast<int>(rng() % 100) < percent; }

    std::string user() {
        std::string out = "{";
        auto field = [&](const char* name, const std::string& v) {
            if (!coin(90)) return;
            if (out.size() > 1) out += ",";
            out += std::string("\"") + name + "\":" + v;
        };
        field("name", pick({"\"alice\"", "\"bob\"", "\"carol\""}));
        field("role", pick({"\"admin\"", "\"dev\"", "\"viewer\"", "\"auditor\""}));
        field("limit", pick({"0", "5", "10", "100"}));
        field("teams", pick({"[]", "[\"red\"]", "[\"red\",\"blue\"]", "[\"green\"]"}));
        return out + "}";
    }

    std::string resource() {
        std::string out = "{";
        auto field = [&](const char* name, const std::string& v) {
            if (!coin(85)) return;
            if (out.size() > 1) out += ",";
            out += std::string("\"") + name + "\":" + v;
        };
        field("owner", pick({"\"alice\"", "\"bob\"", "\"carol\"", "\"dave\""}));
        field("size", pick({"0", "3", "5", "10", "50", "\"big\""}));
        field("kind", pick({"\"doc\"", "\"image\"", "\"secret\"", "\"log\""}));
        field("public", pick({"true", "false"}));
        field("team", pick({"\"red\"", "\"blue\"", "\"green\""}));
        field("tags", pick({"[]", "[\"a1\"]", "[\"a1\",\"b2\"]", "[\"b1\",\"a2\",\"a3\"]", "[\"x\"]"}));
        field("labels", pick({"{}", "{\"env\":\"prod\"}", "{\"env\":\"dev\",\"tier\":\"web\"}", "{\"tier\":\"db\"}"}));
        field("ports", pick({"[]", "[80]", "[80,443]", "[22,8080]"}));
        return out + "}";
    }
};

struct Case {
    const char* name;
    const char* policy;
    const char* query;                 // `data.p.allow`, or with `x` bound: `x = data.p.v`
    std::vector<std::string> disable;  // helper rules for --disable-inlining
};

const char* kData = R"({"roles": {"admin": ["read", "write", "delete"], "dev": ["read", "write"], "viewer": ["read"]},
                        "blocked": ["dave"], "sizes": {"doc": 10, "image": 50}})";

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {"ownership and roles",
         R"(package p
allow if input.user.role == "admin"
allow if {
	input.res.owner == input.user.name
	not input.res.owner in data.blocked
}
allow if {
	"read" in data.roles[input.user.role]
	input.res.public == true
}
)",
         "data.p.allow",
         {}},
        {"helper rules and functions",
         R"(package p
allow if {
	owner
	small(input.res)
}
allow if {
	same_team
	input.res.kind != "secret"
}
owner if input.res.owner == input.user.name
same_team if input.res.team in input.user.teams
small(r) if r.size < input.user.limit
small(r) if r.size <= data.sizes[r.kind]
)",
         "data.p.allow",
         {"data.p.owner", "data.p.small"}},
        {"negation of rules over unknowns",
         R"(package p
allow if {
	not secret
	not blocked_owner
}
secret if input.res.kind == "secret"
secret if input.res.labels.tier == "db"
blocked_owner if input.res.owner in data.blocked
)",
         "data.p.allow",
         {"data.p.secret"}},
        {"comprehensions and builtins over unknowns",
         R"(package p
allow if count([t | some t in input.res.tags; startswith(t, "a")]) >= 2
allow if {
	some p in input.res.ports
	p > 1024
	input.user.role != "viewer"
}
allow if sprintf("%v/%v", [input.res.kind, input.res.owner]) == "doc/alice"
)",
         "data.p.allow",
         {}},
        {"every",
         R"(package p
allow if {
	input.user.role in {"dev", "admin"}
	every t in input.res.tags { not startswith(t, "b") }
	input.res.public == false
}
allow if {
	every p in input.res.ports { p < 1000 }
	input.res.owner == "bob"
}
)",
         "data.p.allow",
         {}},
        {"default rules and else",
         R"(package p
default level := "none"
level := "owner" if input.res.owner == input.user.name
else := "team" if input.res.team in input.user.teams
else := "public" if input.res.public
)",
         "x = data.p.level",
         {}},
        {"with",
         R"(package p
allow if {
	can_write with input.user.role as "dev"
	input.res.kind == "doc"
}
allow if can_write
can_write if {
	"write" in data.roles[input.user.role]
	input.res.owner == input.user.name
}
)",
         "data.p.allow",
         {"data.p.can_write"}},
        {"partial sets",
         R"(package p
deny contains "public secret" if {
	input.res.kind == "secret"
	input.res.public
}
deny contains sprintf("foreign owner %v", [input.res.owner]) if {
	input.res.owner != input.user.name
	input.user.role != "admin"
}
deny contains "no labels" if count(input.res.labels) == 0
)",
         "x = data.p.deny[_]",
         {}},
        {"partial objects and values",
         R"(package p
limits[kind] := n if {
	some kind, n in data.sizes
	input.res.kind == kind
}
quota := q if {
	q := limits[input.res.kind] * 2
	input.res.size < q
}
)",
         "x = data.p.quota",
         {}},
        {"objects and equality on unknown structure",
         R"(package p
allow if input.res.labels == {"env": "prod"}
allow if {
	input.res.labels.env == "dev"
	object.get(input.res.labels, "tier", "none") != "db"
}
allow if [input.res.kind, input.res.owner] == ["image", "carol"]
)",
         "data.p.allow",
         {}},
    };
    return all;
}

// Residual queries are compiled as written: a false comparison makes the query
// fail (with captured values it would be a row with the value false).
Engine::QueryOptions strict_query() {
    Engine::QueryOptions o;
    o.capture_values = false;
    return o;
}

// The values a query gives: for `x = ...` the values of x, else "true" when the query holds.
std::set<std::string> outcomes(const gavel::EvalResult& r, bool has_x) {
    std::set<std::string> out;
    for (const auto& row : r.rows) {
        if (!has_x) {
            out.insert("true");
            continue;
        }
        for (const auto& [name, v] : row.bindings)
            if (name == "x") out.insert(to_json(v));
    }
    return out;
}

}  // namespace

TEST_CASE("partial evaluation: the residue means what the policy means, for random inputs") {
    struct Mode {
        const char* name;
        bool disable;
        bool shallow;
    };
    const Mode modes[] = {
        {"inlining", false, false}, {"disable-inlining", true, false}, {"shallow-inlining", false, true}};
    InputGen gen(20261127);
    int checked = 0;
    for (const auto& c : cases()) {
        Engine original;
        REQUIRE_MESSAGE(original.add_policy("p.rego", c.policy).empty(), std::string(c.name));
        REQUIRE_FALSE(original.add_data(json(kData)));
        auto query = original.prepare(c.query);
        REQUIRE_MESSAGE(query.ok(), std::string(c.name), ": ", query.diagnostics.opa_text());
        bool has_x = std::string(c.query).rfind("x = ", 0) == 0;
        for (const auto& mode : modes) {
            PartialQueryOptions po;
            po.unknowns = std::vector<std::string>{"input.res"};
            if (mode.disable) po.disable_inlining = c.disable;
            po.shallow_inlining = mode.shallow;
            auto prepared = original.prepare_partial(c.query, po);
            REQUIRE_MESSAGE(prepared.ok(), std::string(c.name), ": ", prepared.diagnostics.opa_text());
            for (int round = 0; round < 40; ++round) {
                std::string user = gen.user(), res = gen.resource();
                Value known = json("{\"user\":" + user + "}");
                Value full = json("{\"user\":" + user + ",\"res\":" + res + "}");

                EvalOptions eo;
                eo.input = &full;
                auto expected_rows = query.value->eval(eo);
                REQUIRE_MESSAGE(expected_rows.ok(), std::string(c.name));
                std::set<std::string> expected = outcomes(expected_rows, has_x);

                PartialOptions pe;
                pe.input = &known;
                auto residue = prepared.value->run(pe);
                REQUIRE_MESSAGE(residue.ok(), std::string(c.name), " (", std::string(mode.name),
                                "): ", residue.error->to_string());

                // The residue evaluated against the full input, support modules beside the policy.
                Engine check;
                REQUIRE(check.add_policy("p.rego", c.policy).empty());
                REQUIRE_FALSE(check.add_data(json(kData)));
                std::string support_text;
                for (std::size_t i = 0; i < residue.support.size(); ++i) {
                    std::string text = gavel::partial::module_source(residue.support[i], nullptr);
                    support_text += text;
                    auto errors = check.add_policy("support" + std::to_string(i) + ".rego", text);
                    REQUIRE_MESSAGE(errors.empty(), std::string(c.name), " (", std::string(mode.name),
                                    "): support module\n", text, errors.opa_text());
                }
                std::set<std::string> got;
                std::string queries_text;
                for (const auto& body : residue.queries) {
                    std::string text = gavel::partial::body_source(body, nullptr);
                    if (text.empty()) text = "true";  // the empty query: unconditionally true
                    queries_text += text + "\n--\n";
                    auto q = check.prepare(text, strict_query());
                    REQUIRE_MESSAGE(q.ok(), std::string(c.name), " (", std::string(mode.name), "): residual query\n",
                                    text, "\n", support_text, q.diagnostics.opa_text());
                    auto rows = q.value->eval(eo);
                    REQUIRE_MESSAGE(rows.ok(), std::string(c.name), " (", std::string(mode.name), "): ", text);
                    for (const auto& o : outcomes(rows, has_x)) got.insert(o);
                }
                std::string want_text, got_text;
                for (const auto& s : expected) want_text += s + " ";
                for (const auto& s : got) got_text += s + " ";
                CHECK_MESSAGE(got == expected, std::string(c.name), " (", std::string(mode.name),
                              ")\ninput: ", to_json(full), "\nresidual queries:\n", queries_text, "support:\n",
                              support_text, "\npolicy gives: ", want_text, "\nresidue gives: ", got_text);
                ++checked;
            }
        }
    }
    CHECK(checked == static_cast<int>(cases().size()) * 3 * 40);
}

// Random policies: `allow` rules whose bodies are conjunctions of conditions drawn
// from a pool (comparisons, helper rules, functions, negation, iteration,
// comprehensions, every), some conditions on known input only.
std::string random_policy(std::mt19937& rng) {
    static const std::vector<std::string> conditions = {
        "input.res.owner == input.user.name",
        "input.res.owner != \"dave\"",
        "input.res.size < input.user.limit",
        "input.res.size >= 5",
        "input.res.public == true",
        "input.res.public",
        "not input.res.public",
        "input.res.kind in {\"doc\", \"log\"}",
        "input.res.team in input.user.teams",
        "input.user.role == \"admin\"",
        "input.user.role != \"viewer\"",
        "\"write\" in data.roles[input.user.role]",
        "not input.res.owner in data.blocked",
        "helper_a",
        "not helper_a",
        "helper_b",
        "not helper_b",
        "f(input.res.kind)",
        "not f(input.res.kind)",
        "g(input.res) > 1",
        "some t in input.res.tags; startswith(t, \"a\")",
        "count([t | some t in input.res.tags; startswith(t, \"b\")]) == 0",
        "every p in input.res.ports { p != 22 }",
        "input.res.labels.env == \"prod\"",
        "object.get(input.res.labels, \"tier\", \"web\") == \"web\"",
        "x := input.res.size * 2; x > input.user.limit",
        "input.res.size == data.sizes[input.res.kind]",
        "helper_c[input.res.kind]",
    };
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    std::string out = "package p\n\n";
    std::size_t rules = 1 + pick(3);
    for (std::size_t r = 0; r < rules; ++r) {
        out += "allow if {\n";
        std::size_t n = 1 + pick(3);
        std::set<std::size_t> used;
        for (std::size_t i = 0; i < n; ++i) {
            std::size_t which = pick(conditions.size());
            if (!used.insert(which).second) continue;
            std::string c = conditions[which];
            for (std::size_t at; (at = c.find("; ")) != std::string::npos;) c.replace(at, 2, "\n\t");
            out += "\t" + c + "\n";
        }
        out += "}\n\n";
    }
    out += "helper_a if input.res.kind == \"secret\"\n";
    out += "helper_a if input.res.labels.tier == \"db\"\n";
    out += "helper_b if {\n\tinput.res.owner == input.user.name\n\tinput.res.size > 3\n}\n";
    out += "helper_c contains k if {\n\tsome k, n in data.sizes\n\tn > input.user.limit\n}\n";
    out += "f(k) if k == \"image\"\nf(k) if k == input.user.role\n";
    out += "g(r) := count(r.tags)\n";
    return out;
}

TEST_CASE("partial evaluation: random policies, random inputs") {
    std::mt19937 rng(7);
    InputGen gen(1127);
    for (int n = 0; n < 60; ++n) {
        std::string policy = random_policy(rng);
        Engine original;
        REQUIRE_MESSAGE(original.add_policy("p.rego", policy).empty(), policy);
        REQUIRE_FALSE(original.add_data(json(kData)));
        auto query = original.prepare("data.p.allow");
        REQUIRE_MESSAGE(query.ok(), policy);
        PartialQueryOptions po;
        po.unknowns = std::vector<std::string>{"input.res"};
        if (n % 3 == 1) po.disable_inlining = {"data.p.helper_a", "data.p.f"};
        if (n % 3 == 2) po.shallow_inlining = true;
        auto prepared = original.prepare_partial("data.p.allow", po);
        REQUIRE_MESSAGE(prepared.ok(), policy, prepared.diagnostics.opa_text());
        for (int round = 0; round < 20; ++round) {
            std::string user = gen.user(), res = gen.resource();
            Value known = json("{\"user\":" + user + "}");
            Value full = json("{\"user\":" + user + ",\"res\":" + res + "}");
            EvalOptions eo;
            eo.input = &full;
            auto expected_rows = query.value->eval(eo);
            REQUIRE(expected_rows.ok());
            bool expected = !expected_rows.rows.empty();
            PartialOptions pe;
            pe.input = &known;
            auto residue = prepared.value->run(pe);
            REQUIRE_MESSAGE(residue.ok(), policy);
            Engine check;
            REQUIRE(check.add_policy("p.rego", policy).empty());
            REQUIRE_FALSE(check.add_data(json(kData)));
            std::string support_text, queries_text;
            for (std::size_t i = 0; i < residue.support.size(); ++i) {
                std::string text = gavel::partial::module_source(residue.support[i], nullptr);
                support_text += text;
                auto errors = check.add_policy("support" + std::to_string(i) + ".rego", text);
                REQUIRE_MESSAGE(errors.empty(), policy, "support module\n", text, errors.opa_text());
            }
            bool got = false;
            for (const auto& body : residue.queries) {
                std::string text = gavel::partial::body_source(body, nullptr);
                if (text.empty()) text = "true";
                queries_text += text + "\n--\n";
                auto q = check.prepare(text, strict_query());
                REQUIRE_MESSAGE(q.ok(), policy, "residual query\n", text, "\n", support_text, q.diagnostics.opa_text());
                auto rows = q.value->eval(eo);
                REQUIRE(rows.ok());
                got = got || !rows.rows.empty();
            }
            CHECK_MESSAGE(got == expected, policy, "\ninput: ", to_json(full), "\nresidual queries:\n", queries_text,
                          "support:\n", support_text, "\npolicy gives: ", expected, "\nresidue gives: ", got);
        }
    }
}

TEST_CASE("partial evaluation: OPA's result shapes") {
    Engine engine;
    REQUIRE(engine.add_policy("p.rego", "package p\nallow if input.x == 1\nallow if input.y > data.n\n").empty());
    REQUIRE_FALSE(engine.add_data(json(R"({"n": 3})")));

    SUBCASE("unknown input: one query per rule, in the rule index's order (as OPA)") {
        auto r = engine.partial("data.p.allow");
        REQUIRE(r.ok());
        REQUIRE(r.value->ok());
        CHECK(
            r.value->json() ==
            R"({"queries":[[{"index":0,"terms":[{"type":"ref","value":[{"type":"var","value":"gt"}]},{"type":"ref","value":[{"type":"var","value":"input"},{"type":"string","value":"y"}]},{"type":"number","value":3}]}],[{"index":0,"terms":[{"type":"ref","value":[{"type":"var","value":"eq"}]},{"type":"ref","value":[{"type":"var","value":"input"},{"type":"string","value":"x"}]},{"type":"number","value":1}]}]]})");
    }
    SUBCASE("known input: the answer itself, an empty query") {
        Value in = json(R"({"x": 1, "y": 0})");
        PartialOptions o;
        o.input = &in;
        PartialQueryOptions q;
        q.unknowns = std::vector<std::string>{};
        auto r = engine.partial("data.p.allow", q, o);
        REQUIRE(r.ok());
        CHECK(r.value->json() == R"({"queries":[[]]})");
    }
    SUBCASE("never: no queries") {
        Value in = json(R"({"x": 2, "y": 0})");
        PartialOptions o;
        o.input = &in;
        PartialQueryOptions q;
        q.unknowns = std::vector<std::string>{};
        auto r = engine.partial("data.p.allow", q, o);
        REQUIRE(r.ok());
        CHECK(r.value->json() == "{}");
    }
    SUBCASE("a rule kept as a support rule") {
        PartialQueryOptions q;
        q.disable_inlining = {"data.p.allow"};
        auto r = engine.partial("data.p.allow", q);
        REQUIRE(r.ok());
        REQUIRE(r.value->queries.size() == 1);
        CHECK(gavel::partial::body_source(r.value->queries[0], nullptr) == "data.partial.p.allow");
        REQUIRE(r.value->support.size() == 1);
        CHECK(gavel::partial::module_source(r.value->support[0], nullptr) ==
              "package partial.p\n\nallow if input.x = 1\n\nallow if input.y > 3\n");
    }
    SUBCASE("a query that does not compile") {
        auto r = engine.partial("data.p.allow == undefined_var_x");
        CHECK_FALSE(r.ok());
    }
}

TEST_CASE("data filtering: a rule's compile: annotations are found in a package of several parts") {
    // The package's path is kept as written (a.b, not data.a.b): a lookup that took its first
    // part for `data` looked for the rule at {"b", "include"} and found no block.
    Engine engine;
    REQUIRE(engine
                .add_policy("filters.rego", R"(package filters.tables

# METADATA
# compile:
#   unknowns: [input.fruits]
#   mask_rule: masks
include if input.fruits.name == "apple"
)")
                .empty());
    auto found = engine.filter_annotations({"filters", "tables", "include"});
    CHECK(found.errors.empty());
    CHECK(found.unknowns == std::vector<std::string>{"input.fruits"});
    CHECK(found.mask_rule == "data.filters.tables.masks");
    CHECK(engine.filter_annotations({"tables", "include"}).unknowns.empty());
}
