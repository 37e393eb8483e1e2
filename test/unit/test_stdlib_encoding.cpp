// Builtins of the encoding, time, units, semver, numbers and uuid families:
// edge cases beyond the conformance suite (unicode, big numbers, Go's error
// texts, time zone transitions and rules beyond the zoneinfo tables).

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

#include "runtime/json.hpp"
#include "stdlib/registry.hpp"
#include "stdlib/zoneinfo_embedded.hpp"

namespace {

using gavel::runtime::Value;
using gavel::stdlib::BuiltinContext;
using gavel::stdlib::BuiltinResult;
using Status = BuiltinResult::Status;

BuiltinResult call_in(BuiltinContext& ctx, const std::string& name, const std::vector<std::string>& json_args) {
    const auto* b = gavel::stdlib::standard_registry().find(name);
    REQUIRE_MESSAGE(b != nullptr, name);
    std::vector<Value> args;
    for (const auto& j : json_args) {
        auto parsed = gavel::runtime::parse_json(j);
        REQUIRE_MESSAGE(parsed.ok, j);
        args.push_back(parsed.value);
    }
    return b->impl(args, ctx);
}

std::string describe(const BuiltinResult& r) {
    switch (r.status) {
        case Status::Value: return gavel::runtime::to_json(r.value);
        case Status::Undefined: return "undefined";
        case Status::TypeError: return "type error: " + r.message;
        case Status::BuiltinError: return "error: " + r.message;
        case Status::Conflict: return "conflict: " + r.message;
        case Status::Cancelled: return "cancelled";
    }
    return "?";
}

// The result as JSON, or "error: <message>" / "type error: <message>" / "undefined".
std::string eval(const std::string& name, const std::vector<std::string>& json_args) {
    BuiltinContext ctx;
    return describe(call_in(ctx, name, json_args));
}

}  // namespace

TEST_CASE("stdlib encoding: base64.encode is registered") {
    CHECK(gavel::stdlib::standard_registry().find("base64.encode") != nullptr);
}

TEST_CASE("stdlib encoding: base64 follows Go's padded decoder") {
    CHECK(eval("base64.encode", {R"("")"}) == R"("")");
    CHECK(eval("base64.encode", {R"("é✓")"}) == R"("w6ninJM=")");
    CHECK(eval("base64.decode", {R"("w6ninJM=")"}) == R"("é✓")");
    CHECK(eval("base64.decode", {R"("aGVsbG8=\n")"}) == R"("hello")");  // newlines are skipped
    CHECK(eval("base64.decode", {R"("aGVsbG8")"}) == "error: illegal base64 data at input byte 4");
    CHECK(eval("base64.decode", {R"("aGVs*G8=")"}) == "error: illegal base64 data at input byte 4");
    CHECK(eval("base64.decode", {R"("aGVsbG8=x")"}) == "error: illegal base64 data at input byte 8");
    CHECK(eval("base64.is_valid", {R"("aGVsbG8")"}) == "false");
    CHECK(eval("base64.is_valid", {"1"}) == "false");
    CHECK(eval("base64.encode", {"1"}) == "type error: operand 1 must be string but got number");
}

TEST_CASE("stdlib encoding: base64url pads before decoding") {
    CHECK(eval("base64url.encode", {R"("<<??>>")"}) == R"("PDw_Pz4-")");
    CHECK(eval("base64url.encode_no_pad", {R"("a")"}) == R"("YQ")");
    CHECK(eval("base64url.decode", {R"("PDw_Pz4-")"}) == R"("<<??>>")");
    CHECK(eval("base64url.decode", {R"("YQ")"}) == R"("a")");
    CHECK(eval("base64url.decode", {R"("YWJjZ")"}) == "error: illegal base64url string: YWJjZ");
}

TEST_CASE("stdlib encoding: hex errors read as Go's") {
    CHECK(eval("hex.encode", {R"("é")"}) == R"("c3a9")");
    CHECK(eval("hex.decode", {R"("C3A9")"}) == R"("é")");
    CHECK(eval("hex.decode", {R"("0")"}) == "error: encoding/hex: odd length hex string");
    CHECK(eval("hex.decode", {R"("zz")"}) == "error: encoding/hex: invalid byte: U+007A 'z'");
    CHECK(eval("hex.decode", {R"("0\n")"}) == "error: encoding/hex: invalid byte: U+000A");
}

