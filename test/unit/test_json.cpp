#include "runtime/json.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

using namespace gavel::runtime;

namespace {

Value parse_ok(std::string_view text) {
    ParseResult r = parse_json(text);
    REQUIRE_MESSAGE(r.ok, r.error.message);
    return r.value;
}

ParseError parse_err(std::string_view text, const Limits& limits = kDefaultLimits) {
    ParseResult r = parse_json(text, limits);
    REQUIRE_FALSE(r.ok);
    return r.error;
}

std::string round_trip(std::string_view text) { return to_json(parse_ok(text)); }

}  // namespace

TEST_CASE("json: compact round trip with sorted keys") {
    CHECK(round_trip(R"({"b":[1,2],"a":1})") == R"({"a":1,"b":[1,2]})");
    CHECK(round_trip(R"( { "z" : null , "a" : [ true , false , "x" , {} , [] ] } )") ==
          R"({"a":[true,false,"x",{},[]],"z":null})");
    CHECK(round_trip("\"s\"") == "\"s\"");
    CHECK(round_trip("  42 ") == "42");
    CHECK(round_trip("null") == "null");
    CHECK(round_trip(R"({"B":1,"a":2,"_":3})") == R"({"B":1,"_":3,"a":2})");  // bytewise
}

TEST_CASE("json: pretty output like json.MarshalIndent") {
    Value v = parse_ok(R"({"b":[1,2],"a":{"x":{}},"c":[]})");
    CHECK(to_json(v, JsonStyle::Pretty) ==
          "{\n"
          "  \"a\": {\n"
          "    \"x\": {}\n"
          "  },\n"
          "  \"b\": [\n"
          "    1,\n"
          "    2\n"
          "  ],\n"
          "  \"c\": []\n"
          "}");
    CHECK(to_json(Value::integer(1), JsonStyle::Pretty) == "1");
}

TEST_CASE("json: numbers stay exact") {
    Value v = parse_ok(
        "[123456789012345678901234567890, 18446744073709551614, -9223372036854775808, 2e308, 1.5, "
        "1.5893857701234e+09, 1e-400, 3.0]");
    auto a = v.array_elements();
    REQUIRE(a.size() == 8);
    CHECK(a[0].as_number().to_string() == "123456789012345678901234567890");
    CHECK(a[1].as_number().to_string() == "18446744073709551614");
    std::int64_t i;
    CHECK(a[2].as_int64(i));
    CHECK(i == std::numeric_limits<std::int64_t>::min());
    CHECK(a[3].as_number().is_integer());
    CHECK(a[4].as_number().to_double() == 1.5);
    CHECK(a[7] == Value::integer(3));
    CHECK(to_json(v) ==
          "[123456789012345678901234567890,18446744073709551614,-9223372036854775808,2e308,1.5,"
          "1.5893857701234e+09,1e-400,3.0]");
    CHECK(parse_ok("1.0") == Value::integer(1));
}

TEST_CASE("json: sets print as arrays, non-string keys as strings") {
    Value s = Value::set({Value::string("b"), Value::integer(2), Value::string("a")});
    CHECK(to_json(s) == R"([2,"a","b"])");
    Value o = Value::object({{Value::integer(1), Value::string("a")},
                             {Value::array({Value::integer(1)}), Value::integer(2)},
                             {Value::string("0"), Value::boolean(true)}});
    CHECK(to_json(o) == R"({"0":true,"1":"a","[1]":2})");
    // The key text is written as Go's json.Encoder writes it (OPA's valueToInterface): <, > and &
    // escaped, whatever the escaping of the document around it.
    Value html_key = Value::object({{Value::array({Value::string("a&b<")}), Value::integer(1)}});
    CHECK(to_json(html_key) == R"({"[\"a\\u0026b\\u003c\"]":1})");
    // Keys that write one text: OPA fills a Go map in canonical key order, so the last one's
    // value is written (`{1: "num", "1": "str"}` and `{[]: "arr", set(): "set"}` in OPA 1.7.1).
    Value clash =
        Value::object({{Value::integer(1), Value::string("num")}, {Value::string("1"), Value::string("str")}});
    CHECK(to_json(clash) == R"({"1":"str"})");
    Value empty_clash = Value::object({{Value::set({}), Value::string("set")},
                                       {Value::array({}), Value::string("arr")},
                                       {Value::integer(2), Value::null()}});
    CHECK(to_json(empty_clash) == R"({"2":null,"[]":"set"})");
    Value key_with_quote = Value::object({{Value::array({Value::string("q")}), Value::null()}});
    CHECK(to_json(key_with_quote) == R"({"[\"q\"]":null})");
}

