// Builtins of the strings, regex, glob and casts families: edge cases beyond
// the conformance suite (unicode, Go's fmt forms, big numbers, errors).

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "runtime/json.hpp"
#include "stdlib/registry.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

using gavel::runtime::Value;
using gavel::stdlib::BuiltinResult;
using Status = BuiltinResult::Status;

// Calls builtin `name` with operands given as JSON texts.
BuiltinResult call(const std::string& name, const std::vector<std::string>& json_args) {
    const auto* b = gavel::stdlib::standard_registry().find(name);
    REQUIRE_MESSAGE(b != nullptr, name);
    std::vector<Value> args;
    for (const auto& j : json_args) {
        auto parsed = gavel::runtime::parse_json(j);
        REQUIRE_MESSAGE(parsed.ok, j);
        args.push_back(parsed.value);
    }
    gavel::stdlib::BuiltinContext ctx;
    return b->impl(args, ctx);
}

// The result as JSON, or "error: <message>" / "undefined".
std::string eval(const std::string& name, const std::vector<std::string>& json_args) {
    auto r = call(name, json_args);
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

std::string fmt_go(const std::string& format, const std::string& args_json) {
    auto r = call("sprintf", {"\"" + format + "\"", args_json});
    REQUIRE(r.status == Status::Value);
    return std::string(r.value.as_string());
}

}  // namespace

TEST_CASE("stdlib strings: sprintf is registered") {
    CHECK(gavel::stdlib::standard_registry().find("sprintf") != nullptr);
}

TEST_CASE("stdlib strings: sprintf follows Go's fmt for each operand type") {
    CHECK(fmt_go("%d|%5d|%-5d|%05d|%+d", "[42, 42, 42, -42, 42]") == "42|   42|42   |-0042|+42");
    CHECK(fmt_go("%x|%X|%o|%O|%b|%#x|%#o", "[255, 255, 8, 8, 5, 255, 8]") == "ff|FF|10|0o10|101|0xff|010");
    CHECK(fmt_go("%.2f|%e|%g|%v", "[3.14159, 1234.5678, 0.00001, 2.5]") == "3.14|1.234568e+03|1e-05|2.5");
    CHECK(fmt_go("%s|%q|%x|%.2s|%5.1s|", "[\"héllo\", \"a\\\"b\", \"hi\", \"héllo\", \"xyz\"]") ==
          "héllo|\"a\\\"b\"|6869|hé|    x|");
    CHECK(fmt_go("%c|%U|%q", "[955, 955, 955]") == "λ|U+03BB|'λ'");
    // Private use is not printable to Go; an invalid rune is U+FFFD, which is (OPA 1.7.1's texts).
    CHECK(fmt_go("%q|%q|%q|%q|%+q|%q", "[1000000, 55296, 1114112, 57344, 55296, 65533]") ==
          "'\\U000f4240'|'\xef\xbf\xbd'|'\xef\xbf\xbd'|'\\ue000'|'\\ufffd'|'\xef\xbf\xbd'");
    // Nor are format characters and the spaces glibc does not call spaces (OPA 1.7.1's texts).
    CHECK(fmt_go("%q|%q|%q|%q", "[8203, 8199, 65279, 917505]") == "'\\u200b'|'\\u2007'|'\\ufeff'|'\\U000e0001'");
    // Non-number, non-string values arrive as their Rego text, i.e. Go strings.
    CHECK(fmt_go("%v|%s|%d", "[[1, \"a\"], {\"k\": null}, true]") == "[1, \"a\"]|{\"k\": null}|%!d(string=true)");
    CHECK(fmt_go("%T %T %T %T", "[1, 1.5, \"s\", 123456789012345678901234567890]") == "int float64 string *big.Int");
}