TEST_CASE("stdlib encoding: urlquery") {
    CHECK(eval("urlquery.encode", {R"("a b&ü~")"}) == R"("a+b%26%C3%BC~")");
    CHECK(eval("urlquery.decode", {R"("a+b%26%C3%BC")"}) == R"("a b&ü")");
    CHECK(eval("urlquery.decode", {R"("%zz")"}) == R"(error: invalid URL escape "%zz")");
    CHECK(eval("urlquery.decode", {R"("abc%4")"}) == R"(error: invalid URL escape "%4")");
    CHECK(eval("urlquery.encode_object", {R"({"b": ["2", "1"], "a": "x y"})"}) == R"("a=x+y&b=2&b=1")");
    // An operand error, as OPA's (eval_type_error).
    CHECK(eval("urlquery.encode_object", {R"({"a": 1})"}) ==
          "type error: operand 1 values must be string, array[string], or set[string]");
    CHECK(eval("urlquery.encode_object", {"[]"}) == "type error: operand 1 must be object but got array");
    {
        // Any key, as OPA's JSON of the object writes it (OPA 1.7.1: {1.1: "a"} -> "1.1=a"); of
        // keys of one text the last in canonical order stays ({1: "n", "1": "s"} -> "1=s").
        BuiltinContext ctx;
        const auto* b = gavel::stdlib::standard_registry().find("urlquery.encode_object");
        REQUIRE(b != nullptr);
        Value keys = Value::object({{Value::integer(1), Value::string("n")},
                                    {Value::string("1"), Value::string("s")},
                                    {Value::array({Value::string("<")}), Value::string("a")},
                                    {Value::boolean(true), Value::string("t")}});
        CHECK(describe(b->impl(std::vector<Value>{keys}, ctx)) == R"("1=s&%5B%22%5Cu003c%22%5D=a&true=t")");
    }
    CHECK(eval("urlquery.decode_object", {R"("a=1&&a=2&b=%41")"}) == R"({"a":["1","2"],"b":["A"]})");
    CHECK(eval("urlquery.decode_object", {R"("a=1;b=2")"}) == "error: invalid semicolon separator in query");
}

