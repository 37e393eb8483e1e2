// Syntax errors: every error of a file, each at the right line:col, never a crash.

#include <doctest/doctest.h>

#include <string>

#include "lang/parse.hpp"

using gavel::lang::parse_module;
using gavel::lang::parse_query;

TEST_CASE("three syntax errors are all reported with line:col") {
    const std::string text =
        "package errors\n"          // 1
        "\n"                        // 2
        "a := [1, 2\n"              // 3: unclosed array
        "\n"                        // 4
        "b if {\n"                  // 5
        "\tx := 1 +\n"              // 6: missing operand
        "}\n"                       // 7
        "\n"                        // 8
        "c := {\"k\": }\n"          // 9: missing value
        "\n"                        // 10
        "d := 4\n";                 // 11: fine
    auto r = parse_module("errors.rego", text);
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.diagnostics.size() == 3);
    const auto& e = r.diagnostics.items();
    CHECK(e[0].file == "errors.rego");
    CHECK(e[0].code == "rego_parse_error");
    CHECK(e[0].line == 5);  // the array runs on until `b`, which cannot continue it
    CHECK(e[0].col == 1);
    CHECK(e[1].line == 7);
    CHECK(e[1].col == 1);
    CHECK(e[0].message == "unexpected ident token: expected , or ] (or an operator)");
    CHECK(e[1].message == "unexpected } token: expected a term");
    CHECK(e[2].line == 9);
    CHECK(e[2].col == 12);
}

TEST_CASE("error messages name the token found") {
    auto r = parse_module("m.rego", "package p\nx := }\n");
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics.items()[0].message.rfind("unexpected } token", 0) == 0);
    auto eof = parse_module("m.rego", "package p\nx := [1,");
    REQUIRE(eof.diagnostics.size() == 1);
    CHECK(eof.diagnostics.items()[0].message.rfind("unexpected eof token", 0) == 0);
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
}

TEST_CASE("two statements on one line are an error") {
    auto r = parse_module("m.rego", "package p\nx := 1 y := 2\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.diagnostics.items()[0].col == 8);
}

TEST_CASE("imports come before rules") {
    auto r = parse_module("m.rego", "package p\nx := 1\nimport data.y\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.diagnostics.items()[0].message.find("import must come before rules") != std::string::npos);
}

TEST_CASE("default rules need a value and no body") {
    CHECK_FALSE(parse_module("m.rego", "package p\ndefault x if { true }\n").ok());
}

TEST_CASE("unknown future keyword") {
    auto r = parse_module("m.rego", "package p\nimport future.keywords.nope\n");
    REQUIRE_FALSE(r.ok());
    CHECK(r.diagnostics.items()[0].message.find("nope") != std::string::npos);
}

TEST_CASE("experimental keywords need the option") {
    CHECK_FALSE(parse_module("m.rego", "package p\nimport future.keywords.or\n").ok());
    gavel::lang::ParseOptions o;
    o.experimental_keywords = true;
    CHECK(parse_module("m.rego", "package p\nimport future.keywords.or\np if { a or b }\n", o).ok());
}

namespace {

// prefix, then `depth` openers, `middle`, `depth` closers, then suffix.
std::string nested(const char* prefix, std::size_t depth, char open, const char* middle, char close, const char* suffix) {
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
    CHECK(r.diagnostics.items()[0].message.find("nesting deeper than") != std::string::npos);
    CHECK(r.diagnostics.items()[0].line == 2);

    std::string deep_template = nested("x := ", 5000, '(', "1", ')', "");
    CHECK_FALSE(parse_query(deep_template).ok());

    // Nesting within the limit parses.
    std::string ok = nested("package p\nx := ", 200, '[', "", ']', "\n");
    CHECK(parse_module("ok.rego", ok).ok());
}

TEST_CASE("garbage never crashes and always explains") {
    const char* inputs[] = {"\x01\x02\x03",     "package",         "package p\n{{{{",    "package p\nx := \"\\u12\"",
                            "package p\n$\"{", "package p\n`abc", "package p\nf(x := 1", "package p\nx := [x | ]",
                            "package p\n\xff\xfe", "package p\nsome", "package p\np if {}", "package p\nx := 1 +"};
    for (const char* text : inputs) {
        CAPTURE(text);
        auto r = parse_module("g.rego", text);
        CHECK_FALSE(r.ok());
        CHECK_FALSE(r.diagnostics.empty());
        for (const auto& d : r.diagnostics) CHECK_FALSE(d.message.empty());
    }
}
