// Syntax errors: every error of a file, each at the right line:col, never a crash.

#include <doctest/doctest.h>

#include <string>

#include "lang/parse.hpp"

using gavel::lang::parse_module;
using gavel::lang::parse_query;

TEST_CASE("parsing stops at the first statement that cannot be read, as OPA's parser does") {
    const std::string text =
        "package errors\n"  // 1
        "\n"                // 2
        "a := [1, 2\n"      // 3: unclosed array
        "\n"                // 4
        "b if {\n"          // 5
        "\tx := 1 +\n"      // 6: missing operand
        "}\n"               // 7
        "\n"                // 8
        "c := {\"k\": }\n"  // 9: missing value
        "\n"                // 10
        "d := 4\n";         // 11: fine
    auto r = parse_module("errors.rego", text);
    REQUIRE_FALSE(r.ok());
    // b and c are not read: OPA reports only a's errors (the second, that a's value is unfinished).
    REQUIRE(r.diagnostics.size() == 2);
    CHECK(r.diagnostics.items()[1].message ==
          "unexpected identifier token: expected rule value term (e.g., a := <VALUE> { ... })");
    const auto& e = r.diagnostics.items();
    CHECK(e[0].file == "errors.rego");
    CHECK(e[0].code == "rego_parse_error");
    CHECK(e[0].line == 5);  // the array runs on until `b`, which cannot continue it
    CHECK(e[0].col == 1);
    // OPA's message, and gavel's hint of what could have stood there.
    CHECK(e[0].message == "unexpected identifier token: expected \",\" or \"]\"");  // OPA's note for lists

    // Each of the later statements alone: its own error, where OPA puts it.
    auto b = parse_module("errors.rego", "package errors\n\nb if {\n\tx := 1 +\n}\n\nc := {\"k\": }\n");
    REQUIRE(b.diagnostics.size() == 1);
    CHECK(b.diagnostics.items()[0].line == 5);
    CHECK(b.diagnostics.items()[0].col == 1);
    CHECK(b.diagnostics.items()[0].message == "unexpected } token");
    CHECK(b.diagnostics.items()[0].hint == "expected a term");
    auto c = parse_module("errors.rego", "package errors\n\nc := {\"k\": }\n\nd := 4 +\n");
    REQUIRE(c.diagnostics.size() == 2);  // OPA's second: the value is unfinished
    CHECK(c.diagnostics.items()[0].line == 3);
    CHECK(c.diagnostics.items()[0].col == 12);

    // Two rules each with a misplaced `with`: one error, the first rule's.
    auto w = parse_module("w.rego", "package p\na if { true } with count as 1\nb if { true } with count as 1\n");
    REQUIRE(w.diagnostics.size() == 1);
    CHECK(w.diagnostics.items()[0].message == "unexpected with keyword");
    CHECK(w.diagnostics.items()[0].line == 2);
}

TEST_CASE("error messages name the token found") {
    auto r = parse_module("m.rego", "package p\nx := }\n");
    REQUIRE(r.diagnostics.size() == 2);  // and OPA's "expected rule value term"
    CHECK(r.diagnostics.items()[0].message.rfind("unexpected } token", 0) == 0);
    auto eof = parse_module("m.rego", "package p\nx := [1,");
    REQUIRE(eof.diagnostics.size() == 2);  // and OPA's "expected rule value term"
    CHECK(eof.diagnostics.items()[0].message.rfind("unexpected eof token", 0) == 0);
}

