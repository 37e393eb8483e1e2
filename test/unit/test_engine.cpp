// The embedding API: policies, data, prepared queries, errors, timeouts and
// concurrent evaluation of one prepared query.

#include <atomic>
#include <doctest/doctest.h>

#include <algorithm>
#include <thread>

#include "engine/engine.hpp"
#include "runtime/json.hpp"

using gavel::Engine;
using gavel::EvalOptions;
using gavel::runtime::parse_json;
using gavel::runtime::to_json;
using gavel::runtime::Value;

namespace {

Value json(const char* text) {
    auto r = parse_json(text);
    REQUIRE(r.ok);
    return r.value;
}

// The single value of a one-row, one-expression result, as JSON ("undefined" when none).
std::string value_of(const gavel::EvalResult& r) {
    if (!r.ok()) return "error: " + r.error->to_string();
    if (r.rows.empty()) return "undefined";
    return to_json(r.rows[0].expressions.at(0).value);
}

}  // namespace

TEST_CASE("policies, data and input come together in a query") {
    Engine engine;
    REQUIRE(engine.add_policy("p.rego", "package authz\n\nallow if input.user in data.admins\n").empty());
    REQUIRE_FALSE(engine.add_data(json(R"({"admins": ["alice"]})")));
    auto q = engine.prepare("data.authz.allow");
    REQUIRE(q.ok());
    Value alice = json(R"({"user": "alice"})");
    Value bob = json(R"({"user": "bob"})");
    EvalOptions o;
    o.input = &alice;
    CHECK(value_of(q.value->eval(o)) == "true");
    o.input = &bob;
    CHECK(value_of(q.value->eval(o)) == "undefined");
}

TEST_CASE("data is placed at a path and conflicts are refused") {
    Engine engine;
    REQUIRE_FALSE(engine.add_data(json(R"({"x": 1})"), {"a", "b"}));
    auto conflict = engine.add_data(json("2"), {"a", "b", "x"});
    CHECK(conflict.has_value());
    auto q = engine.prepare("data.a.b.x");
    REQUIRE(q.ok());
    CHECK(value_of(q.value->eval()) == "1");
}

TEST_CASE("parse and compile errors carry locations") {
    Engine engine;
    auto parse = engine.add_policy("bad.rego", "package p\nx := [1,\n");
    REQUIRE_FALSE(parse.empty());
    CHECK(parse.items()[0].file == "bad.rego");
    REQUIRE(engine.add_policy("unsafe.rego", "package p\n\nallow if {\n\tcount(y) > 0\n}\n").empty());
    auto q = engine.prepare("data.p.allow");
    REQUIRE_FALSE(q.ok());
    CHECK(q.diagnostics.items()[0].code == "rego_unsafe_var_error");
    CHECK(q.diagnostics.items()[0].line == 4);
    auto undefined_fn = Engine();
    REQUIRE(undefined_fn.add_policy("f.rego", "package p\n\nx := no_such_function(1)\n").empty());
    auto q2 = undefined_fn.prepare("data.p.x");
    REQUIRE_FALSE(q2.ok());
    CHECK(q2.diagnostics.items()[0].message == "undefined function no_such_function");
}

TEST_CASE("engine: unifying two unknowns is unsafe; patterns bound from a known side are not") {
    // Every unsafe variable is reported (OPA lists them all, in no fixed order
    // when they share an expression; gavel by name).
    auto diagnose = [](const std::string& body) {
        Engine engine;
        REQUIRE(engine.add_policy("u.rego", "package p\n\np if {\n\t" + body + "\n}\n").empty());
        auto q = engine.prepare("data.p.p");
        if (q.ok()) return std::string("ok");
        std::string out;
        for (const auto& d : q.diagnostics) out += (out.empty() ? "" : "; ") + d.code + ": " + d.message;
        return out;
    };
    CHECK(diagnose("msg := undefined_var") ==
          "rego_unsafe_var_error: var msg is unsafe; rego_unsafe_var_error: var undefined_var is unsafe");
    CHECK(diagnose("x = y") == "rego_unsafe_var_error: var x is unsafe; rego_unsafe_var_error: var y is unsafe");
    CHECK(diagnose("[x, y] = [1, z]") ==
          "rego_unsafe_var_error: var y is unsafe; rego_unsafe_var_error: var z is unsafe");
    CHECK(diagnose("[x, y] = [1, 2]") == "ok");
    CHECK(diagnose("{\"a\": x} = {\"a\": [y]}; y = 1") == "ok");
    CHECK(diagnose("x = y; y = input.z") == "ok");
    CHECK(diagnose("[x, 1] = [2, y]") == "ok");
}

