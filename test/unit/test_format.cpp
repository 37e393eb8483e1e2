// gavel fmt, construct by construct: each case is a module as someone might
// write it and the text `opa fmt` makes of it.

#include <doctest/doctest.h>

#include <string>

#include "lang/format/format.hpp"

namespace fmt_ = gavel::lang::format;

namespace {

std::string format_v1(const std::string& text) {
    auto r = fmt_::format_module("t.rego", text);
    return r.ok() ? *r.text : "ERROR: " + r.diagnostics.opa_text();
}

std::string format_v0(const std::string& text) {
    fmt_::FormatOptions o;
    o.target = fmt_::TargetVersion::V0;
    o.parse_v0 = true;
    auto r = fmt_::format_module("t.rego", text, o);
    return r.ok() ? *r.text : "ERROR: " + r.diagnostics.opa_text();
}

std::string format_v0_to_v1(const std::string& text) {
    fmt_::FormatOptions o;
    o.target = fmt_::TargetVersion::V0CompatV1;
    o.parse_v0 = true;
    auto r = fmt_::format_module("t.rego", text, o);
    return r.ok() ? *r.text : "ERROR: " + r.diagnostics.opa_text();
}

}  // namespace

TEST_CASE("fmt: package, blank lines and trailing newline") {
    CHECK(format_v1("package   a.b\n\n\n\np := 1\n\n\n") == "package a.b\n\np := 1\n");
    CHECK(format_v1("package a\np := 1") == "package a\n\np := 1\n");
}

TEST_CASE("fmt: comments stay where they were") {
    CHECK(format_v1("# head\npackage a\n\n# about p\np := 1 # trailing   \n\n\n# the end\n") ==
          "# head\npackage a\n\n# about p\np := 1 # trailing\n\n# the end\n");
    CHECK(format_v1("package a\n\np if {\n  # first\n  input.x\n\n  input.y # why\n  # before close\n}\n") ==
          "package a\n\np if {\n\t# first\n\tinput.x\n\n\tinput.y # why\n\t# before close\n}\n");
}

TEST_CASE("fmt: imports are grouped and sorted") {
    CHECK(format_v1("package a\nimport data.z\nimport data.b # why b\n\nimport input.x as y\np := 1\n") ==
          "package a\n\nimport data.b # why b\nimport data.z\n\nimport input.x as y\n\np := 1\n");
}

TEST_CASE("fmt: rule heads") {
    CHECK(format_v1("package a\np contains x if { x := 1 }\n") == "package a\n\np contains x if x := 1\n");
    CHECK(format_v1("package a\np contains x if {\n x := 1 }\n") == "package a\n\np contains x if {\n\tx := 1\n}\n");
    CHECK(format_v1("package a\nf(x,y) := x+y\n") == "package a\n\nf(x, y) := x + y\n");
    CHECK(format_v1("package a\ndefault   allow   :=   false\n") == "package a\n\ndefault allow := false\n");
    CHECK(format_v1("package a\np.q.r := 1\n") == "package a\n\np.q.r := 1\n");
    // A value of `true` is implied by `if`.
    CHECK(format_v1("package a\np := true if { input.x }\n") == "package a\n\np if input.x\n");
}

TEST_CASE("fmt: if bodies: one literal on the head's line stays there") {
    CHECK(format_v1("package a\np if { input.x == 1 }\n") == "package a\n\np if input.x == 1\n");
    CHECK(format_v1("package a\np if {\n input.x == 1 }\n") == "package a\n\np if {\n\tinput.x == 1\n}\n");
    CHECK(format_v1("package a\np if {input.x; input.y}\n") == "package a\n\np if {\n\tinput.x\n\tinput.y\n}\n");
}

TEST_CASE("fmt: adjacent one-liners stay grouped") {
    CHECK(format_v1("package a\np := 1\nq := 2\n\nr := 3\n") == "package a\n\np := 1\nq := 2\n\nr := 3\n");
}

TEST_CASE("fmt: else chains") {
    CHECK(format_v1("package a\np := 1 if {\n input.x\n} else := 2 if {\n input.y\n} else := 3\n") ==
          "package a\n\np := 1 if {\n\tinput.x\n} else := 2 if {\n\tinput.y\n} else := 3\n");
    CHECK(format_v1("package a\np := 1 if {\n input.x\n}\nelse := 2\n") ==
          "package a\n\np := 1 if {\n\tinput.x\n}\n\nelse := 2\n");
}

TEST_CASE("fmt: with chains") {
    CHECK(format_v1("package a\np if {\n f(1)   with input as {}   with data.x as 2\n}\n") ==
          "package a\n\np if {\n\tf(1) with input as {} with data.x as 2\n}\n");
    CHECK(format_v1("package a\np if {\n f(1) with input as {}\n  with data.x as 2\n}\n") ==
          "package a\n\np if {\n\tf(1) with input as {}\n\t\twith data.x as 2\n}\n");
}

TEST_CASE("fmt: every and some") {
    CHECK(format_v1("package a\np if {\n every x in [1,2] { x > 0 }\n some k, v in {\"a\": 1}\n some y\n}\n") ==
          "package a\n\np if {\n\tevery x in [1, 2] { x > 0 }\n\tsome k, v in {\"a\": 1}\n\tsome y\n}\n");
    CHECK(format_v1("package a\np if {\n every x in input.xs {\n  x > 0\n  x < 9 }\n}\n") ==
          "package a\n\np if {\n\tevery x in input.xs {\n\t\tx > 0\n\t\tx < 9\n\t}\n}\n");
}

