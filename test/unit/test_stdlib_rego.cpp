// Builtins that need the evaluator's help: walk (a relation), the deprecated
// v0 builtins, rego.metadata.* (planned as constants), rego.parse_module,
// trace (a Note event) and opa.runtime.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "runtime/json.hpp"

namespace {

struct Run {
    std::string value;        // compact JSON of x, "undefined", or "error: ..."
    std::string diagnostics;  // compile errors, if any
};

Run eval(const std::string& policy, bool v0 = false, gavel::Tracer* tracer = nullptr) {
    gavel::EngineOptions options;
    options.v0_compatible = v0;
    gavel::Engine engine(options);
    auto diags = engine.add_policy("p.rego", policy);
    if (!diags.empty()) return {"", diags.format()};
    auto q = engine.prepare("x = data.t.x");
    if (!q.ok()) return {"", q.diagnostics.format()};
    gavel::EvalOptions eo;
    eo.strict_builtin_errors = true;
    eo.tracer = tracer;
    auto r = q.value->eval(eo);
    if (r.error) return {"error: " + r.error->to_string(), ""};
    if (r.rows.empty()) return {"undefined", ""};
    return {gavel::runtime::to_json(r.rows[0].bindings[0].second), ""};
}

}  // namespace

TEST_CASE("walk: every [path, value] pair, the root first; patterns filter and stop early") {
    CHECK(eval("package t\nx := [p | walk({\"a\": [1, {\"b\": 2}]}, [p, _])]").value ==
          R"([[],["a"],["a",0],["a",1],["a",1,"b"]])");
    CHECK(eval("package t\nx := {v | walk([1, [2, 3]], [[_, _], v])}").value == "[2,3]");
    CHECK(eval("package t\nx := v if walk({\"k\": \"found\"}, [[\"k\"], v])").value == R"("found")");
    // A set's elements are their own keys.
    CHECK(eval("package t\nx := [p | walk({\"s\"}, [p, _])]").value == R"([[],["s"]])");
    // `some` over a walk ends at the first success inside a rule that needs one value.
    CHECK(eval("package t\nx if { walk([1, 2, 3], [_, 2]) }").value == "true");
}

TEST_CASE("deprecated builtins: v0 modules may call them, v1 modules get OPA's type error") {
    const std::string v0 =
        "package t\nx = [all([true, true]), any([false]), set_diff({1, 2}, {2}), re_match(\"^a\", \"ab\")] { true }";
    CHECK(eval(v0, true).value == "[true,false,[1],true]");
    auto v1 = eval("package t\nx := any([true])");
    CHECK(v1.diagnostics.find("p.rego:2:6: rego_type_error: deprecated built-in function calls in expression: any") !=
          std::string::npos);
    // A v0 module that imports rego.v1 is a v1 module.
    auto imported = eval("package t\nimport rego.v1\nx := cast_array({1})", true);
    CHECK(imported.diagnostics.find("deprecated built-in function calls in expression: cast_array") !=
          std::string::npos);
    // A function of the package with the same name is not the builtin.
    CHECK(eval("package t\nall(xs) := count(xs)\nx := all([1, 2])").value == "2");
}

TEST_CASE("rego.metadata: authors and related resources take OPA's object forms") {
    const std::string policy = R"(# METADATA
# title: Top
# scope: subpackages
package t

# METADATA
# title: X
# authors:
# - Jane Doe <jane@example.com>
# - Just A Name
# related_resources:
# - https://example.com
# custom:
#   severity: high
x := [rego.metadata.rule(), count(rego.metadata.chain()), rego.metadata.chain()[1].annotations.title]
)";
    CHECK(
        eval(policy).value ==
        R"([{"authors":[{"email":"jane@example.com","name":"Jane Doe"},{"name":"Just A Name"}],"custom":{"severity":"high"},)"
        R"("related_resources":[{"ref":"https://example.com"}],"scope":"rule","title":"X"},2,"Top"])");
    // An unannotated rule: no rule metadata, a chain of just its path.
    CHECK(eval("package t\nx := [rego.metadata.rule(), rego.metadata.chain()]").value ==
          R"([{},[{"path":["t","x"]}]])");
}

TEST_CASE("rego.metadata: a block's values typed as OPA decodes it (go-yaml v3, string fields as written)") {
    const std::string policy = R"(package t

# METADATA
# title: 5.0
# description: ""
# organizations: [1, yes]
# related_resources: [{"ref": "https://a.b", "description": 5}]
# custom:
#   flags: [yes, on, y, true, 0x10, 1_000, ~]
x := rego.metadata.rule()
)";
    CHECK(eval(policy).value == R"({"custom":{"flags":["yes","on","y",true,16,1000,null]},"organizations":["1","yes"],)"
                                R"("related_resources":[{"ref":"https://a.b"}],"scope":"rule","title":"5.0"})");
}

