// Diagnostics print as file:line:col: code: message, with the line and a caret.

#include <doctest/doctest.h>

#include "lang/diagnostics.hpp"
#include "lang/parse.hpp"

using namespace gavel::lang;

TEST_CASE("headline and caret") {
    auto r = parse_module("a/b.rego", "package p\n\nx := [1,\n\ty := 2\n");
    REQUIRE(r.diagnostics.size() == 1);
    const auto& d = r.diagnostics.items()[0];
    CHECK(d.headline().rfind("a/b.rego:4:4: rego_parse_error: unexpected := token", 0) == 0);
    std::string pretty = d.pretty();
    CHECK(pretty.find("\n\t\ty := 2\n\t\t  ^") != std::string::npos);
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