TEST_CASE("stdlib strings: sprintf's %#v writes a float as %v does (OPA 1.7.1's texts)") {
    CHECK(fmt_go("%#v|%v|%#v|%#v|%#v", "[1234567.5, 1234567.5, 1.5e20, 123456.5, -1000000.3]") ==
          "1.2345675e+06|1.2345675e+06|1.5e+20|123456.5|-1.0000003e+06");
}

TEST_CASE("stdlib strings: sprintf error forms are Go's") {
    CHECK(fmt_go("%d %s", "[1]") == "1 %!s(MISSING)");
    CHECK(fmt_go("x", "[1, \"y\"]") == "x%!(EXTRA int=1, string=y)");
    CHECK(fmt_go("%!", "[1]") == "%!!(int=1)");
    CHECK(fmt_go("100%", "[]") == "100%!(NOVERB)");
    CHECK(fmt_go("%[3]d", "[1]") == "%!d(BADINDEX)");
    CHECK(fmt_go("%f", "[\"s\"]") == "%!f(string=s)");
    CHECK(fmt_go("%%|%[2]d %[1]d", "[1, 2]") == "%|2 1");
    CHECK(fmt_go("%*d|", "[4, 7]") == "   7|");
}

TEST_CASE("stdlib strings: sprintf with only string operands and %v/%s (the fast path) prints as Go") {
    CHECK(fmt_go("image '%v' comes from %s registry", "[\"nginx\", \"untrusted\"]") ==
          "image 'nginx' comes from untrusted registry");
    CHECK(fmt_go("100%% %v", "[\"sure\"]") == "100% sure");
    CHECK(fmt_go("%v", "[\"a\", \"b\"]") == "a%!(EXTRA string=b)");
    CHECK(fmt_go("%v %v", "[\"a\"]") == "a %!v(MISSING)");
    CHECK(fmt_go("%v%", "[\"a\"]") == "a%!(NOVERB)");
    CHECK(fmt_go("%v|%5v", "[\"a\", \"b\"]") == "a|    b");
}

TEST_CASE("stdlib strings: sprintf keeps big integers exact") {
    CHECK(fmt_go("%d|%x|%s", "[18446744073709551617, 18446744073709551617, -18446744073709551617]") ==
          "18446744073709551617|10000000000000001|-18446744073709551617");
    CHECK(fmt_go("%08d", "[18446744073709551617]") == "18446744073709551617");
}

TEST_CASE("stdlib strings: code points, not bytes") {
    CHECK(eval("indexof", {"\"åäö x\"", "\"x\""}) == "4");
    CHECK(eval("indexof_n", {"\"ääää\"", "\"ää\""}) == "[0,1,2]");
    CHECK(eval("indexof", {"\"abc\"", "\"\""}) == "error: empty search character");
    CHECK(eval("substring", {"\"😀åäö\"", "1", "2"}) == "\"åä\"");
    CHECK(eval("substring", {"\"abc\"", "1.5", "1"}) ==
          "type error: operand 2 must be integer number but got floating-point number");
    CHECK(eval("substring", {"\"abc\"", "-1", "1"}) == "error: negative offset");
    CHECK(eval("strings.reverse", {"\"añb😀\""}) == "\"😀bña\"");
    CHECK(eval("strings.count", {"\"åå\"", "\"\""}) == "3");
    CHECK(eval("split", {"\"aé\"", "\"\""}) == "[\"a\",\"é\"]");
}

TEST_CASE("stdlib strings: Unicode case mapping") {
    CHECK(eval("upper", {"\"straße ǆ σ ı\""}) == "\"STRAßE Ǆ Σ I\"");  // simple mapping: ß stays
    CHECK(eval("upper", {"\"åäö ÿ\""}) == "\"ÅÄÖ Ÿ\"");
    CHECK(eval("lower", {"\"ÅÄÖ ΣΑΣ Я\""}) == "\"åäö σασ я\"");
}