TEST_CASE("conflicts are evaluation errors with the rule's location") {
    Engine engine;
    REQUIRE(engine.add_policy("c.rego", "package p\n\nx := 1\n\nx := 2 if true\n").empty());
    auto q = engine.prepare("data.p.x");
    REQUIRE(q.ok());
    auto r = q.value->eval();
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->code == "eval_conflict_error");
    CHECK(r.error->to_string().find("c.rego:") == 0);
}

TEST_CASE("a rule reaching below another rule's value is a conflict, whichever comes first, as in OPA") {
    for (const char* rules : {"o[1] := true\no[x].w := false if x := input.one\n",
                              "o[1] := {\"a\": 1}\no[x].w := false if x := input.one\n",
                              "o[x].w := false if x := input.one\no[1] := {\"w\": false}\n",
                              "o[1] := 5\no[x].w.z := false if x := input.one\n"}) {
        CAPTURE(rules);
        Engine engine;
        REQUIRE(engine.add_policy("o.rego", std::string("package p\n") + rules).empty());
        auto q = engine.prepare("data.p.o");
        REQUIRE(q.ok());
        Value input = json(R"({"one": 1})");
        EvalOptions o;
        o.input = &input;
        auto r = q.value->eval(o);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error->code == "eval_conflict_error");
    }
    // Siblings below one key do not conflict.
    Engine engine;
    REQUIRE(engine.add_policy("s.rego", "package p\no[1].v := true\no[x].w := false if x := 1\n").empty());
    auto q = engine.prepare("data.p.o");
    REQUIRE(q.ok());
    CHECK(value_of(q.value->eval()) == R"({"1":{"v":true,"w":false}})");
}

TEST_CASE("a default rule with a key in its head defaults that key, as OPA's rule tree files it") {
    auto document = [](const std::string& rules) {
        Engine engine;
        REQUIRE(engine.add_policy("d.rego", "package p\n" + rules).empty());
        auto q = engine.prepare("data.p.p");
        REQUIRE(q.ok());
        return value_of(q.value->eval());
    };
    CHECK(document("default p[true] := \"a\"\n") == R"({"true":"a"})");
    CHECK(document("default p[1] := \"a\"\np[2] := \"b\"\n") == R"({"1":"a","2":"b"})");
    CHECK(document("default p[1] := \"a\"\np[1] := \"b\"\n") == R"({"1":"b"})");
    CHECK(document("default p[1] := \"a\"\np[x] := \"c\" if x := 1\n") == R"({"1":"c"})");
    // A rule with a variable key makes the set one document: OPA leaves the default out.
    CHECK(document("default p[1] := \"a\"\np[x] := \"c\" if x := 2\n") == R"({"2":"c"})");
}

TEST_CASE("strict builtin errors keep the first error; lax ones are undefined") {
    Engine engine;
    REQUIRE(engine.add_policy("d.rego", "package p\n\nx := 1 / 0\n").empty());
    auto q = engine.prepare("data.p.x");
    REQUIRE(q.ok());
    CHECK(value_of(q.value->eval()) == "undefined");
    EvalOptions strict;
    strict.strict_builtin_errors = true;
    auto r = q.value->eval(strict);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->code == "eval_builtin_error");
    CHECK(r.error->message == "div: divide by zero");
}

