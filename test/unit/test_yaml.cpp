#include "runtime/json.hpp"
#include "runtime/yaml.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace gavel::runtime;

namespace {

Value yaml_ok(std::string_view text) {
    ParseResult r = parse_yaml(text);
    REQUIRE_MESSAGE(r.ok, r.error.message);
    return r.value;
}

std::string yaml_json(std::string_view text) { return to_json(yaml_ok(text)); }

}  // namespace

TEST_CASE("yaml: scalar typing as OPA reads YAML (sigs.k8s.io/yaml: go-yaml v2, YAML 1.1)") {
    CHECK(yaml_json("[true, false, True, FALSE]") == "[true,false,true,false]");
    CHECK(yaml_json("[~, null, Null, NULL]") == "[null,null,null,null]");
    CHECK(yaml_json("a:\nb: ~\n") == R"({"a":null,"b":null})");
    CHECK(yaml_json("[1, -2, +3, 007, 0x1F, 0o17]") == "[1,-2,3,7,31,15]");
    // Other numbers are float64s, written as Go's encoding/json writes them.
    CHECK(yaml_json("[1.5, .5, -0.25, 1.5893857701234e+09]") == "[1.5,0.5,-0.25,1589385770.1234]");
    CHECK(yaml_json("[1e21, 0.0000001, 09, 1_000, 1_000.5, -0b101, 010]") == "[1e+21,1e-7,9,1000,1000.5,-5,8]");
    CHECK(yaml_ok("1e3") == Value::integer(1000));
    CHECK(yaml_ok("3.0") == Value::integer(3));
    // YAML 1.1's words are booleans, in their three spellings.
    CHECK(yaml_json("[y, yes, no, on, off, Y, NO, On, n]") == "[true,true,false,true,false,true,false,true,false]");
    CHECK(yaml_json("[yES, oN, nO]") == R"(["yES","oN","nO"])");
    // Look-alikes stay strings; base 60 is not read.
    CHECK(yaml_json("[1.2.3, 0644x, 12:30, -, 1e400]") == R"(["1.2.3","0644x","12:30","-","1e400"])");
    // Dates and times keep their text, as go-yaml leaves them in an interface{} (OPA 1.7.1).
    CHECK(yaml_ok("2024-01-01") == Value::string("2024-01-01"));
    CHECK(yaml_ok("2001-12-14t21:59:43.10-05:00") == Value::string("2001-12-14t21:59:43.10-05:00"));
    CHECK(yaml_ok("2001-12-14 21:59:43.10") == Value::string("2001-12-14 21:59:43.10"));
    CHECK(yaml_json("2024-01-01: 1\n") == R"({"2024-01-01":1})");
    // Keys: booleans and integers as they resolve.
    CHECK(yaml_json("yes: 1\n010: 2\nname: 3\n") == R"({"8":2,"name":3,"true":1})");
}

TEST_CASE("yaml: .inf and .nan are errors, as JSON has no such numbers") {
    for (const char* text : {".inf", "-.Inf", ".NaN", "[1, +.INF]"}) {
        CAPTURE(text);
        ParseResult r = parse_yaml(text);
        CHECK_FALSE(r.ok);
        CHECK(r.error.message.find("unsupported value") != std::string::npos);
    }
}

TEST_CASE("yaml: quoted and block scalars are always strings") {
    CHECK(yaml_json(R"(['1', "true", "null", '', "~"])") == R"(["1","true","null","","~"])");
    CHECK(yaml_ok("k: |\n  line1\n  \tline2\n").find("k")->as_string() == "line1\n\tline2\n");
    CHECK(yaml_ok("k: |-\n  123\n").find("k")->as_string() == "123");
    CHECK(yaml_ok("k: >\n  a\n  b\n").find("k")->as_string() == "a b\n");
    CHECK(yaml_ok(R"("a\tb\u00e9\x41")").as_string() ==
          "a\tb\xc3\xa9"
          "A");
}

