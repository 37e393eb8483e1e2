// The type checker (compiler/stages/check_types.cpp, compiler/types/): OPA's
// errors word for word, with their locations, and the modules OPA accepts
// compiling without any.

#include <doctest/doctest.h>

#include "conformance_suite.hpp"

#include <fstream>
#include <sstream>

#include "lang/term_string.hpp"
#include "compiler/types/builtin_types.hpp"
#include "compiler/types/checker.hpp"
#include "compiler/types/type.hpp"
#include "lang/builtins.hpp"
#include "lang/parse.hpp"
#include "runtime/json.hpp"
#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::compile_text;

namespace {

// The errors of one module written inline (empty: it compiles).
std::string errors_of(const std::string& module, bool v0 = false) { return compile_text(module, {}, v0).errors; }

// The errors of a query compiled against modules.
std::string query_errors(const std::string& query, const std::vector<std::string>& modules = {}) {
    std::vector<gavel::lang::Module> parsed;
    for (std::size_t i = 0; i < modules.size(); ++i) {
        auto r = gavel::lang::parse_module('m' + std::to_string(i) + ".rego", modules[i]);
        REQUIRE(r.ok());
        parsed.push_back(std::move(*r.module));
    }
    std::vector<const gavel::lang::Module*> list;
    for (const auto& m : parsed) list.push_back(&m);
    auto compiled = gavel::compiler::compile_modules(list, {});
    REQUIRE(compiled.ok());
    auto q = gavel::lang::parse_query(query);
    REQUIRE(q.ok());
    auto result = gavel::compiler::compile_query(q.body, compiled);
    std::string out;
    for (const auto& d : result.diagnostics)
        out += std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.code + ": " + d.message + "\n" +
               (d.hint.empty() ? "" : "hint: " + d.hint + "\n");
    return out;
}

// The type the checker gives a query's variable `name` (after the whole query is checked).
std::string type_of_var(const std::string& query, const std::string& name) {
    namespace types = gavel::compiler::types;
    auto q = gavel::lang::parse_query(query);
    REQUIRE(q.ok());
    types::Checker checker([](const std::string& v) { return v; });
    auto [env, errors] = checker.check_body(types::builtin_env({}), q.body);
    REQUIRE(errors.empty());
    return types::to_string(checker.type_of(env, *gavel::lang::make_var(name, {})));
}

// (OPA prints an unknown type as ???, written ?\?\? below so as not to be a trigraph.)
const char* const kCountWant = "want: (collection: any<string, array[any], object[any: any], set[any]>, n: number)";

}  // namespace

// ---- builtin calls --------------------------------------------------------------------

TEST_CASE("a builtin's operand of the wrong type: invalid argument(s), with OPA's names for what it wants") {
    CHECK(errors_of("package t\np if count(1)\n") ==
          std::string("2:6 rego_type_error: count: invalid argument(s)\n\thave: (number)\n\t") + kCountWant + "\n");
    // The output operand is checked against the result.
    CHECK(errors_of("package t\np if count([1], \"x\")\n") ==
          std::string("2:6 rego_type_error: count: invalid argument(s)\n\thave: (array<number>, string)\n\t") +
              kCountWant + "\n");
    // A union is printed in OPA's type order, whatever order the declaration lists it in.
    CHECK(errors_of("package t\np if concat(\",\", 1)\n") ==
          "2:6 rego_type_error: concat: invalid argument(s)\n\thave: (string, number)\n"
          "\twant: (delimiter: string, collection: any<array[string], set[string]>, output: string)\n");
}

TEST_CASE("a type known from an earlier expression makes a later call fail; the unknown output is ?\?\?") {
    CHECK(errors_of("package t\np if {\n\tx := \"a\"\n\ty := x + 1\n}\n") ==
          "4:7 rego_type_error: plus: invalid argument(s)\n\thave: (string, number, ?\?\?)\n"
          "\twant: (x: number, y: number, z: number)\n");
    // A call in a rule's head is hoisted into the body at the call's position.
    CHECK(errors_of("package t\nu := concat(\",\", [1, 2])\n") ==
          "2:6 rego_type_error: concat: invalid argument(s)\n\thave: (string, array<number, number>, ?\?\?)\n"
          "\twant: (delimiter: string, collection: any<array[string], set[string]>, output: string)\n");
}