TEST_CASE("strings.render_template reads its variables as OPA does: a set or a non-string key is Go's JSON error") {
    auto error_of = [](const std::string& query) {
        Engine engine;
        auto q = engine.prepare(query);
        REQUIRE(q.ok());
        EvalOptions strict;
        strict.strict_builtin_errors = true;
        auto r = q.value->eval(strict);
        return r.ok() ? std::string("ok") : r.error->message;
    };
    CHECK(error_of(R"(strings.render_template("{{.x}}", {"x": {1}}))") ==
          "strings.render_template: invalid character '1' looking for beginning of object key string");
    CHECK(error_of(R"(strings.render_template("{{.x}}", {"x": [{"a", "b"}]}))") ==
          "strings.render_template: invalid character ',' after object key");
    CHECK(error_of(R"(strings.render_template("{{.x}}", {"x": set()}))") ==
          "strings.render_template: invalid character 's' looking for beginning of value");
    CHECK(error_of(R"(strings.render_template("{{.x}}", {"x": {1: 2}}))") ==
          "strings.render_template: invalid character '1' looking for beginning of object key string");
    CHECK(error_of(R"(strings.render_template("{{.x}}", {"x": {"a": [1]}}))") == "ok");
}

TEST_CASE("a query's evaluation error names the expression's text for its place, as OPA's Location.String") {
    Engine engine;
    auto q = engine.prepare(R"(base64.decode("YWJ"))");
    REQUIRE(q.ok());
    EvalOptions strict;
    strict.strict_builtin_errors = true;
    auto r = q.value->eval(strict);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->to_string() ==
          R"(base64.decode("YWJ"): eval_builtin_error: base64.decode: illegal base64 data at input byte 0)");
}

TEST_CASE("a timeout cancels a long evaluation") {
    Engine engine;
    REQUIRE(engine
                .add_policy(
                    "slow.rego",
                    "package p\n\nn := [i | some i in numbers][_]\nnumbers := [x | some x in [1,2,3,4,5,6,7,8,9,10]]\n"
                    "slow := count([1 | some a in numbers; some b in numbers; some c in numbers; some d in numbers; "
                    "some e in numbers; some g in numbers; some h in numbers])\n")
                .empty());
    auto q = engine.prepare("data.p.slow");
    REQUIRE(q.ok());
    EvalOptions o;
    o.timeout = std::chrono::milliseconds(20);
    auto r = q.value->eval(o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->code == "eval_cancel_error");
}

TEST_CASE("cancellation is seen inside builtins that build large results, and in the work they return") {
    Engine engine;
    std::atomic<bool> cancel{true};  // already cancelled: what matters is who notices
    EvalOptions o;
    o.cancel = &cancel;
    // Within the call: split stops building its 200,000 parts.
    std::string big(200000, 'a');
    auto input =
        gavel::runtime::Value::object({{gavel::runtime::Value::string("s"), gavel::runtime::Value::string(big)}});
    o.input = &input;
    auto split = engine.prepare("x := split(input.s, \"\")");
    REQUIRE(split.ok());
    auto r = split.value->eval(o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->code == "eval_cancel_error");
    // Between calls: three expressions, each returning 60,000 numbers, count as
    // work enough for the clock to be read, where three expressions alone would not.
    auto ranges =
        engine.prepare("a := numbers.range(1, 60000); b := numbers.range(1, 60000); c := numbers.range(1, 60000)");
    REQUIRE(ranges.ok());
    r = ranges.value->eval(o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->code == "eval_cancel_error");
    // Without cancellation both answer.
    cancel = false;
    CHECK(split.value->eval(o).ok());
    CHECK(ranges.value->eval(o).ok());
}

