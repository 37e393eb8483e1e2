// Small documents are read lazily (runtime/lazy_json.hpp): they must read to
// exactly what the eager reader builds, reject exactly what it rejects, and
// stay correct when many threads touch one document first.

#include "runtime/json.hpp"
#include "runtime/node.hpp"

#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

using namespace gavel::runtime;

namespace {

bool is_document(const Value& v) { return v.node() && detail::in_document(v.node()); }

bool lazy_now(const Value& v) { return v.node() && (v.node()->flags.load() & (detail::kLazy | detail::kBusy)) != 0; }

const char* const kValidDocuments[] = {
    R"({"b":[1,2],"a":1})",
    R"( { "z" : null , "a" : [ true , false , "x" , {} , [] ] , "m" : { } } )",
    R"([1,-2,0,-0,1.0,1.5,-1.25e-3,1e3,2E+2,123456789012345678901234567890,1e400,1e-400,0.1])",
    R"({"k":"a\"b\\c\/d\be\ff\ng\rh\ti","u":"\u00e9\u4e2d\ud83d\ude00","lone":"\ud800x\udc00","pair":"\uD83D\uDE00"})",
    R"({"a":1,"a":2,"b":{"x":1},"b":[3],"c":12345678901234567890123,"c":0.5})",
    R"({"image":"nginx","imagePullPolicy":"Always","name":"n","namespace":"d","names":[],"na":{}})",
    R"({"a long key that is longer than sixteen bytes":"and a value that is longer than sixteen bytes too",
        "a long key that is longer than sixteen bytes!":1,"":"","e":""})",
    R"([[[[[["deep"]]]]],{"a":{"b":{"c":{"d":[{"e":"f"}]}}}}])",
    R"([{"k":1},{"k":2},{"k":3},{"j":[{"k":4}]}])",
    "[\"caf\xc3\xa9\",\"\xe4\xb8\xad\"]",
    "\n\t{\r\n\"ws\"\t:\n[ 1 ,\t2 ]\r}\n",
    // Members and items of strings (the layout's token patterns), with and
    // without whitespace after a closing quote.
    R"({"a":"b","c":"d","e":"f"})",
    R"({"a" :"b" ,"c":"d" }  )",
    R"(["a","b","c",["d","e"],{"f":"g"},"h"])",
    // Strings of exactly 16 bytes, longer ones escaped past byte 16, and
    // keys whose first 8 bytes are equal (sorted on their tails).
    R"({"sixteen-bytes-!":"0123456789abcdef","x":"0123456789abcdefghij\u00e9\n"})",
    R"({"imagePullSecrets":1,"imagePullPolicy":2,"imagePul":3,"imagePullPolicy":4,"imagePu":5})",
};

const char* const kInvalidDocuments[] = {
    "[1,2",
    "{\"a\" 1}",
    "[1,,2]",
    "[1 2]",
    "{\"a\":1,}",
    "[tru]",
    "[nul]",
    "[truex]",
    "[01]",
    "[1.]",
    "[-]",
    "[\"\\x\"]",
    "[\"\\u12\"]",
    "[\"\\u12G4\"]",
    "{1:2}",
    "{\"a\":1}}",
    "[1]]",
    "[1] 2",
    "{\"a\"}",
    "[\"a\"x]",
    "[\"a\" \"b\"]",
    "{\"a\"::1}",
    "[,1]",
    "[1,]",
    "{,}",
    "[\"\x01\"]",
    "[\"\xff\"]",
    "[+1]",
    "[.5]",
    "[1e]",
    "[\\]",
    "[\"a\\\"]",
    "{}1",
    "{}[1]",
    "[]{\"a\":1}",
    "{} {}",
    // Literals are compared a word at a time.
    "[fals]",
    "[falsee]",
    "[falsy]",
    "[nulll]",
    "[True]",
    "[t]",
    "[nUll]",
    "{\"a\":tru}",
    "[truee,1]",
    // Broken where the layout matches token patterns.
    "{\"a\":\"b\",\"c\"}",
    "{\"a\":\"b\":\"c\"}",
    "{\"a\":\"b\" \"c\":\"d\"}",
    "[\"a\",\"b\":1]",
    "{\"a\":\"b\",}",
    "{\"a\":\"b\"]",
    "[\"a\",\"b\"}",
    "[\"a\",]",
    "{\"a\":\"b\"",
    "[\"a\",\"b\"",
    "[{\"a\":\"b\"},\"c\":1]",
    "{\"a\":[\"b\",\"c\"}",
    "{\"a\",\"b\":1}",
    "[{\"a\":1],2]",
    "{\"a\":[1},\"b\":2}",
    "[{\"a\":\"b\"],[]]",
};

}  // namespace

TEST_CASE("lazy json: documents read to exactly what the eager reader builds") {
    for (const char* text : kValidDocuments) {
        CAPTURE(text);
        ParseResult lazy = parse_json(text);
        ParseResult eager = detail::parse_json_eagerly(text);
        REQUIRE_MESSAGE(lazy.ok, lazy.error.message);
        REQUIRE(eager.ok);
        CHECK(is_document(lazy.value));
        CHECK_FALSE(is_document(eager.value));
        CHECK(lazy.value == eager.value);
        CHECK(to_json(lazy.value) == to_json(eager.value));
        CHECK(to_json(lazy.value, JsonStyle::Pretty) == to_json(eager.value, JsonStyle::Pretty));
        CHECK(lazy.value.hash() == eager.value.hash());
        CHECK(compare(lazy.value, eager.value) == 0);
    }
}