TEST_CASE("a void builtin given an output operand: too many arguments") {
    CHECK(errors_of("package t\np if internal.test_case([1], 2)\n") ==
          "2:6 rego_type_error: internal.test_case: too many arguments\n\thave: (array<number>, number)\n"
          "\twant: (array[any])\n");
}

TEST_CASE("the wrong number of operands is OPA's arity mismatch, with the operands' types known then") {
    CHECK(errors_of("package t\np if count(1, 2, 3)\n") ==
          "2:6 rego_type_error: count: arity mismatch\n\thave: (number, number, number)\n"
          "\twant: (collection: any<string, array[any], object[any: any], set[any]>)\n");
    // Before type checking a ref into input is `any` and a variable is unknown.
    CHECK(
        errors_of("package t\np if {\n\tx := 1\n\tsprintf(input.a)\n}\n") ==
        "4:2 rego_type_error: sprintf: arity mismatch\n\thave: (any)\n\twant: (format: string, values: array[any])\n");
    CHECK(errors_of("package t\nf(x) := x\np if f(1, 2, 3)\n") ==
          "3:6 rego_type_error: function data.t.f has arity 1, got 3 arguments\n");
}

// ---- user functions ---------------------------------------------------------------------

TEST_CASE("a function's type is inferred from its body and checked at every call") {
    CHECK(errors_of("package t\nf(x) := x + 1\np if f(\"a\")\n") ==
          "3:6 rego_type_error: data.t.f: invalid argument(s)\n\thave: (string)\n\twant: (number, number)\n");
    CHECK(errors_of("package t\nf(x) := upper(x)\np if f(\"a\") == \"A\"\n").empty());
    // A function with several definitions takes any of their argument types.
    CHECK(errors_of("package t\nf(x) := 1 if x == 1\nf(x) := 2 if x == \"b\"\np if f(\"b\")\nq if f(1)\n").empty());
}

TEST_CASE("calling what is not a function: undefined function") {
    CHECK(errors_of("package t\nc := 1\nq if c(1)\n") == "3:6 rego_type_error: undefined function data.t.c\n");
}

TEST_CASE("a function named without being called: OPA's undefined ref, gavel's hint beside it") {
    CHECK(errors_of("package t\nf(x) := x\np if {\n\ty := f\n}\n") ==
          "4:7 rego_type_error: undefined ref: data.t.f\n\tdata.t.f\n\t^^^^^^^^\n"
          "\thave: (any) => any\n");
}

TEST_CASE("with: a function replaced by one of another arity") {
    CHECK(errors_of("package t\ng(x, y) := x\nr if {\n\tcount([1]) with count as g\n}\n") ==
          "4:13 rego_type_error: count: arity mismatch\n\thave: (any, any)\n"
          "\twant: (collection: any<string, array[any], object[any: any], set[any]>)\n");
    CHECK(errors_of("package t\ng(x) := 7\nr if {\n\tcount([1]) == 7 with count as g\n}\n").empty());
    CHECK(errors_of("package t\nr if {\n\tcount([1]) == 7 with count as 7\n}\n").empty());
}

TEST_CASE("a variable inside an operand checked against a union joins the union, as OPA's unify1") {
    // OPA unifies each member of a union in join mode: x becomes any<number, string> instead
    // of failing the call; a constant of the wrong type still fails it.
    CHECK(errors_of("package t\np if {\n\tx := \"a\"\n\ty := sum([x])\n}\n").empty());
    CHECK(errors_of("package t\nq if {\n\ty := sum([\"a\"])\n}\n") ==
          "3:7 rego_type_error: sum: invalid argument(s)\n\thave: (array<string>, ?\?\?)\n"
          "\twant: (collection: any<array[number], set[number]>, n: number)\n");
}

// ---- unification -----------------------------------------------------------------------

