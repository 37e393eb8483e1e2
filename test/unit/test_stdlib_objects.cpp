// Builtins of the objects families (object.*, array.*, json.*, yaml.*,
// graph.*, union/intersection, walk): edge cases beyond the conformance suite.

#include <doctest/doctest.h>

#include <vector>

#include "runtime/json.hpp"
#include "runtime/value_depth.hpp"
#include "stdlib/registry.hpp"
#include "stdlib/walk.hpp"

namespace {

using gavel::runtime::Value;
using gavel::stdlib::BuiltinContext;
using gavel::stdlib::BuiltinResult;
using Status = BuiltinResult::Status;

Value J(std::string_view text) {
    auto r = gavel::runtime::parse_json(text);
    REQUIRE_MESSAGE(r.ok, text);
    return r.value;
}

BuiltinResult call(const std::string& name, std::vector<Value> args) {
    const auto* b = gavel::stdlib::standard_registry().find(name);
    REQUIRE_MESSAGE(b != nullptr, name);
    REQUIRE(b->arity == args.size());
    BuiltinContext ctx;
    return b->impl(args, ctx);
}

// The result as compact JSON, "undefined", or "<status>: message".
std::string run(const std::string& name, std::vector<Value> args) {
    auto r = call(name, std::move(args));
    switch (r.status) {
        case Status::Value: return gavel::runtime::to_json(r.value);
        case Status::Undefined: return "undefined";
        case Status::TypeError: return "type: " + r.message;
        case Status::BuiltinError: return "error: " + r.message;
        case Status::Conflict: return "conflict: " + r.message;
        case Status::Cancelled: return "cancelled";
    }
    return "?";
}

Value S(std::string_view s) { return Value::string(s); }

}  // namespace

TEST_CASE("stdlib objects: object.get is registered") {
    CHECK(gavel::stdlib::standard_registry().find("object.get") != nullptr);
}

TEST_CASE("stdlib objects: object.get paths through arrays, sets and non-string keys") {
    CHECK(run("object.get", {J(R"({"a":[{"b":1}]})"), J(R"(["a",0,"b"])"), J("0")}) == "1");
    // A string index does not enter an array.
    CHECK(run("object.get", {J(R"({"a":[{"b":1}]})"), J(R"(["a","0","b"])"), J("0")}) == "0");
    CHECK(run("object.get", {J(R"({"a":[1]})"), J(R"(["a",-1])"), S("d")}) == "\"d\"");
    CHECK(run("object.get", {J(R"({"a":[1]})"), J(R"(["a",5])"), S("d")}) == "\"d\"");
    // Through a set: the step is the element itself.
    Value obj = Value::object({{S("s"), Value::set({S("x")})}});
    CHECK(run("object.get", {obj, J(R"(["s","x"])"), S("d")}) == "\"x\"");
    // A scalar stops the walk.
    CHECK(run("object.get", {J(R"({"a":"str"})"), J(R"(["a","b"])"), S("d")}) == "\"d\"");
    // A non-array key is looked up directly, even an object key.
    Value keyed = Value::object({{J(R"({"k":1})"), S("v")}});
    CHECK(run("object.get", {keyed, J(R"({"k":1})"), S("d")}) == "\"v\"");
    CHECK(run("object.get", {J("[1]"), S("a"), S("d")}) == "type: operand 1 must be object but got array");
}

TEST_CASE("stdlib objects: object.remove / filter take arrays, sets and object keys") {
    Value obj = J(R"({"a":1,"b":2,"c":3})");
    CHECK(run("object.remove", {obj, J(R"(["a","x"])")}) == R"({"b":2,"c":3})");
    CHECK(run("object.remove", {obj, J(R"({"b":0,"c":0})")}) == R"({"a":1})");
    CHECK(run("object.filter", {obj, Value::set({S("c"), S("zz")})}) == R"({"c":3})");
    CHECK(run("object.filter", {obj, S("a")}) == "type: operand 2 must be one of {object, set, array} but got string");
    // As OPA, whose set of keys to remove compares 1 only with numbers written as integers:
    // 1.0 does not remove the key 1.
    CHECK(run("object.remove", {Value::object({{Value::integer(1), S("x")}}), J("[1.0]")}) == R"({"1":"x"})");
    CHECK(run("object.remove", {Value::object({{Value::integer(1), S("x")}}), J("[1]")}) == "{}");
}

TEST_CASE("stdlib objects: object.union of equal objects is the first as written (OPA 1.7.1's values)") {
    CHECK(run("object.union", {J(R"({"a":0.0})"), J(R"({"a":0})")}) == R"({"a":0.0})");
    CHECK(run("object.union", {J(R"({"a":{"b":1.0}})"), J(R"({"a":{"b":1}})")}) == R"({"a":{"b":1.0}})");
    // Unequal objects merge; a value in both is the right-hand one, however spelled.
    CHECK(run("object.union", {J(R"({"a":0.0,"c":1})"), J(R"({"a":0})")}) == R"({"a":0,"c":1})");
}