TEST_CASE("stdlib strings: trimming with unicode cutsets") {
    CHECK(eval("trim", {"\"¡¡x¡\"", "\"¡\""}) == "\"x\"");
    CHECK(eval("trim_space", {"\"\\u00a0 x \\u2003\""}) == "\"x\"");
    CHECK(eval("trim_left", {"\"aab\"", "\"a\""}) == "\"b\"");
    CHECK(eval("trim_suffix", {"\"a.go\"", "\".go\""}) == "\"a\"");
}

TEST_CASE("stdlib strings: replace and replace_n follow Go's Replacer") {
    CHECK(eval("replace", {"\"abc\"", "\"\"", "\"-\""}) == "\"-a-b-c-\"");
    CHECK(eval("strings.replace_n", {"{\"a\": \"1\", \"ab\": \"2\", \"b\": \"3\"}", "\"abab\""}) == "\"1313\"");
    CHECK(eval("strings.replace_n", {"{\"a\": 1}", "\"a\""}) ==
          "type error: operand 1 non-string value found in pattern object");
}

TEST_CASE("stdlib strings: split_n and concat") {
    CHECK(eval("strings.split_n", {"\"a,b,c\"", "\",\"", "-1"}) == "[\"c\"]");
    CHECK(eval("concat", {"\"-\"", "[\"a\", 1]"}) ==
          "type error: operand 2 must be array of strings but got array containing number");
    CHECK(eval("concat", {"\"-\"", "1"}) == "type error: operand 2 must be one of {set, array} but got number");
}

TEST_CASE("stdlib strings: format_int truncates and handles big integers") {
    CHECK(eval("format_int", {"-15.9", "16"}) == "\"-f\"");
    CHECK(eval("format_int", {"36893488147419103232", "2"}) == "\"1" + std::string(65, '0') + "\"");
    CHECK(eval("format_int", {"1e3", "10"}) == "\"1000\"");
    CHECK(eval("format_int", {"5", "3"}) == "type error: operand 2 must be one of {2, 8, 10, 16}");
}

TEST_CASE("stdlib strings: format_int reads a number not written as plain digits as a 64-bit float") {
    // OPA 1.7.1's outcomes: big.Float.SetString at 64 bits, then truncated.
    CHECK(eval("format_int", {"1e30", "16"}) == "\"c9f2c9cd04674edf000000000\"");
    CHECK(eval("format_int", {"12345678901234567890123.5", "16"}) == "\"29d42b64e7671424400\"");
    CHECK(eval("format_int", {"-1.5e30", "8"}) == "\"-2273541353160646573116000000000000\"");
    // Plain digits stay exact, as newer OPA formats the big.Int of the text.
    CHECK(eval("format_int", {"999999999999999999999", "16"}) == "\"3635c9adc5de9fffff\"");
}