TEST_CASE("two sides that can never be equal: match error, left and right") {
    CHECK(errors_of("package t\nq if {\n\t\"a\" = 1\n}\n") ==
          "3:2 rego_type_error: match error\n\tleft  : string\n\tright : number\n");
    // == in a module is unification too.
    CHECK(errors_of("package t\ns if {\n\tsome x in [1, 2]\n\tx == \"a\"\n}\n") ==
          "4:2 rego_type_error: match error\n\tleft  : number\n\tright : string\n");
    CHECK(
        errors_of("package t\np if {\n\t[1, 2] = [1, 2, 3]\n}\n") ==
        "3:2 rego_type_error: match error\n\tleft  : array<number, number>\n\tright : array<number, number, number>\n");
    CHECK(errors_of("package t\np if {\n\t{\"a\": 1} = {\"a\": \"1\"}\n}\n") ==
          "3:2 rego_type_error: match error\n\tleft  : object<a: number>\n\tright : object<a: string>\n");
}

TEST_CASE("a variable unified with a term whose type is not known is a match error, as OPA's unify2") {
    // A function's argument has no type while its body is checked, so neither side of
    // `y := {x | ...}` is known: OPA's unify2 has no case for a var against a comprehension.
    CHECK(errors_of("package t\nf(x) := 1 if {\n\ty := {x | true}\n}\n") ==
          "3:2 rego_type_error: match error\n\tleft  : ?\?\?\n\tright : set[?\?\?]\n");
    // A comprehension inside a call's operand is bound to a variable first: the same.
    CHECK(errors_of("package t\nf(x) if {\n\tsome y in {1: {x: 1 | true}}\n}\n") ==
          "3:16 rego_type_error: match error\n\tleft  : ?\?\?\n\tright : object[?\?\?: number]\n");
    // An array comprehension's unknown element type is no unknown type (OPA's types.Nil).
    CHECK(errors_of("package t\nf(x) := y if {\n\ty := [x | true]\n}\n").empty());
}

TEST_CASE("object types unify only when each side has something for every static key of the other") {
    // u has dynamic string keys besides its static key true; the object literal has nothing
    // for true (OPA's unifiesObjectsStatic: Select gives nil), so no match, dynamic keys or not.
    CHECK(errors_of("package t\nu[true].w := \"x\"\nv if {\n\tu == {\"c\": 1}\n}\n") ==
          "4:2 rego_type_error: match error\n\tleft  : object<true: object<w: string>[string: any]>[string: any]\n"
          "\tright : object<c: number>\n");
    // A key the other side's dynamic keys cover is fine.
    CHECK(errors_of("package t\nu[\"a\"].w := \"x\"\nv if {\n\tx := {k: {\"w\": \"y\"} | some k in [\"b\"]}\n"
                    "\tu == x\n}\n")
              .empty());
}

TEST_CASE("a rule's value has the type of its head, and refs to it are typed") {
    CHECK(errors_of("package t\nr := \"s\"\np if {\n\tr == 1\n}\n") ==
          "4:2 rego_type_error: match error\n\tleft  : string\n\tright : number\n");
    // A rule with several values is any of them.
    CHECK(errors_of("package t\nr := \"s\" if input.a\nelse := 2\np if {\n\tr == true\n}\n") ==
          "5:2 rego_type_error: match error\n\tleft  : any<number, string>\n\tright : boolean\n");
}

// ---- refs ---------------------------------------------------------------------------------

TEST_CASE("a ref to a key an object type does not have: undefined ref, with the keys it has") {
    CHECK(errors_of("package t\nr := {\"a\": 1}\ns if {\n\tr.b\n}\n") ==
          "4:2 rego_type_error: undefined ref: data.t.r.b\n\tdata.t.r.b\n\t         ^\n\t         have: \"b\"\n"
          "\t         want (one of): [\"a\"]\n");
    // A query reaches into rules as well.
    CHECK(query_errors("data.t.r.b", {"package t\nr := {\"a\": 1}\n"}) ==
          "1:1 rego_type_error: undefined ref: data.t.r.b\n\tdata.t.r.b\n\t         ^\n\t         have: \"b\"\n"
          "\t         want (one of): [\"a\"]\n");
}

