// The test runner's library side: Engine::rules(), the evaluation tracer, and
// runtime/testing (discovery, pass/fail/skip/error, multi-value tests, print
// capture, timeouts, mocking with `with`, explain and coverage).

#include <doctest/doctest.h>

#include <algorithm>

#include "engine/engine.hpp"
#include "runtime/json.hpp"
#include "engine/testing.hpp"

using gavel::Engine;
using gavel::TraceEvent;
using gavel::TraceOp;
using gavel::testing::RunOptions;
using gavel::testing::TestResult;
using gavel::testing::TestRunner;

namespace {

// Loads one module and prepares its tests.
struct Fixture {
    Engine engine;
    std::unique_ptr<TestRunner> runner;

    explicit Fixture(const std::string& text, gavel::EngineOptions options = {}) : engine(options) {
        auto errors = engine.add_policy("t.rego", text);
        REQUIRE(errors.empty());
        runner = std::make_unique<TestRunner>(engine);
        auto compile = runner->prepare(gavel::testing::discover(engine.rules()));
        REQUIRE(compile.empty());
    }

    TestResult run(const std::string& name, RunOptions options = {}) {
        const auto& tests = runner->tests();
        for (std::size_t i = 0; i < tests.size(); ++i)
            if (tests[i].name == name) return runner->run(i, options);
        FAIL("no test named " << name);
        return {};
    }
};

}  // namespace

TEST_CASE("rules() lists every rule with package, path, location and kind") {
    Engine engine;
    REQUIRE(engine
                .add_policy("a.rego",
                            "package a.b\n"
                            "p := 1\n"
                            "s contains x if some x in [1]\n"
                            "o[k] := 1 if some k in [\"x\"]\n"
                            "f(x) := x\n"
                            "default d := false\n"
                            "q.r.t := 2\n")
                .empty());
    auto rules = engine.rules();
    REQUIRE(rules.size() == 6);
    CHECK(rules[0].package == "data.a.b");
    CHECK(rules[0].name == "p");
    CHECK(rules[0].path == "data.a.b.p");
    CHECK(rules[0].file == "a.rego");
    CHECK(rules[0].line == 2);
    CHECK(rules[0].col == 1);
    CHECK_FALSE(rules[0].multi_value);
    CHECK(rules[1].multi_value);
    CHECK(rules[2].multi_value);
    CHECK(rules[2].path == "data.a.b.o");
    CHECK(rules[3].function);
    CHECK_FALSE(rules[3].multi_value);
    CHECK(rules[4].is_default);
    CHECK(rules[5].name == "q");
    CHECK(rules[5].path == "data.a.b.q.r.t");
}

TEST_CASE("discovery: test_ and todo_test_ rules in any package, once per rule, no functions") {
    Engine engine;
    REQUIRE(engine
                .add_policy("t.rego",
                            "package x\n"
                            "test_a if true\n"
                            "test_a if false\n"
                            "todo_test_b if false\n"
                            "test_f(x) if x\n"
                            "helper if true\n")
                .empty());
    auto tests = gavel::testing::discover(engine.rules());
    REQUIRE(tests.size() == 2);
    CHECK(tests[0].full_name() == "data.x.test_a");
    CHECK_FALSE(tests[0].skip);
    CHECK(tests[1].full_name() == "data.x.todo_test_b");
    CHECK(tests[1].skip);
}

TEST_CASE("outcomes: pass, fail (false or undefined), skip, error") {
    Fixture f(
        "package x\n"
        "test_pass if 1 + 1 == 2\n"
        "test_false := false\n"
        "test_undefined if 1 == 2\n"
        "test_not_true := 7\n"
        "todo_test_later if false\n"
        "c := 1 if true\n"
        "c := 2 if true\n"
        "test_error if c == 1\n");
    CHECK(f.run("test_pass").pass());
    CHECK(f.run("test_false").fail);
    CHECK(f.run("test_undefined").fail);
    CHECK(f.run("test_not_true").fail);
    auto skipped = f.run("todo_test_later");
    CHECK(skipped.skip);
    CHECK_FALSE(skipped.pass());
    auto error = f.run("test_error");
    REQUIRE(error.error);
    CHECK(error.error->code == "eval_conflict_error");
    CHECK_FALSE(error.fail);
}