TEST_CASE("stdlib strings: to_number") {
    CHECK(eval("to_number", {"\"+1.50\""}) == "1.50");
    CHECK(eval("to_number", {"\".5\""}) == "0.5");
    CHECK(eval("to_number", {"\"123456789012345678901234567890\""}) == "123456789012345678901234567890");
    CHECK(eval("to_number", {"\"1e400\""}) == "error: strconv.ParseFloat: parsing \"1e400\": value out of range");
    CHECK(eval("to_number", {"\" 1\""}) == "error: strconv.ParseFloat: parsing \" 1\": invalid syntax");
    // Go's ParseFloat reads a hexadecimal mantissa only with a binary exponent (p).
    CHECK(eval("to_number", {"\"0x10\""}) == "error: strconv.ParseFloat: parsing \"0x10\": invalid syntax");
    CHECK(eval("to_number", {"\"-0X1F\""}) == "error: strconv.ParseFloat: parsing \"-0X1F\": invalid syntax");
    // Underscores between digits are Go syntax (OPA keeps such a number as it is written).
    CHECK(eval("to_number", {"\"1_000.5\""}) == "1000.5");
    CHECK(eval("to_number", {"\"-1e1_0\""}) == "-1e10");
    CHECK(eval("to_number", {"\"1__0\""}) == "error: strconv.ParseFloat: parsing \"1__0\": invalid syntax");
    CHECK(eval("to_number", {"\"_1\""}) == "error: strconv.ParseFloat: parsing \"_1\": invalid syntax");
    CHECK(eval("to_number", {"\"1_.5\""}) == "error: strconv.ParseFloat: parsing \"1_.5\": invalid syntax");
    CHECK(eval("to_number", {"\"1_\""}) == "error: strconv.ParseFloat: parsing \"1_\": invalid syntax");
    CHECK(eval("to_number", {"\"-Inf\""}) == "type error: operand 1 must be valid number string but got string");
    CHECK(eval("to_number", {"[]"}) ==
          "type error: operand 1 must be one of {null, boolean, number, string} but got array");
    // Plain integers (read without the general path) and their edges, as that path reads them.
    CHECK(eval("to_number", {"\"128\""}) == "128");
    CHECK(eval("to_number", {"\"-5\""}) == "-5");
    CHECK(eval("to_number", {"\"007\""}) == "7");
    CHECK(eval("to_number", {"\"-0\""}) == "-0");
    CHECK(eval("to_number", {"\"-\""}) == "error: strconv.ParseFloat: parsing \"-\": invalid syntax");
    CHECK(eval("to_number", {"\"1234567890123456789\""}) == "1234567890123456789");
    CHECK(eval("to_number", {"\"12a\""}) == "error: strconv.ParseFloat: parsing \"12a\": invalid syntax");
}

TEST_CASE("stdlib strings: to_number keeps what Go reads as an int, a *big.Int or a float64 for sprintf") {
    // OPA keeps the string as the number's text; sprintf hands Go an int only where that text
    // is [+-]digits (ParseInt), so "1_0", "5." and "0x1p4" are float64 (OPA 1.7.1's answers).
    auto types = [](const char* texts) {
        return gavel::test::outcome_of(std::string("[sprintf(\"%T\", [to_number(x)]) | some x in ") + texts + "]",
                                       gavel::test::Setup{});
    };
    CHECK(types(R"(["1_0", "5.", "0x1p4", "1e1", "1_000_000_000_000_000_000_000"])") ==
          R"(["float64","float64","float64","float64","float64"])");
    CHECK(types(R"(["+1", "007", "-0", "10", "12345678901234567890123", "+12345678901234567890123"])") ==
          R"(["int","int","int","int","*big.Int","*big.Int"])");
    CHECK(gavel::test::outcome_of(R"(sprintf("%v %d %x", [to_number("1_0"), to_number("5."), to_number("1_0")]))",
                                  gavel::test::Setup{}) == R"("10 %!d(float64=5) 0x1.4p+03")");
    CHECK(gavel::test::outcome_of(R"(sprintf("%v", [to_number("1_000_000_000_000_000_000_000")]))",
                                  gavel::test::Setup{}) == R"("1e+21")");
    // Its value is the number's: arithmetic and comparisons are unchanged.
    CHECK(gavel::test::outcome_of(R"([to_number("1_0") + 1, to_number("5.") == 5])", gavel::test::Setup{}) ==
          "[11,true]");
}