TEST_CASE("an error inside a braced body after if is reported there") {
    // The braces are first read as a set literal (as OPA does), which fails further on.
    auto r = parse_module("m.rego", "package p\np if { x | y, z }\n\nq := 1\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.diagnostics.items()[0].line == 2);
    auto colon = parse_module("m.rego", "package p\nx := {\"a\": 1, \"b\" }\n");
    REQUIRE_FALSE(colon.ok());
    // OPA reads `"b" }` as the start of the second pair's key, whose value it finds missing.
    CHECK(colon.diagnostics.items()[0].message == "unexpected number token: non-terminated object");
}

TEST_CASE("`if {}`: an empty object as the body's one literal, as OPA reads it; an empty body after else") {
    auto object = parse_module("m.rego", "package p\np if {}\nq := 1 if {} # c\n");
    REQUIRE(object.ok());
    REQUIRE(object.module->rules.size() == 2);
    REQUIRE(object.module->rules[0].body.size() == 1);
    CHECK(object.module->rules[0].body[0].term->kind == gavel::lang::TermKind::Object);
    auto after_else = parse_module("m.rego", "package p\np := 1 if false else := 2 if {}\n");
    CHECK_FALSE(after_else.ok());
}

TEST_CASE("a default rule without a value is `true`, as OPA's parseHead makes it; a two-part ref needs one") {
    auto plain = parse_module("m.rego", "package p\ndefault r\ndefault f(x)\ndefault r q := 2\n");
    REQUIRE(plain.ok());
    const auto& r = plain.module->rules[0];
    REQUIRE(r.head.value);
    CHECK(r.head.value->kind == gavel::lang::TermKind::Boolean);
    CHECK(r.head.value->boolean);
    CHECK(r.head.generated_value);
    REQUIRE(plain.module->rules.size() == 4);  // `default r` and `q := 2` on one line are two statements
    for (const char* two : {"package p\ndefault a.b\n", "package p\ndefault a[1]\n"}) {
        for (bool v0 : {false, true}) {
            gavel::lang::ParseOptions po;
            po.v0_compatible = v0;
            auto bad = parse_module("m.rego", two, po);
            REQUIRE(bad.diagnostics.size() == 1);
            CHECK(bad.diagnostics.items()[0].message == "illegal default rule (must have a value)");
        }
    }
    auto multi = parse_module("m.rego", "package p\ndefault p contains 1\n");  // a key is no value
    REQUIRE(multi.diagnostics.size() == 1);
    CHECK(multi.diagnostics.items()[0].message == "illegal default rule (must have a value)");
    auto repeated = parse_module("m.rego", "package p\ndefault f(x, x)\n");
    REQUIRE(repeated.diagnostics.size() == 1);
    CHECK(repeated.diagnostics.items()[0].message == "illegal default rule (arguments cannot be repeated x)");
}

TEST_CASE("`else` needs a value or a body (OPA's parseElse)") {
    for (const char* text : {"package p\np := 1 if { true } else else := 2\n", "package p\np := 1 if { false } else\n",
                             "package p\np := 1 if { false } else 5\n"}) {
        CAPTURE(text);
        auto r = parse_module("m.rego", text);
        REQUIRE(r.diagnostics.size() == 1);
        const std::string& m = r.diagnostics.items()[0].message;
        CHECK(m.ends_with(": expected else value term or rule body"));
    }
    CHECK(parse_module("m.rego", "package p\np := 1 if { false } else := 3\n").ok());
    CHECK(parse_module("m.rego", "package p\np := 1 if { false } else if true\n").ok());
}

TEST_CASE("missing or repeated package") {
    auto none = parse_module("m.rego", "x := 1\n");
    REQUIRE_FALSE(none.ok());
    CHECK(none.diagnostics.items()[0].message == "package expected");
    auto twice = parse_module("m.rego", "package a\npackage b\n");
    REQUIRE_FALSE(twice.ok());
    CHECK(twice.diagnostics.items()[0].line == 2);
    auto empty = parse_module("m.rego", "");
    CHECK_FALSE(empty.ok());
    // OPA's module stage skips a first statement that is no package: only the later ones are
    // judged as rules ("var cannot be used for rule name" on line 2 only).
    auto bare = parse_module("m.rego", "abc\n");
    REQUIRE(bare.diagnostics.size() == 1);
    CHECK(bare.diagnostics.items()[0].message == "package expected");
    auto two = parse_module("m.rego", "abc\ndef\n");
    REQUIRE(two.diagnostics.size() == 2);
    CHECK(two.diagnostics.items()[1].message == "var cannot be used for rule name");
    CHECK(two.diagnostics.items()[1].line == 2);
}

// OPA's parser reads statements from the token stream: a line break does not end one.
TEST_CASE("statements on one line, as OPA takes them") {
    auto r = parse_module("m.rego", "package p x := 1 y := 2\nallow if { true } deny if false\n");
    REQUIRE(r.ok());
    CHECK(r.module->rules.size() == 4);
    // A ; does not separate statements.
    auto semicolon = parse_module("m.rego", "package p\nx := 1; y := 2\n");
    REQUIRE_FALSE(semicolon.ok());
    // Under v0, v1's keywords are names: each bare one is a rule name OPA refuses.
    gavel::lang::ParseOptions v0;
    v0.v0_compatible = true;
    auto keywords = parse_module("m.rego", "package p\ndeny contains msg if {\n\tmsg := 1\n}\n", v0);
    REQUIRE_FALSE(keywords.ok());
    REQUIRE(keywords.diagnostics.items().size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(keywords.diagnostics.items()[i].message == "var cannot be used for rule name");
        CHECK(keywords.diagnostics.items()[i].col == std::vector<uint32_t>{1, 6, 15}[i]);
    }
}

TEST_CASE("a rule head's first [ or ( may follow space, as OPA's parseHead skips it") {
    auto r = parse_module("m.rego", "package p\nsum (a, b) := c if c := a + b\np [x] := 1 if x := 2\n");
    REQUIRE(r.ok());
    REQUIRE(r.module->rules.size() == 2);
    CHECK(r.module->rules[0].head.has_args);
    CHECK(r.module->rules[0].head.args.size() == 2);
    CHECK(r.module->rules[1].head.ref->kind == gavel::lang::TermKind::Ref);
    // A `.` after space starts a number in OPA's scanner: no rule `q.r`.
    CHECK_FALSE(parse_module("m.rego", "package p\nq .r := 1\n").ok());
}

TEST_CASE("not { ... } negates a body only under import future.keywords.not") {
    // Without it, `{5}` is a set and `not` negates the comparison.
    auto plain = parse_module("m.rego", "package p\nr if not {5} < 7\n");
    REQUIRE(plain.ok());
    CHECK(plain.module->rules[0].body[0].negated);
    auto body = parse_module("m.rego", "package p\nimport future.keywords.not\nr if not { x := 1; x > 2 }\n");
    CHECK(body.ok());
}

// OPA's Parse takes package, import and rule statements in any order after the package.
TEST_CASE("imports may follow rules") {
    const std::string text = "package p\nx := 1\nimport data.q.y\nz := y + x\n";
    for (bool v0 : {false, true}) {
        gavel::lang::ParseOptions o;
        o.v0_compatible = v0;
        auto r = parse_module("m.rego", text, o);
        REQUIRE(r.ok());
        CHECK(r.module->imports.size() == 1);
        CHECK(r.module->rules.size() == 2);
    }
}

// OPA's parseImport, regoV1Import and futureImport.
TEST_CASE("import paths OPA refuses") {
    auto message = [](const std::string& text, gavel::lang::ParseOptions o = {}) {
        auto r = parse_module("m.rego", "package p\n" + text + "\n", o);
        if (r.ok()) return std::string("ok");
        const auto& d = r.diagnostics.items()[0];
        return std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.message;
    };
    CHECK(message("import foo") ==
          "2:8 unexpected import path, must begin with one of: {data, future, input, rego}, got: foo (hint: if this "
          "is unexpected, try updating OPA)");
    CHECK(message("import foo.bar as b") ==
          "2:8 unexpected import path, must begin with one of: {data, future, input, rego}, got: foo (hint: if this "
          "is unexpected, try updating OPA)");
    CHECK(message("import rego.foo") == "2:8 invalid import `rego.foo`, must be `rego.v1`");
    CHECK(message("import rego") == "2:8 invalid import `rego`, must be `rego.v1`");
    CHECK(message("import future") == "2:8 invalid import, must be `future.keywords`");
    CHECK(message("import future.keywords.in as k") == "2:8 `future` imports cannot be aliased");
    CHECK(message("import data.foo.if") == "2:17 unexpected import path, must not end with a keyword, got: if");
    CHECK(message("import data.foo.if as x") == "ok");
    CHECK(message("import input") == "ok");
    CHECK(message("import rego.v1 as r") == "ok");  // a no-op in v1
    // OPA reads an alias as a term, where `input` and `data` are refs.
    CHECK(message("import data.foo as input") == "3:0 unexpected eof token: expected var");
    CHECK(message("import data.foo as data\np := 1") == "3:1 unexpected identifier token: expected var");
    CHECK(message("import data.foo as future") == "ok");
    gavel::lang::ParseOptions v0;
    v0.v0_compatible = true;
    CHECK(message("import data.foo.if", v0) == "ok");  // `if` is no keyword of v0
    CHECK(message("import data.foo.with", v0) == "2:17 unexpected import path, must not end with a keyword, got: with");
    CHECK(message("import rego.v1 as r", v0) == "2:8 `rego` imports cannot be aliased");
}

TEST_CASE("default rules need a value and no body") {
    CHECK_FALSE(parse_module("m.rego", "package p\ndefault x if { true }\n").ok());
}

TEST_CASE("unknown future keyword") {
    auto r = parse_module("m.rego", "package p\nimport future.keywords.nope\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.diagnostics.items()[0].message == "unexpected keyword, must be one of [contains every if in]");
}

TEST_CASE("experimental keywords need the option") {
    CHECK_FALSE(parse_module("m.rego", "package p\nimport future.keywords.or\n").ok());
    gavel::lang::ParseOptions o;
    o.experimental_keywords = true;
    CHECK(parse_module("m.rego", "package p\nimport future.keywords.or\np if { a or b }\n", o).ok());
}

namespace {

// prefix, then `depth` openers, `middle`, `depth` closers, then suffix.
std::string nested(const char* prefix, std::size_t depth, char open, const char* middle, char close,
                   const char* suffix) {
    std::string out(prefix);
    out.append(depth, open);
    out.append(middle);
    out.append(depth, close);
    out.append(suffix);
    return out;
}

}  // namespace

TEST_CASE("deep nesting is refused, not a stack overflow") {
    std::string deep = nested("package p\nx := ", 100000, '[', "", ']', "\n");
    auto r = parse_module("deep.rego", deep);
    REQUIRE_FALSE(r.ok());
    CHECK(r.diagnostics.items()[0].message == "max parsing recursion depth exceeded");
    CHECK(r.diagnostics.items()[0].line == 2);

    std::string deep_template = nested("x := ", 60000, '(', "1", ')', "");
    CHECK_FALSE(parse_query(deep_template).ok());

    // Nesting within the limit parses.
    std::string ok = nested("package p\nx := ", 200, '[', "", ']', "\n");
    CHECK(parse_module("ok.rego", ok).ok());
}

TEST_CASE("garbage never crashes and always explains") {
    const char* inputs[] = {"\x01\x02\x03",
                            "package",
                            "package p\n{{{{",
                            "package p\nx := \"\\u12\"",
                            "package p\n$\"{",
                            "package p\n`abc",
                            "package p\nf(x := 1",
                            "package p\nx := [x | ]",
                            "package p\n\xff\xfe",
                            "package p\nsome",
                            "package p\np if true else := 1 if {}",
                            "package p\np if {",
                            "package p\nx := 1 +"};
    for (const char* text : inputs) {
        CAPTURE(text);
        auto r = parse_module("g.rego", text);
        CHECK_FALSE(r.ok());
        CHECK_FALSE(r.diagnostics.empty());
        for (const auto& d : r.diagnostics) CHECK_FALSE(d.message.empty());
    }
}

TEST_CASE("bytes OPA's scanner refuses: invalid UTF-8 and NUL, at the token holding them") {
    auto first = [](const std::string& text) {
        auto r = gavel::lang::parse_module("m.rego", text);
        REQUIRE_FALSE(r.ok());
        const auto& d = r.diagnostics.items().at(0);
        return std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.message;
    };
    CHECK(first("package p\nx := \"a\xff\"\n") == "2:6 illegal utf-8 character");
    CHECK(first("package p\n# note \xc3\n") == "2:1 illegal utf-8 character");
    CHECK(first("package p\nx := `\xed\xa0\x80`\n") == "2:6 illegal utf-8 character");  // a surrogate
    CHECK(first("package p\nx := \"\xc0\xaf\"\n") == "2:6 illegal utf-8 character");    // overlong
    // The byte after a number is read with it: OPA's error points at the number.
    CHECK(first("package p\nx := 1\xf5\n") == "2:6 illegal utf-8 character");
    CHECK(first(std::string("package p\nx := 1", 16) + std::string(1, '\0') + "\n") == "2:6 illegal null character");
    // Valid UTF-8 of every length is fine, in strings, raw strings and comments.
    CHECK(gavel::lang::parse_module(
              "m.rego", "package p\n# caf\xc3\xa9\nx := \"\xe2\x82\xac \xf0\x9f\x98\x80\"\ny := `\xc3\xa9`\n")
              .ok());
    CHECK_FALSE(gavel::lang::parse_query("x := \"\xff\"").ok());
}

TEST_CASE("a body of one empty object is a literal, as in OPA") {
    // OPA's parseRules reads `{}` after `if` as a literal (an empty object, always true).
    for (const char* text : {"package p\np if {}\n", "package p\np if {\n}\n", "package p\np if { {} }\n"}) {
        CAPTURE(text);
        auto r = parse_module("m.rego", text);
        REQUIRE(r.ok());
        REQUIRE(r.module->rules.size() == 1);
        CHECK(r.module->rules[0].body.size() == 1);
    }
}

TEST_CASE("contains names a variable anywhere but in a rule head, as in OPA's parseTerm") {
    for (const char* text : {"package p\nr if { print(contains, \"x\") }\n",
                             "package p\nr if { x := sort([contains ]) }\n", "package p\nr if { contains }\n"}) {
        CAPTURE(text);
        CHECK(parse_module("m.rego", text).ok());
    }
    auto r = parse_module("m.rego", "package p\nr contains x if { x := 1 }\n");
    REQUIRE(r.ok());
    CHECK(r.module->rules[0].head.contains);
}

TEST_CASE("after if, a token that starts no literal is stepped over and a body read to }, as in OPA") {
    // OPA's parseRules falls through from its `if` case to its `{` case, which skips the token there.
    for (const char* text : {"package p\nr if ( true }\n", "package p\nr if if x := 1 }\n",
                             "package p\nr if [\n\tx := 1\n\ty := 2\n}\n", "package p\nr if @ true }\n"}) {
        CAPTURE(text);
        auto r = parse_module("m.rego", text);
        REQUIRE(r.ok());
        CHECK_FALSE(r.module->rules[0].body.empty());
    }
    // A token the scanner refuses is no such token; nor is the end of the text.
    CHECK_FALSE(parse_module("m.rego", "package p\nr if \"abc true }\n").ok());
    CHECK_FALSE(parse_module("m.rego", "package p\no if }\n").ok());
}

TEST_CASE("a keyword is a name before . or [ only where OPA reads it so: literal starts and rule heads") {
    // OPA's parseLiteral and parseRules look one token ahead (scanAheadRef); its parseTerm does not.
    for (const char* text :
         {"package p\nr if { not.x }\n", "package p\nr if {\n\tnot.x == 1\n}\n", "package p\ndefault[x] := 1\n",
          "package p\nw := [x | in[k].y = x]\n", "package p\nr if { not[x] = 1 }\n", "package p\nr if { every[x] }\n",
          "package p\nr if { null[x] }\n", "package p\nr if { input.x; true[1] }\n",
          "package p\nif[x] := 1 if { x := 1 }\n", "package p\nif.x := 1\n"}) {
        CAPTURE(text);
        CHECK(parse_module("m.rego", text).ok());
    }
    for (const char* text : {"package p\nr if { x := not.y }\n", "package p\nq[some.s] := 1 if { true }\n",
                             "package p\nr if { every x, y in if.d.x { true } }\n",
                             "package p\nr if { some x in[1, 2] }\n"}) {  // `in[` reads as a name too
        CAPTURE(text);
        CHECK_FALSE(parse_module("m.rego", text).ok());
    }
    // Inside a term, `null[0]` is an illegal ref, reported once (the set reading tried first
    // after `if` and abandoned keeps none of its errors, as OPA's restore drops them).
    auto r = parse_module("m.rego", "package p\nr if { {null[0]} }\n");
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics.items()[0].message == "illegal ref (head cannot be null)");
}

TEST_CASE("number literals beyond OPA's exponent bound are 'number too big'") {
    // OPA refuses a literal whose binary exponent is beyond +-100,000 (about 1e+-30103).
    // The column is the digits' (OPA reads a sign as a token of its own).
    for (auto [text, col] : {std::pair{"x := 1e30103", 6},
                             {"x := -1e30103", 7},
                             {"x := - 1e30103", 8},
                             {"x := [1, 1e-30104]", 10},
                             {"x := 1e400000", 6},
                             {"x := 12e2147483000", 6}}) {
        CAPTURE(text);
        auto r = parse_query(text);
        REQUIRE_FALSE(r.ok());
        CHECK(r.diagnostics.items()[0].code == "rego_parse_error");
        CHECK(r.diagnostics.items()[0].message == "number too big");
        CHECK(r.diagnostics.items()[0].col == col);
    }
    for (const char* text : {"x := 1e30102", "x := 1e-30103", "x := 0e999999", "x := 0.000001e-30097"}) {
        CAPTURE(text);
        CHECK(parse_query(text).ok());
    }
    // A binary exponent beyond int32 is one Go's big.Float does not read at all.
    auto r = parse_query("x := 12e999999999999");
    REQUIRE_FALSE(r.ok());
    CHECK(r.diagnostics.items()[0].message == "unexpected number token: invalid float");
}

TEST_CASE("else follows only a rule with a body, as in OPA's parseRules") {
    for (const char* text : {"package p\nr := 1 else := 2\n", "package p\ndefault r := 1 else := 2\n",
                             "package p\nf(x) := 1 else := 2\n"}) {
        CAPTURE(text);
        auto r = parse_module("e.rego", text);
        REQUIRE_FALSE(r.ok());
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics.items()[0].message == "unexpected else keyword");
        CHECK(r.diagnostics.items()[0].line == 2);
    }
    CHECK(parse_module("e.rego", "package p\nr := 1 if { true } else := 2\n").ok());
    CHECK(parse_module("e.rego", "package p\nr := 1 if true else := 2\n").ok());
}

