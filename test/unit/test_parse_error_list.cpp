// The whole list of syntax errors, as OPA 1.7.1 reports it (recorded with `opa parse` and
// `opa eval`): every attempt of OPA's parser that failed on the way adds its error, and its
// scanner reports a token it could not read before the parser calls it illegal.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lang/opa_error_list.hpp"
#include "lang/parse.hpp"

namespace {

std::vector<std::string> listed(const gavel::lang::Diagnostics& diagnostics) {
    std::vector<std::string> out;
    for (const auto& d : diagnostics)
        out.push_back(std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.message);
    return out;
}

std::vector<std::string> module_errors(const std::string& text) {
    return listed(gavel::lang::parse_module("m.rego", text).diagnostics);
}

std::vector<std::string> eval_query_errors(const std::string& text) {
    gavel::lang::ParseOptions options;
    options.skip_rules = true;  // as `opa eval` reads a query
    return listed(gavel::lang::parse_query(text, options).diagnostics);
}

using List = std::vector<std::string>;

}  // namespace

TEST_CASE("an error inside a rule head adds \"expected rule head name\"") {
    CHECK(module_errors("package p\nf(x if { true }\n") == List{"2:5 unexpected if keyword: expected \",\" or \")\"",
                                                                "2:5 unexpected if keyword: expected rule head name"});
    CHECK(module_errors("package p\nr[x := 1 if { true }\n") ==
          List{"2:5 unexpected assign token: expected [", "2:5 unexpected assign token: expected rule head name"});
}

TEST_CASE("an error inside a rule value or key adds what the head wanted") {
    CHECK(module_errors("package p\nr := [1, 2 if { true }\n") ==
          List{"2:12 unexpected if keyword: expected \",\" or \"]\"",
               "2:12 unexpected if keyword: expected rule value term (e.g., r := <VALUE> { ... })"});
    CHECK(module_errors("package p\nf(x) := g(x if { true }\n") ==
          List{"2:13 unexpected if keyword: expected \",\" or \")\"",
               "2:13 unexpected if keyword: expected function value term (e.g., f(...) := <VALUE> { ... })"});
    CHECK(module_errors("package p\nr := := 1\n") ==
          List{"2:6 unexpected assign token",
               "2:6 unexpected assign token: expected rule value term (e.g., r := <VALUE> { ... })"});
    CHECK(module_errors("package p\nr contains := 1\n") ==
          List{"2:12 unexpected assign token",
               "2:12 unexpected assign token: expected rule key term (e.g., r contains <VALUE> { ... })"});
    CHECK(module_errors("package p\ndefault r := := 1\n") ==
          List{"2:14 unexpected assign token",
               "2:14 unexpected assign token: expected default rule value term (e.g., default r := <VALUE>)"});
    CHECK(module_errors("package p\nr := (1 + 2\ns := 3\n") ==
          List{"3:1 non-terminated expression",
               "3:1 unexpected identifier token: expected rule value term (e.g., r := <VALUE> { ... })"});
}

TEST_CASE("a token the scanner cannot read is reported, then called illegal by each attempt") {
    CHECK(module_errors("package p\nr := \"abc\n") ==
          List{"2:6 non-terminated string", "2:6 illegal token", "2:6 illegal token"});
    CHECK(module_errors("package p\nr := 12ab\n") ==
          List{"2:6 illegal number format", "2:6 illegal token", "2:6 illegal token"});
    CHECK(module_errors("package p\nr := 1. + 2\n") ==
          List{"2:6 expected fraction", "2:6 illegal token", "2:6 illegal token"});
    CHECK(module_errors("package p\nr := \"a\\qb\"\n") ==
          List{"2:6 illegal escape sequence", "2:6 illegal token", "2:6 illegal token"});
    CHECK(module_errors("package p\nr := 1 @ 2\n") == List{"2:8 illegal token"});
}

TEST_CASE("`some` read twice: the failed `x in xs` is set aside, the variable list fails too") {
    CHECK(module_errors("package p\nr if { x := {k: 1 | some k in y z} }\n") ==
          List{"2:21 unexpected some keyword", "2:21 unexpected some keyword: non-terminated object"});
}

TEST_CASE("a ref on a scalar is reported and the parse goes on") {
    CHECK(module_errors("package p\nr := 1[0] +\n") ==
          List{"2:6 illegal ref (head cannot be number)", "3:0 unexpected eof token"});
}

