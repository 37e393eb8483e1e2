// Diagnostics print as file:line:col: code: message, with the line and a caret.

#include <doctest/doctest.h>

#include "lang/diagnostics.hpp"
#include "lang/parse.hpp"

using namespace gavel::lang;

TEST_CASE("headline and caret") {
    auto r = parse_module("a/b.rego", "package p\n\nx := [1,\n\ty := 2\n");
    REQUIRE(r.diagnostics.size() == 2);  // OPA's second: "... expected rule value term"
    const auto& d = r.diagnostics.items()[0];
    CHECK(d.headline().rfind("a/b.rego:4:4: rego_parse_error: unexpected assign token: expected \",\" or \"]\"", 0) ==
          0);
    std::string pretty = d.pretty();
    // As OPA: the line without its leading tabs, the caret placed with spaces.
    CHECK(pretty.find("\n\ty := 2\n\t  ^") != std::string::npos);
}

TEST_CASE("several diagnostics are counted") {
    Diagnostics ds;
    Diagnostic a;
    a.code = "rego_parse_error";
    a.message = "one";
    ds.add(a);
    CHECK(ds.format() == "rego_parse_error: one\n");
    ds.add(a);
    CHECK(ds.format().rfind("2 errors occurred:\n", 0) == 0);
}

TEST_CASE("line and column from offsets") {
    Source s("f", "ab\ncd\n\nef");
    CHECK(s.line_col(0) == std::pair<uint32_t, uint32_t>{1, 1});
    CHECK(s.line_col(4) == std::pair<uint32_t, uint32_t>{2, 2});
    CHECK(s.line_col(7) == std::pair<uint32_t, uint32_t>{4, 1});
    CHECK(s.line_text(2) == "cd");
    CHECK(s.line_text(3) == "");
    CHECK(s.line_text(9) == "");
}

TEST_CASE("a long source line is cut around the column, on character boundaries, so the caret stays in view") {
    using gavel::lang::excerpt_line;
    auto short_line = excerpt_line("x := 1", 6);
    CHECK(short_line.text == "x := 1");
    CHECK(short_line.caret == 5);

    std::string long_line = "x := " + std::string(5000, 'a') + "!" + std::string(5000, 'b');
    auto cut = excerpt_line(long_line, 5006);  // the '!'
    CHECK(cut.text.size() <= 160 + 6);
    CHECK(cut.text.rfind("...", 0) == 0);
    CHECK(cut.text.substr(cut.text.size() - 3) == "...");
    CHECK(cut.text[cut.caret] == '!');

    // Near the start: nothing cut before.
    auto start = excerpt_line(long_line, 3);
    CHECK(start.text.rfind("x := a", 0) == 0);
    CHECK(start.caret == 2);

    // Multi-byte characters are never split.
    std::string wide;
    for (int i = 0; i < 500; ++i) wide += "\xc3\xa9";  // é
    auto utf8 = excerpt_line(wide, 501);
    std::string body = utf8.text.substr(3, utf8.text.size() - 6);
    CHECK(body.size() % 2 == 0);
    CHECK(static_cast<unsigned char>(body[0]) == 0xc3);

    gavel::lang::Diagnostic d;
    d.code = "rego_parse_error";
    d.message = 'm';
    d.line = 1;
    d.col = 5006;
    d.source_line = long_line;
    CHECK(d.pretty().size() < 400);
}