TEST_CASE("stdlib objects: object.union merges nested objects, right wins otherwise") {
    CHECK(run("object.union", {J(R"({"a":{"b":1,"c":2}})"), J(R"({"a":{"c":3}})")}) == R"({"a":{"b":1,"c":3}})");
    CHECK(run("object.union", {J(R"({"a":{"b":1}})"), J(R"({"a":[1]})")}) == R"({"a":[1]})");
    // union_n: a scalar in between cuts the merge chain.
    CHECK(run("object.union_n", {J(R"([{"a":{"b":2}},{"a":4},{"a":{"c":3}}])")}) == R"({"a":{"c":3}})");
    CHECK(run("object.union_n", {J("[]")}) == "{}");
    CHECK(run("object.union_n", {J(R"([{},1])")}) ==
          "type: operand 1 must be array of objects but got array containing number");
}

TEST_CASE("stdlib objects: object.subset over objects, sets, arrays and array/set") {
    CHECK(run("object.subset", {J(R"({"a":{"b":[1,2,3]},"c":1})"), J(R"({"a":{"b":[2,3]}})")}) == "true");
    CHECK(run("object.subset", {J(R"({"a":[1,2,3]})"), J(R"({"a":[1,3]})")}) == "false");  // contiguous only
    CHECK(run("object.subset", {J("[1,2,3]"), J("[]")}) == "true");
    CHECK(run("object.subset", {J("[3,1]"), Value::set({Value::integer(1), Value::integer(3)})}) == "true");
    // OPA counts matches with repetition (duplicates satisfy distinct elements).
    CHECK(run("object.subset", {J("[1,1]"), Value::set({Value::integer(1), Value::integer(2)})}) == "true");
    CHECK(run("object.subset", {J("[]"), Value::empty_set()}) == "false");
    CHECK(run("object.subset", {J("{}"), J("[]")}).rfind("type: both arguments object.subset", 0) == 0);
}

TEST_CASE("stdlib objects: object.keys of non-string keys") {
    Value obj = Value::object({{Value::integer(2), S("a")}, {J("[1]"), S("b")}});
    CHECK(run("object.keys", {obj}) == "[2,[1]]");
}

TEST_CASE("stdlib objects: array builtins") {
    CHECK(run("array.slice", {J("[1,2,3]"), J("-5"), J("99")}) == "[1,2,3]");
    CHECK(run("array.slice", {J("[1,2,3]"), J("2"), J("1")}) == "[]");
    CHECK(run("array.slice", {J("[1,2,3]"), J("1.5"), J("2")}) ==
          "type: operand 2 must be integer number but got floating-point number");
    // OPA's IntOperand reads the number's text: 1.0 and 2e0 are no integers there.
    CHECK(run("array.slice", {J("[1,2,3]"), J("1.0"), J("3")}) ==
          "type: operand 2 must be integer number but got floating-point number");
    CHECK(run("array.slice", {J("[1,2,3]"), J("0"), J("2e0")}) ==
          "type: operand 3 must be integer number but got floating-point number");
    CHECK(run("array.slice", {J("[1,2,3]"), J("1"), J("99999999999999999999999")}) ==
          "type: operand 3 must be integer number but got floating-point number");
    CHECK(run("array.concat", {J("[]"), J(R"(["é"])")}) == R"(["é"])");
    CHECK(run("array.reverse", {J("[1,[2,3]]")}) == "[[2,3],1]");
    CHECK(run("array.flatten", {J("[[],[[1]],2]")}) == "[[1],2]");
}

TEST_CASE("stdlib objects: union and intersection of sets of sets") {
    Value sets = Value::set(
        {Value::set({Value::integer(1), Value::integer(2)}), Value::set({Value::integer(2), Value::integer(3)})});
    CHECK(run("union", {sets}) == "[1,2,3]");
    CHECK(run("intersection", {sets}) == "[2]");
    CHECK(run("intersection", {Value::empty_set()}) == "[]");
    CHECK(run("union", {Value::set({Value::integer(1)})}) == "type: operand 1 must be set but got number");
    CHECK(run("intersection", {J("[1]")}) == "type: operand 1 must be set but got array");
}