TEST_CASE("a rule's else chain comes before its further bodies, as in OPA's parseRules") {
    // Further bodies end the rule: an else after them starts nothing.
    for (const char* text :
         {"package p\nx := 1 if true { y := 1 } else := 2\n", "package p\nx := 1 if { true } { true } else := 2\n"}) {
        CAPTURE(text);
        auto r = parse_module("e.rego", text);
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics.items()[0].message == "unexpected else keyword");
    }
    // A body after an else chain is refused where it stands.
    auto r = parse_module("e.rego", "package p\nx := 1 if { true } else := 2 if { true } { true }\n");
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics.items()[0].message == "expected else keyword");
    CHECK(r.diagnostics.items()[0].col == 42);
    CHECK(parse_module("e.rego", "package p\nx := 1 if true { true } { true }\n").ok());
}

TEST_CASE("a { after an else clause's if opens its body, never a comprehension literal (OPA's parseElse)") {
    // OPA 1.7.1's errors: the braces hold a body, where `x: y` and `x | some` cannot stand.
    auto obj =
        parse_module("e.rego", "package p\n\nv := 1 if {\n\tfalse\n} else = 2 if {x: y | some x, y in {\"a\": 1}}\n");
    REQUIRE(obj.diagnostics.size() == 1);
    CHECK(obj.diagnostics.items()[0].message == "unexpected : token: expected \\n or ; or }");
    CHECK(obj.diagnostics.items()[0].line == 5);
    CHECK(obj.diagnostics.items()[0].col == 17);
    auto set = parse_module("e.rego", "package p\n\nv := 1 if { false } else := 2 if {x | some x in [1]}\n");
    REQUIRE(set.diagnostics.size() == 1);
    CHECK(set.diagnostics.items()[0].message == "unexpected some keyword");
    CHECK(set.diagnostics.items()[0].col == 39);
    CHECK(parse_module("e.rego", "package p\n\nv := 1 if { false } else := 2 if {true}\n").ok());
}

