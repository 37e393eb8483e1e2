// Terms and expressions: each construct parses into the exact AST shape.

#include <doctest/doctest.h>

#include "lang/parse.hpp"
#include "test/unit/ast_sexpr.hpp"

using gavel::lang::parse_query;
using gavel::lang::parse_term;
using gavel::lang::ParseOptions;
using gavel::test::sexpr;

namespace {

std::string term(const std::string& text, ParseOptions options = {}) {
    auto r = parse_term(text, options);
    if (!r.ok()) return "ERROR: " + r.diagnostics.format();
    return sexpr(r.term);
}

std::string query(const std::string& text, ParseOptions options = {}) {
    auto r = parse_query(text, options);
    if (!r.ok()) return "ERROR: " + r.diagnostics.format();
    return sexpr(r.body);
}

}  // namespace

TEST_CASE("scalars") {
    CHECK(term("null") == "null");
    CHECK(term("true") == "true");
    CHECK(term("false") == "false");
    CHECK(term("42") == "42");
    CHECK(term("-1.5e10") == "-1.5e10");
    CHECK(term("340282366920938463463374607431768211456") == "340282366920938463463374607431768211456");
    CHECK(term("2e308") == "2e308");
    // A leading dot, as OPA's parser reads it (its text `.5` is no JSON number: kept as 0.5).
    CHECK(term(".5") == "0.5");
    CHECK(term("-. 25e1") == "-0.25e1");
    CHECK(term("x") == "x");
    CHECK(term("_") == "_");
}

TEST_CASE("strings and escapes") {
    CHECK(term(R"("a\"b\\c\/\n\t")") == "\"a\"b\\c/\n\t\"");
    CHECK(term(R"("\u00e9")") == "\"\xc3\xa9\"");
    CHECK(term(R"("\ud83d\ude00")") == "\"\xf0\x9f\x98\x80\"");  // a surrogate pair is one code point
    CHECK(term("`raw \\n string`") == "\"raw \\n string\"");
    CHECK(term("`multi\nline`") == "\"multi\nline\"");
    CHECK(term(R"("bad \q escape")").rfind("ERROR", 0) == 0);
    CHECK(term("\"unterminated").rfind("ERROR", 0) == 0);
}

TEST_CASE("composites") {
    CHECK(term("[]") == "(array)");
    CHECK(term("[1, 2, 3,]") == "(array 1 2 3)");
    CHECK(term("{}") == "(object)");
    CHECK(term("set()") == "(set)");
    CHECK(term("{1, \"a\"}") == "(set 1 \"a\")");
    CHECK(term("{\"a\": 1, 2: [x]}") == "(object \"a\":1 2:(array x))");
    CHECK(term("{{1}}") == "(set (set 1))");
}

TEST_CASE("refs bind only when touching") {
    CHECK(term("input.request.kind") == "(ref input \"request\" \"kind\")");
    CHECK(term("a[0].b[\"c\"][x]") == "(ref a 0 \"b\" \"c\" x)");
    CHECK(term("[1, 2][0]") == "(ref (array 1 2) 0)");
    CHECK(term("f(x).y") == "(ref (f x) \"y\")");
    CHECK(query("x\n[y] = z") == "{x; (eq (array y) z)}");
    CHECK(term("input.in.if") == "(ref input \"in\" \"if\")");  // keywords are fine after a dot
}

TEST_CASE("calls") {
    CHECK(term("count(x)") == "(count x)");
    CHECK(term("io.jwt.decode(t)") == "(io.jwt.decode t)");
    CHECK(term("data.lib.f(1, 2,)") == "(data.lib.f 1 2)");
    CHECK(term("f()") == "(f)");
    CHECK(query("contains(\"abc\", \"b\")") == "{(contains \"abc\" \"b\")}");  // builtin named like the keyword
}