// OPA's tester (runTest): a test whose head is a partial object reports its
// keys as sub-results; every other test passes only when its value is true.
TEST_CASE("a multi-value (contains) test fails: a set is not true, as in opa test") {
    Fixture f(
        "package x\n"
        "test_set contains n if some n in [\"a\", \"b\"]\n"
        "test_none contains n if some n in []\n");
    auto set = f.run("test_set");
    CHECK(set.fail);
    CHECK(set.cases.empty());
    REQUIRE(set.not_boolean);
    CHECK(set.not_boolean->is_set());
    auto none = f.run("test_none");
    CHECK(none.fail);
    CHECK(none.cases.empty());
}

TEST_CASE("a v0 test_x[name] { } is a partial set: it fails; v0 test_x[name] = true reports cases") {
    gavel::EngineOptions v0;
    v0.v0_compatible = true;
    Fixture f(
        "package x\n"
        "test_set[name] { name := \"a\" }\n"
        "test_obj[name] = true { name := \"a\" }\n",
        v0);
    auto set = f.run("test_set");
    CHECK(set.fail);
    CHECK(set.cases.empty());
    auto obj = f.run("test_obj");
    CHECK(obj.pass());
    REQUIRE(obj.cases.size() == 1);
    CHECK(obj.cases[0].name == "a");
}

TEST_CASE("a test whose value is not true fails, whatever it is") {
    Fixture f(
        "package x\n"
        "test_object := {\"a\": true}\n"
        "test_string := \"true\"\n"
        "test_ground[\"a\"] if true\n"
        "test_dotted.a := true\n");
    for (const char* name : {"test_object", "test_string", "test_ground", "test_dotted"}) {
        CAPTURE(name);
        auto r = f.run(name);
        CHECK(r.fail);
        CHECK(r.cases.empty());
        CHECK(r.not_boolean);
    }
}

TEST_CASE("a partial-object test reports one case per key: true passes, anything else fails") {
    Fixture f(
        "package x\n"
        "test_table[name] := ok if {\n"
        "  some name, want in {\"one\": 1, \"two\": 3}\n"
        "  ok := want == count(name) - 2\n"
        "}\n"
        "test_values[k] := v if some k, v in {\"t\": true, \"s\": \"yes\", \"n\": null, \"o\": {\"i\": true}}\n"
        "test_empty[x] if some x in []\n");
    auto table = f.run("test_table");
    CHECK(table.fail);
    REQUIRE(table.cases.size() == 2);
    CHECK(table.cases[0].name == "one");
    CHECK_FALSE(table.cases[0].fail);
    CHECK(table.cases[1].name == "two");
    CHECK(table.cases[1].fail);
    CHECK_FALSE(table.not_boolean);

    auto values = f.run("test_values");
    CHECK(values.fail);
    REQUIRE(values.cases.size() == 4);  // n, o, s, t
    CHECK(values.cases[0].key == "n");
    CHECK(values.cases[0].name.empty());  // OPA's empty SubResult for a null value: no name, passing
    CHECK_FALSE(values.cases[0].fail);
    CHECK(values.cases[1].name == "o");
    CHECK_FALSE(values.cases[1].fail);
    REQUIRE(values.cases[1].cases.size() == 1);
    CHECK(values.cases[1].cases[0].name == "i");
    CHECK(values.cases[2].name == "s");
    CHECK(values.cases[2].fail);
    CHECK(values.cases[3].name == "t");
    CHECK_FALSE(values.cases[3].fail);

    // No key at all: the value is {}, which OPA passes.
    auto empty = f.run("test_empty");
    CHECK(empty.pass());
    CHECK(empty.cases.empty());
}