TEST_CASE("a rule value left unfinished is two errors, as OPA's parseHead reports it") {
    struct Case {
        const char* text;
        const char* second;
    };
    for (const Case& c : {
             Case{"package p\nbad := [1,\n",
                  "unexpected eof token: expected rule value term (e.g., bad := <VALUE> { ... })"},
             Case{"package p\nbad contains {1,\n",
                  "unexpected eof token: expected rule key term (e.g., bad contains <VALUE> { ... })"},
             Case{"package p\nf(x) := g(1,\n",
                  "unexpected eof token: expected function value term (e.g., f(...) := <VALUE> { ... })"},
             Case{"package p\na.b[x] := [1, }\n",
                  "unexpected } token: expected rule value term (e.g., a.b[x] := <VALUE> { ... })"},
         }) {
        CAPTURE(c.text);
        auto r = parse_module("v.rego", c.text);
        REQUIRE(r.diagnostics.size() == 2);
        CHECK(r.diagnostics.items()[1].message == c.second);
        CHECK(r.diagnostics.items()[1].line == r.diagnostics.items()[0].line);
    }
    // A value that was finished, and a failure elsewhere, are one error.
    CHECK(parse_module("v.rego", "package p\nbad := [1] +\n").diagnostics.size() == 1);
    CHECK(parse_module("v.rego", "package p\nbad := 1 if { [1, }\n").diagnostics.size() == 1);
}