TEST_CASE("operator precedence as OPA's") {
    CHECK(term("1 + 2 * 3") == "(plus 1 (mul 2 3))");
    CHECK(term("(1 + 2) * 3") == "(mul (plus 1 2) 3)");
    CHECK(term("1 - 2 - 3") == "(minus (minus 1 2) 3)");
    CHECK(term("a | b & c") == "(or a (and b c))");
    CHECK(term("a + 1 == b | c") == "(equal (plus a 1) (or b c))");
    CHECK(term("x - -1") == "(minus x -1)");
    CHECK(term("a % 2 != 0") == "(neq (rem a 2) 0)");
    CHECK(term("1 < 2 <= 3") == "(lte (lt 1 2) 3)");
    CHECK(term("x in xs") == "(internal.member_2 x xs)");
    CHECK(term("x == 1 in s") == "(internal.member_2 (equal x 1) s)");
}

TEST_CASE("assignment, unification and key-value membership") {
    CHECK(query("x := 1") == "{(assign x 1)}");
    CHECK(query("[a, b] = [1, 2]") == "{(eq (array a b) (array 1 2))}");
    CHECK(query("x == y") == "{(equal x y)}");
    CHECK(query("k, v in xs") == "{(internal.member_3 k v xs)}");
    CHECK(query("0, 2 in [2] in [true]") == "{(internal.member_2 (internal.member_3 0 2 (array 2)) (array true))}");
    CHECK(query("x := 1, \"foo\" in y") == "{(assign x (internal.member_3 1 \"foo\" y))}");
    CHECK(query("(0, 2 in [2]) in [true]") == "{(internal.member_2 (internal.member_3 0 2 (array 2)) (array true))}");
}

TEST_CASE("comprehensions") {
    CHECK(term("[x | x := xs[_]]") == "(array-of x {(assign x (ref xs _))})");
    CHECK(term("{x | some x in s}") == "(set-of x {(some (internal.member_2 x s))})");
    CHECK(term("{k: v | v := o[k]}") == "(object-of k:v {(assign v (ref o k))})");
    CHECK(term("[x |\n  x := 1\n  x > 0\n]") == "(array-of x {(assign x 1); (gt x 0)})");
    CHECK(term("[(x + 1) | x := 1; x > 0]") == "(array-of (plus x 1) {(assign x 1); (gt x 0)})");
    // OPA's parseArray: a comprehension head is one term, so `x + 1 | ...` is an `or` operand.
    CHECK(term("[x + 1 | x := 1]").find("unexpected := token") != std::string::npos);
}

// OPA's parseArray / parseSetOrObject: `|` after the first term starts a
// comprehension only if a body follows that runs to the closing bracket.
TEST_CASE("comprehension or collection, decided as OPA decides") {
    CHECK(term("[x | y, 5]") == "(array (or x y) 5)");
    CHECK(term("{1 | 1, 2}") == "(set (or 1 1) 2)");
    CHECK(term("[{1} - {10} | {2}]") == "(array (or (minus (set 1) (set 10)) (set 2)))");
    CHECK(term("{{1} - {10} | {2}}") == "(set (or (minus (set 1) (set 10)) (set 2)))");
    CHECK(term("[x | y]") == "(array-of x {y})");
    CHECK(term("{1 | 1}") == "(set-of 1 {1})");
    CHECK(term("[f(x).y | y]") == "(array-of (ref (f x) \"y\") {y})");
    CHECK(term("[-x | x]") == "(array-of (minus 0 x) {x})");
    // A leading comma (kept by OPA for compatibility) rules a comprehension out.
    CHECK(term("[, x | y]") == "(array (or x y))");
    CHECK(term("{, x | y}") == "(set (or x y))");
    CHECK(term("{, a | b: c}") == "(object (or a b):c)");
    // After `{t |` with no comprehension body, only a set can follow.
    CHECK(term("{a | b: c}").rfind("ERROR", 0) == 0);
    // Object comprehensions: the key may be any expression, the value is one term.
    CHECK(term("{a + 1: b | c}") == "(object-of (plus a 1):b {c})");
    CHECK(term("{k: v + 1 | c}") == "(object k:(or (plus v 1) c))");
    CHECK(term("{\"a\": x | y, \"b\": 1}") == "(object \"a\":(or x y) \"b\":1)");
    CHECK(term("{\"a\": x | y}") == "(object-of \"a\":x {y})");
    CHECK(term("[,]").rfind("ERROR", 0) == 0);
}