TEST_CASE("a ref into a scalar: undefined ref, with carets under what it has") {
    CHECK(errors_of("package t\nt if {\n\tx := 1\n\tx.foo\n}\n") ==
          "4:2 rego_type_error: undefined ref: x.foo\n\tx.foo\n\t^\n\thave: number\n");
    CHECK(errors_of("package t\np if {\n\tarr = [1, 2, 3]\n\tarr[0].deadbeef = 1\n}\n") ==
          "4:2 rego_type_error: undefined ref: arr[0].deadbeef\n\tarr[0].deadbeef\n\t^^^^^^\n\thave: number\n");
}

TEST_CASE("a ref part of the wrong type names the variables as written") {
    CHECK(errors_of("package t\np if {\n\tarr := [[1]]\n\tk := \"bar\"\n\tarr[0][k]\n}\n") ==
          "5:2 rego_type_error: undefined ref: arr[0][k]\n\tarr[0][k]\n\t       ^\n\t       have (type): string\n"
          "\t       want (type): number\n");
    CHECK(compile_text(std::vector<std::string>{"package t\np := 1\nq := 2\n",
                                                "package u\nr if {\n\tx := true\n\tdata.t[x]\n}\n"})
              .errors ==
          "4:2 rego_type_error: undefined ref: data.t[x]\n\tdata.t[x]\n\t       ^\n\t       have (type): boolean\n"
          "\t       want (one of): [\"p\" \"q\"]\n");
}

// ---- what is reported once ------------------------------------------------------------------

TEST_CASE("an error inside a comprehension is reported once, not again as the comprehension's") {
    CHECK(errors_of("package t\np if {\n\t_ = [true | count(1)]\n}\n") ==
          std::string("3:14 rego_type_error: count: invalid argument(s)\n\thave: (number)\n\t") + kCountWant + "\n");
}

TEST_CASE("a comprehension whose ref errors were reported has a type, as OPA's renamed ref gives it one") {
    // OPA's undefined-ref error renames the ref's variables as written, in the AST: typing the
    // comprehension again (GetByValue) sees x[_] with an x nothing binds, no error, set[string].
    CHECK(errors_of("package t\np if {\n\tx := \"a\"\n\ty := {x | x[_]}\n\ty == 1\n}\n") ==
          "4:12 rego_type_error: undefined ref: x[_]\n\tx[_]\n\t^\n\thave: string\n"
          "5:2 rego_type_error: match error\n\tleft  : set[string]\n\tright : number\n");
    // Other errors leave it without a type, as before.
    CHECK(errors_of("package t\np if {\n\ty := {1 | count(1)}\n\ty == 1\n}\n") ==
          std::string("3:12 rego_type_error: count: invalid argument(s)\n\thave: (number)\n\t") + kCountWant + "\n");
}

TEST_CASE("a rule with a type error is `any` to the rules that use it") {
    CHECK(errors_of("package t\nb if a(1)\na(x) if max(\"foo\")\nm if 1 / \"foo\"\nn if m\nz if m.x.y\n") ==
          "3:9 rego_type_error: max: invalid argument(s)\n\thave: (string)\n\twant: (collection: any<array[any], "
          "set[any]>, n: any)\n"
          "4:6 rego_type_error: div: invalid argument(s)\n\thave: (number, string)\n\twant: (x: number, y: number, z: "
          "number)\n");
}

TEST_CASE("errors come out sorted by location, whatever order the rules are checked in") {
    // q is checked before p, which depends on it.
    std::string errors = errors_of("package t\np if {\n\tq\n\tcount(1)\n}\nq if count(2)\n");
    CHECK(errors.find("4:2 rego_type_error: count") == 0);
    CHECK(errors.find("\n6:6 rego_type_error: count") != std::string::npos);
}

TEST_CASE("at most ten errors, then OPA's limit") {
    std::string module = "package t\n";
    for (int i = 1; i <= 12; ++i) module += 'p' + std::to_string(i) + " if count(" + std::to_string(i) + ")\n";
    std::string errors = errors_of(module);
    CHECK(errors.find("2:7 ") == 0);
    CHECK(errors.find("\n11:8 ") != std::string::npos);
    CHECK(errors.find("\n12:8 ") == std::string::npos);
    std::string limit = "0:0 rego_compile_error: error limit reached\n";
    CHECK(errors.substr(errors.size() - limit.size()) == limit);
}