TEST_CASE("8 threads evaluating one prepared query agree with one thread") {
    Engine engine;
    REQUIRE(engine
                .add_policy("registry.rego", R"(package k

deny contains msg if {
	some c in input.containers
	not startswith(c.image, "hooli.com/")
	msg := sprintf("image %v is untrusted", [c.image])
}

allowed := count(deny) == 0
)")
                .empty());
    auto q = engine.prepare("{\"deny\": data.k.deny, \"allowed\": data.k.allowed}");
    REQUIRE(q.ok());
    std::vector<Value> inputs;
    for (int i = 0; i < 16; ++i) {
        std::string text = R"({"containers": [)";
        for (int j = 0; j <= i; ++j)
            text += std::string(j ? "," : "") + R"({"image": ")" + (j % 3 ? "hooli.com/" : "") + "app" +
                    std::to_string(j) + "\"}";
        text += "]}";
        inputs.push_back(json(text.c_str()));
    }
    std::vector<std::string> expected;
    for (const auto& in : inputs) {
        EvalOptions o;
        o.input = &in;
        expected.push_back(value_of(q.value->eval(o)));
    }
    std::vector<std::vector<std::string>> got(8);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < 50; ++round)
                for (const auto& in : inputs) {
                    EvalOptions o;
                    o.input = &in;
                    got[t].push_back(value_of(q.value->eval(o)));
                }
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < 8; ++t) {
        REQUIRE(got[t].size() == inputs.size() * 50);
        for (std::size_t i = 0; i < got[t].size(); ++i) CHECK(got[t][i] == expected[i % inputs.size()]);
    }
    CHECK(expected[0] == R"({"allowed":false,"deny":["image app0 is untrusted"]})");
}

TEST_CASE("recursion is a compile error naming the cycle") {
    Engine engine;
    REQUIRE(engine.add_policy("r.rego", "package r\n\np if q\n\nq if p\n\nok := 1\n").empty());
    auto q = engine.prepare("data.r.ok");
    REQUIRE_FALSE(q.ok());
    REQUIRE_FALSE(q.diagnostics.empty());
    CHECK(q.diagnostics.items()[0].code == "rego_recursion_error");
    CHECK(q.diagnostics.items()[0].message.find("data.r.p -> data.r.q -> data.r.p") != std::string::npos);
    Engine functions;
    REQUIRE(functions.add_policy("f.rego", "package f\n\nf(x) := y if y := f(x)\n").empty());
    auto qf = functions.prepare("data.f.f(1)");
    REQUIRE_FALSE(qf.ok());
    CHECK(qf.diagnostics.items()[0].code == "rego_recursion_error");
}

TEST_CASE("rule indexing picks the matching rules and keeps the rest correct") {
    // 40 rules testing input.kind, some with extra conditions, one without any.
    std::string policy = "package idx\n\n";
    for (int i = 0; i < 40; ++i)
        policy += "deny contains \"r" + std::to_string(i) + "\" if {\n\tinput.kind == \"K" + std::to_string(i % 10) +
                  "\"\n\tinput.n > " + std::to_string(i % 3) + "\n}\n\n";
    policy += "deny contains \"always\" if input.n > 100\n";
    Engine engine;
    REQUIRE(engine.add_policy("idx.rego", policy).empty());
    auto q = engine.prepare("data.idx.deny");
    REQUIRE(q.ok());
    auto run = [&](const char* input) {
        Value in = json(input);
        EvalOptions o;
        o.input = &in;
        return value_of(q.value->eval(o));
    };
    // K1 rules: r1 (n > 1), r11 (n > 2), r21 (n > 0), r31 (n > 1).
    CHECK(run(R"({"kind": "K1", "n": 2})") == R"(["r1","r21","r31"])");
    CHECK(run(R"({"kind": "K1", "n": 1})") == R"(["r21"])");
    CHECK(run(R"({"kind": "K9", "n": 500})") == R"(["always","r19","r29","r39","r9"])");
    CHECK(run(R"({"kind": "nothing", "n": 1})") == "[]");
    CHECK(run(R"({"n": 101})") == R"(["always"])");
}

