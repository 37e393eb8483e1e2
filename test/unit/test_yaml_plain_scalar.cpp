// lang/yaml_plain_scalar and support/go_float: how a plain YAML scalar resolves under each Go
// library's rules, and a float64 spelt as Go spells it. Expected values are what OPA 1.7.1
// printed for the same scalars (`opa parse` of a METADATA block's custom values, and
// rego.metadata.rule() of it, which differ only in how floats are spelt).

#include <doctest/doctest.h>

#include <string>

#include "lang/yaml_plain_scalar.hpp"
#include "support/go_float.hpp"

using namespace gavel::lang::yaml;
using gavel::support::go_format_g;
using gavel::support::go_json_float;

namespace {

std::string show(std::string_view s, Typing typing) {
    PlainScalar r = resolve_plain_scalar(s, typing);
    switch (r.kind) {
        case PlainScalar::Kind::Null: return "null";
        case PlainScalar::Kind::Boolean: return r.boolean ? "true" : "false";
        case PlainScalar::Kind::Integer: return "int " + r.text;
        case PlainScalar::Kind::Float: return "float " + r.text;
        case PlainScalar::Kind::NotFinite: return "error " + r.text;
        case PlainScalar::Kind::Timestamp: return "time " + r.text;
        case PlainScalar::Kind::String: return "string";
    }
    return "?";
}

}  // namespace

TEST_CASE("yaml plain scalars: go-yaml v2 and v3 differ in booleans and timestamps only") {
    for (Typing t : {Typing::SigsK8sYaml, Typing::GoYamlV3, Typing::GoYamlV3Values}) {
        CHECK(show("", t) == "null");
        CHECK(show("~", t) == "null");
        CHECK(show("NULL", t) == "null");
        CHECK(show("True", t) == "true");
        CHECK(show("FALSE", t) == "false");
        CHECK(show("0x10", t) == "int 16");
        CHECK(show("1_000", t) == "int 1000");
        CHECK(show("0o17", t) == "int 15");
        CHECK(show("012", t) == "int 10");
        CHECK(show("0b101", t) == "int 5");
        CHECK(show("+12", t) == "int 12");
        CHECK(show("-0", t) == "int 0");
        CHECK(show("18446744073709551615", t) == "int 18446744073709551615");
        CHECK(show("-9223372036854775808", t) == "int -9223372036854775808");
        CHECK(show(".nan", t) == "error json: unsupported value: NaN");
        CHECK(show("-.inf", t) == "error json: unsupported value: -Inf");
        CHECK(show("1e400", t) == "string");
        CHECK(show("0x", t) == "string");
        CHECK(show("abc", t) == "string");
    }
    CHECK(show("yes", Typing::SigsK8sYaml) == "true");
    CHECK(show("off", Typing::SigsK8sYaml) == "false");
    CHECK(show("yes", Typing::GoYamlV3) == "string");
    CHECK(show("y", Typing::GoYamlV3Values) == "string");
    // v2 keeps a timestamp's text (sigs.k8s.io/yaml), v3 decodes a time.Time that JSON writes.
    CHECK(show("2001-12-14", Typing::SigsK8sYaml) == "string");
    CHECK(show("2001-12-14", Typing::GoYamlV3) == "time 2001-12-14T00:00:00Z");
    CHECK(show("2001-1-4", Typing::GoYamlV3) == "time 2001-01-04T00:00:00Z");
    CHECK(show("0001-01-01", Typing::GoYamlV3) == "time 0001-01-01T00:00:00Z");
    CHECK(show("2001-12-14t21:59:43.10-05:00", Typing::GoYamlV3) == "time 2001-12-14T21:59:43.1-05:00");
    CHECK(show("2001-12-14 21:59:43.10", Typing::GoYamlV3) == "time 2001-12-14T21:59:43.1Z");
    CHECK(show("2001-12-14T21:59:43+00:00", Typing::GoYamlV3) == "time 2001-12-14T21:59:43Z");
    CHECK(show("2001-12-14t1:2:3.000-00:00", Typing::GoYamlV3) == "time 2001-12-14T01:02:03Z");
    CHECK(show("2001-12-14T21:59:43.1234567891Z", Typing::GoYamlV3) == "time 2001-12-14T21:59:43.123456789Z");
    CHECK(show("2001-12-14T21:59:43,5Z", Typing::GoYamlV3) == "time 2001-12-14T21:59:43.5Z");
    CHECK(show("2000-02-29", Typing::GoYamlV3) == "time 2000-02-29T00:00:00Z");
    // Not a date and time go-yaml v3 parses: the text stays.
    for (const char* s :
         {"2001-02-30", "1900-02-29", "2001-13-01", "12001-01-01", "2001-1-1T24:00:00Z", "2001-12-14T21:59:60Z",
          "2001-12-14T21:59:43.Z", "2001-12-14T1:2:3", "2001-12-14 21:59:43.10 -5"})
        CHECK_MESSAGE(show(s, Typing::GoYamlV3) == "string", s);
}

TEST_CASE("yaml plain scalars: floats spelt as JSON writes them, or as ast.InterfaceToValue does") {
    CHECK(show("1e3", Typing::GoYamlV3) == "float 1000");
    CHECK(show("1e3", Typing::GoYamlV3Values) == "float 1000");
    CHECK(show("99999999999999999999", Typing::GoYamlV3) == "float 100000000000000000000");
    CHECK(show("99999999999999999999", Typing::GoYamlV3Values) == "float 1e+20");
    CHECK(show("1e-7", Typing::SigsK8sYaml) == "float 1e-7");
    CHECK(show("1e-7", Typing::GoYamlV3Values) == "float 1e-07");
    CHECK(show("1234567.0", Typing::GoYamlV3) == "float 1234567");
    CHECK(show("1234567.0", Typing::GoYamlV3Values) == "float 1.234567e+06");
    CHECK(show("0.000001", Typing::GoYamlV3) == "float 0.000001");
    CHECK(show("0.000001", Typing::GoYamlV3Values) == "float 1e-06");
    CHECK(show(".5", Typing::GoYamlV3) == "float 0.5");
    CHECK(show("-0.0", Typing::GoYamlV3Values) == "float -0");
    CHECK(show("1e21", Typing::GoYamlV3) == "float 1e+21");
}

TEST_CASE("go floats: strconv's 'g' and encoding/json's form") {
    CHECK(go_format_g(0.0) == "0");
    CHECK(go_format_g(-0.0) == "-0");
    CHECK(go_format_g(100000.0) == "100000");
    CHECK(go_format_g(1000000.0) == "1e+06");
    CHECK(go_format_g(0.0001) == "0.0001");
    CHECK(go_format_g(0.00001) == "1e-05");
    CHECK(go_format_g(1.5e300, true) == "1.5E+300");
    CHECK(go_format_g(0.1 + 0.2) == "0.30000000000000004");
    CHECK(go_json_float(18446744073709551616.0) == "18446744073709552000");  // the shortest digits, then zeros
    CHECK(go_json_float(1e20) == "100000000000000000000");
    CHECK(go_json_float(1e21) == "1e+21");
    CHECK(go_json_float(1e-7) == "1e-7");
    CHECK(go_json_float(1.5e-10) == "1.5e-10");
    CHECK(go_json_float(0.000001) == "0.000001");
    CHECK(go_json_float(-0.0) == "-0");
}