TEST_CASE("json: escaping as Go encoding/json without HTML escaping") {
    CHECK(to_json(Value::string("a\"b\\c\nd\re\tf")) == R"("a\"b\\c\nd\re\tf")");
    CHECK(to_json(Value::string(std::string("\x01\x1f\b\f", 4))) == R"("\u0001\u001f\b\f")");
    CHECK(to_json(Value::string("<a href='x'>&</a>")) == R"("<a href='x'>&</a>")");
    CHECK(to_json(Value::string("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80")) ==
          "\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\"");
    CHECK(to_json(Value::string("\xe2\x80\xa8\xe2\x80\xa9")) == R"("\u2028\u2029")");
    CHECK(to_json(Value::string("bad\xff"
                                "byte")) == R"("bad\ufffdbyte")");
    CHECK(to_json(Value::string("/")) == R"("/")");
}

TEST_CASE("json: unicode escapes on input") {
    CHECK(parse_ok(R"("\u00e9")").as_string() == "\xc3\xa9");
    CHECK(parse_ok(R"("\ud83d\ude00")").as_string() == "\xf0\x9f\x98\x80");
    CHECK(parse_ok(R"("\u0041\/\b\f\n\r\t\"\\")").as_string() == "A/\b\f\n\r\t\"\\");
    // Lone surrogates become U+FFFD, as in Go.
    CHECK(parse_ok(R"("\ud800x")").as_string() == "\xef\xbf\xbdx");
    CHECK(parse_ok(R"("\udc00")").as_string() == "\xef\xbf\xbd");
    CHECK(parse_ok(R"("\ud800\u0041")").as_string() ==
          "\xef\xbf\xbd"
          "A");
    CHECK(parse_ok(R"({"\u006b":1})").find("k") != nullptr);
    CHECK(parse_ok("\"caf\xc3\xa9\"").as_string() == "caf\xc3\xa9");
}

TEST_CASE("json: invalid UTF-8 is rejected with its position") {
    ParseError e = parse_err("{\"k\":\n  \"a\xff\"}");
    CHECK(e.offset == 10);
    CHECK(e.line == 2);
    CHECK(e.column == 5);
    CHECK(e.message.find("invalid UTF-8") != std::string::npos);
    CHECK(e.message.find("line 2, column 5") != std::string::npos);
    CHECK(parse_err("\"\xed\xa0\x80\"").message.find("invalid UTF-8") != std::string::npos);  // encoded surrogate
    CHECK(parse_err("\"\xc0\xaf\"").offset == 1);                                             // overlong
}