TEST_CASE("deeply nested collections parse in linear time") {
    // Each level reads its first term more than once (comprehension or not); the
    // term memo keeps that from multiplying per level: `[[[1] + 1] + 1]`.
    for (const char* pair : {"[]", "{}"}) {
        std::string nested = "1";
        for (int i = 0; i < 120; ++i) nested = pair[0] + nested + " + 1" + pair[1];
        auto r = parse_term(nested);
        CHECK(r.ok());
    }
}

TEST_CASE("unary minus, as OPA's newest parseTerm reads it (PR 8551; OPA 1.7.1 refuses a ref there)") {
    CHECK(term("- 1") == "-1");  // the sign is a token of its own: still the number -1
    CHECK(term("-\n 2.5") == "-2.5");
    CHECK(term("-x") == "(minus 0 x)");
    CHECK(term("- x.y[0]") == "(minus 0 (ref x \"y\" 0))");
    CHECK(term("-f(x)") == "(minus 0 (f x))");
    CHECK(term("1 - -x") == "(minus 1 (minus 0 x))");
    CHECK(term("1 -x") == "(minus 1 x)");
    CHECK(term("-(1)").rfind("ERROR", 0) == 0);
    CHECK(term("- -1").rfind("ERROR", 0) == 0);
    CHECK(query("x := - 1") == "{(assign x -1)}");
}

TEST_CASE("a dot in a ref touches the name after it") {
    CHECK(term("a.b") == "(ref a \"b\")");
    auto r = parse_term("a. b");
    REQUIRE_FALSE(r.ok());
    const auto& d = r.diagnostics.items()[0];
    CHECK(d.message == "unexpected whitespace token: expected identifier");
    CHECK(d.col == 3);
    CHECK_FALSE(parse_term("a.\nb").ok());
    CHECK_FALSE(parse_term("a.b. c").ok());
}

TEST_CASE("template strings") {
    CHECK(term("$\"a{x}b\"") == "(template {\"a\"; x; \"b\"})");
    CHECK(term("$\"\\{42}\"") == "(template {\"{42}\"})");
    CHECK(term("$\"{$\"{a}\"} {1 + a}\"") == "(template {(template {a}); \" \"; (plus 1 a)})");
    CHECK(term("$`x\n{y}`") == "(template {\"x\n\"; y})");
    CHECK(term("$\"{a with input as 1}\"") == "(template {a (with input 1)})");
    CHECK(term("$\"\"") == "(template {})");
}

TEST_CASE("body literals") {
    CHECK(query("a; b") == "{a; b}");
    CHECK(query("a\n  b  # comment\nc") == "{a; b; c}");
    CHECK(query("not x") == "{(not x)}");
    CHECK(query("some x, y") == "{(some x y)}");
    CHECK(query("some k, v in obj") == "{(some (internal.member_3 k v obj))}");
    CHECK(query("every x in xs { x > 0 }") == "{(every x xs {(gt x 0)})}");
    CHECK(query("every k, v in o { k == v }") == "{(every k v o {(equal k v)})}");
    // After a pair, OPA's parseTermIn reads `in` as the keyword without looking ahead for a ref, so
    // `in[` is membership there (alone, `x in[1]` is the name `in` indexed: an error, below).
    CHECK(query("some k, v in[1]") == "{(some (internal.member_3 k v (array 1)))}");
    CHECK(query("every k, v in[1] { k == v }") == "{(every k v (array 1) {(equal k v)})}");
    CHECK(query("0, 1 in[1]") == "{(internal.member_3 0 1 (array 1))}");
    CHECK(query("some k, v in[1] in[true]").rfind("ERROR", 0) == 0);
    CHECK(query("every k in[1] { k }").rfind("ERROR", 0) == 0);
    CHECK(query("x with input as 1 with data.a.b as {}") ==
          "{x (with input 1) (with (ref data \"a\" \"b\") (object))}");
    CHECK(query("x\n  with input as 1") == "{x (with input 1)}");
    CHECK(query("count(f) with count as g") == "{(count f) (with count g)}");
    CHECK(query("a b").rfind("ERROR", 0) == 0);  // two literals need a separator
}