TEST_CASE("queries are checked against the modules' types, errors in the order found") {
    CHECK(query_errors("x := 1; x.y") == "1:9 rego_type_error: undefined ref: x.y\n\tx.y\n\t^\n\thave: number\n");
    CHECK(query_errors("x := data.t.f").empty());  // a base document: anything
    CHECK(query_errors("x := data.t.f", {"package t\nf(x) := x\n"}) ==
          "1:6 rego_type_error: undefined ref: data.t.f\n\tdata.t.f\n\t^^^^^^^^\n\thave: (any) => any\n"
          "hint: function data.t.f used as reference, not called\n");
    CHECK(query_errors("data.t.f(\"a\", y)", {"package t\nf(x) := x * 2\n"}) ==
          "1:1 rego_type_error: data.t.f: invalid argument(s)\n\thave: (string, ?\?\?)\n\twant: (number, number)\n");
    CHECK(query_errors("y := data.t.f(2); upper(y)", {"package t\nf(x) := x * 2\n"}) ==
          "1:19 rego_type_error: upper: invalid argument(s)\n\thave: (number)\n\twant: (x: string, y: string)\n");
}

// ---- what OPA accepts -----------------------------------------------------------------------

TEST_CASE("no error: types flow through rules, functions, comprehensions and iteration") {
    CHECK(errors_of(R"(package t
p := {"a": 1, "b": [1, 2]}
q := p.a + 1
r := sum(p.b)
s contains x if some x in ["a", "b"]
t if { some v in s; upper(v) == "A" }
o[k] := v if { some k, v in {"x": 1} }
u := o.anything + 1
f(x) := upper(x)
g if f("a") == "A"
xs := [x | some x in [1, 2]]
total := sum(xs)
names := {n | some n in ["a"]}
m := {k: count(v) | some k, v in {"a": "bb"}}
h if { every x in xs { x > 0 } }
w if count(input.items) with input as {"items": [1]}
d if data.base.deep.path[_].x + 1 > 0
i if input.a.b[_].c + 1 > 0
)")
              .empty());
}

TEST_CASE("no error: unions, else chains, partial objects and v0 heads") {
    CHECK(errors_of(R"(package t
x := 1 if input.a
else := "s"
y if count(x) > 0
z if x + 1 > 0
default v := false
v if input.b
n if not v
)")
              .empty());
    CHECK(
        errors_of(
            "package t\np[k] = v { k := \"a\"; v := 1 }\nq { p.a + 1 > 0 }\nr[x] { x := \"s\" }\ns { r[_] == \"s\" }\n",
            true)
            .empty());
    // Refs to packages are objects of their rules, and anything else under string keys.
    CHECK(errors_of("package t.a\np := 1\n").empty());
    CHECK(compile_text(std::vector<std::string>{"package t.a\np := 1\n",
                                                "package u\nq if data.t.a.p + data.t.a.other > 1\nr if data.t[_].p\n"})
              .errors.empty());
}

TEST_CASE("no error: calls inside every's body are left to evaluation, as OPA does") {
    CHECK(errors_of("package t\nt if {\n\tevery x in [1, 2] {\n\t\tcount(x)\n\t}\n}\n").empty());
}

TEST_CASE("no error: rego.metadata values are objects") {
    CHECK(
        errors_of(
            "package t\n# METADATA\n# title: T\np := rego.metadata.rule().title\nq := rego.metadata.chain()[0].path\n")
            .empty());
}

// ---- the types themselves ------------------------------------------------------------------