TEST_CASE("yaml: explicit tags") {
    CHECK(yaml_json("[!!str 123, !!int \"5\", !!float '1.5', !!bool \"true\", !!null '']") ==
          R"(["123",5,1.5,true,null])");
    // go-yaml resolves the text as if plain; the tag must agree (an integer is a float too).
    CHECK(yaml_json("[!!float 1, !!bool yes, !!int 0x10]") == "[1,true,16]");
    // A tag go-yaml does not resolve leaves the text a string (OPA 1.7.1).
    CHECK(yaml_json("[!foo 12, !!str-12, ! true]") == R"(["12","","true"])");
    CHECK(parse_yaml("!!int abc").error.message == "yaml: cannot decode !!str `abc` as a !!int");
    CHECK(parse_yaml("a: !!int 1.5").error.message == "yaml: cannot decode !!float `1.5` as a !!int");
    CHECK(parse_yaml("a: !!null x").error.message == "yaml: cannot decode !!str `x` as a !!null");
    CHECK(parse_yaml("a: !!float .inf").error.message == "json: unsupported value: +Inf");
    // !!binary is decoded as go-yaml decodes it (Go's standard base64, line breaks skipped).
    CHECK(yaml_json("x: !!binary aGVsbG8=") == R"({"x":"hello"})");
    CHECK(yaml_json("x: !!binary |\n  aGVs\n  bG8=\n") == R"({"x":"hello"})");
    CHECK(parse_yaml("x: !!binary \"aGVs bG8=\"").error.message == "yaml: !!binary value contains invalid base64 data");
}

TEST_CASE("yaml: integers are exact within 64 bits, float64s beyond (as OPA reads them)") {
    Value v = yaml_ok(
        "[18446744073709551614, 9223372036854775807, -9223372036854775808, "
        "123456789012345678901234567890, 340282366920938463463374607431768211456]");
    CHECK(to_json(v) ==
          "[18446744073709551614,9223372036854775807,-9223372036854775808,"
          "1.2345678901234568e+29,3.402823669209385e+38]");
    // Below 1e21 a float64 is written in fixed notation with its shortest digits, then zeros
    // (Go's encoding/json; OPA 1.7.1's values), not the double's exact integer.
    CHECK(yaml_json("[18446744073709551616, 123456789012345678.5, 1.5e-6, -2e19, 9.999e20]") ==
          "[18446744073709552000,123456789012345680,0.0000015,-20000000000000000000,999900000000000000000]");
}

TEST_CASE("yaml: mappings, keys as strings, flow collections, comments") {
    Value v = yaml_ok("# comment\nb: {\"x\": 1}\na: []\n1: one\ntrue: yes\n");
    CHECK(to_json(v) == R"({"1":"one","a":[],"b":{"x":1},"true":true})");
    CHECK(yaml_json("a: 1\na: 2\n") == R"({"a":2})");
    // A collection as a key: go-yaml's error, the key as Go's %#v writes it.
    CHECK(parse_yaml("? [1, 2]\n: x\n").error.message == "yaml: invalid map key: []interface {}{1, 2}");
    CHECK(
        parse_yaml("{[a, 1.5, true, ~, {b: c}]: 1}").error.message ==
        R"(yaml: invalid map key: []interface {}{"a", 1.5, true, interface {}(nil), map[interface {}]interface {}{"b":"c"}})");
    // A null key has no JSON text: sigs.k8s.io/yaml's error, with the value as %+#v.
    CHECK(parse_yaml("~: x").error.message == R"(unsupported map key of type: %!s(<nil>), key: <nil>, value: "x")");
    CHECK(parse_yaml("a: {null: [1, a]}").error.message ==
          R"(unsupported map key of type: %!s(<nil>), key: <nil>, value: []interface {}{1, "a"})");
    CHECK(parse_yaml("!!null '': ~").error.message ==
          "unsupported map key of type: %!s(<nil>), key: <nil>, value: <nil>");
    CHECK(yaml_json("'': 1") == R"({"":1})");
}