TEST_CASE("an error the rule grammar reports itself ends the parse there") {
    auto r = parse_module("e.rego", "package p\nr := 1 else := 2\n\ns if { true } with count as 1\n");
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics.items()[0].message == "unexpected else keyword");
}

TEST_CASE("a string left open in a rule body is the scanner's error and the parser's illegal token, as OPA") {
    auto r = parse_module("s.rego", "package p\n\ndeny contains msg if {\n\tmsg := \"open\n}\n\nq := 1 if { [1, }\n");
    REQUIRE(r.diagnostics.size() == 2);
    CHECK(r.diagnostics.items()[0].message == "non-terminated string");
    CHECK(r.diagnostics.items()[1].message == "illegal token");
    CHECK(r.diagnostics.items()[1].line == 4);
    CHECK(r.diagnostics.items()[1].col == 9);
}

TEST_CASE("a ref cannot start at a scalar or a parenthesised ref: OPA's 'illegal ref (head cannot be ...)'") {
    auto errors_of = [](const std::string& text) {
        auto r = parse_module("r.rego", text);
        std::string out;
        for (const auto& d : r.diagnostics.items())
            out += d.message + " @" + std::to_string(d.line) + ":" + std::to_string(d.col) + "\n";
        return out;
    };
    // OPA 1.7.1's errors for these modules.
    CHECK(errors_of("package p\n\nr := [3[0], \"a\".b.c, (input.a).b[1]]\n\ns := null.x\n") ==
          "illegal ref (head cannot be number) @3:7\n"
          "illegal ref (head cannot be string) @3:13\n"
          "illegal ref (head cannot be ref) @3:23\n");
    CHECK(errors_of("package p\n\nr if {\n\tx := true[_]\n\ty := (data.d)[0]\n}\n") ==
          "illegal ref (head cannot be boolean) @4:7\n"
          "illegal ref (head cannot be ref) @5:8\n");
    CHECK(errors_of("package p\n\nr := f(2.5[1])\n\nf(x) := x\n") == "illegal ref (head cannot be number) @3:8\n");
    // A parenthesised `input` or `data` is a ref already.
    CHECK(errors_of("package p\n\nr := [(input).a, (data)[0]]\n") ==
          "illegal ref (head cannot be ref) @3:8\nillegal ref (head cannot be ref) @3:19\n");
    CHECK(errors_of("package p\n\nr := {k: 1 | some k in -1[0]}\n") == "illegal ref (head cannot be number) @3:24\n");
    // Collections, comprehensions, calls and parenthesised non-refs head refs.
    CHECK(parse_module("r.rego",
                       "package p\n\nr := [[1][0], {\"a\": 1}.a, {1}[1], [x | x := 1][0], (1 + 2)[0], (x)[0]]\n")
              .ok());
}