TEST_CASE("inferred types of variables, as OPA infers them") {
    CHECK(type_of_var("x = 1", "x") == "number");
    CHECK(type_of_var("[x, 1] = [true, y]", "x") == "boolean");
    CHECK(type_of_var(R"({"a": "foo", "b": {"c": x}} = {"a": y, "b": {"c": 2}})", "x") == "number");
    CHECK(type_of_var("x = {1, 2}; y = {{\"foo\", 1}, x}", "y") == "set[any<set[number], set[any<number, string>]>]");
    CHECK(type_of_var("a = [1, {\"foo\": [{\"bar\": null}, -1, {\"bar\": true}]}, 3]; x = a[1].foo[_].bar", "x") ==
          "any<null, boolean>");
    CHECK(type_of_var("a = [1, \"foo\", 3]; x = [i | a[_] = i]", "x") == "array[any<number, string>]");
    CHECK(type_of_var("x = [[1], [\"foo\"]]; x[_] = [y]", "y") == "any<number, string>");
    CHECK(type_of_var("obj = {}; obj[i] = v1", "obj") == "object[any: any]");
    CHECK(type_of_var("arr = []; arr[j] = v2", "j") == "number");
    CHECK(type_of_var("plus(1, 2, x)", "x") == "number");
    CHECK(type_of_var("walk(input, [p, v])", "p") == "array[any]");
}

TEST_CASE("a union's members are sorted and merged as OPA's") {
    namespace types = gavel::compiler::types;
    auto u = types::union_of(types::S, types::union_of(types::N, types::S));
    CHECK(types::to_string(u) == "any<number, string>");
    CHECK(types::to_string(types::union_of(u, types::A)) == "any");
    CHECK(types::to_string(types::union_of(types::array({}, types::A), types::set(types::N))) ==
          "any<array[any], set[number]>");
    CHECK(types::to_string(types::object({{types::Key{types::Key::Kind::String, "b"}, types::N},
                                          {types::Key{types::Key::Kind::String, "a"}, types::S}},
                                         std::nullopt)) == "object<a: string, b: number>");
}

TEST_CASE("a type deeper than the limit is any, so recursion over types stays bounded") {
    namespace types = gavel::compiler::types;
    types::TypePtr t = types::N;
    for (int i = 0; i < 5000; ++i) t = types::array({t}, nullptr);
    CHECK(t->depth <= types::kMaxDepth);
    CHECK(types::is_nil(t) == false);
}

// ---- rules' types, as OPA infers them (its TestCheckInferenceRules) ------------------------

namespace {

// Compiles v0 modules, each `package rule`, and gives the type the checker has for each ref.
std::vector<std::string> rule_types(const std::vector<std::pair<std::string, std::string>>& rules,
                                    const std::vector<std::string>& refs) {
    namespace types = gavel::compiler::types;
    std::vector<gavel::lang::Module> parsed;
    gavel::lang::ParseOptions po;
    po.v0_compatible = true;
    for (std::size_t i = 0; i < rules.size(); ++i) {
        auto r = gavel::lang::parse_module('r' + std::to_string(i) + ".rego",
                                           "package " + rules[i].first + "\n" + rules[i].second + "\n", po);
        REQUIRE(r.ok());
        parsed.push_back(std::move(*r.module));
    }
    std::vector<const gavel::lang::Module*> list;
    for (const auto& m : parsed) list.push_back(&m);
    auto compiled = gavel::compiler::compile_modules(list, {});
    INFO(compiled.diagnostics.format());
    REQUIRE(compiled.ok());
    std::vector<std::string> out;
    types::Memo memo;
    for (const auto& ref : refs) {
        auto q = gavel::lang::parse_query(ref);
        REQUIRE(q.ok());
        out.push_back(types::to_string(types::type_of_ref(*compiled.type_env, *q.body.at(0).term, memo)));
    }
    return out;
}

}  // namespace