TEST_CASE("stdlib regex: Go's regexp semantics and error messages") {
    CHECK(eval("regex.match", {"\"[\"", "\"x\""}) == "error: error parsing regexp: missing closing ]: `[`");
    CHECK(eval("regex.match", {"\"a)\"", "\"x\""}) == "error: error parsing regexp: unexpected ): `a)`");
    CHECK(eval("regex.is_valid", {"\"(?P<n>a)\""}) == "true");
    CHECK(eval("regex.find_n", {"\"a*\"", "\"baaac\"", "-1"}) == "[\"\",\"aaa\",\"\"]");
    CHECK(eval("regex.split", {"\"x*\"", "\"axbc\""}) == "[\"a\",\"b\",\"c\"]");
    // Go: an empty pattern over an empty text matches once, empty, and splits into nothing.
    CHECK(eval("regex.split", {"\"\"", "\"\""}) == "[]");
    CHECK(eval("regex.find_n", {"\"\"", "\"\"", "-1"}) == "[\"\"]");
    CHECK(eval("regex.replace", {"\"abc\"", "\"x*\"", "\"-\""}) == "\"-a-b-c-\"");
    CHECK(eval("regex.replace", {"\"john smith\"", "\"(?P<first>\\\\w+) (?P<last>\\\\w+)\"",
                                 "\"${last} $first $$ $9\""}) == "\"smith john $ \"");
    CHECK(eval("regex.find_all_string_submatch_n", {"\"(a)|(b)\"", "\"ab\"", "-1"}) ==
          "[[\"a\",\"a\",\"\"],[\"b\",\"\",\"b\"]]");
    CHECK(eval("regex.find_n", {"\"é\"", "\"ééé\"", "2"}) == "[\"é\",\"é\"]");
}

TEST_CASE("stdlib regex: template_match") {
    CHECK(eval("regex.template_match", {"\"urn:{[a-z]+}:x.y\"", "\"urn:abc:x.y\"", "\"{\"", "\"}\""}) == "true");
    CHECK(eval("regex.template_match", {"\"urn:{[a-z]+}:x.y\"", "\"urn:abc:xzy\"", "\"{\"", "\"}\""}) == "false");
    CHECK(eval("regex.template_match", {"\"urn:{a\"", "\"x\"", "\"{\"", "\"}\""}) ==
          "error: unbalanced braces in \"urn:{a\"");
}

TEST_CASE("stdlib glob: gobwas semantics") {
    CHECK(eval("glob.match", {"\"*.com\"", "[\".\"]", "\"a.b.com\""}) == "false");
    CHECK(eval("glob.match", {"\"**.com\"", "[\".\"]", "\"a.b.com\""}) == "true");
    CHECK(eval("glob.match", {"\"{a,b{c,d}}x\"", "null", "\"bdx\""}) == "true");
    // gobwas drops a trailing backslash: "test\\" is the pattern "test".
    CHECK(eval("glob.match", {R"("test\\")", "[]", "\"test\""}) == "true");
    CHECK(eval("glob.match", {"\"[!a-c]?\"", "[\"/\"]", "\"d/\""}) == "false");
    CHECK(eval("glob.match", {"\"\\\\*x\"", "[]", "\"*x\""}) == "true");
    CHECK(eval("glob.match", {"\"[a\"", "[]", "\"a\""}) == "error: unexpected end of input");
    CHECK(eval("glob.match", {"\"a\"", "[\"ab\"]", "\"a\""}) ==
          "type error: operand 2 must be array of runes but got array containing string");
    CHECK(eval("glob.quote_meta", {"\"{a}[b]*?\\\\\""}) == "\"\\\\{a\\\\}\\\\[b\\\\]\\\\*\\\\?\\\\\\\\\"");
}

TEST_CASE("stdlib regex: globs_match intersection") {
    CHECK(eval("regex.globs_match", {"\"a+b\"", "\"aaab*\""}) == "true");
    CHECK(eval("regex.globs_match", {"\"a+\"", "\"b*\""}) == "false");
    CHECK(eval("regex.globs_match", {"\"[a-c]x\"", "\".x\""}) == "true");
    CHECK(eval("regex.globs_match", {"\"*a\"", "\"a\""}) ==
          "error: input:*a, pos:1, flag '*' must be preceded by a non-flag: the input provided is invalid");
}