TEST_CASE("an operand that fails after an infix operator: the list around it reports it too, as OPA") {
    // `x * 2` is no single term, so `|` is the union operator and `some` its failed operand;
    // OPA's parser keeps `x * 2` and the array then finds `some` where `,` or `]` should be.
    auto array = parse_module("m.rego", "package p\n\nr if {\n\ty := [x * 2 | some x in [1]]\n}\n");
    REQUIRE(array.diagnostics.size() == 2);
    CHECK(array.diagnostics.items()[0].message == "unexpected some keyword");
    CHECK(array.diagnostics.items()[1].message == "unexpected some keyword: expected \",\" or \"]\"");
    CHECK(array.diagnostics.items()[1].col == array.diagnostics.items()[0].col);
    auto set = parse_module("m.rego", "package p\n\nr if {\n\ty := {x * 2 | some x in [1]}\n}\n");
    REQUIRE(set.diagnostics.size() == 2);
    CHECK(set.diagnostics.items()[1].message == "unexpected some keyword: non-terminated set");
    auto object = parse_module("m.rego", "package p\n\nr if {\n\ty := {\"k\": x * 2 | some x in [1]}\n}\n");
    REQUIRE(object.diagnostics.size() == 2);
    CHECK(object.diagnostics.items()[1].message == "unexpected some keyword: non-terminated object");
    auto call = parse_module("m.rego", "package p\n\nr if {\n\ty := count(a, b * not c)\n}\n");
    REQUIRE(call.diagnostics.size() == 2);
    CHECK(call.diagnostics.items()[1].message == "unexpected not keyword: expected \",\" or \")\"");
    auto paren = parse_module("m.rego", "package p\n\nr if {\n\ty := (x * 2 | some x)\n}\n");
    REQUIRE(paren.diagnostics.size() == 2);
    CHECK(paren.diagnostics.items()[1].message == "non-terminated expression");
    // Each enclosing list whose element failed after an operator adds one.
    auto nested = parse_module("m.rego", "package p\n\nr if {\n\ty := [1 + [a * f(some)]]\n}\n");
    CHECK(nested.diagnostics.size() == 3);
    // A rule's value: the list's error, then the head's.
    auto value = parse_module("m.rego", "package p\n\nr := [x * 2 | some x in [1]]\n");
    REQUIRE(value.diagnostics.size() == 3);
    CHECK(value.diagnostics.items()[2].message ==
          "unexpected some keyword: expected rule value term (e.g., r := <VALUE> { ... })");
    // Not after an operator, or a comprehension (one term before `|`): one error.
    CHECK(parse_module("m.rego", "package p\n\nr if {\n\ty := [x | some]\n}\n").diagnostics.size() == 1);
    CHECK(parse_module("m.rego", "package p\n\nr if {\n\ty := [1 + ]\n}\n").diagnostics.size() == 1);
    CHECK(parse_module("m.rego", "package p\n\nr if {\n\ty := x * 2 | some\n}\n").diagnostics.size() == 1);
    // Inside `some x in ...` OPA reads the declaration again and reports that reading only.
    CHECK(parse_module("m.rego", "package p\n\nr if {\n\tsome x in [b * some]\n}\n").diagnostics.size() == 1);
}