TEST_CASE("rules' types: complete, partial, else, default, refs between rules, prefixes") {
    auto got = rule_types(
        {
            {"a", "trivial = true { true }"},
            {"a", "complete = [{\"foo\": x}] { x = 1 }"},
            {"a", "partialset[{\"foo\": x}] { y = \"bar\"; x = y }"},
            {"a", "partialobj[x] = {\"foo\": y} { y = \"bar\"; x = y }"},
            {"b", "trivial_ref = x { x = data.a.trivial }"},
            {"b", "transitive_ref = [x] { y = data.b.trivial_ref; x = y }"},
            {"c", "else_kw = null { false } else = 100 { true } else = \"foo\" { true }"},
            {"iteration", "arr = [[1], [\"two\"], {\"x\": true}, [\"four\"]] { true }"},
            {"iteration", "values[x] { data.iteration.arr[_][_] = x }"},
            {"iteration", "keys[i] { data.iteration.arr[_][i] = _ }"},
            {"disjunction", "partialset[1] { true }"},
            {"disjunction", "partialset[x] { x = \"foo\" }"},
            {"disjunction", "partialobj[x] = y { y = \"bar\"; x = \"foo\" }"},
            {"disjunction", "partialobj[x] = y { y = 100; x = \"foo\" }"},
            {"disjunction", "complete = 1 { true }"},
            {"disjunction", "complete = x { x = \"foo\" }"},
            {"prefix.a.b.c", "d = true { true }"},
            {"prefix.i.j.k", "p = 1 { true }"},
            {"prefix.i.j.k", "p = \"foo\" { true }"},
            {"default_rule", "default x = 1"},
            {"default_rule", "x = \"foo\" { true }"},
            {"unknown_type", "p = [x] { x = data.deadbeef }"},
            {"nested_ref", "inner = {\"a\": 0, \"b\": \"1\"} { true }"},
            {"nested_ref", "middle = [[1, true], [\"foo\", false]] { true }"},
            {"nested_ref", "p = x { data.nested_ref.middle[data.nested_ref.inner.a][0] = x }"},
            {"number_key", "q[x] = y { a = [\"a\", \"b\"]; y = a[x] }"},
            {"non_leaf", "p[x] { data.prefix.i[x][_] }"},
        },
        {"data.a.trivial",
         "data.a.complete",
         "data.a.complete[0].foo",
         "data.c.else_kw",
         "data.a.partialset",
         "data.a.partialobj",
         "data.a.partialobj.somekey.foo",
         "data.number_key.q[1]",
         "data.iteration.values",
         "data.iteration.keys",
         "data.disjunction.complete",
         "data.disjunction.partialset",
         "data.disjunction.partialobj",
         "data.b.trivial_ref",
         "data.b.transitive_ref",
         "data.prefix.a.b",
         "data.prefix.i.j[k]",
         "data.prefix.i.j[k].p",
         "data.default_rule.x",
         "data.unknown_type.p",
         "data.nested_ref.p",
         "data.non_leaf.p"});
    std::vector<std::string> want{
        "boolean",
        "array<object<foo: number>>",
        "number",
        "any<null, number, string>",
        "set[object<foo: string>]",
        "object[string: object<foo: string>]",
        "string",
        "string",
        "set[any<boolean, number, string>]",
        "set[any<number, string>]",
        "any<number, string>",
        "set[any<number, string>]",
        "object[string: any<number, string>]",
        "boolean",
        "array<boolean>",
        "object<c: object<d: boolean>[string: any]>[string: any]",
        "any",
        "any",
        "any<number, string>",
        "array<any>",
        "any<number, string>",
        "set[string]",
    };
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == want[i]);
}