TEST_CASE("stdlib objects: json.filter / json.remove path syntax") {
    Value doc = J(R"({"a/b":{"~":1,"x":2},"arr":[{"k":1},{"k":2}],"z":0})");
    CHECK(run("json.filter", {doc, J(R"(["a~1b/~0"])")}) == R"({"a/b":{"~":1}})");
    CHECK(run("json.remove", {doc, J(R"(["/arr/0","z"])")}) == R"({"a/b":{"x":2,"~":1},"arr":[{"k":2}]})");
    // Array paths: a number segment does not address an array (OPA keys arrays by "0").
    CHECK(run("json.filter", {doc, J(R"([["arr",0]])")}) == R"({"arr":[]})");
    CHECK(run("json.filter", {doc, J(R"([["arr","1","k"]])")}) == R"({"arr":[{"k":2}]})");
    // Leading slashes are all trimmed; the empty path selects nothing.
    CHECK(run("json.filter", {doc, J(R"(["//z",""])")}) == R"({"z":0})");
    CHECK(
        run("json.remove", {doc, J("[1]")}) ==
        "type: operand 2 must be one of {set, array} containing string paths or array of path segments but got number");
}

TEST_CASE("stdlib objects: json.patch RFC 6902 and OPA's extensions") {
    auto patch = [](std::string_view doc, std::string_view ops) { return run("json.patch", {J(doc), J(ops)}); };
    CHECK(patch(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/-","value":3}])") == R"({"a":[1,2,3]})");
    CHECK(patch(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/3","value":3}])") == "undefined");
    CHECK(patch(R"({"a":[1,2]})", R"([{"op":"add","path":"/a/01","value":3}])") == "undefined");
    CHECK(patch(R"({"a":[1,2]})", R"([{"op":"move","from":"/a/0","path":"/b"}])") == R"({"a":[2],"b":1})");
    CHECK(patch(R"({"a":1})", R"([{"op":"test","path":"/a","value":1.0}])") == R"({"a":1})");
    CHECK(patch(R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])") == "undefined");
    CHECK(patch(R"({"a":1})", R"([{"op":"add","path":"","value":[7]}])") == "[7]");
    CHECK(patch(R"({"a":1})", R"([{"op":"remove","path":""}])") == "undefined");
    CHECK(patch(R"({"~/":1})", R"([{"op":"remove","path":"/~0~1"}])") == "{}");
    CHECK(patch("{}", R"([{"op":"add","path":["x"],"value":1}])") == R"({"x":1})");
    // A malformed operation makes the result undefined, as in OPA (no error, even in strict mode).
    CHECK(patch("{}", R"([{"path":"/x","value":1}])") == "undefined");
    CHECK(patch("{}", R"([{"op":"frob","path":"/x"}])") == "undefined");
    CHECK(patch("{}", R"([1])") == "undefined");
    CHECK(patch("{}", R"([{"op":"add","path":1,"value":1}])") == "undefined");
    CHECK(patch("{}", R"([{"op":"add","path":"/x"}])") == "undefined");
    CHECK(patch("{}", R"([{"op":"move","path":"/x"}])") == "undefined");
    CHECK(run("json.patch", {J("{}"), J("{}")}) == "type: operand 2 must be array but got object");
    // Sets: the last path segment must equal the added value.
    Value with_set = Value::object({{S("s"), Value::set({S("a")})}});
    CHECK(run("json.patch", {with_set, J(R"([{"op":"add","path":"/s/b","value":"b"}])")}) == R"({"s":["a","b"]})");
    CHECK(run("json.patch", {with_set, J(R"([{"op":"add","path":"/s/b","value":"c"}])")}) == "undefined");
}

TEST_CASE("stdlib objects: json.patch refuses results nested past the built-value limit") {
    // Copying the document into itself nests it one level deeper per operation.
    auto copies = [](int n) {
        std::string ops = "[";
        for (int i = 0; i < n; ++i) ops += std::string(i ? "," : "") + R"({"op":"copy","from":"","path":"/a"})";
        return J(ops + "]");
    };
    const int levels = static_cast<int>(gavel::runtime::kMaxBuiltDepth);
    CHECK(run("json.patch", {J("{}"), copies(levels - 1)}).rfind(R"({"a":{"a":)", 0) == 0);  // exactly at the limit
    CHECK(run("json.patch", {J("{}"), copies(levels)}) ==
          "error: the patched document would nest more than 2000 levels");
    // The same for a deep value added at a deep path.
    Value deep = Value::array({});
    for (int i = 1; i < levels - 2; ++i) deep = Value::array({deep});  // levels - 2 deep
    auto add_at = [&](std::string_view path) {
        return Value::array({Value::object({{S("op"), S("add")}, {S("path"), S(path)}, {S("value"), deep}})});
    };
    CHECK(run("json.patch", {J(R"({"a":{}})"), add_at("/a/b")}).rfind(R"({"a":{"b":[[)", 0) == 0);  // at the limit
    CHECK(run("json.patch", {J(R"({"a":{"b":{}}})"), add_at("/a/b/c")}) ==
          "error: the patched document would nest more than 2000 levels");
}

// OPA's applyPatches (topdown/json.go) on its edit tree (internal/edittree):
// move = render `from`, delete `from`, insert at `path`; deleting "" empties
// the root, which only an insert at "" refills.
TEST_CASE("stdlib objects: json.patch move and copy to the same place, into a child, and at the root") {
    auto patch = [](std::string_view doc, std::string_view ops) { return run("json.patch", {J(doc), J(ops)}); };
    const std::string_view doc = R"({"a":{"b":[1,{"c":2}]},"d":3})";
    // A move to its own location leaves the document as it was, at any depth.
    CHECK(patch(doc, R"([{"op":"move","from":"","path":""}])") == doc);
    CHECK(patch("[1,2]", R"([{"op":"move","from":"","path":""}])") == "[1,2]");
    CHECK(patch("7", R"([{"op":"move","from":"","path":""}])") == "7");
    CHECK(patch(doc, R"([{"op":"move","from":"/a","path":"/a"}])") == doc);
    CHECK(patch(doc, R"([{"op":"move","from":"/a/b/1","path":"/a/b/1"}])") == doc);
    CHECK(patch(doc, R"([{"op":"move","from":"/a/b/1/c","path":"/a/b/1/c"}])") == doc);
    // A value cannot move into its own child: once removed, the parent is gone.
    CHECK(patch(doc, R"([{"op":"move","from":"/a","path":"/a/x"}])") == "undefined");
    CHECK(patch(doc, R"([{"op":"move","from":"/a/b","path":"/a/b/0"}])") == "undefined");
    CHECK(patch(doc, R"([{"op":"move","from":"","path":"/x"}])") == "undefined");
    // The root can be replaced by one of its members.
    CHECK(patch(doc, R"([{"op":"move","from":"/a/b","path":""}])") == R"([1,{"c":2}])");
    // A copy leaves its source: copies into the same place, a child and the root work.
    CHECK(patch(doc, R"([{"op":"copy","from":"","path":""}])") == doc);
    CHECK(patch(doc, R"([{"op":"copy","from":"/d","path":"/d"}])") == doc);
    CHECK(patch(R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/a/c"}])") == R"({"a":{"b":1,"c":{"b":1}}})");
    CHECK(patch(R"({"a":1})", R"([{"op":"copy","from":"","path":"/b"}])") == R"({"a":1,"b":{"a":1}})");
    CHECK(patch(doc, R"([{"op":"copy","from":"/d","path":""}])") == "3");
    // A deleted root: only an add at "" brings it back.
    CHECK(patch(R"({"a":1})", R"([{"op":"remove","path":""},{"op":"add","path":"","value":2}])") == "2");
    CHECK(patch(R"({"a":1})", R"([{"op":"move","from":"","path":""},{"op":"remove","path":"/a"}])") == "{}");
    CHECK(patch(R"({"a":1})", R"([{"op":"remove","path":""},{"op":"add","path":"/a","value":2}])") == "undefined");
    CHECK(patch(R"({"a":1})", R"([{"op":"remove","path":""},{"op":"replace","path":"","value":2}])") == "undefined");
    CHECK(patch(R"({"a":1})", R"([{"op":"remove","path":""},{"op":"copy","from":"","path":""}])") == "undefined");
    CHECK(patch(R"({"a":1})", R"([{"op":"remove","path":""},{"op":"test","path":"","value":null}])") == "undefined");
}

TEST_CASE("stdlib objects: json marshal / unmarshal / is_valid") {
    CHECK(run("json.marshal", {J(R"({"b":"<&>","a":[1.5,"é"]})")}) ==
          R"("{\"a\":[1.5,\"é\"],\"b\":\"\\u003c\\u0026\\u003e\"}")");
    CHECK(run("json.marshal_with_options", {J(R"({"a":[]})"), J(R"({"pretty":true})")}) == R"("{\n\t\"a\": []\n}")");
    CHECK(run("json.marshal_with_options", {J(R"("x:[{")"), J(R"({"indent":" "})")}) == R"("\"x:[{\"")");
    CHECK(run("json.marshal_with_options", {J("[]"), J(R"({"pretty":1})")}) ==
          "type: operand 2 key pretty failed cast to bool");
    CHECK(run("json.unmarshal", {S(R"({"a":123456789012345678901234567890})")}) ==
          R"({"a":123456789012345678901234567890})");
    CHECK(run("json.unmarshal", {S("{")}).rfind("error: ", 0) == 0);
    // Go's encoding/json texts, as OPA's util.UnmarshalJSON returns them.
    CHECK(run("json.unmarshal", {S("[1,")}) == "error: unexpected EOF");
    CHECK(run("json.unmarshal", {S("")}) == "error: EOF");
    CHECK(run("json.unmarshal", {S("x")}) == "error: invalid character 'x' looking for beginning of value");
    CHECK(run("json.unmarshal", {S("1 2")}) == "error: error: invalid character '2' after top-level value");
    CHECK(run("json.is_valid", {S("[1,]")}) == "false");
    CHECK(run("json.is_valid", {S(" 1 ")}) == "true");
    CHECK(run("json.is_valid", {J("[]")}) == "false");
}

// Go's json.Marshal and MarshalIndent, which OPA calls, escape <, > and & (OPA 1.7.1's texts).
TEST_CASE("stdlib objects: json marshal escapes HTML characters as Go's json.Marshal") {
    CHECK(run("json.marshal", {J(R"({"a&": "<b>"})")}) == R"("{\"a\\u0026\":\"\\u003cb\\u003e\"}")");
    CHECK(run("json.marshal_with_options", {J(R"(["&"])"), J(R"({"pretty": true})")}) == R"("[\n\t\"\\u0026\"\n]")");
}

TEST_CASE("stdlib objects: yaml marshal follows go-yaml's layout and quoting") {
    CHECK(run("yaml.marshal", {J(R"({"b":[1,{"c":"x"}],"a":{}})")}) == R"("a: {}\nb:\n- 1\n- c: x\n")");
    // Strings that would read back as other types are quoted.
    CHECK(run("yaml.marshal", {J(R"(["true","1.5","yes","","null","- x","a: b"])")}) ==
          R"("- \"true\"\n- \"1.5\"\n- \"yes\"\n- \"\"\n- \"null\"\n- '- x'\n- 'a: b'\n")");
    CHECK(run("yaml.marshal", {J(R"({"k":"l1\nl2"})")}) == R"("k: |-\n  l1\n  l2\n")");
    // What go-yaml does not print as it is (beyond the BMP, C1 controls) is double-quoted and
    // escaped (OPA 1.7.1's texts).
    CHECK(run("yaml.marshal", {J(R"(["😀", "a😀b", "é", "\ufeff", "\u0001"])")}) ==
          R"("- \"\\U0001F600\"\n- \"a\\U0001F600b\"\n- é\n- \"\\uFEFF\"\n- \"\\x01\"\n")");
    // What go-yaml's reader refuses in OPA's JSON text of the value.
    for (const char* refused : {R"(["a\u0090"])", R"(["\uffff"])", R"({"a\u007f": 1})"})
        CHECK(run("yaml.marshal", {J(refused)}) == "error: yaml: control characters are not allowed");
    CHECK(run("yaml.marshal", {J(R"({"😀": 1})")}) == R"("\"\\U0001F600\": 1\n")");
    // Keys rune by rune: a non-letter (an emoji) before a letter, letters by code point.
    CHECK(run("yaml.marshal", {J(R"({"k😀": 2, "😀": 1, "é": 3, "z": 4})")}) ==
          R"("\"\\U0001F600\": 1\n\"k\\U0001F600\": 2\nz: 4\né: 3\n")");
    // Keys that print alike: the last in canonical order, as OPA's JSON of the value keeps.
    Value clash = Value::object({{Value::integer(1), S("num")}, {S("1"), S("str")}, {S("a"), Value::integer(2)}});
    CHECK(run("yaml.marshal", {clash}) == R"("\"1\": str\na: 2\n")");
    // A key that is no string is its JSON text as Go's encoder writes it (< escaped).
    CHECK(run("yaml.marshal", {Value::object({{Value::array({S("<")}), Value::integer(1)}})}) ==
          R"("'[\"\\u003c\"]': 1\n")");
    // Natural key order: digit runs compare by value.
    CHECK(run("yaml.marshal", {J(R"({"a10":1,"a2":2})")}) == R"("a2: 2\na10: 1\n")");
    // Numbers as go-yaml reads their JSON text again (OPA 1.7.1's outputs): int64 and uint64 in
    // digits, anything else a float64 in Go's shortest 'g'; an overflowing float keeps its text.
    CHECK(run("yaml.marshal",
              {J(R"([0.0015, 7, 7.0, 1e3, 1e-06, -0, 0.33333333333333333334, 12345678901234567890, 1e100])")}) ==
          R"("- 0.0015\n- 7\n- 7\n- 1000\n- 1e-06\n- 0\n- 0.3333333333333333\n- 12345678901234567890\n- 1e+100\n")");
    CHECK(
        run("yaml.marshal",
            {J(R"([1000000.5, 1e6, -0.0, 18446744073709551616, -9223372036854775809, 0.0000001, 1e400, -1e-400])")}) ==
        R"("- 1.0000005e+06\n- 1e+06\n- -0\n- 1.8446744073709552e+19\n- -9.223372036854776e+18\n- 1e-07\n- 1e400\n- -0\n")");
    // Round trip through yaml.unmarshal.
    Value doc = J(R"({"list":[{"name":"x y","on":"off"},[]],"s":"it's","n":-1.25,"u":"ünï"})");
    auto marshalled = call("yaml.marshal", {doc});
    REQUIRE(marshalled.status == Status::Value);
    auto back = call("yaml.unmarshal", {marshalled.value});
    REQUIRE(back.status == Status::Value);
    CHECK(back.value == doc);
}

TEST_CASE("stdlib objects: yaml unmarshal and is_valid") {
    CHECK(run("yaml.unmarshal", {S("a: 1\nb: [x, z]")}) == R"({"a":1,"b":["x","z"]})");
    // YAML 1.1, as OPA's sigs.k8s.io/yaml: y is a boolean.
    CHECK(run("yaml.unmarshal", {S("b: [x, y]")}) == R"({"b":["x",true]})");
    CHECK(run("yaml.unmarshal", {S("")}) == "null");
    CHECK(run("yaml.unmarshal", {S("[1,2,3")}).rfind("error: yaml: line 1: did not find expected ',' or ']'", 0) == 0);
    CHECK(run("yaml.is_valid", {S("a: {")}) == "false");
    CHECK(run("yaml.is_valid", {Value::integer(1)}) == "false");
}

TEST_CASE("stdlib objects: graph.reachable and reachable_paths") {
    Value g = J(R"({"a":["b"],"b":["c","a"],"c":[],"d":["a"]})");
    CHECK(run("graph.reachable", {g, J(R"(["a"])")}) == R"(["a","b","c"])");
    CHECK(run("graph.reachable", {g, J(R"(["zz"])")}) == "[]");
    CHECK(run("graph.reachable_paths", {g, J(R"(["a"])")}) == R"([["a","b"],["a","b","c"]])");
    CHECK(run("graph.reachable", {g, S("a")}) == "type: operand 2 must be {array, set} but got string");
    CHECK(run("graph.reachable_paths", {J("[]"), J("[]")}) == "type: operand 1 must be object but got array");
}

TEST_CASE("stdlib objects: json.verify_schema") {
    CHECK(run("json.verify_schema", {J(R"({"type":["string","string"]})")}) ==
          R"([false,"jsonschema: string type is duplicated"])");
    CHECK(run("json.verify_schema", {S("{")}) == R"([false,"jsonschema: invalid JSON string"])");
    CHECK(run("json.verify_schema", {J(R"({"pattern":"("})")}) ==
          R"([false,"jsonschema: pattern must be a valid regex"])");
    CHECK(run("json.verify_schema", {J(R"({"$ref":"#/definitions/missing"})")}).rfind("[false,", 0) == 0);
    CHECK(run("json.verify_schema",
              {J(R"({"definitions":{"n":{"items":{"$ref":"#/definitions/n"}}},"$ref":"#/definitions/n"})")}) ==
          "[true,null]");
}

// Where gavel's two JSON Schema parsers disagreed, OPA 1.7.1's answer (its gojsonschema), now
// that the builtins compile with the type checker's compiler (compiler/types/json_schema.hpp).
TEST_CASE("stdlib objects: json.verify_schema checks and words a schema as OPA does") {
    auto verify = [](std::string_view schema) { return run("json.verify_schema", {S(schema)}); };
    auto invalid = [](std::string_view why) { return "[false,\"jsonschema: " + std::string(why) + "\"]"; };
    // Not a schema at all; `$schema` a string, naming a draft exactly.
    CHECK(verify("[1]") == invalid("schema is invalid"));
    CHECK(verify(R"({"$schema": 5})") == invalid("$schema must be of type string"));
    CHECK(verify(R"({"$schema": "https://json-schema.org/draft-04/schema", "minimum": 1, "exclusiveMinimum": 3})") ==
          "[true,null]");
    // gojsonschema's names for what it expected.
    CHECK(verify(R"({"definitions": 3})") == invalid("Invalid type. Expected: Array Of Schemas, given: definitions"));
    CHECK(verify(R"({"properties": 3})") == invalid("Properties must be of type object"));
    CHECK(verify(R"({"properties": {"a": 3}})") == invalid("Expected: Valid Schema, given: Invalid JSON"));
    CHECK(verify(R"({"type": 3})") == invalid("Invalid type. Expected: type, given: string/Array Of Strings"));
    CHECK(verify(R"({"additionalProperties": 3})") ==
          invalid("Invalid type. Expected: boolean/Valid Schema, given: additionalProperties"));
    CHECK(verify(R"({"items": 3})") == invalid("Invalid type. Expected: Valid Schema/Array Of Schemas, given: items"));
    CHECK(verify(R"({"multipleOf": "a"})") == invalid("Invalid type. Expected: Number, given: multipleOf"));
    CHECK(verify(R"({"minimum": "a"})") == invalid("minimum must be of a Number"));
    CHECK(verify(R"({"dependencies": {"a": 3}})") == invalid("Dependency must be of type Schema Or Array Of Strings"));
    CHECK(verify(R"({"propertyNames": 3})") ==
          invalid("Invalid type. Expected: Valid Schema, given: patternProperties"));
    // A count is an integer literal (Go's ParseInt), not any integral number.
    CHECK(verify(R"({"minLength": 3.0})") == invalid("minLength must be of an integer"));
    CHECK(verify(R"({"maxItems": 1e3})") == invalid("maxItems must be of an integer"));
    // The hybrid draft's identifier is `id` where a schema has one.
    CHECK(verify(R"({"id": 3})") == invalid("Invalid type. Expected: string, given: id"));
    CHECK(verify(R"({"properties": {"a": {"$id": "http://x.com/s"}, "b": {"$id": "http://x.com/s"}}})") ==
          invalid(R"(Reference already exists: \"http://x.com/s\")"));
    // References: resolved against `$id`s, a fragment that is no pointer is the document itself,
    // and gojsonpointer's and url.Parse's messages.
    CHECK(
        verify(
            R"({"properties": {"a": {"$id": "http://x.com/s", "type": "string"}, "b": {"$ref": "http://x.com/s"}}})") ==
        "[true,null]");
    CHECK(verify(R"({"$ref": "#foo"})") == "[true,null]");
    CHECK(verify(R"({"$ref": "#/items/5", "items": [{}]})") == invalid("Out of bound array[0,1] index '5'"));
    CHECK(verify(R"({"$ref": "#/type/x", "type": "string"})") == invalid("Invalid token reference 'x'"));
    CHECK(verify(R"({"$ref": "other.json"})") == invalid("Reference /other.json must be canonical"));
    CHECK(verify(R"({"$ref": "#%zz"})") == invalid(R"(parse \"#%zz\": invalid URL escape \"%zz\")"));
    CHECK(verify(R"({"$ref": "a%zz#x"})") == invalid(R"(parse \"a%zz\": invalid URL escape \"%zz\")"));
    CHECK(verify(R"({"$ref": "mailto:x#%zz"})") == invalid(R"(parse \"mailto:x#%zz\": invalid URL escape \"%zz\")"));
    CHECK(verify(R"({"$id": "http://[::1#x"})") == invalid(R"(parse \"http://[::1\": missing ']' in host)"));
    CHECK(verify(R"({"$ref": "http://example.com/x.json"})") ==
          invalid("remote reference loading disabled: http://example.com/x.json"));
}

TEST_CASE("stdlib objects: json.match_schema keywords and error objects") {
    auto errors = [](std::string_view doc, std::string_view schema) {
        auto r = call("json.match_schema", {S(doc), J(schema)});  // a string document is JSON text
        REQUIRE(r.status == Status::Value);
        std::string out;
        for (const auto& e : r.value.array_elements()[1].array_elements()) {
            if (!out.empty()) out += " | ";
            out += std::string(e.find("error")->as_string()) + " <" + std::string(e.find("type")->as_string()) + ">";
        }
        return out;
    };
    CHECK(errors(R"({"a":"x"})", R"({"properties":{"a":{"minLength":2,"pattern":"^[0-9]+$"}}})") ==
          "a: String length must be greater than or equal to 2 <string_gte> | a: Does not match pattern '^[0-9]+$' "
          "<pattern>");
    CHECK(
        errors("[1,1]", R"({"uniqueItems":true,"maxItems":1})") ==
        "(Root): Array must have at most 1 items <array_max_items> | (Root): array items[0,1] must be unique <unique>");
    CHECK(errors("0.3", R"({"multipleOf":0.1,"exclusiveMaximum":0.3})") == "(Root): Must be less than 0.3 <number_lt>");
    CHECK(errors("7", R"({"multipleOf":2,"minimum":10})") ==
          "(Root): Must be a multiple of 2 <multiple_of> | (Root): Must be greater than or equal to 10 <number_gte>");
    // Draft 4 boolean exclusiveMinimum.
    CHECK(errors("5", R"({"minimum":5,"exclusiveMinimum":true})") == "(Root): Must be greater than 5 <number_gt>");
    CHECK(errors(R"({"x":1})", R"({"additionalProperties":false,"properties":{"y":{}}})") ==
          "(Root): Additional property x is not allowed <additional_property_not_allowed>");
    CHECK(errors(R"("b")", R"({"const":"a"})") == R"((Root): (Root) does not match: "a" <const>)");
    CHECK(errors("1.0", R"({"enum":[1]})").empty());
    CHECK(errors(R"("x")", R"({"oneOf":[{"type":"string"},{"minLength":1}]})") ==
          "(Root): Must validate one and only one schema (oneOf) <number_one_of>");
    CHECK(errors("1", R"({"anyOf":[{"type":"string"},{"type":"integer","minimum":3}]})") ==
          "(Root): Must validate at least one schema (anyOf) <number_any_of> | (Root): Must be greater than or equal "
          "to 3 <number_gte>");
    CHECK(errors("1", R"({"if":{"type":"integer"},"then":{"minimum":2}})") ==
          "(Root): Must validate \"then\" as \"if\" was valid <condition_then> | (Root): Must be greater than or equal "
          "to 2 <number_gte>");
    CHECK(errors(R"({"a":1})", R"({"dependencies":{"a":["b"]}})") ==
          "(Root): Has a dependency on b <missing_dependency>");
    CHECK(errors(R"("2021-02-30")", R"({"format":"date"})") == "(Root): Does not match format 'date' <format>");
    CHECK(errors(R"("2021-02-28T10:00:00Z")", R"({"format":"date-time"})").empty());
    CHECK(errors("[1,\"a\"]", R"({"items":[{"type":"integer"}],"additionalItems":false})") ==
          "(Root): No additional items allowed on array <array_no_additional_items>");
    CHECK(errors("[1]", R"({"contains":{"type":"string"}})") ==
          "(Root): At least one of the items must match <contains> | 0: Invalid type. Expected: string, given: integer "
          "<invalid_type>");
    // The false schema, given as JSON text (a boolean operand is refused, as in OPA).
    CHECK(
        run("json.match_schema", {S("null"), S("false")}) ==
        R"j([false,[{"desc":"False always fails validation","error":"(Root): False always fails validation","field":"(Root)","type":"false"}]])j");
    CHECK(run("json.match_schema", {S("null"), Value::boolean(false)}) ==
          "error: wrong type, expected string or object");
    // Arrays are no schema and no document either (OPA takes strings and objects only).
    CHECK(run("json.match_schema", {J(R"([{"a": 1}])"), J(R"({"type": "array"})")}) ==
          "error: wrong type, expected string or object");
    CHECK(run("json.verify_schema", {J(R"(["something"])")}) ==
          R"([false,"jsonschema: wrong type, expected string or object"])");
    CHECK(errors(R"("ab")", R"({"maxLength":1,"type":["integer","string"]})") ==
          "(Root): String length must be less than or equal to 1 <string_lte>");
    CHECK(errors("true", R"({"type":["integer","string"]})") ==
          "(Root): Invalid type. Expected: [integer,string], given: boolean <invalid_type>");
    // Unicode: lengths count code points.
    CHECK(errors(R"("äö")", R"({"maxLength":2})").empty());
    // Number documents are refused as OPA refuses them.
    auto r = call("json.match_schema", {Value::integer(5), J("{}")});
    CHECK(r.status == Status::BuiltinError);
    CHECK(r.message == "wrong type, expected string or object");
}

TEST_CASE("stdlib objects: walk emits every path/value pair in OPA's order") {
    std::vector<std::string> seen;
    gavel::stdlib::WalkEmit collect = [&](const Value& pair) {
        seen.push_back(gavel::runtime::to_json(pair));
        return true;
    };
    gavel::stdlib::walk_pairs(J(R"({"a":[1,{"b":2}]})"), {}, true, collect);
    CHECK(seen == std::vector<std::string>{R"([[],{"a":[1,{"b":2}]}])", R"([["a"],[1,{"b":2}]])", R"([["a",0],1])",
                                           R"([["a",1],{"b":2}])", R"([["a",1,"b"],2])"});
    // A ground path prefix only descends where it matches.
    seen.clear();
    std::vector<std::optional<Value>> filter{S("a"), std::nullopt};
    gavel::stdlib::walk_pairs(J(R"({"a":[1,2],"c":[3]})"), filter, true, collect);
    CHECK(seen == std::vector<std::string>{R"([["a",0],1])", R"([["a",1],2])"});
    // Early stop.
    seen.clear();
    gavel::stdlib::WalkEmit first_only = [&](const Value& pair) {
        seen.push_back(gavel::runtime::to_json(pair));
        return false;
    };
    gavel::stdlib::walk_pairs(J("[1,2,3]"), {}, false, first_only);
    CHECK(seen == std::vector<std::string>{"[null,[1,2,3]]"});
}

TEST_CASE("stdlib sets: |, & and - keep numbers as OPA's set does (2 is compared only with integers)") {
    auto set = [](std::initializer_list<const char*> texts) {
        gavel::runtime::SetBuilder b;
        for (const char* t : texts) b.insert(J(t));
        return b.build();
    };
    // Union adds the first set's elements, then the second's: 2 after 2.0 stays.
    CHECK(run("or", {set({"2.0", "3"}), set({"1", "2"})}) == "[1,2.0,2,3]");
    CHECK(run("or", {set({"1", "2"}), set({"2.0", "3"})}) == "[1,2,3]");
    // Intersection looks the smaller set's elements up in the other (the first when equal).
    CHECK(run("and", {set({"1", "2"}), set({"2.0", "3"})}) == "[]");
    CHECK(run("and", {set({"2.0", "3"}), set({"1", "2"})}) == "[2.0]");
    CHECK(run("and", {set({"2.0"}), set({"1", "2"})}) == "[2.0]");
    CHECK(run("minus", {set({"1", "2"}), set({"2.0", "3"})}) == "[1,2]");
    CHECK(run("minus", {set({"2.0", "3"}), set({"1", "2"})}) == "[3]");
}