TEST_CASE("stdlib encoding: uri.parse follows net/url") {
    CHECK(
        eval("uri.parse", {R"("HTTP://user:pw@Example.com:80/a%20b?q=1&r#fr%20ag")"}) ==
        R"({"fragment":"fr ag","hostname":"Example.com","path":"/a b","port":"80","raw_path":"/a b","raw_query":"q=1&r","scheme":"http"})");
    CHECK(eval("uri.parse", {R"("http://[fe80::1%25en0]:8080/")"}) ==
          R"({"hostname":"fe80::1%en0","path":"/","port":"8080","raw_path":"/","scheme":"http"})");
    CHECK(eval("uri.parse", {R"("/just/a/path")"}) == R"({"path":"/just/a/path","raw_path":"/just/a/path"})");
    CHECK(eval("uri.parse", {R"("1:x")"}) == R"(error: parse "1:x": first path segment in URL cannot contain colon)");
    CHECK(eval("uri.parse", {R"(":x")"}) == R"(error: parse ":x": missing protocol scheme)");
    CHECK(eval("uri.parse", {R"("http://a b.com/")"}) ==
          R"(error: parse "http://a b.com/": invalid character " " in host name)");
    CHECK(eval("uri.parse", {R"("http://x/\u0001")"}) ==
          R"(error: parse "http://x/\x01": net/url: invalid control character in URL)");
    CHECK(eval("uri.is_valid", {R"("http://example.com:80x/")"}) == "false");
    CHECK(eval("uri.is_valid", {"1"}) == "false");
}

TEST_CASE("stdlib encoding: semver precedence") {
    CHECK(eval("semver.compare", {R"("1.0.0-alpha")", R"("1.0.0-alpha.1")"}) == "-1");
    CHECK(eval("semver.compare", {R"("1.0.0-alpha.beta")", R"("1.0.0-alpha.1")"}) == "1");
    CHECK(eval("semver.compare", {R"("1.0.0-2")", R"("1.0.0-10")"}) == "-1");
    CHECK(eval("semver.compare", {R"("1.0.0-rc.1")", R"("1.0.0")"}) == "-1");
    CHECK(eval("semver.compare", {R"("v1.2.3+build.5")", R"("1.2.3")"}) == "0");
    CHECK(eval("semver.compare", {R"("1.0.0-01")", R"("1.0.0-1")"}) == "0");  // numerically equal: no endless loop
    CHECK(eval("semver.compare", {R"("10.0.0")", R"("9.99.99")"}) == "1");
    CHECK(eval("semver.compare", {R"("1.0")", R"("1.0.0")"}) ==
          R"(error: operand 1: string "1.0" is not a valid SemVer)");
    CHECK(eval("semver.is_valid", {R"("1.0.0-a..b")"}) == "false");
    CHECK(eval("semver.is_valid", {R"("99999999999999999999.0.0")"}) == "false");
}

TEST_CASE("stdlib encoding: a long numbers.range stops when the query is cancelled, as OPA's") {
    // No length limit (OPA has none): the deadline and memory limit bound it.
    std::atomic<bool> cancelled{true};
    BuiltinContext ctx;
    ctx.cancel = &cancelled;
    CHECK(call_in(ctx, "numbers.range", {"0", "100000000000"}).status == Status::Cancelled);
    cancelled = false;
    auto r = call_in(ctx, "numbers.range", {"1", "10000001"});  // longer than the old limit
    REQUIRE(r.status == Status::Value);
    CHECK(r.value.array_elements().size() == 10000001);
}

TEST_CASE("stdlib encoding: numbers.range and bits on big integers") {
    CHECK(eval("numbers.range", {"18446744073709551615", "18446744073709551617"}) ==
          "[18446744073709551615,18446744073709551616,18446744073709551617]");
    CHECK(eval("numbers.range_step", {"10", "0", "4"}) == "[10,6,2]");
    CHECK(eval("numbers.range_step", {"0", "1", "0"}) == "error: step must be a positive integer");
    CHECK(eval("numbers.range", {"0", "100000000000000000000"}) == "error: range too large");  // past int64
    CHECK(eval("numbers.range", {R"("a")", "1"}) == "type error: operand 1 must be integer but got string");
    CHECK(eval("bits.and", {"-1", "1180591620717411303424"}) == "1180591620717411303424");
    CHECK(eval("bits.or", {"-8", "3"}) == "-5");
    CHECK(eval("bits.xor", {"-1", "5"}) == "-6");
    CHECK(eval("bits.negate", {"0"}) == "-1");
    CHECK(eval("bits.rsh", {"-5", "1"}) == "-3");  // arithmetic shift, like big.Int.Rsh
    CHECK(eval("bits.rsh", {"5", "100000000000"}) == "0");
    CHECK(eval("bits.lsh", {"1", "70"}) == "1180591620717411303424");
    CHECK(eval("bits.lsh", {"1", "1.5"}) ==
          "type error: operand 2 must be integer number but got floating-point number");
}

TEST_CASE("stdlib encoding: rand.intn and uuid.rfc4122 are stable within one query") {
    BuiltinContext ctx;
    auto a = describe(call_in(ctx, "rand.intn", {R"("k")", "1000000"}));
    CHECK(describe(call_in(ctx, "rand.intn", {R"("k")", "1000000"})) == a);
    CHECK(describe(call_in(ctx, "rand.intn", {R"("k")", "-1000000"})) == a);  // |n| is the bound
    CHECK(eval("rand.intn", {R"("k")", "0"}) == "0");
    auto u = describe(call_in(ctx, "uuid.rfc4122", {R"("x")"}));
    CHECK(describe(call_in(ctx, "uuid.rfc4122", {R"("x")"})) == u);
    REQUIRE(u.size() == 38);
    CHECK(u[15] == '4');                                          // version 4
    CHECK(std::string("89ab").find(u[20]) != std::string::npos);  // RFC 4122 variant
}

TEST_CASE("stdlib encoding: uuid.parse forms and fields") {
    CHECK(eval("uuid.parse", {R"("6BEA8EF2D3D33CD184E09BAB06A52ECE")"}) == R"({"variant":"RFC4122","version":3})");
    CHECK(eval("uuid.parse", {R"("urn:uuid:00000000-0000-4000-c000-000000000000")"}) ==
          R"({"variant":"Microsoft","version":4})");
    CHECK(eval("uuid.parse", {R"("00000000-0000-4000-8000-00000000000")"}) == "undefined");
    CHECK(eval("uuid.parse", {R"("00000000x0000-4000-8000-000000000000")"}) == "undefined");
    // Version 1: 60-bit timestamp, clock sequence and node.
    CHECK(
        eval("uuid.parse", {R"("c232ab00-9414-11ec-b3c8-9f6bdeced846")"}) ==
        R"({"clocksequence":13256,"macvariables":"local:multicast","nodeid":"9f-6b-de-ce-d8-46","time":1645557742000000000,"variant":"RFC4122","version":1})");
}

TEST_CASE("stdlib encoding: units") {
    CHECK(eval("units.parse", {R"("1m")"}) == "0.0010000000");
    CHECK(eval("units.parse", {R"("-1.5Ki")"}) == "-1536");
    CHECK(eval("units.parse", {R"("1e3m")"}) == "1.0000000000");  // milli is the double nearest 0.001
    CHECK(eval("units.parse", {R"("100000000000000000000M")"}) == "100000000000000000000000000");
    CHECK(eval("units.parse", {R"("1x")"}) == "error: units.parse: unit x not recognized");
    CHECK(eval("units.parse", {R"("1MB")"}) == "error: units.parse: unit Mb not recognized");
    CHECK(eval("units.parse_bytes", {R"("100ei")"}) == "115292150460684697600");
    CHECK(eval("units.parse_bytes", {R"("1.1KiB")"}) == "1126");
    CHECK(eval("units.parse_bytes", {R"("-1kb")"}) == "-1000");
    CHECK(eval("units.parse_bytes", {R"("1e-50kb")"}) == "0");
    // 64-bit mantissa: 123456789012345678901 is not exact in a big.Float of precision 64.
    CHECK(eval("units.parse_bytes", {R"("123456789012345678901")"}) == "123456789012345678904");
    CHECK(eval("units.parse_bytes", {R"("1xb")"}) == "error: units.parse_bytes: byte unit xb not recognized");
    CHECK(eval("units.parse_bytes", {R"("1e999999")"}) == "error: units.parse_bytes: exponent too large");
}

TEST_CASE("stdlib encoding: Go durations") {
    CHECK(eval("time.parse_duration_ns", {R"("1.5h")"}) == "5400000000000");
    CHECK(eval("time.parse_duration_ns", {R"("-1m30s")"}) == "-90000000000");
    CHECK(eval("time.parse_duration_ns", {R"("1µs")"}) == "1000");
    CHECK(eval("time.parse_duration_ns", {R"("0")"}) == "0");
    CHECK(eval("time.parse_duration_ns", {R"("-9223372036854775808ns")"}) == "-9223372036854775808");
    CHECK(eval("time.parse_duration_ns", {R"("9223372036854775808ns")"}) ==
          R"(error: time: invalid duration "9223372036854775808ns")");
    CHECK(eval("time.parse_duration_ns", {R"("1")"}) == R"(error: time: missing unit in duration "1")");
    CHECK(eval("time.parse_duration_ns", {R"("1x")"}) == R"(error: time: unknown unit "x" in duration "1x")");
    CHECK(eval("time.parse_duration_ns", {R"("")"}) == R"(error: time: invalid duration "")");
}

TEST_CASE("stdlib encoding: Go layouts when parsing") {
    CHECK(eval("time.parse_ns", {R"("Jan 2 2006 3:04PM")", R"("Feb 3 2013 7:54PM")"}) == "1359921240000000000");
    CHECK(eval("time.parse_ns", {R"("RFC3339")", R"("2024-01-01T00:00:00.5Z")"}) == "1704067200500000000");
    CHECK(eval("time.parse_ns", {R"("2006-01-02 MST")", R"("2024-01-01 PST")"}) == "1704067200000000000");
    CHECK(eval("time.parse_ns", {R"("2006-01-02 -07")", R"("2024-01-01 +01")"}) == "1704063600000000000");
    CHECK(eval("time.parse_ns", {R"("2006-01-02")", R"("2024-02-30")"}) ==
          R"(error: parsing time "2024-02-30": day out of range)");
    CHECK(eval("time.parse_ns", {R"("2006-01-02")", R"("2024-13-01")"}) ==
          R"(error: parsing time "2024-13-01": month out of range)");
    CHECK(eval("time.parse_ns", {R"("2006-01-02")", R"("24-01-01")"}) ==
          R"(error: parsing time "24-01-01" as "2006-01-02": cannot parse "24-01-01" as "2006")");
    CHECK(eval("time.parse_ns", {R"("2006-01-02")", R"("2024-01-01x")"}) ==
          R"(error: parsing time "2024-01-01x": extra text: "x")");
    CHECK(eval("time.parse_ns", {R"("15:04")", R"("10:00")"}) == "error: time outside of valid range");  // year 0
    CHECK(eval("time.parse_rfc3339_ns", {R"("2024-01-01T00:00:00+05:30")"}) == "1704047400000000000");
}

TEST_CASE("stdlib encoding: the embedded time zone database") {
    // Debian's tzdata, minus posix/ and right/: every zone and link name is there.
    CHECK(gavel::stdlib::zoneinfo::embedded_zone_count() > 400);
    CHECK(gavel::stdlib::zoneinfo::embedded_tzdata_version().size() >= 5);  // "2025b"
    CHECK(gavel::stdlib::zoneinfo::embedded_tzif("Europe/Berlin").substr(0, 4) == "TZif");
    CHECK(gavel::stdlib::zoneinfo::embedded_tzif("US/Eastern") ==
          gavel::stdlib::zoneinfo::embedded_tzif("America/New_York"));
    CHECK(gavel::stdlib::zoneinfo::embedded_tzif("Europe/Nowhere").empty());
    CHECK(gavel::stdlib::zoneinfo::embedded_tzif("zone.tab").empty());  // only TZif files
    CHECK(gavel::stdlib::zoneinfo::embedded_tzif("posix/Europe/Berlin").empty());
    // A link is the same zone under its own name.
    CHECK(eval("time.clock", {R"([1710054000000000000, "US/Eastern"])"}) == "[3,0,0]");
}

TEST_CASE("stdlib encoding: time zones") {
    // 2024-03-10T07:00:00Z: New York switches from EST to EDT.
    CHECK(eval("time.clock", {R"([1710053999000000000, "America/New_York"])"}) == "[1,59,59]");
    CHECK(eval("time.clock", {R"([1710054000000000000, "America/New_York"])"}) == "[3,0,0]");
    // 2100 is past the zoneinfo transition tables: the POSIX TZ rule decides.
    CHECK(eval("time.clock", {R"([4118126400000000000, "America/New_York"])"}) == "[8,0,0]");
    CHECK(eval("time.clock", {R"([4102488000000000000, "Australia/Sydney"])"}) == "[23,0,0]");
    CHECK(eval("time.format", {R"([0, "America/New_York", "Mon Jan 2 15:04:05 MST 2006"])"}) ==
          R"("Wed Dec 31 19:00:00 EST 1969")");
    CHECK(eval("time.format", {R"([1500000000123000000, "UTC", "2006-01-02T15:04:05.000000Z07:00 pm __2 002"])"}) ==
          R"("2017-07-14T02:40:00.123000Z am 195 195")");
    CHECK(eval("time.format", {R"([-1, "", "RFC3339Nano"])"}) == R"("1969-12-31T23:59:59.999999999Z")");
    CHECK(eval("time.date", {R"([0, "Nowhere/City"])"}) == "error: unknown time zone Nowhere/City");
    CHECK(eval("time.date", {R"([0, "../etc/passwd"])"}) == "error: time: invalid location name");
    CHECK(eval("time.weekday", {R"("x")"}) ==
          "type error: operand 1 must be either number (ns) or [number (ns), string (tz)] but got string");
    CHECK(eval("time.date", {"1.5"}) == "error: timestamp too big");
}

TEST_CASE("stdlib encoding: add_date and diff") {
    // Jan 31 + 1 month normalises to Mar 3 (2023), as Go's AddDate does.
    CHECK(eval("time.add_date", {"1675123200000000000", "0", "1", "0"}) == "1677801600000000000");
    // Adding a day across a DST change keeps the wall clock in the zone.
    CHECK(eval("time.add_date", {R"([1710003600000000000, "America/New_York"])", "0", "0", "1"}) ==
          "1710086400000000000");
    CHECK(eval("time.add_date", {"0", "1.5", "0", "0"}) ==
          "type error: operand 2 must be integer number but got floating-point number");
    // An integral value written with a fraction or exponent is no integer operand either (OPA's IntOperand).
    CHECK(eval("time.add_date", {"0", "0", "1.0", "0"}) ==
          "type error: operand 3 must be integer number but got floating-point number");
    CHECK(eval("time.add_date", {"0", "0", "0", "1e0"}) ==
          "type error: operand 4 must be integer number but got floating-point number");
    CHECK(eval("time.add_date", {"0", "99999999999", "0", "0"}) == "error: time outside of valid range");
    CHECK(eval("time.diff", {"0", "1000000000"}) == "[0,0,0,0,0,1]");
    CHECK(eval("time.diff", {"1706659200000000000", "1709251200000000000"}) == "[0,1,1,0,0,0]");
}