// OPA's parseLiteral negates one expression; another `not` cannot start one.
TEST_CASE("not negates one expression") {
    auto twice = parse_query("not not x");
    REQUIRE_FALSE(twice.ok());
    CHECK(twice.diagnostics.items()[0].message == "unexpected not keyword");
    CHECK(twice.diagnostics.items()[0].col == 5);
    auto some = parse_query("not some x");
    REQUIRE_FALSE(some.ok());
    CHECK(some.diagnostics.items()[0].message == "unexpected some keyword: illegal negation of 'some'");
    auto every = parse_query("not every x in xs { x }");
    REQUIRE_FALSE(every.ok());
    CHECK(every.diagnostics.items()[0].message == "unexpected every keyword: illegal negation of 'every'");
    // OPA reads a keyword before `.` as a name only where a literal starts: after `not`, `some` is the keyword.
    CHECK(parse_query("not some.x").diagnostics.items().at(0).message ==
          "unexpected some keyword: illegal negation of 'some'");
    CHECK(query("some.x") == "{(ref some \"x\")}");
    ParseOptions opts;
    opts.experimental_keywords = true;
    CHECK(query("not a and not b", opts) == "{(and (not a) (not b))}");
    CHECK(query("not not a", opts).rfind("ERROR", 0) == 0);
}

TEST_CASE("experimental and/or keywords") {
    ParseOptions opts;
    opts.experimental_keywords = true;
    CHECK(query("a or b and c", opts) == "{(or a (and b c))}");
    CHECK(query("not a or b", opts) == "{(or (not a) b)}");
    CHECK(query("a and (b or c)", opts) == "{(and a (or b c))}");
    CHECK(query("(1 + 2) * 3 == 9 and x", opts) == "{(and (equal (mul (plus 1 2) 3) 9) x)}");
    CHECK(query("not { a; b }", opts) == "{(not (block {a; b}))}");
    CHECK(query("a or b").rfind("ERROR", 0) == 0);  // without the option `or` is an identifier
}

TEST_CASE("a block as an operand of and/or") {
    ParseOptions opts;
    opts.experimental_keywords = true;
    CHECK(query("{ a := 1; a > 0 } and b", opts) == "{(and (block {(assign a 1); (gt a 0)}) b)}");
    CHECK(query("a or { b }", opts) == "{(or a (block {b}))}");
}

TEST_CASE("set and object literals drop repeated elements and keys, as OPA's parser") {
    // ast.NewSet keeps the first of equal elements; ast.NewObject keeps the first key
    // term with the value written last. A number written as an integer repeats only
    // numbers written so: 1.0 after 1 is a repeat, 2 after 2.0 is not.
    CHECK(term("{1, 1.0, \"a\", [1], [1.0], \"a\"}") == "(set 1 \"a\" (array 1))");
    CHECK(term("{1: \"a\", 1.0: \"b\", \"k\": \"c\", \"k\": \"d\", x: 1, x: 2}") == "(object 1:\"b\" \"k\":\"d\" x:2)");
    // Several matches: a set finds the first kept element, an object the newest key (OPA 1.7.1).
    CHECK(term("{2.0, 2, 2e0}") == "(set 2.0 2)");
    CHECK(term("{2.0: \"a\", 2: \"b\", 2.00: \"c\"}") == "(object 2.0:\"a\" 2:\"c\")");
    // The dropped value is gone from the program: its calls are never evaluated or checked.
    CHECK(term("{0.1: [y | y := f(1)], 0.1: null}") == "(object 0.1:null)");
    CHECK(term("{f(x), f(x)}") == "(set (f x))");
}

TEST_CASE("a call of any ref, as OPA's parseRef makes it (the compiler then finds no such function)") {
    CHECK(term("[1, 2](1)") == "((ref (array 1 2)) 1)");
    CHECK(term("input[0](x)").rfind("ERROR", 0) != 0);
    CHECK(term("(f(1))(2)").rfind("ERROR", 0) != 0);
    // A call's own `(` ends it; scalars and parenthesised refs head no ref.
    for (const char* t : {"f(1)(2)", "set()(1)", "1(2)", "\"a\"(1)", "(a.b)(1)"})
        CHECK_MESSAGE(term(t).rfind("ERROR", 0) == 0, t);
}