TEST_CASE("json: syntax errors are values with positions") {
    CHECK(parse_err("[1,]").message.find("invalid JSON") != std::string::npos);
    CHECK(parse_err("").message.find("empty") != std::string::npos);
    ParseError e = parse_err("[1, 01]");
    CHECK(e.message.find("invalid number") != std::string::npos);
    CHECK(e.column == 5);
    CHECK(parse_err("3 4").message.find("unexpected content") != std::string::npos);
    CHECK(parse_err("[tru]").message.find("invalid literal") != std::string::npos);
    CHECK(parse_err(R"(["\x"])").message.find("invalid escape") != std::string::npos);
    CHECK(parse_err("\"a\x01\"").offset == 2);  // raw control character
    CHECK(parse_err("{1:2}").line == 1);
    CHECK_FALSE(parse_json("[1,2").ok);
    CHECK_FALSE(parse_json("{\"a\" 1}").ok);
    // An early end is at the end; content after a container is where it starts.
    ParseError early = parse_err("{\"a\": [1, 2");
    CHECK(early.message.find("ended early") != std::string::npos);
    CHECK(early.offset == 11);
    ParseError trailing = parse_err("{\"a\": 1} xyz");
    CHECK(trailing.message.find("unexpected content after JSON value") != std::string::npos);
    CHECK(trailing.offset == 9);
    ParseError closer = parse_err("{\"a\": 1}\n\n  ]");
    CHECK(closer.offset == 12);
    CHECK(closer.line == 3);
    CHECK(closer.column == 3);
    // The same from the eager reader (documents of 64 KiB and more take it).
    std::string big = "[" + std::string(70000, ' ') + "1] 2";
    CHECK(parse_err(big).offset == big.size() - 1);
}

TEST_CASE("json: duplicate keys, last wins") {
    Value v = parse_ok(R"({"a":1,"a":2})");
    CHECK(v.size() == 1);
    CHECK(*v.find("a") == Value::integer(2));
}

TEST_CASE("json: a key interned inside a value that a duplicate key drops is not reused") {
    // The first "" member holds the only reference to the key "k" and enough
    // strings to fill the reader's first arena chunk; the duplicate "" drops
    // it, which frees that chunk. The later "k" must get a live node, not the
    // freed one (ASan in CI's sanitizer build checks this). The document is
    // large enough (over 64 KiB) for its keys to be interned.
    std::string strings;
    for (int i = 0; i < 20000; ++i) strings += i ? ",\"x\"" : "\"x\"";
    std::string doc = R"({"":{"":{"k":[)" + strings + R"(]},"":1},"k":1})";
    Value v = parse_ok(doc);
    CHECK(v.size() == 2);
    CHECK(*v.find("k") == Value::integer(1));
    CHECK(*v.find("")->find("") == Value::integer(1));
    doc.pop_back();
    doc.replace(doc.size() - 2, 2, "");  // ... ,"k"  : a key without a value
    CHECK(parse_err(doc).message.find("JSON") != std::string::npos);
}

TEST_CASE("json: keys repeated in a large document share one node; a small document's do not") {
    auto first_keys_shared = [](const std::string& doc) {
        Value v = parse_ok(doc);
        auto items = v.array_elements();
        REQUIRE(items.size() >= 2);
        const Value& a = items[0].object_entries()[0].key;
        const Value& b = items[1].object_entries()[0].key;
        CHECK(a == b);
        return a.identical(b);
    };
    std::string small = R"([{"name":1},{"name":2}])";
    std::string large = "[";
    for (int i = 0; large.size() < 70 * 1024; ++i) {
        if (i) large += ',';
        large += R"({"name":)";
        large += std::to_string(i);
        large += '}';
    }
    large += "]";
    CHECK_FALSE(first_keys_shared(small));
    CHECK(first_keys_shared(large));
}

TEST_CASE("json: depth limit instead of stack overflow") {
    std::string deep(100000, '[');
    ParseError e = parse_err(deep + std::string(100000, ']'));
    CHECK(e.message.find("nesting too deep") != std::string::npos);
    CHECK(e.message.find("1000") != std::string::npos);
    CHECK_FALSE(parse_json(deep).ok);
    std::string objs;
    for (int i = 0; i < 5000; ++i) objs += "{\"a\":";
    objs += "1" + std::string(5000, '}');
    CHECK(parse_err(objs).message.find("nesting too deep") != std::string::npos);

    Limits lim;
    lim.max_depth = 3;
    CHECK(parse_json("[[[1]]]", lim).ok);
    CHECK_FALSE(parse_json("[[[[1]]]]", lim).ok);
    std::string ok_deep = std::string(999, '[') + std::string(999, ']');
    CHECK(parse_json(ok_deep).ok);
}