TEST_CASE("yaml: multi-document streams") {
    ParseAllResult all = parse_yaml_all("---\na: 1\n---\nb: 2\n---\n- 3\n");
    REQUIRE(all.ok);
    REQUIRE(all.documents.size() == 3);
    CHECK(to_json(all.documents[0]) == R"({"a":1})");
    CHECK(to_json(all.documents[1]) == R"({"b":2})");
    CHECK(to_json(all.documents[2]) == "[3]");

    ParseResult one = parse_yaml("---\na: 1\n---\nb: 2\n");
    CHECK_FALSE(one.ok);
    CHECK(one.error.message.find("expected one YAML document, found 2") != std::string::npos);

    ParseResult data = load_yaml_data("---\na: 1\n---\nb: 2\n");  // OPA reads the first document
    REQUIRE(data.ok);
    CHECK(to_json(data.value) == R"({"a":1})");

    ParseAllResult empty = parse_yaml_all("");
    REQUIRE(empty.ok);
    CHECK(empty.documents.empty());
    CHECK(yaml_ok("").is_null());
    CHECK(load_yaml_data("# only a comment\n").value.is_null());
}

TEST_CASE("yaml: conformance-style case file") {
    const char* text =
        "---\ncases:\n  - note: \"sprintf/big_int\"\n    query: data.test.p = x\n    modules:\n"
        "      - |\n        package test\n        p := x if {\n        \tx = 1\n        }\n"
        "    data:\n    want_result:\n      - x: \"123\"\n";
    Value v = yaml_ok(text);
    const Value* cases = v.find("cases");
    REQUIRE(cases);
    REQUIRE(cases->size() == 1);
    const Value& c = cases->array_elements()[0];
    CHECK(c.find("note")->as_string() == "sprintf/big_int");
    CHECK(c.find("data")->is_null());
    CHECK(c.find("modules")->array_elements()[0].as_string() == "package test\np := x if {\n\tx = 1\n}\n");
    CHECK(c.find("want_result")->array_elements()[0].find("x")->as_string() == "123");
}

TEST_CASE("yaml: errors carry positions") {
    ParseResult r = parse_yaml("a: 1\nb: [1, 2\nc: 3\n");
    CHECK_FALSE(r.ok);
    CHECK(r.error.line == 3);
    // Positions count bytes, also after characters of several.
    ParseResult wide = parse_yaml("\xc3\xa9\xc3\xa9: [1\n");
    CHECK(wide.error.line == 2);
    CHECK(wide.error.offset == 9);
    ParseResult u = parse_yaml("a: \"x\xff\"\n");
    CHECK_FALSE(u.ok);
    CHECK(u.error.offset == 5);
    CHECK(u.error.message == "yaml: invalid leading UTF-8 octet");
}