TEST_CASE("errors OPA reports alone") {
    CHECK(module_errors("package p\nr if {\n\tevery x, in xs { true }\n}\n") ==
          List{"3:9 unexpected , token: expected `x[, y] in xs { ... }` expression"});
    CHECK(module_errors("package p\nr[x] := 1 if { x := 1 } else := 2\n") ==
          List{"2:25 else keyword cannot be used on rules with variables in head"});
}

TEST_CASE("a rule head's name in OPA's words: strings quoted as they are") {
    CHECK(module_errors("package p\nu[\"\\\"q\\\"\"] := {1: some}\n") ==
          List{"2:19 unexpected some keyword",
               "2:19 unexpected some keyword: expected rule value term (e.g., u[\"\"q\"\"] := <VALUE> { ... })"});
}

TEST_CASE("a keyword where no name may stand") {
    CHECK(module_errors("package p\nq[some.s] := 1 if { true }\n") ==
          List{"2:3 unexpected some keyword", "2:3 unexpected some keyword: expected rule head name"});
    CHECK(module_errors("package p\nr if { some x in[1, 2] }\n") ==
          List{"2:15 unexpected in keyword: expected \\n or ; or }"});
}

TEST_CASE("tokens OPA's parser refuses where gavel's grammar took them") {
    CHECK(module_errors("package p\nx := (05)\n") ==
          List{"2:7 unexpected number token: expected number without leading zero",
               "2:7 unexpected number token: expected rule value term (e.g., x := <VALUE> { ... })"});
    CHECK(module_errors("package p\nr if { true with true as 1 }\n") ==
          List{"2:18 unexpected true keyword: expected ident"});
    CHECK(module_errors("package p\nw = 1 if { false } else else := 2 if { true }\n") ==
          List{"2:25 unexpected else keyword: expected else value term or rule body"});
    CHECK(module_errors("package p\nw = 1 if { false }\n\nelse deny := 2\n") ==
          List{"4:6 unexpected identifier token: expected else value term or rule body"});
}

TEST_CASE("a query as opa eval reads it") {
    CHECK(eval_query_errors("x := [1,") == List{"1:8 unexpected eof token"});
    CHECK(eval_query_errors("x := \"abc") == List{"1:6 non-terminated string", "1:6 illegal token"});
    CHECK(eval_query_errors("a[1 2]") == List{"1:5 unexpected number token: expected ["});
    CHECK(eval_query_errors("some x in") == List{"1:8 unexpected in keyword"});
}

TEST_CASE("pre-1.0 Rego: keywords known once imported, hints at the import") {
    gavel::lang::ParseOptions v0;
    v0.v0_compatible = true;
    auto errors = [&v0](const std::string& text) {
        return listed(gavel::lang::parse_module("m.rego", text, v0).diagnostics);
    };
    CHECK(errors("package p\nr { some x in [1] }\n") ==
          List{"2:12 unexpected identifier token: expected \\n or ; or } (hint: `import future.keywords.in` for `some "
               "x in xs` expressions)"});
    CHECK(errors("package p\nr { every y in [1] { y } }\n") ==
          List{"2:11 unexpected identifier token: expected \\n or ; or } (hint: `import future.keywords.every` for "
               "`every x in xs { ... }` expressions)"});
    // `some x in [1, }` fails as a membership, then as a list of variables.
    CHECK(errors("package p\nimport future.keywords.in\nr { some x in [1, }\n") ==
          List{"3:12 unexpected in keyword: expected \\n or ; or }"});
}

TEST_CASE("a query that may also be a rule: both readings fail") {
    CHECK(listed(gavel::lang::parse_query("x := [1,").diagnostics) ==
          List{"1:8 unexpected eof token",
               "1:8 unexpected eof token: expected rule value term (e.g., x := <VALUE> { ... })"});
}