TEST_CASE("json: size limit") {
    Limits lim;
    lim.max_input_bytes = 10;
    ParseResult r = parse_json(R"({"a":"0123456789"})", lim);
    CHECK_FALSE(r.ok);
    CHECK(r.error.message.find("too large") != std::string::npos);
    CHECK(parse_json("[1]", lim).ok);
}

TEST_CASE("json: admission review shaped input") {
    Value v = parse_ok(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"705ab4f5",
        "object":{"metadata":{"name":"p","labels":{"app":"x"}},"spec":{"containers":[{"image":"nginx:1.25",
        "resources":{"limits":{"cpu":"500m"}}}]}}}})");
    const Value* req = v.find("request");
    REQUIRE(req);
    const Value* obj = req->find("object");
    REQUIRE(obj);
    auto containers = obj->find("spec")->find("containers")->array_elements();
    REQUIRE(containers.size() == 1);
    CHECK(containers[0].find("image")->as_string() == "nginx:1.25");
    CHECK(parse_ok(to_json(v)) == v);
    CHECK(parse_ok(to_json(v, JsonStyle::Pretty)) == v);
}

TEST_CASE("json: objects of one shape keep their key order, whichever reader and however many shapes") {
    // Every order of five keys, twice over (a reader remembers the orders of
    // the shapes it sorted): more shapes than it remembers, so some share a
    // slot, and each must still come out sorted with its own values.
    std::vector<std::string> keys = {"alpha", "beta", "gamma", "delta", "epsilon"};
    std::vector<std::size_t> perm = {0, 1, 2, 3, 4};
    std::string doc = "[";
    std::vector<std::vector<std::size_t>> orders;
    for (int round = 0; round < 2; ++round) {
        std::sort(perm.begin(), perm.end());
        do {
            if (doc.size() > 1) doc += ',';
            doc += '{';
            for (std::size_t j = 0; j < perm.size(); ++j)
                doc += (j ? ",\"" : "\"") + keys[perm[j]] + "\":" + std::to_string(perm[j]);
            doc += '}';
            orders.push_back(perm);
        } while (std::next_permutation(perm.begin(), perm.end()));
    }
    doc += "]";
    std::vector<std::string> sorted_keys = keys;
    std::sort(sorted_keys.begin(), sorted_keys.end());
    for (bool lazy : {true, false}) {
        CAPTURE(lazy);
        ParseResult r = lazy ? parse_json(doc) : detail::parse_json_eagerly(doc);
        REQUIRE(r.ok);
        auto items = r.value.array_elements();
        REQUIRE(items.size() == orders.size());
        for (const Value& item : items) {
            auto entries = item.object_entries();
            REQUIRE(entries.size() == keys.size());
            for (std::size_t j = 0; j < entries.size(); ++j) {
                CHECK(entries[j].key.as_string() == sorted_keys[j]);
                auto at = std::find(keys.begin(), keys.end(), sorted_keys[j]) - keys.begin();
                CHECK(entries[j].value == Value::integer(at));
            }
        }
    }
    // Keys alike in their first 8 bytes, and duplicates, are sorted in full
    // each time; the same sequence of prefixes with other tails must not
    // reuse an order.
    for (int round = 0; round < 2; ++round) {
        Value a = parse_ok(R"({"metadata_b":1,"metadata_a":2,"x":3})");
        CHECK(to_json(a) == R"({"metadata_a":2,"metadata_b":1,"x":3})");
        Value b = parse_ok(R"({"metadata_a":1,"metadata_b":2,"x":3,"metadata_a":4})");
        CHECK(to_json(b) == R"({"metadata_a":4,"metadata_b":2,"x":3})");
        Value c = parse_ok(R"({"k":1,"b":2,"a":3})");
        CHECK(to_json(c) == R"({"a":3,"b":2,"k":1})");
        Value d = parse_ok(R"({"k":1,"b":2,"a":3,"b":4})");
        CHECK(to_json(d) == R"({"a":3,"b":4,"k":1})");
    }
}
