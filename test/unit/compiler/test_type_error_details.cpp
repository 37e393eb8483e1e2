// The JSON details of type errors (compiler/types/error_details.cpp), in the
// shapes OPA's check.go and types package marshal them.

#include <doctest/doctest.h>

#include "compiler/types/error_details.hpp"
#include "test/unit/compiler/compile_helpers.hpp"

namespace types = gavel::compiler::types;
using gavel::lang::JsonTree;

namespace {

// Compact JSON of a tree, keys in their order.
std::string json(const JsonTree& t) {
    switch (t.kind) {
        case JsonTree::Kind::Null: return "null";
        case JsonTree::Kind::Boolean: return t.boolean ? "true" : "false";
        case JsonTree::Kind::Number: return t.text;
        case JsonTree::Kind::String: return "\"" + t.text + "\"";
        case JsonTree::Kind::Array: {
            std::string out = "[";
            for (std::size_t i = 0; i < t.items.size(); ++i) (out += i ? "," : "") += json(t.items[i]);
            return out + "]";
        }
        case JsonTree::Kind::Object: {
            std::string out = "{";
            for (std::size_t i = 0; i < t.members.size(); ++i)
                out += (i ? ",\"" : "\"") + t.members[i].first + "\":" + json(t.members[i].second);
            return out + "}";
        }
    }
    return "?";
}

// The details of the first error of a module.
std::string first_details(const std::string& module) {
    auto parsed = gavel::lang::parse_module("m.rego", module);
    REQUIRE(parsed.ok());
    auto compiled = gavel::compiler::compile_modules({&*parsed.module}, {});
    REQUIRE(!compiled.ok());
    const auto& d = compiled.diagnostics.items().at(0);
    CHECK(d.summary().find('\n') == std::string_view::npos);
    return d.details ? json(*d.details) : "none";
}

}  // namespace

TEST_CASE("type details: types as OPA's types package marshals them, map keys sorted") {
    CHECK(json(types::type_detail(types::N)) == R"({"type":"number"})");
    CHECK(json(types::type_detail(nullptr)) == "null");
    CHECK(json(types::type_detail(types::array({types::S}, types::N))) ==
          R"({"dynamic":{"type":"number"},"static":[{"type":"string"}],"type":"array"})");
    CHECK(json(types::type_detail(types::set(types::A))) == R"({"of":{"type":"any"},"type":"set"})");
    CHECK(
        json(types::type_detail(types::object({{types::Key{types::Key::Kind::String, "a"}, types::B}},
                                              types::DynamicProperty{types::S, types::N}))) ==
        R"({"dynamic":{"key":{"type":"string"},"value":{"type":"number"}},"static":[{"key":"a","value":{"type":"boolean"}}],"type":"object"})");
    CHECK(json(types::type_detail(types::any_of({types::S, types::N}), "x")) ==
          R"({"name":"x","of":[{"type":"number"},{"type":"string"}],"type":"any"})");
}

TEST_CASE("type details: each error kind carries its object; the message keeps only its first line") {
    CHECK(
        first_details("package p\nx := upper(1)\n") ==
        R"({"have":[{"type":"number"},null],"want":{"args":[{"name":"x","type":"string"},{"name":"y","type":"string"}]}})");
    CHECK(first_details("package p\np if { \"a\" = 1 }\n") == R"({"a":{"type":"string"},"b":{"type":"number"}})");
    CHECK(
        first_details("package p\nx := {\"a\": 1}\ny := x.b\n") ==
        R"({"ref":[{"type":"var","value":"data"},{"type":"string","value":"p"},{"type":"string","value":"x"},{"type":"string","value":"b"}],"pos":3,"want":{"type":"string"},"oneOf":["a"]})");
    // Errors that are not type errors have none.
    CHECK(first_details("package p\np if { x }\n") == "none");
}

TEST_CASE("type details: a key the compiler made a variable is a string in oneOf, as OPA's Var marshals") {
    // (the key of `w[crypto.hmac.sha512("foo*", 1.0 % 1.0)][1] := ...`, rewritten to __local0__)
    auto ref = gavel::lang::make_ref({gavel::lang::make_var("data", {})}, {});
    std::string out = json(types::ref_invalid_detail(*ref, 1, nullptr, types::S, {"__local0__", "\"a\"", "1"}));
    CHECK(out.find(R"("oneOf":["__local0__","a",1])") != std::string::npos);
}