TEST_CASE("OPA's error list is read within fixed bounds") {
    using gavel::lang::opa::parse_error_list;
    std::string chain = "package p\nx := 1";
    for (int i = 0; i < 100000; ++i) chain += " + 1";
    CHECK_FALSE(parse_error_list(chain + " +\n").has_value());  // a term deeper than the limit
    CHECK_FALSE(parse_error_list("package p\nx := " + std::string(5000, '[') + "\n").has_value());
    CHECK_FALSE(parse_error_list("package p\nx := " + std::string(5000, '(') + "\n").has_value());
    std::string withs = "package p\nr if { true";
    for (int i = 0; i < 5000; ++i) withs += " with f(1) as 2";  // OPA reports each of the 5000
    CHECK_FALSE(parse_error_list(withs + "\n").has_value());
    // Within them, nesting costs no more than its size (OPA reads a set's first term twice): OPA's
    // three errors for one set left open.
    std::string sets = "package p\nx := " + std::string(1000, '{') + "1" + std::string(999, '}') + " +\n";
    auto errors = parse_error_list(sets);
    REQUIRE(errors.has_value());
    REQUIRE(errors->size() == 3);
    CHECK((*errors)[0].message == "unexpected eof token");
    CHECK((*errors)[1].message == "unexpected eof token: non-terminated set");
    CHECK((*errors)[2].message == "unexpected eof token: expected rule value term (e.g., x := <VALUE> { ... })");
    // gavel's own list stands where OPA's is not read.
    auto deep = gavel::lang::parse_module("m.rego", chain + " +\n");
    CHECK_FALSE(deep.diagnostics.empty());
}

TEST_CASE("`contains` alone or before a name is a statement of its own, as OPA reads it") {
    CHECK(module_errors("package p\ncontains p if { true }\n") == List{"2:1 var cannot be used for rule name"});
    CHECK(module_errors("package p\ncontains p\n") ==
          List{"2:1 var cannot be used for rule name", "2:10 var cannot be used for rule name"});
    CHECK(module_errors("package p\ncontains\n") == List{"2:1 var cannot be used for rule name"});
    CHECK(module_errors("package p\ncontains := 1\n") == List{"2:1 contains keyword cannot be used for rule name"});
    CHECK(module_errors("package p\ncontains[x] if { x := 1 }\n").empty());
    // A rego.v1 module's statement that starts with the keyword is a query (OPA's parseRules
    // reads no head there), with `contains` a term: alone before another term, or an operand.
    CHECK(module_errors("package p\ncontains 1\n") ==
          List{"2:1 var cannot be used for rule name", "2:10 number cannot be used for rule name"});
    CHECK(module_errors("package p\ncontains {1}\n") ==
          List{"2:1 var cannot be used for rule name", "2:10 set cannot be used for rule name"});
    CHECK(module_errors("package p\ncontains == 1\n") == List{"2:1 rule name conflicts with built-in function"});
    CHECK(module_errors("package p\ncontains in [1]\n") == List{"2:1 rule name conflicts with built-in function"});
    CHECK(module_errors("package p\ncontains with input as 1\n") ==
          List{"2:1 expressions using with keyword cannot be used for rule head"});
}

TEST_CASE("`input` or `data` alone is a ref, which names no rule (OPA's parseTermFinish)") {
    CHECK(module_errors("package p\ninput\n") == List{"2:1 refs cannot be used for rule head"});
    CHECK(module_errors("package p\nx\ndata\n") ==
          List{"2:1 var cannot be used for rule name", "3:1 refs cannot be used for rule head"});
}

TEST_CASE("a statement is one literal: another may follow on the same line, as OPA reads them") {
    CHECK(module_errors("package p\nfalse p\n") ==
          List{"2:1 boolean cannot be used for rule name", "2:7 var cannot be used for rule name"});
    CHECK(module_errors("package p\nnull q := 1\n") == List{"2:1 null cannot be used for rule name"});
    CHECK(module_errors("package p\n[1] p\n") ==
          List{"2:1 array cannot be used for rule name", "2:5 var cannot be used for rule name"});
    CHECK(module_errors("package p\nfalse if\n") == List{"2:7 unexpected if keyword"});
}

TEST_CASE("the next statement may touch the last token where OPA's scanner reads two tokens") {
    CHECK(module_errors("package p\ng(a)h(b) := 1 if { true }\n").empty());
    CHECK(module_errors("package p\np := \"a\"q := 2\n").empty());
    CHECK(module_errors("package p\np := true\"a\"\n") == List{"2:10 string cannot be used for rule name"});
    gavel::lang::ParseOptions v0;
    v0.v0_compatible = true;  // `if` is a name there: three statements
    CHECK(listed(gavel::lang::parse_module("m.rego", "package p\np := 2 if true\"a\"\n", v0).diagnostics) ==
          List{"2:8 var cannot be used for rule name", "2:11 boolean cannot be used for rule name",
               "2:15 string cannot be used for rule name"});
    // `[` and `.` touching a term continue it (a ref), as OPA's parseTermFinish reads them.
    CHECK(module_errors("package p\n[1][0]\n") == List{"2:1 invalid rule head: [1][0]"});
    CHECK_FALSE(module_errors("package p\nf(x)[0]\n").empty());
}