TEST_CASE("stdlib strings: render_template subset") {
    // A missing key: `<undefined>`, as OPA's newest release (1.7.1: missingkey=error).
    CHECK(eval("strings.render_template",
               {"\"{{.a.b}}-{{.n}}-{{.missing}}\"", "{\"a\": {\"b\": \"x\"}, \"n\": 1.5}"}) == "\"x-1.5-<undefined>\"");
    CHECK(eval("strings.render_template", {"\"{{range $k, $v := .m}}{{$k}}={{$v}};{{end}}\"",
                                           "{\"m\": {\"b\": 2, \"a\": [1, 2]}}"}) == "\"a=[1 2];b=2;\"");
    CHECK(eval("strings.render_template", {"\"{{if .f}}yes{{else if .g}}g{{else}}no{{end}} {{- \\\" x\\\" -}} !\"",
                                           "{\"f\": false, \"g\": true}"}) == "\"g x!\"");
    CHECK(eval("strings.render_template", {"\"{{len .xs}} {{index .xs 1}} {{eq .s \\\"a\\\"}}\"",
                                           "{\"xs\": [7, 8], \"s\": \"a\"}"}) == "\"2 8 true\"");
    CHECK(eval("strings.render_template", {"\"{{template \\\"x\\\"}}\"", "{}"})
              .starts_with("error: template: template:1:"));
    CHECK(eval("strings.render_template", {"\"{{if .x}}\"", "{}"}).starts_with("error:"));
}

// Go's printf in a template: data arrives as OPA hands it over (decoded JSON, so
// numbers are json.Number), constants as Go's own types.
TEST_CASE("stdlib strings: render_template's printf formats as Go's, with Go's operand types") {
    auto render = [](std::string_view tmpl) {
        std::string quoted;
        gavel::runtime::append_json_string(quoted, tmpl);
        return eval("strings.render_template",
                    {quoted, R"~({"n": 5, "b": true, "xs": [5, "a"], "m": {"k": "K", "a": 1}, "z": null})~"});
    };
    CHECK(render(R"~({{printf "%d-%s" 1 "a"}})~") == R"~("1-a")~");
    CHECK(render(R"~({{printf "%v|%s|%d" .n .n .n}})~") == R"~("5|5|%!d(json.Number=5)")~");
    CHECK(render(R"~({{printf "%v %t %d" .b .b .b}})~") == R"~("true true %!d(bool=true)")~");
    CHECK(render(R"~({{printf "%v %s" .xs .m}})~") == R"~("[5 a] map[a:1 k:K]")~");
    CHECK(render(R"~({{printf "%v %d" .z .z}})~") == R"~("<nil> %!d(<nil>)")~");
    CHECK(render(R"~({{printf "a" 1 .n .z}})~") == R"~("a%!(EXTRA int=1, json.Number=5, <nil>)")~");
    CHECK(render(R"~({{printf "%T %T %T %T" 1 .n .xs .m}})~") ==
          R"~("int json.Number []interface {} map[string]interface {}")~");
    CHECK(render(R"~({{.n | printf "[%s]"}})~") == R"~("[5]")~");
    CHECK(render(R"~({{printf .n}})~") ==
          "error: template: template:1:9: executing \"template\" at <.n>: wrong type for "
          "value; expected string; got json.Number");
}