TEST_CASE("else is refused on multi-value rules and rules with variables in their head") {
    // A parse error in OPA (parseRules), at the `else`.
    Engine engine;
    auto set = engine.add_policy("e.rego", "package e\n\ns contains 1 if false else := 2\n");
    REQUIRE(set.size() == 1);
    CHECK(set.items()[0].code == "rego_parse_error");
    CHECK(set.items()[0].message == "else keyword cannot be used on multi-value rules");
    CHECK(set.items()[0].line == 3);
    CHECK(set.items()[0].col == 23);
    auto object = engine.add_policy("o.rego", "package e\n\no[k] := 1 if k := \"a\" else := 2\n");
    REQUIRE(object.size() == 1);
    CHECK(object.items()[0].message == "else keyword cannot be used on rules with variables in head");
    auto v0 = engine.add_policy("v.rego", "package e\n\nt[x] { x := 1 } else = 2 { true }\n", {true});
    REQUIRE(v0.size() == 1);
    CHECK(v0.items()[0].message == "else keyword cannot be used on multi-value rules");
}

TEST_CASE("not: the operands of a negated expression are evaluated outside it, as OPA's compiler rewrites them") {
    const char* policy = R"(package neg

f(_) := true

obj := {"a": 1}

call_arg if not f(input.missing)
builtin_arg if not startswith(input.missing, "x")
comparison if not input.missing < 1
equals if not input.missing == 1
equals_key if not obj[input.missing] == 1
ref_key if not obj[input.missing]
nested_call if not count(input.missing) > 0
composite_arg if not f([input.missing])
whole_ref if not input.missing
eq_side if not input.missing = 1
defined_arg if not startswith(input.name, "x")
)";
    Engine engine;
    REQUIRE(engine.add_policy("neg.rego", policy).empty());
    Value in = json(R"({"name": "bob", "names": ["alice", "bob"]})");
    EvalOptions o;
    o.input = &in;
    auto value = [&](const char* rule) {
        auto q = engine.prepare(std::string("data.neg.") + rule);
        REQUIRE(q.ok());
        return value_of(q.value->eval(o));
    };
    // An undefined argument, ref key or nested call makes the whole expression undefined.
    CHECK(value("call_arg") == "undefined");
    CHECK(value("builtin_arg") == "undefined");
    CHECK(value("comparison") == "undefined");
    CHECK(value("ref_key") == "undefined");
    CHECK(value("nested_call") == "undefined");
    CHECK(value("composite_arg") == "undefined");
    // A ref that is the negated term itself, or a side of `=`, stays inside the negation.
    CHECK(value("equals_key") == "undefined");
    CHECK(value("whole_ref") == "true");
    CHECK(value("eq_side") == "true");
    // In a module `==` is rewritten to `=` first (gatekeeper-library's
    // `not obj[param] == false` relies on it); a query keeps it a call.
    CHECK(value("equals") == "true");
    auto query = engine.prepare("not input.missing == 1");
    REQUIRE(query.ok());
    CHECK(value_of(query.value->eval(o)) == "undefined");
    CHECK(value("defined_arg") == "true");
    // A variable only a negated expression would bind is unsafe, as in OPA (`not xs[_].name`).
    Engine iterated;
    REQUIRE(iterated.add_policy("i.rego", "package i\n\np if not startswith(input.names[_], \"a\")\n").empty());
    auto unsafe = iterated.prepare("data.i.p");
    REQUIRE_FALSE(unsafe.ok());
    REQUIRE(unsafe.diagnostics.size() == 1);
    CHECK(unsafe.diagnostics.items()[0].headline() == "i.rego:3:6: rego_unsafe_var_error: var _ is unsafe");

    // `import future.keywords.not` negates the whole expression instead.
    Engine whole;
    REQUIRE(whole
                .add_policy("w.rego",
                            "package w\n\nimport future.keywords.not\n\nf(_) := true\n\np if not f(input.missing)\n")
                .empty());
    auto q = whole.prepare("data.w.p");
    REQUIRE(q.ok());
    CHECK(value_of(q.value->eval(o)) == "true");
}