TEST_CASE("a syntax error hides the errors OPA finds only once every statement parsed") {
    // v0 rules in a v1 module are reported (OPA's parseModule checks) ...
    auto v0 = parse_module("m.rego", "package p\n\na[x] {\n\tx := 1\n}\n\nb := 1\n");
    REQUIRE(v0.diagnostics.size() == 2);
    CHECK(v0.diagnostics.items()[0].message == "`if` keyword is required before rule body");
    CHECK(v0.diagnostics.items()[1].message == "`contains` keyword is required for partial set rules");
    // ... but not when a later statement cannot be read: OPA stops at its syntax errors.
    auto broken = parse_module("m.rego", "package p\n\na[x] {\n\tx := 1\n}\n\nb := [1,\n");
    REQUIRE(broken.diagnostics.size() == 2);
    CHECK(broken.diagnostics.items()[0].message == "unexpected eof token");
    CHECK(broken.diagnostics.items()[0].line == 8);
    auto no_package = parse_module("m.rego", "x := 1\n\ny := [1 +\n");
    REQUIRE(no_package.diagnostics.size() == 3);  // the operand, the array, the rule's value: all at the end
    for (const auto& d : no_package.diagnostics.items()) CHECK(d.message != "package expected");
}

TEST_CASE("every's key and value must be variables; `input` and `data` are documents") {
    auto check = [](const char* every, const char* message, int col) {
        auto r = parse_module("m.rego", std::string("package p\n\nr if {\n\t") + every + "\n}\n");
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics.items()[0].message == message);
        CHECK(r.diagnostics.items()[0].line == 4);
        CHECK(r.diagnostics.items()[0].col == col);  // the body's `{`, which OPA does not read
    };
    check("every 1 in [1] { true }", "unexpected { token: expected value to be a variable", 17);
    check("every x.y in [1] { true }", "unexpected { token: expected value to be a variable", 19);
    check("every data in [1] { true }", "unexpected { token: expected value to be a variable", 20);
    check("every input, v in [1] { v }", "unexpected { token: expected key to be a variable", 24);
    check("every k, 1 in [1] { k }", "unexpected { token: expected value to be a variable", 20);
    CHECK(parse_module("m.rego", "package p\n\nr if {\n\tevery k, v in [1] { k; v }\n}\n").ok());
}

TEST_CASE("a statement that is a query, not a rule: OPA's module stage says why, and reads on") {
    auto one = [](const std::string& statement) {
        auto r = parse_module("m.rego", "package p\n\n" + statement + "\n\nb := 1\n");
        return r.diagnostics.size() == 1 ? r.diagnostics.items()[0].message : std::string("several or none");
    };
    CHECK(one("bad := input.x with input as 1") == "expressions using with keyword cannot be used for rule head");
    CHECK(one("p.q with input as 1") == "expressions using with keyword cannot be used for rule head");
    CHECK(one("x := 1; y := 2") == "multiple expressions cannot be used for rule head");
    CHECK(one("not x") == "negated expressions cannot be used for rule head");
    CHECK(one("some x") == "'some' declarations cannot be used for rule head");
    CHECK(one("1 == 2") == "rule name conflicts with built-in function");
    CHECK(one("count(1)") == "rule name conflicts with built-in function");
    CHECK(one("io.jwt.decode(1)") == "rule name conflicts with built-in function");
    CHECK(one("\"str\"") == "string cannot be used for rule name");
    // Errors of the module stage: those of later statements come too (here OPA's v0 checks) ...
    auto v0 = parse_module("m.rego", "package p\n\nnot x\n\na[x] {\n\tx := 1\n}\n");
    CHECK(v0.diagnostics.size() == 3);
    // ... unless the query does not end the statement: then it is a syntax error, the only one.
    auto broken = parse_module("m.rego", "package p\n\nbad := 1 with input as 1 if true\n\na[x] {\n\tx := 1\n}\n");
    CHECK(broken.diagnostics.size() == 1);
}

TEST_CASE("a broken `x := ...` query: a rule's value error unless rules are skipped, as `opa eval` does") {
    gavel::lang::ParseOptions as_server;
    CHECK(parse_query("x := [1,", as_server).diagnostics.size() == 2);  // OPA's server reads it as a rule too
    gavel::lang::ParseOptions as_eval;
    as_eval.skip_rules = true;
    auto one = parse_query("x := [1,", as_eval);
    REQUIRE(one.diagnostics.size() == 1);
    CHECK(one.diagnostics.items()[0].message == "unexpected eof token");
}