TEST_CASE("lazy json: invalid documents fail with the eager reader's error") {
    for (const char* text : kInvalidDocuments) {
        CAPTURE(text);
        ParseResult lazy = parse_json(text);
        ParseResult eager = detail::parse_json_eagerly(text);
        CHECK_FALSE(lazy.ok);
        CHECK_FALSE(eager.ok);
        CHECK(lazy.error.message == eager.error.message);
        CHECK(lazy.error.offset == eager.error.offset);
    }
    Limits shallow;
    shallow.max_depth = 2;
    CHECK(parse_json("[[1]]", shallow).ok);
    CHECK(parse_json("[[[1]]]", shallow).error.message == detail::parse_json_eagerly("[[[1]]]", shallow).error.message);
    // An empty container counts as a level too, as in the eager reader.
    CHECK_FALSE(parse_json("[[[]]]", shallow).ok);
    CHECK(parse_json("[[[]]]", shallow).error.message == detail::parse_json_eagerly("[[[]]]", shallow).error.message);
    CHECK(parse_json("[[]]", shallow).ok);
    // The layout's stacks are sized from the token count: a chain of
    // containers nested as deep as its tokens allow still reads lazily.
    std::string deep = std::string(499, '[') + "{}" + std::string(499, ']');
    ParseResult chain = parse_json(deep);
    REQUIRE(chain.ok);
    CHECK(is_document(chain.value));
    CHECK(chain.value == detail::parse_json_eagerly(deep).value);
    Limits limit_499;
    limit_499.max_depth = 499;
    CHECK_FALSE(parse_json(deep, limit_499).ok);
    limit_499.max_depth = 500;
    CHECK(parse_json(deep, limit_499).ok);
}

TEST_CASE("lazy json: containers are built on first access, only the ones touched") {
    Value v = parse_json(R"({"spec":{"containers":[{"image":"a"},{"image":"b"}]},"status":{"phase":"x"}})").value;
    REQUIRE(is_document(v));
    CHECK(lazy_now(v));
    const Value* spec = v.find("spec");
    CHECK_FALSE(lazy_now(v));
    REQUIRE(spec);
    CHECK(lazy_now(*spec));
    CHECK(lazy_now(*v.find("status")));
    auto containers = spec->find("containers")->array_elements();
    REQUIRE(containers.size() == 2);
    CHECK(containers[1].find("image")->as_string() == "b");
    CHECK(lazy_now(*v.find("status")));  // never touched
    // An object's size counts its keys once: it is built to find out.
    Value dup = parse_json(R"({"o":{"a":1,"a":2,"b":3}})").value;
    const Value* o = dup.find("o");
    CHECK(lazy_now(*o));
    CHECK(o->size() == 2);
    CHECK(*o->find("a") == Value::integer(2));
    // An array's size is known without building it.
    Value arr = parse_json(R"({"a":[1,2,3]})").value;
    const Value* a = arr.find("a");
    CHECK(a->size() == 3);
    CHECK(lazy_now(*a));
}

TEST_CASE("lazy json: a value taken out keeps its document alive") {
    Value inner;
    Value untouched;
    Value number;
    {
        Value v = parse_json(R"({"a":{"b":["x",{"c":"yyyyyyyyyyyyyyyyyyyyyyyyy"}]},"d":{"e":1},"n":[1e400]})").value;
        inner = v.find("a")->find("b")->array_elements()[1];
        untouched = *v.find("d");
        number = v.find("n")->array_elements()[0];
    }
    // The document's root is gone; what was copied out still reads (ASan in
    // CI's sanitizer build checks these are not freed).
    CHECK(inner.find("c")->as_string() == "yyyyyyyyyyyyyyyyyyyyyyyyy");
    CHECK(*untouched.find("e") == Value::integer(1));  // built only now
    CHECK(to_json(number) == "1e400");
    Value copy = inner;
    inner = Value();
    untouched = Value();
    CHECK(copy.find("c")->size() == 25);
}

TEST_CASE("lazy json: many threads touching one document first see the same values") {
    std::string text = "{\"items\":[";
    for (int i = 0; i < 200; ++i) {
        if (i) text += ',';
        text += R"({"name":"item-)" + std::to_string(i) + R"(","tags":{"z":1,"a":[)" + std::to_string(i) +
                R"(,1e400,"\u00e9"]},"id":)" + std::to_string(i) + "}";
    }
    text += "]}";
    std::string want = to_json(detail::parse_json_eagerly(text).value);
    for (int round = 0; round < 20; ++round) {
        Value v = parse_json(text).value;
        REQUIRE(is_document(v));
        std::vector<std::string> got(8);
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t)
            threads.emplace_back([&, t] {
                Value mine = v;  // counted on the shared document
                got[t] = to_json(mine);
            });
        for (auto& th : threads) th.join();
        for (const std::string& g : got) CHECK(g == want);
    }
}

TEST_CASE("lazy json: large documents are read eagerly") {
    std::string big = "[";
    while (big.size() < 70 * 1024) big += R"({"k":"vvvvvvvvvvvvvvvvvvvvvvvv"},)";
    big += "1]";
    ParseResult r = parse_json(big);
    REQUIRE(r.ok);
    CHECK_FALSE(is_document(r.value));
    CHECK(r.value == detail::parse_json_eagerly(big).value);
}