TEST_CASE("any term may begin the next statement on the same line") {
    CHECK(module_errors("package p\nx \"s\" [y | y := 1]\n") ==
          List{"2:1 var cannot be used for rule name", "2:3 string cannot be used for rule name",
               "2:7 arraycomprehension cannot be used for rule name"});
    CHECK(module_errors("package p\np if { true } 5\n") == List{"2:15 number cannot be used for rule name"});
    // A number with a leading dot, too: `p := 1 .5` is OPA's rule p and the statement `.5`.
    CHECK(module_errors("package p\np := 1 .5\n") == List{"2:8 number cannot be used for rule name"});
    CHECK(module_errors("package p\np := 1.5 .a\n") == List{"2:11 unexpected identifier token: expected number"});
}

TEST_CASE("a statement read as a query becomes a rule, or says why not, as OPA's parseModule") {
    // A parenthesised name is a rule's name once the parentheses are gone.
    CHECK(module_errors("package p\n(x) := 1\n").empty());
    CHECK(module_errors("package p\n(a.b) = 1\n").empty());
    CHECK(module_errors("package p\n(f(x)) := 1\n").empty());  // a function
    CHECK(module_errors("package p\n(x)\n") == List{"2:1 var cannot be used for rule name"});
    CHECK(module_errors("package p\n\"a\" := 1\n") == List{"2:1 string cannot be used for rule name"});
    CHECK(module_errors("package p\n[x] := 1\n") == List{"2:1 array cannot be used for rule name"});
    CHECK(module_errors("package p\n1 = 2\n") == List{"2:1 number cannot be used for rule name"});
}

TEST_CASE("a function head apart from its arguments is no function without a body, as OPA reads it") {
    // `f` and `(x) := 1` (a rule x): OPA's query statements, whose call takes no space before `(`.
    CHECK(module_errors("package p\nf (x) := 1\n") == List{"2:1 var cannot be used for rule name"});
    CHECK(module_errors("package p\nf (\"a\") := 1\n") ==
          List{"2:1 var cannot be used for rule name", "2:3 string cannot be used for rule name"});
    CHECK(module_errors("package p\nf (x) := 1 if { true }\n").empty());
    // A ref's bracket apart from what it continues: `p` and `["a"] := 1`, `p.q` and `["a"] := 1`.
    CHECK(module_errors("package p\np [\"a\"] := 1\n") ==
          List{"2:1 var cannot be used for rule name", "2:3 array cannot be used for rule name"});
    CHECK(module_errors("package p\np.q [\"a\"] := 1\n") ==
          List{"2:1 `contains` keyword is required for partial set rules", "2:5 array cannot be used for rule name"});
    CHECK(module_errors("package p\np [\"a\"] contains 1\n").empty());
    CHECK(module_errors("package p\np[ \"a\" ] := 1\n").empty());
    // A dot apart from the name, too: a rule with `if` (a.b[1]), an error without.
    CHECK(module_errors("package p\na .b[1] := 2 if { true }\n").empty());
    CHECK(module_errors("package p\na .b := 1\n") == List{"2:4 unexpected identifier token: expected number"});
    CHECK(module_errors("package p\ndefault f (x) := 1\n").empty());
}

TEST_CASE("a name before `in` is no rule: OPA reads the statement as a query, a call of a builtin") {
    CHECK(module_errors("package p\ninput.x in {1}\n") == List{"2:1 rule name conflicts with built-in function"});
    CHECK(module_errors("package p\np := 1 in [1]\n").empty());
}

TEST_CASE("`contains(x) := 1` is a query to OPA, whose function rule its v1 check refuses by name") {
    CHECK(module_errors("package p\ncontains(x) := 1\n") == List{"2:1 contains keyword cannot be used for rule name"});
    CHECK(module_errors("package p\ncontains(x)\n") == List{"2:1 rule name conflicts with built-in function"});
    // What follows the query on its line is the next statement, which `if` cannot begin.
    CHECK(module_errors("package p\ncontains(x) := 1 if { true }\n") == List{"2:18 unexpected if keyword"});
    CHECK(module_errors("package p\ncontains(x) if true\n") == List{"2:13 unexpected if keyword"});
}