TEST_CASE("nested partial-object tests nest their cases; the query is the rule's name") {
    Fixture f(
        "package x\n"
        "test_grid[a][b] if {\n"
        "  some a in [\"x\", \"y\"]\n"
        "  some b in [1, 2]\n"
        "  [a, b] != [\"y\", 2]\n"
        "}\n"
        "test_dotted.group[n] if some n in [\"k\"]\n");
    auto grid = f.run("test_grid");
    CHECK(grid.fail);
    REQUIRE(grid.cases.size() == 2);
    CHECK_FALSE(grid.cases[0].fail);
    REQUIRE(grid.cases[0].cases.size() == 2);
    CHECK(grid.cases[0].cases[0].name == "1");
    CHECK(grid.cases[1].name == "y");
    CHECK(grid.cases[1].fail);  // its case 2 was started and produced nothing
    REQUIRE(grid.cases[1].cases.size() == 2);
    CHECK_FALSE(grid.cases[1].cases[0].fail);
    CHECK(grid.cases[1].cases[1].name == "2");
    CHECK(grid.cases[1].cases[1].fail);

    auto dotted = f.run("test_dotted");
    CHECK(dotted.test.query == "data.x.test_dotted");
    CHECK(dotted.pass());
    REQUIRE(dotted.cases.size() == 1);
    CHECK(dotted.cases[0].name == "group");
    REQUIRE(dotted.cases[0].cases.size() == 1);
    CHECK(dotted.cases[0].cases[0].name == "k");
}

TEST_CASE("case names: strings as they are, other keys as compact JSON with Go's HTML escapes") {
    Fixture f(
        "package x\n"
        "test_keys[k] if some k in [1, [1, \"<&>\"], \"<a>\", {\"b\": null}]\n");
    auto r = f.run("test_keys");
    CHECK(r.pass());
    std::vector<std::string> names;
    for (const auto& c : r.cases) names.push_back(c.name);
    CHECK(names == std::vector<std::string>{"1", "<a>", "[1,\"\\u003c\\u0026\\u003e\"]", "{\"b\":null}"});
}

TEST_CASE("parameterized tests: a case whose body fails is a failing case, as in OPA") {
    Fixture f(
        "package x\n"
        "cases := {\"one\": 1, \"two\": 2, \"three\": 3}\n"
        "test_odd[note] if {\n"
        "  some note, n in cases\n"
        "  n % 2 == 1\n"
        "}\n"
        "test_by_member[tc.note] if {\n"
        "  some tc in [{\"note\": \"good\", \"v\": 1}, {\"note\": \"bad\", \"v\": 2}]\n"
        "  tc.v == 1\n"
        "}\n");
    auto odd = f.run("test_odd");
    CHECK(odd.fail);
    REQUIRE(odd.cases.size() == 3);
    CHECK(odd.cases[0].name == "one");
    CHECK_FALSE(odd.cases[0].fail);
    CHECK(odd.cases[1].name == "three");
    CHECK_FALSE(odd.cases[1].fail);
    CHECK(odd.cases[2].name == "two");
    CHECK(odd.cases[2].fail);
    auto member = f.run("test_by_member");
    CHECK(member.fail);
    REQUIRE(member.cases.size() == 2);
    CHECK(member.cases[0].name == "bad");
    CHECK(member.cases[0].fail);
    CHECK(member.cases[1].name == "good");
    CHECK_FALSE(member.cases[1].fail);
}

TEST_CASE("print output is captured per test") {
    Fixture f(
        "package x\n"
        "test_prints if {\n"
        "  print(\"hello\", 1)\n"
        "  print(\"again\")\n"
        "}\n");
    auto r = f.run("test_prints");
    CHECK(r.pass());
    CHECK(r.output == "hello 1\nagain\n");
}

TEST_CASE("a test that runs too long is cancelled by its timeout") {
    Fixture f(
        "package x\n"
        "test_slow if {\n"
        "  count([x | some a in numbers.range(1, 200); some b in numbers.range(1, 200); some c in numbers.range(1, "
        "200); x := a + b + c]) > 0\n"
        "}\n");
    RunOptions options;
    options.timeout = std::chrono::milliseconds(20);
    auto r = f.run("test_slow", options);
    REQUIRE(r.error);
    CHECK(r.error->code == "eval_cancel_error");
    CHECK(r.error->message == "context deadline exceeded");
}

TEST_CASE("mocking with `with`: input, data, builtins, functions") {
    Fixture f(
        "package x\n"
        "allow if input.user == data.admins[_]\n"
        "greeting := upper(\"hi\")\n"
        "double(n) := n * 2\n"
        "triple(n) := n * 3\n"
        "quad := double(2)\n"
        "test_input if allow with input as {\"user\": \"bob\"} with data.admins as [\"bob\"]\n"
        "test_builtin_value if greeting == \"mocked\" with upper as \"mocked\"\n"
        "test_builtin_function if greeting == \"hi!\" with upper as exclaim\n"
        "exclaim(s) := concat(\"\", [s, \"!\"])\n"
        "test_user_function if quad == 6 with double as triple\n"
        "test_not_mocked if quad == 4\n");
    CHECK(f.run("test_input").pass());
    CHECK(f.run("test_builtin_value").pass());
    CHECK(f.run("test_builtin_function").pass());
    CHECK(f.run("test_user_function").pass());
    CHECK(f.run("test_not_mocked").pass());
}