TEST_CASE("calls over known arguments are made directly, with the same results, errors and mocks") {
    const char* policy = R"(package direct

f(x) := concat("-", [x, x])

msg := sprintf("image '%v' from %v", [input.image, input.registry])
missing_item := sprintf("%v", [input.image, input.missing])
user_fn := f(input.image)
not_prefixed if not startswith(input.image, "hooli.com/")
not_type_error if not startswith(input.n, "x")
iterated_item := [m | m := sprintf("%v", [input.names[_]])]
mocked := m if {
	m := sprintf("%v", [input.image]) with sprintf as "mock"
}
# array.concat returns its first operand when the second is empty: the
# array literal is kept past the call, with its own (computed) elements.
kept := k if {
	x := concat("", [input.image, "-built-on-the-heap"])
	k := array.concat([x, x], [])
	y := sprintf("%v", [input.registry])
	y != x
}
mocked_not if {
	not startswith(input.image, "nginx") with startswith as false
}
)";
    Engine engine;
    REQUIRE(engine.add_policy("direct.rego", policy).empty());
    Value in = json(R"({"image": "nginx", "registry": "docker.io", "n": 1, "names": ["a", "b"]})");
    auto value = [&](const char* rule, bool strict = false) {
        EvalOptions o;
        o.input = &in;
        o.strict_builtin_errors = strict;
        auto q = engine.prepare(std::string("data.direct.") + rule);
        REQUIRE(q.ok());
        return value_of(q.value->eval(o));
    };
    CHECK(value("msg") == R"("image 'nginx' from docker.io")");
    CHECK(value("missing_item") == "undefined");
    CHECK(value("user_fn") == R"("nginx-nginx")");
    CHECK(value("not_prefixed") == "true");
    // A builtin's type error makes the call undefined, so the negation holds;
    // with strict errors it is the evaluation's error, at the call.
    CHECK(value("not_type_error") == "true");
    std::string strict = value("not_type_error", true);
    CHECK(strict.find("eval_type_error") != std::string::npos);
    CHECK(strict.find("startswith: operand 1 must be string but got number") != std::string::npos);
    CHECK(strict.find("direct.rego:9:") != std::string::npos);
    CHECK(value("iterated_item") == R"(["a","b"])");
    CHECK(value("mocked") == R"("mock")");
    CHECK(value("kept") == R"(["nginx-built-on-the-heap","nginx-built-on-the-heap"])");
    CHECK(value("mocked_not") == "true");

    // A tracer sees the negated call evaluated (the negation, then the call
    // inside it) and failing, as without the direct path.
    struct Recorder : gavel::Tracer {
        std::vector<std::string> events;
        void trace(const gavel::TraceEvent& e) override {
            events.push_back(std::string(gavel::to_string(e.op)) + " " + std::string(e.text));
        }
    } recorder;
    EvalOptions traced;
    traced.input = &in;
    traced.tracer = &recorder;
    auto q = engine.prepare("data.direct.not_prefixed");
    REQUIRE(q.ok());
    CHECK(value_of(q.value->eval(traced)) == "true");
    const std::string negation = R"(not startswith(input.image, "hooli.com/"))";
    CHECK(std::count(recorder.events.begin(), recorder.events.end(), "Eval " + negation) == 2);
    CHECK(std::count(recorder.events.begin(), recorder.events.end(), "Fail " + negation) == 1);
}