TEST_CASE("fmt: composites keep their line breaks") {
    CHECK(format_v1("package a\nx := [1,2,3]\n") == "package a\n\nx := [1, 2, 3]\n");
    CHECK(format_v1("package a\nx := [\n1,2,\n3]\n") == "package a\n\nx := [\n\t1, 2,\n\t3,\n]\n");
    CHECK(format_v1("package a\nx := {\"a\":1,\n\"b\":{2,3}}\n") ==
          "package a\n\nx := {\n\t\"a\": 1,\n\t\"b\": {2, 3},\n}\n");
    CHECK(format_v1("package a\nx := set()\n") == "package a\n\nx := set()\n");
    // A break after the opening bracket alone makes it multi-line too.
    CHECK(format_v1("package a\nx := [\n  1, 2]\n") == "package a\n\nx := [\n\t1, 2,\n]\n");
}

TEST_CASE("fmt: calls keep their line breaks") {
    CHECK(format_v1("package a\nx := sprintf(\"%v\",\n[1])\n") == "package a\n\nx := sprintf(\n\t\"%v\",\n\t[1],\n)\n");
}

TEST_CASE("fmt: comprehensions") {
    CHECK(format_v1("package a\nx := [y|y:=input[_]]\n") == "package a\n\nx := [y | y := input[_]]\n");
    CHECK(format_v1("package a\nx := {k: v | some k, v in input}\n") ==
          "package a\n\nx := {k: v | some k, v in input}\n");
    CHECK(format_v1("package a\nx := {y |\n y := input[_]\n y > 1\n}\n") ==
          "package a\n\nx := {y |\n\ty := input[_]\n\ty > 1\n}\n");
}

TEST_CASE("fmt: infix operators and parentheses") {
    CHECK(format_v1("package a\nx := 1+2*3\n") == "package a\n\nx := 1 + (2 * 3)\n");
    CHECK(format_v1("package a\nx := (1+2)*3\n") == "package a\n\nx := (1 + 2) * 3\n");
    CHECK(format_v1("package a\nx := (1+2)\n") == "package a\n\nx := 1 + 2\n");
    CHECK(format_v1("package a\np if equal(1, 1)\n") == "package a\n\np if 1 == 1\n");
    CHECK(format_v1("package a\np if plus(1, 2, x)\n") == "package a\n\np if x = 1 + 2\n");
    CHECK(format_v1("package a\nu := {\"r\": (a | b)}\n") == "package a\n\nu := {\"r\": (a | b)}\n");
}

TEST_CASE("fmt: not") {
    CHECK(format_v1("package a\np if {\n  not   input.x\n}\n") == "package a\n\np if {\n\tnot input.x\n}\n");
}

TEST_CASE("fmt: strings and numbers are kept as written") {
    CHECK(format_v1("package a\nx := \"a\\u0041\\n\"\ny := `raw\\n`\nz := 1.50e3\n") ==
          "package a\n\nx := \"a\\u0041\\n\"\ny := `raw\\n`\nz := 1.50e3\n");
    CHECK(format_v1("package a\nx := input[\"a-b\"].c[\"d\"]\n") == "package a\n\nx := input[\"a-b\"].c.d\n");
}

TEST_CASE("fmt: METADATA blocks") {
    const std::string in = "# METADATA\n# title: pkg\npackage a\n\n# METADATA\n# title: p\n# description: d\np := 1\n";
    CHECK(format_v1(in) == in);
}

TEST_CASE("fmt: v0 keeps v0") {
    CHECK(format_v0("package a\np[x] { x := input[_] }\nq = 1 { true }\n") ==
          "package a\n\np[x] {\n\tx := input[_]\n}\n\nq = 1\n");
}

TEST_CASE("fmt: --v0-v1 adds if, contains and rego.v1") {
    CHECK(format_v0_to_v1("package a\nimport future.keywords.in\np[x] { x := input[_] }\nq = 1 { input.y }\n") ==
          "package a\n\nimport rego.v1\n\np contains x if x := input[_]\nq := 1 if input.y\n");
}

TEST_CASE("fmt: a module that does not parse is an error") {
    CHECK(format_v1("package a\np if {\n").starts_with("ERROR: 1 error occurred: t.rego:"));
    // v0 in v1 mode.
    CHECK(format_v1("package a\np { true }\n").starts_with("ERROR:"));
    CHECK(format_v0("package a\np if { true }\n").starts_with("ERROR:"));
}

TEST_CASE("fmt: a term copied as written (a comment inside it) loses nothing after it") {
    // OPA 1.18's writer drops the `with` and the later comments here (opa issue 8765); gavel keeps them.
    const std::string text =
        "package p\n\ntest_a if {\n\tf(x, {{\n\t\t\"code\": 1,\n\t\t# a comment\n\t\t\"msg\": 2,\n\t}}) with input as "
        "1\n"
        "\t\twith data.x as 2\n}\n\n# later comment\ntest_b if {\n\tinput.y\n}\n";
    CHECK(format_v1(text) == text);
}