TEST_CASE("rego.metadata: a null organization or title is left out (OPA 1.7.1)") {
    const std::string policy =
        "package t\n\n# METADATA\n# title: ~\n# organizations: [~, 5, \"\"]\nx := rego.metadata.rule()\n";
    CHECK(eval(policy).value == R"({"organizations":["5",""],"scope":"rule"})");
}

TEST_CASE("rego.metadata: floats spelt as OPA's ast.InterfaceToValue spells them, timestamps as JSON writes them") {
    // OPA 1.7.1's rego.metadata.rule() of the same block.
    const std::string policy = R"(package t

# METADATA
# custom:
#   f: [1e3, 99999999999999999999, 1e-7, 1234567.0, 0.000001, -0.0]
#   t: [2001-12-14, 2001-12-14 21:59:43.10]
x := rego.metadata.rule()
)";
    CHECK(eval(policy).value == R"({"custom":{"f":[1000,1e+20,1e-07,1.234567e+06,1e-06,-0],)"
                                R"("t":["2001-12-14T00:00:00Z","2001-12-14T21:59:43.1Z"]},"scope":"rule"})");
}

TEST_CASE("rego.metadata in a query: OPA's builtin error (no rule to describe), undefined when not strict") {
    gavel::Engine engine;
    for (const char* call : {"rego.metadata.rule()", "rego.metadata.chain()"}) {
        auto q = engine.prepare(std::string("x := ") + call);
        REQUIRE(q.ok());
        gavel::EvalOptions eo;
        auto plain = q.value->eval(eo);
        CHECK(!plain.error);
        CHECK(plain.rows.empty());
        eo.strict_builtin_errors = true;
        auto strict = q.value->eval(eo);
        REQUIRE(strict.error);
        CHECK(strict.error->code == "eval_builtin_error");
        CHECK(strict.error->message.find("function must only be called within the scope of a rule") !=
              std::string::npos);
    }
}

TEST_CASE("rego.parse_module: OPA's AST as a value; parse errors are builtin errors") {
    CHECK(eval("package t\nx := m.rules[0].head.name if m := rego.parse_module(\"m.rego\", \"package a\\nq := 1\")")
              .value == R"("q")");
    auto bad = eval("package t\nx := rego.parse_module(\"m.rego\", \"package\")");
    INFO(bad.value);
    CHECK(bad.value.find("eval_builtin_error: rego.parse_module: ") != std::string::npos);
    CHECK(bad.value.find("m.rego:1: rego_parse_error: unexpected eof token") != std::string::npos);
}

namespace {
struct NoteCollector : gavel::Tracer {
    std::vector<std::string> notes;
    void trace(const gavel::TraceEvent& e) override {
        if (e.op == gavel::TraceOp::Note) notes.emplace_back(e.text);
    }
};
}  // namespace

TEST_CASE("trace: true, and a Note event for the tracer; opa.runtime is an object") {
    NoteCollector tracer;
    CHECK(eval("package t\nx := [trace(\"hello\"), opa.runtime()]", false, &tracer).value == "[true,{}]");
    REQUIRE(tracer.notes.size() == 1);
    CHECK(tracer.notes[0] == "hello");
    CHECK(gavel::to_string(gavel::TraceOp::Note) == std::string("Note"));
}

TEST_CASE("internal.test_case: holds, names the case to the tracer, wants an array") {
    NoteCollector tracer;
    CHECK(eval("package t\nx if internal.test_case([\"small\", 1])", false, &tracer).value == "true");
    REQUIRE(tracer.notes.size() == 1);
    CHECK(tracer.notes[0] == R"(test case: ["small",1])");
    // A string is a type error at compile time; an operand of unknown type is checked when called.
    CHECK(eval("package t\nx if internal.test_case(\"small\")")
              .diagnostics.find("internal.test_case: invalid argument(s)") != std::string::npos);
    CHECK(eval("package t\nx if internal.test_case(object.get({}, \"k\", \"small\"))")
              .value.find("operand 1 must be array") != std::string::npos);
    // It has no result: used as a value it is a compile error, as in OPA.
    CHECK(eval("package t\nx := internal.test_case([\"small\"])")
              .diagnostics.find("internal.test_case([\"small\"]) used as value") != std::string::npos);
}

TEST_CASE("opa.runtime: what the embedder passes in EvalOptions::runtime_info") {
    gavel::Engine engine;
    REQUIRE(engine.add_policy("p.rego", "package t\nx := opa.runtime().version").empty());
    auto q = engine.prepare("data.t.x");
    REQUIRE(q.ok());
    const auto info = gavel::runtime::Value::object(
        {{gavel::runtime::Value::string("version"), gavel::runtime::Value::string("1.2.3")}});
    gavel::EvalOptions eo;
    eo.runtime_info = &info;
    auto r = q.value->eval(eo);
    REQUIRE(r.rows.size() == 1);
    CHECK(gavel::runtime::to_json(r.rows[0].expressions[0].value) == R"("1.2.3")");
    CHECK(q.value->eval().rows.empty());  // without it: {} has no version
}