// Templates run on data as Go sees decoded JSON (numbers are json.Number, a string type); errors
// say where, as Go's executor does (OPA 1.7.1's texts).
TEST_CASE("stdlib strings: render_template compares as Go's template and says where it failed") {
    auto render = [](std::string_view tmpl) {
        std::string quoted;
        gavel::runtime::append_json_string(quoted, tmpl);
        return eval("strings.render_template",
                    {quoted, R"~({"n": 1, "m": 1.0, "a": 10, "b": 9, "t": true, "arr": [1], "z": null, "o": {}})~"});
    };
    CHECK(render("{{range .xs}}{{.}}{{end}}|{{$v := .o}}{{$v.q}}") == R"~("|<undefined>")~");
    CHECK(
        render("a\n {{.arr.p}}") ==
        R"~(error: template: template:2:7: executing "template" at <.arr.p>: can't evaluate field p in type interface {})~");
    CHECK(render("{{range .n}}{{end}}") ==
          R"~(error: template: template:1:8: executing "template" at <.n>: range can't iterate over 1)~");
    CHECK(
        render("{{.m.x}}") ==
        R"~(error: template: template:1:4: executing "template" at <.m.x>: can't evaluate field x in type interface {})~");
    // `index` of a missing key is the map's zero value, nil.
    CHECK(render(R"~({{index .o "x"}})~") == R"~("<no value>")~");
    // json.Number is a string: compared bytewise, not with an int, its length its text's.
    CHECK(render("{{eq .n .m}} {{lt .a .b}} {{len .m}} {{print .n .n}}") == R"~("false true 3 11")~");
    CHECK(render(R"~({{eq .n "1"}} {{eq .z .z}} {{eq .z 1}})~") == R"~("true true false")~");
    CHECK(
        render("{{eq .n 1}}") ==
        R"~(error: template: template:1:2: executing "template" at <eq .n 1>: error calling eq: incompatible types for comparison)~");
    CHECK(
        render("{{lt .t .t}}") ==
        R"~(error: template: template:1:2: executing "template" at <lt .t .t>: error calling lt: invalid type for comparison)~");
    CHECK(
        render("{{eq .arr .arr}}") ==
        R"~(error: template: template:1:2: executing "template" at <eq .arr .arr>: error calling eq: non-comparable type [1]: []interface {})~");
    // Go's escapers print their operands as print does (a nil as "<no value>"), then escape.
    CHECK(render(R"~({{html "<a href='x'>&\"" .n}})~") == R"~("&lt;a href=&#39;x&#39;&gt;&amp;&#34;1")~");
    CHECK(render("{{urlquery .z .z}} {{urlquery \"a b/c?\" .t}}") ==
          R"~("%3Cno+value%3E%3Cno+value%3E a+b%2Fc%3Ftrue")~");
    CHECK(render("{{js \"a'<=>&\" .z .n}}") == R"~("a\\'\\u003C\\u003D\\u003E\\u0026\\u003Cno value\\u003E1")~");
    // Go's parser refuses a function it does not know, whether the action runs or not.
    CHECK(render("{{if .t}}yes{{else}}{{ese}}{{end}}") ==
          R"~(error: template: template:1: function "ese" not defined)~");
    CHECK(render("{{.n | nope}}") == R"~(error: template: template:1: function "nope" not defined)~");
}

TEST_CASE("stdlib casts: deprecated casts are v0-only and type-checked") {
    const auto* b = gavel::stdlib::standard_registry().find("cast_set");
    REQUIRE(b != nullptr);
    CHECK(b->decl->deprecated);
    CHECK(gavel::stdlib::standard_registry().find("re_match")->decl->deprecated);
    CHECK(eval("cast_set", {"[2, 1, 2]"}) == "[1,2]");
    CHECK(eval("cast_array", {"\"x\""}) == "type error: operand 1 must be one of {array, set} but got string");
    CHECK(eval("cast_object", {"[]"}) == "type error: operand 1 must be object but got array");
}

TEST_CASE("aggregates: OPA's operand messages (an element of the wrong type, the collection kinds' order)") {
    CHECK(eval("sum", {"[1, \"2\"]"}) ==
          "type error: operand 1 must be array of numbers but got array containing string");
    CHECK(eval("product", {"[1.5, null]"}) ==
          "type error: operand 1 must be array of numbers but got array containing null");
    for (const char* name : {"sum", "product", "max", "min", "sort"})
        CHECK(eval(name, {"{}"}) == "type error: operand 1 must be one of {set, array} but got object");
    CHECK(eval("rego.parse_module", {"\"m.rego\"", "1"}) == "type error: operand 1 must be string but got number");
}