TEST_CASE("rules' types: general refs in heads, overlapping and overriding keys") {
    auto got = rule_types(
        {
            {"ref_rule_single", "p.q.r { true }"},
            {"ref_rule_single_with_number_key", "p.q[3] { true }"},
            {"ref_regression_array_key", "walker[[p, v]] = o { l = input; walk(l, k); [p, v] = k; o = {} }"},
            {"overlap", "p.q[r] = y { x = [\"a\", \"b\"]; y = x[r] }"},
            {"overlap", "p.q.r = false { true }"},
            {"overlap", "p.q.r = \"false\" { true }"},
            {"overlap", "p.q[42] = 1337 { true }"},
            {"overlap", "p.q2.a = input.a { true }"},
            {"overlap", "p.q2[56] = input.a { true }"},
            {"simple", "p.q[r][s] = 42 { x = [\"a\", \"b\"]; r = x[s] }"},
            {"mixed", "p.q[r].s[t] = 42 { x = [\"a\", \"b\"]; r = x[t] }"},
            {"overrides", "p.q[r] = \"foo\" { x = [\"a\", \"b\"]; r = x[_] }"},
            {"overrides", "p.q.r[s] = 42 { x = [\"a\", \"b\"]; x[s] }"},
            {"overrides", "p.q[r].s = true { x = [true, false]; r = x[_] }"},
            {"overrides_static", "p.q[r].a = \"foo\" { r = \"bar\"; s = \"baz\" }"},
            {"overrides_static", "p.q[r].b = 42 { r = \"bar\" }"},
            {"overrides_static", "p.q[r].c = true { r = \"bar\" }"},
        },
        {"data.ref_rule_single.p.q.r", "data.ref_rule_single.p", "data.ref_rule_single_with_number_key.p.q[3]",
         "data.ref_rule_single_with_number_key.p", "data.ref_regression_array_key.walker", "data.overlap.p.q.r",
         "data.overlap.p.q[42]", "data.overlap.p.q2.a", "data.overlap.p.q2[56]", "data.overlap.p.q[1]",
         "data.overlap.p.q", "data.simple.p.q", "data.simple.p.q.b", "data.simple.p.q.b[1]", "data.mixed.p.q",
         "data.overrides.p.q", "data.overrides_static.p.q", "data.overrides_static.p.q.foo",
         "data.overrides_static.p.q.foo.a"});
    std::vector<std::string> want{
        "boolean",
        "object<q: object<r: boolean>[string: any]>[string: any]",
        "boolean",
        "object<q: object<3: boolean>[string: any]>[string: any]",
        "object[array<array[any], any>: object[any: any]]",
        "any<boolean, string>",
        "number",
        "any",
        "any",
        "any<boolean, number, string>",
        "object[any<number, string>: any<boolean, number, string>]",
        "object[string: object[number: number]]",
        "object[number: number]",
        "number",
        "object[string: object[string: object[number: number]]]",
        "object[any<boolean, string>: any<string, object[any<number, string>: any<boolean, number>]>]",
        "object[string: object[string: any<boolean, number, string>]]",
        "object[string: any<boolean, number, string>]",
        "any<boolean, number, string>",
    };
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == want[i]);
}

// ---- builtin declarations as the checker sees them -------------------------------------------

TEST_CASE("every builtin's arguments and result print as OPA's metadata has them, names included") {
    namespace types = gavel::compiler::types;
    using gavel::runtime::Value;
    if (!conformance_suite_present()) return;  // builtin_metadata.json sits beside the suite
    std::ifstream in(std::string(GAVEL_CONFORMANCE_DIR) + "/builtin_metadata.json");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    auto meta = gavel::runtime::parse_json(text.str());
    REQUIRE(meta.ok);
    auto field = [](const Value& v, const char* name) { return v.find(Value::string(name)); };
    std::size_t compared = 0;
    for (const auto& decl : gavel::lang::builtin_decls()) {
        const Value* m = field(meta.value, decl.name.c_str());
        if (!m || decl.variadic()) continue;  // gavel's own (hidden) builtins; print, whose metadata lists no operands
        INFO(decl.name);
        types::TypePtr fn = types::function_type(decl);
        const Value* args = field(*m, "args");
        std::size_t n = args ? args->array_elements().size() : 0;
        REQUIRE(fn->elems.size() == n);
        for (std::size_t i = 0; i < n; ++i) {
            const Value& a = args->array_elements()[i];
            REQUIRE(field(a, "type") != nullptr);
            CHECK(types::to_string(fn->elems[i]) == field(a, "type")->as_string());
            const Value* name = field(a, "name");
            // OPA 1.18.2 names to_number's argument x (later metadata: value).
            std::string want = decl.name == "to_number" ? "x" : name ? std::string(name->as_string()) : "";
            CHECK(fn->arg_names[i] == want);
        }
        const Value* result = field(*m, "result");
        if (result && field(*result, "type")) {  // a void builtin's metadata has an empty result
            CHECK(types::to_string(fn->of) == field(*result, "type")->as_string());
            const Value* name = field(*result, "name");
            CHECK(fn->result_name == (name ? std::string(name->as_string()) : ""));
        } else {
            CHECK(fn->of == nullptr);
        }
        ++compared;
    }
    CHECK(compared >= 200);
    // A result name with a space in it.
    CHECK(types::args_string(*types::function_type(*gavel::lang::find_builtin_decl("time.format")), true, true) ==
          "(x: any<number, array<number, string>, array<number, string, string>>, formatted timestamp: string)");
}