TEST_CASE("explain: the failed top-level expression with its operands and variables") {
    Fixture f(
        "package x\n"
        "deny contains m if some m in input.bad\n"
        "test_count if {\n"
        "  n := 2\n"
        "  not false\n"
        "  count(deny) == n with input as {\"bad\": [\"a\"]}\n"
        "}\n");
    RunOptions options;
    options.explain = true;
    auto r = f.run("test_count", options);
    CHECK(r.fail);
    REQUIRE(r.failed_at);
    CHECK(r.failed_at->file == "t.rego");
    CHECK(r.failed_at->line == 6);
    CHECK(r.failed_at->text == "count(deny) == n with input as {\"bad\": [\"a\"]}");
    REQUIRE(r.failed_at->operands.size() == 2);
    CHECK(r.failed_at->operands[0].first == "count(deny)");
    REQUIRE(r.failed_at->operands[0].second);
    CHECK(gavel::runtime::to_json(*r.failed_at->operands[0].second) == "1");  // evaluated under `with`
    REQUIRE(r.failed_at->bindings.size() == 1);
    CHECK(r.failed_at->bindings[0].first == "n");
    CHECK(gavel::runtime::to_json(r.failed_at->bindings[0].second) == "2");
}

TEST_CASE("coverage: lines reached, and the lines that could be") {
    Fixture f(
        "package x\n"
        "a if {\n"
        "  input.x == 1\n"
        "}\n"
        "b if {\n"
        "  input.x == 2\n"
        "}\n"
        "test_a if a with input as {\"x\": 1}\n");
    RunOptions options;
    options.coverage = true;
    auto r = f.run("test_a", options);
    CHECK(r.pass());
    auto coverable = f.runner->coverable_lines();
    CHECK(coverable["t.rego"] == std::set<uint32_t>{2, 3, 5, 6, 8});
    const auto& covered = r.covered["t.rego"];
    CHECK(covered.count(2));
    CHECK(covered.count(3));
    CHECK(covered.count(8));
    CHECK_FALSE(covered.count(5));
    CHECK_FALSE(covered.count(6));
}

namespace {
struct Recorder : gavel::Tracer {
    std::vector<std::string> events;
    void trace(const TraceEvent& e) override {
        std::string s = std::string(gavel::to_string(e.op)) + " " + std::to_string(e.line) + " " + std::string(e.text);
        for (const auto& [name, value] : e.bindings()) s += " " + name + "=" + gavel::runtime::to_json(value);
        events.push_back(s);
    }
};
}  // namespace

TEST_CASE("the tracer sees enter, eval, redo, fail and exit with bindings") {
    Engine engine;
    REQUIRE(engine
                .add_policy("p.rego",
                            "package p\n"
                            "r if {\n"
                            "  some x in [1, 2]\n"
                            "  x > 1\n"
                            "}\n")
                .empty());
    auto q = engine.prepare("data.p.r");
    REQUIRE(q.ok());
    Recorder rec;
    gavel::EvalOptions options;
    options.tracer = &rec;
    auto result = q.value->eval(options);
    REQUIRE(result.rows.size() == 1);
    auto has = [&](const std::string& s) {
        return std::find(rec.events.begin(), rec.events.end(), s) != rec.events.end();
    };
    CHECK(has("Enter 2 r if {"));
    CHECK(has("Eval 3 some x in [1, 2]"));
    CHECK(has("Eval 4 x > 1 x=1"));
    CHECK(has("Fail 4 x > 1 x=1"));
    CHECK(has("Redo 3 some x in [1, 2] x=1"));
    CHECK(has("Eval 4 x > 1 x=2"));
    CHECK(has("Exit 2 r if {"));
    // Without a tracer nothing is recorded and the result is the same.
    rec.events.clear();
    auto plain = q.value->eval();
    CHECK(plain.rows.size() == 1);
    CHECK(rec.events.empty());
}