TEST_CASE("with: bindings made before a with keep their values; those made under it outlive it") {
    // Bindings point at values (no copies), so these pin down where those
    // values live: the caller's input, with values, and values computed under
    // a with that later expressions still use.
    const char* policy = R"(package w

f(x) := x

before_input := [x, y] if {
	x := input
	y := input.a with input as {"a": 2}
}

under_input := [x, z] if {
	x := input.a with input as {"a": 9}
	z := input.a
}

nested_data := [a, b, c] if {
	a := data.w.v
	b := inner with data.w.v as 2
	c := data.w.v
}

inner := [r, s] if {
	r := data.w.v
	s := data.w.v with data.w.v as 3
}

mocked := [m, n, o] if {
	m := f(1) with f as 7
	n := f(1)
	o := f(1) with f as 8
}

each := [v | some v in [1, 2, 3]; v2 := v with input as {"a": v}; v2 > 1]

v := 1
)";
    Engine engine;
    REQUIRE(engine.add_policy("w.rego", policy).empty());
    Value in = json(R"({"a": 1})");
    EvalOptions o;
    o.input = &in;
    auto value = [&](const char* rule) {
        auto q = engine.prepare(std::string("data.w.") + rule);
        REQUIRE(q.ok());
        return value_of(q.value->eval(o));
    };
    CHECK(value("before_input") == R"([{"a":1},2])");
    CHECK(value("under_input") == R"([9,1])");
    CHECK(value("nested_data") == R"([1,[2,3],1])");
    CHECK(value("mocked") == R"([7,1,8])");
    CHECK(value("each") == R"([2,3])");
    // A query binding under a with keeps its value in the result row.
    auto q = engine.prepare(R"(x := input.a with input as {"a": 5}; y := input.a)");
    REQUIRE(q.ok());
    auto r = q.value->eval(o);
    REQUIRE(r.ok());
    REQUIRE(r.rows.size() == 1);
    REQUIRE(r.rows[0].bindings.size() == 2);
    CHECK(to_json(r.rows[0].bindings[0].second) == "5");
    CHECK(to_json(r.rows[0].bindings[1].second) == "1");
}

TEST_CASE("function results are cached per query as OPA's virtual cache keeps them") {
    Engine engine;
    REQUIRE(engine
                .add_policy("p.rego", R"(package p

f(x) := y if {
	print("f", x)
	y := x + input.n
}

g(x) if {
	print("g", x)
	x > 100
}

quiet(x) if x > 100

h(x) := x * 10

a := [f(1), f(1), f(2)]

b if {
	not g(1)
	not g(1)
	not quiet(1)
	not quiet(1)
}

c := [u, v, w] if {
	u := f(1)
	v := f(1) with input.n as 100
	w := f(1)
}

d := [u, v] if {
	u := f(1)
	v := f(1) with f as h
}
)")
                .empty());
    Value input = json(R"({"n": 5})");
    auto run = [&](const char* query, std::string& printed) {
        auto q = engine.prepare(query);
        REQUIRE(q.ok());
        EvalOptions options;
        options.input = &input;
        options.print = [&](std::string_view line) { printed += std::string(line) + "\n"; };
        return value_of(q.value->eval(options));
    };
    std::string printed;
    // A defined result is kept: f(1) runs (and prints) once.
    CHECK(run("data.p.a", printed) == "[6,6,7]");
    CHECK(printed == "f 1\nf 2\n");
    // An undefined one is not (OPA runs g's body, and prints, each time).
    printed.clear();
    CHECK(run("data.p.b", printed) == "true");
    CHECK(printed == "g 1\ng 1\n");
    // `with` evaluates under a cache of its own, for input and for functions.
    printed.clear();
    CHECK(run("data.p.c", printed) == "[6,101,6]");
    CHECK(printed == "f 1\nf 1\n");
    printed.clear();
    CHECK(run("data.p.d", printed) == "[6,10]");
    CHECK(printed == "f 1\n");
}

