// Request bodies read as Go's json.Decoder reads them (runtime/go_json_decode): a valid
// body is read at once, anything the reader refuses goes through Go's scanner for Go's
// own error text. Both ways must agree with Go; the texts are encoding/json's.

#include <doctest/doctest.h>

#include <string>

#include "runtime/go_json_decode.hpp"
#include "runtime/json.hpp"

using gavel::runtime::go_decode;
using gavel::runtime::go_unmarshal;
using gavel::runtime::to_json;

TEST_CASE("go_decode: one valid value is read whole, surrounding space ignored") {
    auto d = go_decode(" \n{\"a\": [1, 2.5, \"x\"], \"b\": null}\t ");
    REQUIRE(d.ok);
    CHECK(to_json(d.value) == R"({"a":[1,2.5,"x"],"b":null})");
    auto u = go_unmarshal("{\"a\": true}  ");
    REQUIRE(u.ok);
    CHECK(to_json(u.value) == R"({"a":true})");
}

TEST_CASE("go_decode: the first of several values; go_unmarshal refuses what follows") {
    auto d = go_decode("{\"a\": 1} {\"b\": 2}");
    REQUIRE(d.ok);
    CHECK(to_json(d.value) == R"({"a":1})");
    auto u = go_unmarshal("{\"a\": 1} {\"b\": 2}");
    CHECK_FALSE(u.ok);
    CHECK(u.error == "error: invalid character '{' after top-level value");
}

TEST_CASE("go_decode: what Go refuses is refused with Go's words") {
    auto bom = go_decode("\xEF\xBB\xBF{}");  // Go does not skip a byte order mark
    CHECK_FALSE(bom.ok);
    CHECK(bom.error == "invalid character '\xC3\xAF' looking for beginning of value");
    auto control = go_decode("{\"a\": \"x\x01y\"}");
    CHECK_FALSE(control.ok);
    CHECK(control.error == "invalid character '\\x01' in string literal");
    auto cut = go_decode("{\"a\": [1, 2");
    CHECK_FALSE(cut.ok);
    CHECK(cut.error == "unexpected EOF");
    auto nothing = go_decode("  \n");
    CHECK_FALSE(nothing.ok);
    CHECK(nothing.eof);
    CHECK(nothing.error == "EOF");
}

TEST_CASE("go_decode: invalid UTF-8 in a string is read as U+FFFD, as Go does") {
    auto d = go_decode("{\"a\": \"x\xFFy\"}");
    REQUIRE(d.ok);
    CHECK(to_json(d.value) == "{\"a\":\"x\xEF\xBF\xBDy\"}");
}