TEST_CASE("the token after an import is scanned without the future keywords: `in` alone there is a var") {
    CHECK(module_errors("package p\nimport future.keywords.in in\np := 1\n") ==
          List{"2:27 var cannot be used for rule name"});
    CHECK(module_errors("package p\nimport data.x\n# c\n\nif\np := 1\n") ==
          List{"5:1 var cannot be used for rule name"});
    // After an alias OPA scans with its keywords again.
    CHECK(module_errors("package p\nimport data.x as y\nin\n") == List{"3:1 unexpected in keyword"});
    // A rule named so: a rego.v1 module refuses the keyword as its name, a v0 module keeps it.
    CHECK(module_errors("package p\nimport data.x\nin := 1\n") == List{"3:1 in keyword cannot be used for rule name"});
    gavel::lang::ParseOptions v0;
    v0.v0_compatible = true;
    CHECK(gavel::lang::parse_module("m.rego", "package p\nimport data.x\nevery := 1\n", v0).ok());
    // For that one token only: the rule's body reads the keyword again.
    CHECK(gavel::lang::parse_module("m.rego", "package p\nimport future.keywords\nin := 1 if { 1 in [1] }\n", v0).ok());
    // A ref named so is no keyword name (OPA 1.7.1).
    CHECK(module_errors("package p\nimport future.keywords\nin[x] := 1 if { x := 1; 1 in [1] }\n").empty());
}

TEST_CASE("right after an import OPA reads a function named `contains`, which only a v0 module may define") {
    CHECK(module_errors("package p\nimport rego.v1\ncontains(x) := 1 if { true }\n") ==
          List{"3:1 contains keyword cannot be used for rule name"});
    CHECK(
        module_errors("package p\nimport future.keywords.contains\ncontains(x) = 1 { true }\n") ==
        List{"3:1 contains keyword cannot be used for rule name", "3:1 `if` keyword is required before function body"});
    gavel::lang::ParseOptions v0;
    v0.v0_compatible = true;
    auto v0_errors = [&](const std::string& text) {
        return listed(gavel::lang::parse_module("m.rego", text, v0).diagnostics);
    };
    CHECK(v0_errors("package p\nimport future.keywords\ncontains(x) := 1 if { true }\n").empty());
    CHECK(v0_errors("package p\nimport rego.v1\ncontains(x) := 1 if { true }\n") ==
          List{"3:1 contains keyword cannot be used for rule name"});
    // Only right after the import: later the keyword starts a query again, as without one.
    CHECK(module_errors("package p\nimport rego.v1\np := 1\ncontains(x) := 1 if { true }\n") ==
          List{"4:18 unexpected if keyword"});
    CHECK(module_errors("package p\nimport data.x\ncontains(x) := 1 if { true }\n") ==
          List{"3:1 contains keyword cannot be used for rule name"});
    // A v0 module's query `contains(x) := 1` is the function OPA's parseModule makes of it.
    CHECK(v0_errors("package p\nimport future.keywords.contains\np := 1\ncontains(x) := 1 if { true }\n").empty());
}

TEST_CASE("a v0 module may name a rule `contains` where OPA reads one, even with the keyword imported") {
    gavel::lang::ParseOptions v0;
    v0.v0_compatible = true;
    auto v0_errors = [&](const std::string& text) {
        return listed(gavel::lang::parse_module("m.rego", "package p\nimport future.keywords\nq := 2\n" + text, v0)
                          .diagnostics)
            .size();
    };
    // OPA 1.7.1: rules named contains...
    CHECK(v0_errors("contains := 1\n") == 0);
    CHECK(v0_errors("contains[x] { x := 1 }\n") == 0);
    CHECK(v0_errors("contains.x := 1 { true }\n") == 0);
    // ... but a bare `contains` before a body or `if` is no rule there.
    CHECK(v0_errors("contains := 1 { true }\n") > 0);
    CHECK(v0_errors("contains := 1 if { true }\n") > 0);
    // v1 refuses the name.
    CHECK(module_errors("package p\nq := 2\ncontains := 1\n") ==
          List{"3:1 contains keyword cannot be used for rule name"});
}

TEST_CASE("an infix call assigned is the function OPA's parseModule makes of that query (`a - b := 1`)") {
    auto r = gavel::lang::parse_module("m.rego", "package p\na-b := 1\nq := 1\n1-q = 2\n");
    REQUIRE(r.ok());
    REQUIRE(r.module->rules.size() == 3);
    const auto& minus = r.module->rules[0].head;
    CHECK(minus.has_args);
    CHECK(minus.args.size() == 2);
    CHECK(minus.ref->ref_dotted() == "minus");
    CHECK(r.module->rules[2].head.has_args);  // minus(1, q) = 2
    CHECK_FALSE(gavel::lang::parse_module("m.rego", "package p\na-b := 1 if { true }\n").ok());
}