// Recorded from OPA 1.7.1 (`opa eval -d bad.yaml data`, `yaml.unmarshal`): go-yaml v2's texts,
// "line N" from the mark and count go-yaml uses (a scanner error's line from 1, a parser error's
// from 0, line 0 left out).
TEST_CASE("yaml: syntax errors are go-yaml v2's, byte for byte") {
    const std::pair<std::string_view, std::string_view> cases[] = {
        {"a: [1, 2\nb: 3\n", "yaml: line 1: did not find expected ',' or ']'"},
        {"a: {x: 1\n", "yaml: line 1: did not find expected ',' or '}'"},
        {"a:\n\tb: 1\n", "yaml: line 2: found character that cannot start any token"},
        {"\ta: 1\n", "yaml: found character that cannot start any token"},
        {"a: 1\n\tb: 2\n", "yaml: line 2: found a tab character that violates indentation"},
        {"a: b: c\n", "yaml: mapping values are not allowed in this context"},
        {"a: 1\n b: 2\n", "yaml: line 2: mapping values are not allowed in this context"},
        {"a:\n  b: 1\n c: 2\n", "yaml: line 2: did not find expected key"},
        {"- a\nb: 1\n", "yaml: line 1: did not find expected '-' indicator"},
        {"a: 'unclosed\n", "yaml: line 2: found unexpected end of stream"},
        {"a: \"bad \\q escape\"\n", "yaml: found unknown escape character"},
        {"]", "yaml: did not find expected node content"},
        {",", "yaml: did not find expected node content"},
        {"a: 1\n,\n", "yaml: line 1: did not find expected key"},
        {"%FOO bar\n---\na\n", "yaml: found unknown directive name"},
        {"!x!y a\n", "yaml: found undefined tag handle"},
        {"a: |\n  x\n y\n", "yaml: line 2: did not find expected key"},
        {"key: @foo\n", "yaml: found character that cannot start any token"},
        {"a\x01"
         "b\n",
         "yaml: control characters are not allowed"},
        {"a: \"\x01\"\n", "yaml: control characters are not allowed"},
        {"a: \xc3\n", "yaml: invalid trailing UTF-8 octet"},
        {"a:\n  - b\n  c: d\n", "yaml: line 2: did not find expected '-' indicator"},
        {"\"a\nb\": 1\n", "yaml: line 2: mapping values are not allowed in this context"},
        {"\"\\x4\"\n", "yaml: did not find expected hexdecimal number"},
        {"\"\\uD800\"\n", "yaml: found invalid Unicode character escape code"},
        {"|\n  a\n\tb\n", "yaml: line 3: found a tab character where an indentation space is expected"},
        {"|0\n  a\n", "yaml: found an indentation indicator equal to 0"},
        {">+-\n  a\n", "yaml: did not find expected comment or line break"},
        {"a: \n  - 1\n  -2\n", "yaml: line 4: could not find expected ':'"},
        {"\xef\xbb\xbf"
         "a: [\n",
         "yaml: line 1: did not find expected node content"},
        // libyaml 0.2.5 reads YAML 1.2's "\/"; go-yaml does not.
        {"a: \"x\\/y\"\n", "yaml: found unknown escape character"},
        {"\xc3\xa9: 1\nb: \"\xc3\xbc\\/\"\n", "yaml: line 2: found unknown escape character"},
        {"a: 1\nb:\n  c: \"\\\\/ok\"\n  d: \"multi\n   line \\/ x\"\n", "yaml: line 5: found unknown escape character"},
    };
    for (const auto& [text, message] : cases) {
        CAPTURE(text);
        ParseResult r = load_yaml_data(text);
        CHECK_FALSE(r.ok);
        CHECK(r.error.message == message);
    }
}

TEST_CASE("yaml: anchors and aliases as go-yaml decodes them") {
    CHECK(parse_yaml("a: *x\n").error.message == "yaml: unknown anchor 'x' referenced");
    CHECK(parse_yaml("a: &x 1\nb: *y\n").error.message == "yaml: unknown anchor 'y' referenced");
    CHECK(parse_yaml("a: &x [*x]\n").error.message == "yaml: anchor 'x' value contains itself");
    // The document is parsed whole before it is decoded: a later syntax error wins.
    CHECK(load_yaml_data("a: &x [*x]\nb: [\n").error.message == "yaml: line 2: did not find expected node content");
    CHECK(yaml_json("a: &x [1]\nb: *x\n&k c: *k\n") == R"({"a":[1],"b":[1],"c":"c"})");
}

TEST_CASE("yaml: merge keys as go-yaml v2 merges them") {
    CHECK(yaml_json("b: 2\n<<: {b: 3, c: 4}\nd: 5\n") == R"({"b":3,"c":4,"d":5})");
    CHECK(yaml_json("<<: {b: 3}\nb: 2\n") == R"({"b":2})");
    CHECK(yaml_json("p: &p {a: 1, b: 1}\nq: &q {b: 2, c: 2}\nz:\n  <<: [*p, *q]\n  c: 3\n") ==
          R"({"p":{"a":1,"b":1},"q":{"b":2,"c":2},"z":{"a":1,"b":1,"c":3}})");
    CHECK(yaml_json("\"<<\": {a: 1}\n") == R"({"<<":{"a":1}})");  // quoted: a key like any other
    CHECK(parse_yaml("a:\n  <<: [{a: 1}, 2]\n").error.message ==
          "yaml: map merge requires map or sequence of maps as the value");
}