TEST_CASE(
    "module-stage errors OPA reports for statements that parse: second package, extra bodies, `contains` as a name") {
    auto messages = [](const std::string& text) {
        std::vector<std::string> out;
        auto parsed = parse_module("m.rego", text);
        for (const auto& d : parsed.diagnostics.items()) out.push_back(d.message);
        return out;
    };
    // A second package is read and refused, and the parse goes on (here to a v0 rule).
    CHECK(messages("package p\n\npackage q\n\na { true }\n") ==
          std::vector<std::string>{"unexpected package", "`if` keyword is required before rule body"});
    // `p { a } { b }` is two rules to OPA: each lacks its `if` (and a partial set its `contains`).
    CHECK(messages("package p\n\nq[x] { x := 1 } { x := 2 }\n").size() == 4);
    CHECK(messages("package p\n\nf(x) { x } { true }\n") ==
          std::vector<std::string>{"`if` keyword is required before function body",
                                   "`if` keyword is required before function body"});
    // `contains` is read as a name where a rule starts; as the whole name it is refused.
    CHECK(messages("package p\n\ncontains[x] { x := 1 }\n") ==
          std::vector<std::string>{"contains keyword cannot be used for rule name",
                                   "`if` keyword is required before rule body",
                                   "`contains` keyword is required for partial set rules"});
    CHECK(messages("package p\n\ncontains := 1\n") ==
          std::vector<std::string>{"contains keyword cannot be used for rule name"});
    CHECK(parse_module("m.rego", "package p\n\ncontains.x := 1\n").ok());
    // An else where none may stand ends the parse, as OPA's parseRules: nothing after it is read.
    CHECK(messages("package p\n\np[x] := 1 if { x := 1 } else := 3\n\nb := [1,\n") ==
          std::vector<std::string>{"else keyword cannot be used on rules with variables in head"});
}

TEST_CASE("a function head cannot take `contains` (it compiled to a rule without a value, and crashed the planner)") {
    auto r = parse_module("m.rego", "package p\np(x) contains 1\n");
    REQUIRE_FALSE(r.ok());
    const auto& d = r.diagnostics.items()[0];
    CHECK(d.message ==
          "unexpected contains keyword: the contains keyword can only be used with multi-value rule definitions (e.g., "
          "p contains <VALUE> { ... })");
    CHECK(d.line == 2);
    CHECK(d.col == 6);
}

TEST_CASE("a head with an empty argument list alone is OPA's query `p()`, which makes no rule") {
    for (const char* alone : {"package p\n\n  p[1]()\n", "package p\np()\n"}) {
        auto r = parse_module("m.rego", alone);
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics.items()[0].message == "rule argument list must take at least one argument");
    }
    auto r = parse_module("m.rego", "package p\n\n  p[1]()\n");
    CHECK(r.diagnostics.items()[0].line == 3);
    CHECK(r.diagnostics.items()[0].col == 3);
    // With a value or a body it is a function of no arguments (gatekeeper-library calls such).
    auto defined = parse_module("m.rego", "package p\nf() := 1\ng() := out if { out = input.a }\n");
    REQUIRE(defined.ok());
    CHECK(defined.module->rules[0].head.has_args);
}

TEST_CASE("without `if` a two-part head is keyed, so it takes no else (OPA's parseRules back-compat)") {
    gavel::lang::ParseOptions v0;
    v0.v0_compatible = true;
    for (const char* text : {"package p\np.q := 1 { true } else := 2\n", "package p\np[1] = 1 { true } else = 2\n"}) {
        auto r = parse_module("m.rego", text, v0);
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics.items()[0].message == "else keyword cannot be used on multi-value rules");
    }
    CHECK(parse_module("m.rego", "package p\np.q := 1 if { true } else := 2\n", v0).ok());
    CHECK(parse_module("m.rego", "package p\np.q.r := 1 { true } else := 2\n", v0).ok());
}

TEST_CASE("a `some` declaration of names takes no `with`; one over a collection does (OPA's parseSome)") {
    auto names = parse_module("m.rego", "package p\nr if { some x with input as 1 }\n");
    REQUIRE_FALSE(names.ok());
    CHECK(names.diagnostics.items()[0].message == "unexpected with keyword: expected \\n or ; or }");
    CHECK(names.diagnostics.items()[0].col == 15);
    CHECK(parse_module("m.rego", "package p\nr if { some x in [1] with input as 1 }\n").ok());
}

TEST_CASE("a head part on the next line starts a statement of its own unless `if`, a body or contains follows") {
    auto r = parse_module("m.rego", "package p\np\n.q := 1\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.diagnostics.items()[0].message == "unexpected identifier token: expected number");
    CHECK(r.diagnostics.items()[0].line == 3);
    CHECK(parse_module("m.rego", "package p\np\n.q := 1 if { true }\n").ok());  // OPA 1.7.1: the rule p.q
    CHECK(parse_module("m.rego", "package p\np\n.q contains 1\n").ok());
}