TEST_CASE("an engine that does not keep its parsed modules compiles them once, in place") {
    gavel::EngineOptions options;
    options.keep_parsed_modules = false;
    Engine engine(options);
    REQUIRE(engine.add_policy("p.rego", "package p\n\nallow if input.x == 1\n").empty());
    CHECK(engine.parsed_modules().size() == 1);  // until the first compilation
    CHECK(engine.rules().size() == 1);
    auto q = engine.prepare("data.p.allow");
    REQUIRE(q.ok());
    CHECK(engine.parsed_modules().empty());  // the compiler took them over
    Value input = json(R"({"x": 1})");
    EvalOptions o;
    o.input = &input;
    CHECK(value_of(q.value->eval(o)) == "true");
    CHECK(engine.prepare("data.p").ok());  // more queries against the same compilation
    // Nothing is left to compile again: a change is refused, not compiled without the module.
    REQUIRE(engine.add_policy("q.rego", "package q\n\nx := 1\n").empty());
    auto after = engine.check();
    REQUIRE(after.size() == 1);
    CHECK(after.items()[0].message ==
          "policies or data changed after the engine released its parsed modules (keep_parsed_modules off)");
}

TEST_CASE("an engine that does not keep its parsed modules plans the rules' bodies without copies") {
    gavel::EngineOptions options;
    options.keep_parsed_modules = false;
    Engine engine(options);
    REQUIRE(engine
                .add_policy("p.rego",
                            "package p\n\nallow if input.x == 1\nelse := 2 if input.x == 2\n"
                            "f(a) := a + 1\nallow if f(input.x) == 4\n")
                .empty());
    auto q = engine.prepare("data.p.allow");
    REQUIRE(q.ok());
    for (auto [x, want] : {std::pair{1, "true"}, {2, "2"}, {3, "true"}}) {
        Value input = Value::object({{Value::string("x"), Value::integer(x)}});
        EvalOptions o;
        o.input = &input;
        CHECK(value_of(q.value->eval(o)) == want);
    }
    // The bodies went into the plan: what reads compiled bodies refuses rather than see none.
    auto partial = engine.prepare_partial("data.p.allow");
    REQUIRE_FALSE(partial.ok());
    CHECK(partial.diagnostics.items()[0].message ==
          "partial evaluation asked for after the engine released its parsed modules (keep_parsed_modules off)");
    gavel::lang::Diagnostics errors;
    CHECK(engine.compared_constants({"input.x"}, errors).empty());
    CHECK(errors.size() == 1);
}

TEST_CASE("an engine keeps its parsed modules by default and compiles again after a change") {
    Engine engine;
    REQUIRE(engine.add_policy("p.rego", "package p\n\nallow := true\n").empty());
    REQUIRE(engine.prepare("data.p.allow").ok());
    CHECK(engine.parsed_modules().size() == 1);
    REQUIRE(engine.add_policy("q.rego", "package q\n\nx := 1\n").empty());
    CHECK(engine.check().empty());
    auto q = engine.prepare("data.q.x");
    REQUIRE(q.ok());
    CHECK(value_of(q.value->eval()) == "1");
}

TEST_CASE("a decision is timed only when metrics are asked for") {
    Engine engine;
    REQUIRE(engine.add_policy("p.rego", "package p\n\nallow := true\n").empty());
    auto q = engine.prepare("data.p.allow");
    REQUIRE(q.ok());
    CHECK(q.value->eval().metrics.empty());  // OPA's rego package without rego.Metrics: no clock read
    EvalOptions o;
    o.metrics = true;
    auto timed = q.value->eval(o);
    REQUIRE(timed.metrics.size() == 1);
    CHECK(timed.metrics[0].first == "timer_rego_query_eval_ns");
    CHECK(value_of(timed) == "true");
}

TEST_CASE("engine: a query that does not parse has the errors of OPA's rego package (no rule reading)") {
    gavel::Engine engine;
    auto evaluated = engine.prepare("x := [1,");
    REQUIRE_FALSE(evaluated.ok());
    CHECK(evaluated.diagnostics.size() == 1);
    // The REPL's first reading (values not captured) is OPA's statement parse: the rule's error too.
    auto repl = engine.prepare("x := [1,", {.capture_values = false});
    CHECK(repl.diagnostics.size() == 2);
}