TEST_CASE("yaml: a data file is its first document; nothing after it is read") {
    CHECK(to_json(load_yaml_data("a: 1\n--- [\n").value) == R"({"a":1})");
    CHECK(load_yaml_data("---\n").value.is_null());
    CHECK(load_yaml_data("").value.is_null());
    CHECK(load_yaml_data("--- a\n--- b\n").value == Value::string("a"));
    // A stream read whole still finds the later error.
    CHECK(parse_yaml_all("a: 1\n--- [\n").error.message == "yaml: line 2: did not find expected node content");
    ParseAllResult ok = parse_yaml_all("---\n---\na: 1\n---\n");
    REQUIRE(ok.ok);
    CHECK(ok.documents.size() == 3);
}

TEST_CASE("yaml: OPA's util.Unmarshal: JSON when it is JSON, else YAML with YAML's error") {
    CHECK(to_json(parse_json_or_yaml(R"({"a": 1e3})").value) == R"({"a":1e3})");  // JSON keeps its number
    CHECK(to_json(parse_json_or_yaml("{\"a\": 1,}").value) == R"({"a":1})");      // not JSON, but YAML
    CHECK(parse_json_or_yaml("[1, 2").error.message == "yaml: line 1: did not find expected ',' or ']'");
    CHECK(to_json(parse_json_or_yaml("\xef\xbb\xbf{\"a\": 1}").value) == R"({"a":1})");
}

TEST_CASE("yaml: depth, size and alias-expansion limits") {
    std::string deep(100000, '[');
    ParseResult r = parse_yaml(deep + std::string(100000, ']'));
    CHECK_FALSE(r.ok);
    CHECK(r.error.message.find("too deep") != std::string::npos);

    Limits lim;
    lim.max_depth = 2;
    CHECK(parse_yaml("a: [1]", lim).ok);
    ParseResult d = parse_yaml("a: [[1]]", lim);
    CHECK_FALSE(d.ok);
    CHECK(d.error.message.find("more than 2 levels") != std::string::npos);

    Limits small;
    small.max_input_bytes = 4;
    CHECK(parse_yaml("a: 12345", small).error.message.find("too large") != std::string::npos);

    // Billion laughs: aliases expand exponentially.
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    char prev = 'a';
    for (char c = 'b'; c <= 'i'; ++c) {
        bomb += std::string(1, c) + ": &" + c + " [";
        for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", *" : "*") + prev;
        bomb += "]\n";
        prev = c;
    }
    ParseResult b = parse_yaml(bomb);
    CHECK_FALSE(b.ok);
    CHECK(b.error.message == "yaml: document contains excessive aliasing");  // go-yaml's guard, in its numbers
    // A syntax error later in the document still wins: go-yaml parses before it decodes.
    CHECK(load_yaml_data(bomb + "z: [\n").error.message == "yaml: line 10: did not find expected node content");
    // go-yaml's threshold (OPA 1.7.1): 200 aliases of a 200-item list are too many, 199 are not.
    auto aliases = [](int n) {
        std::string list, refs;
        for (int i = 0; i < 200; ++i) list += i ? ", x" : "x";
        for (int i = 0; i < n; ++i) refs += i ? ", *a" : "*a";
        return "a: &a [" + list + "]\nb: [" + refs + "]\n";
    };
    CHECK(parse_yaml(aliases(199)).ok);
    CHECK(parse_yaml(aliases(200)).error.message == "yaml: document contains excessive aliasing");
    // gavel's own bound on the values a document stands for.
    Limits few;
    few.max_nodes = 5;
    CHECK(parse_yaml("[1, 2, 3, 4, 5, 6]", few).error.message.find("too large") != std::string::npos);
}
