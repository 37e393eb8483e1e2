// JSON Schemas for the type checker (compiler/types/json_schema.hpp,
// schema_types.hpp; the annotation scopes of compiler/annotation_set.hpp; the
// check_types stage): each JSON Schema construct typed as OPA types it, OPA's
// messages for what it rejects, METADATA `schemas:` in each scope, and the
// schema of `input` in modules and queries.

#include <doctest/doctest.h>

#include <chrono>

#include "compiler/schema_set.hpp"
#include "compiler/types/schema_types.hpp"
#include "runtime/value_json_tree.hpp"
#include "lang/parse.hpp"
#include "runtime/json.hpp"
#include "test/unit/compiler/compile_helpers.hpp"

namespace {

using gavel::compiler::SchemaSet;
using gavel::lang::JsonTree;
namespace types = gavel::compiler::types;

JsonTree json(const std::string& text) {
    auto r = gavel::runtime::parse_json(text);
    REQUIRE_MESSAGE(r.ok, text);
    return gavel::runtime::to_json_tree(r.value);
}

// A schema's type as OPA prints it, or "ERROR: " and the error.
std::string typed(const std::string& schema) {
    auto r = types::schema_type(json(schema));
    return r.type ? types::to_string(r.type) : "ERROR: " + r.error;
}

// The errors of modules compiled with these schemas ({"" : x} is `schema` itself, the input's).
std::string errors_with(const std::vector<std::string>& modules, const std::map<std::string, std::string>& schemas,
                        bool with_set = true) {
    gavel::compiler::CompileOptions options;
    if (with_set) {
        auto set = std::make_shared<SchemaSet>();
        for (const auto& [path, text] : schemas) {
            std::vector<std::string> key;
            for (std::size_t start = 0; !path.empty() && start <= path.size();) {
                std::size_t dot = path.find('.', start);
                key.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
                if (dot == std::string::npos) break;
                start = dot + 1;
            }
            set->schemas[key] = json(text);
        }
        options.schemas = set;
    }
    return gavel::test::compile_text(modules, options).errors;
}

const char* const kInput = R"({
  "type": "object",
  "properties": {
    "user": {"type": "string"},
    "operation": {"type": "string"},
    "request": {"type": "object", "properties": {
      "kind": {"type": "object", "properties": {"kind": {"type": "string"}, "version": {"type": "string"}}},
      "object": {"type": "object"}
    }}
  }
})";

}  // namespace

// ---- JSON Schema -> types ---------------------------------------------------------------

TEST_CASE("scalar types; integer is number; null alone and no type are any") {
    CHECK(typed(R"({"type": "number"})") == "number");
    CHECK(typed(R"({"type": "integer"})") == "number");
    CHECK(typed(R"({"type": "string"})") == "string");
    CHECK(typed(R"({"type": "boolean"})") == "boolean");
    CHECK(typed(R"({"type": "null"})") == "any");
    CHECK(typed(R"({})") == "any");
    CHECK(typed(R"(true)") == "any");
    CHECK(typed(R"({"description": "anything"})") == "any");
}

TEST_CASE("an object with properties has exactly those keys; without, any key") {
    CHECK(typed(R"({"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}})") ==
          "object<a: number, b: string>");
    CHECK(typed(R"({"type": "object"})") == "object[any: any]");
    CHECK(typed(R"({"type": "object", "properties": {}})") == "object[any: any]");
    // As OPA: additionalProperties and required type nothing.
    CHECK(typed(R"({"type": "object", "properties": {"a": {}}, "additionalProperties": true, "required": ["a"]})") ==
          "object<a: any>");
    CHECK(typed(R"({"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "string"}})") ==
          "object<a: any>");
    CHECK(typed(R"({"type": "object", "additionalProperties": false})") == "object[any: any]");
}

TEST_CASE("arrays: one items schema, one per position, or any") {
    CHECK(typed(R"({"type": "array", "items": {"type": "string"}})") == "array[string]");
    CHECK(typed(R"({"type": "array", "items": [{"type": "string"}, {"type": "number"}]})") == "array<string, number>");
    CHECK(typed(R"({"type": "array"})") == "array[any]");
    CHECK(typed(R"({"type": "array", "items": []})") == "array[any]");
    CHECK(typed(R"({"type": "array", "items": true})") == "array[any]");
}

TEST_CASE("without a type, properties make an object and items an array") {
    CHECK(typed(R"({"properties": {"a": {"type": "boolean"}}})") == "object<a: boolean>");
    CHECK(typed(R"({"items": {"type": "number"}})") == "array[number]");
    CHECK(typed(R"({"type": "null", "properties": {"a": {}}})") == "object<a: any>");
}

TEST_CASE("a type array: boolean, then string, then number, then object, then array") {
    CHECK(typed(R"({"type": ["string", "null"]})") == "string");
    CHECK(typed(R"({"type": ["integer", "string"]})") == "string");
    CHECK(typed(R"({"type": ["object", "boolean"]})") == "boolean");
    CHECK(typed(R"({"type": ["array", "object"], "properties": {"a": {}}})") == "object<a: any>");
    CHECK(typed(R"({"type": ["null", "array"], "items": {"type": "string"}})") == "array[string]");
}

TEST_CASE("enum, const, oneOf, not, if type nothing") {
    CHECK(typed(R"({"enum": ["a", "b"]})") == "any");
    CHECK(typed(R"({"const": 3})") == "any");
    CHECK(typed(R"({"type": "string", "enum": ["a"]})") == "string");
    CHECK(typed(R"({"oneOf": [{"type": "string"}, {"type": "number"}]})") == "any");
    CHECK(typed(R"({"type": "number", "oneOf": [{"type": "string"}]})") == "number");
    CHECK(typed(R"({"not": {"type": "string"}, "if": {}, "then": {}, "else": {}})") == "any");
}

TEST_CASE("anyOf: the union of its members, with the schema's own object type when it has properties") {
    CHECK(typed(R"({"anyOf": [{"type": "string"}, {"type": "number"}]})") == "any<number, string>");
    CHECK(typed(R"({"anyOf": [{"type": "string"}, {}]})") == "any");
    CHECK(typed(R"({"type": "object", "properties": {"a": {"type": "string"}},
                   "anyOf": [{"type": "object", "properties": {"b": {"type": "number"}}}]})") ==
          "any<object<a: string>, object<b: number>>");
    // An object without properties (object[any: any]) does not join.
    CHECK(typed(R"({"type": "object", "anyOf": [{"type": "string"}]})") == "string");
    CHECK(
        typed(
            R"({"anyOf": [{"items": [{"type": "number"}, {"type": "string"}]}, {"items": [{"type": "integer"}]}]})") ==
        "any<array<number>, array<number, string>>");
}

TEST_CASE("allOf: objects' properties merged, arrays' items by position, types must agree") {
    CHECK(typed(R"({"type": "object", "properties": {"a": {"type": "string"}},
                   "allOf": [{"type": "object", "properties": {"b": {"type": "number"}}},
                             {"properties": {"c": {"type": "boolean"}}}]})") ==
          "object<a: string, b: number, c: boolean>");
    CHECK(
        typed(
            R"({"allOf": [{"type": "object", "properties": {"a": {}}}, {"type": "object", "properties": {"b": {}}}]})") ==
        "object<a: any, b: any>");
    CHECK(typed(R"({"type": "array", "allOf": [{"items": [{"type": "integer"}, {"type": "integer"}]},
                                               {"items": [{"type": "integer"}, {"type": "integer"}, {"type": "string"}]}]})") ==
          "array<number, number, string>");
    // Items are merged only when their type keywords are written the same.
    CHECK(typed(R"({"allOf": [{"items": [{"type": "integer"}]}, {"items": [{"type": "number"}]}]})") ==
          "ERROR: type checking: unable to merge these schemas");
    CHECK(typed(R"({"type": "string", "allOf": [{"type": "string"}, {"type": "string"}]})") == "string");
    CHECK(typed(R"({"allOf": []})") == "any");
    // Only an anyOf wrapper: nothing to merge.
    CHECK(typed(R"({"allOf": [{"anyOf": [{"type": "string"}]}]})") == "any");
    CHECK(typed(R"({"allOf": [{"type": "object", "properties": {"a": {}}}, {"type": "array", "items": {}}]})") ==
          "ERROR: type checking: unable to merge these schemas: type mismatch: object and array");
    CHECK(typed(R"({"type": "string", "allOf": [{"type": "string"}, {"type": "integer"}]})") ==
          "ERROR: type checking: unable to merge these schemas: type mismatch: string and integer");
    CHECK(typed(R"({"type": "string", "allOf": [{"type": "boolean"}]})") ==
          "ERROR: type checking: unable to merge these schemas");
    CHECK(typed(R"({"allOf": [{"items": [{"type": "string"}]}, {"items": [{"type": "boolean"}]}]})") ==
          "ERROR: type checking: unable to merge these schemas");
}

TEST_CASE("$ref: definitions, $defs, any JSON pointer; its siblings are not read") {
    CHECK(typed(R"({"type": "object", "properties": {"a": {"$ref": "#/definitions/x"}, "b": {"$ref": "#/$defs/y"}},
                   "definitions": {"x": {"type": "string"}}, "$defs": {"y": {"type": "array", "items": {"type": "number"}}}})") ==
          "object<a: string, b: array[number]>");
    CHECK(typed(R"({"properties": {"a": {"type": "boolean"}, "b": {"$ref": "#/properties/a"}}})") ==
          "object<a: boolean, b: boolean>");
    CHECK(
        typed(
            R"({"properties": {"a": {"$ref": "#/definitions/x", "type": "number"}}, "definitions": {"x": {"type": "string"}}})") ==
        "object<a: string>");
    CHECK(typed(R"({"properties": {"a~b": {"type": "string"}, "c": {"$ref": "#/properties/a~0b"}}})") ==
          "object<a~b: string, c: string>");
}

TEST_CASE("$ref within an $id: resolved against it, and $ids name subschemas") {
    CHECK(typed(R"({"$id": "http://example.com/root.json", "properties": {"a": {"$ref": "#/definitions/x"}},
                   "definitions": {"x": {"type": "number"}}})") == "object<a: number>");
    CHECK(typed(R"({"$id": "http://example.com/root.json", "properties": {"a": {"$ref": "item.json"}},
                   "definitions": {"x": {"$id": "item.json", "type": "string"}}})") == "object<a: string>");
    CHECK(typed(R"({"properties": {"a": {"$id": "#/x", "type": "string"}, "b": {"$id": "#/x"}}})") ==
          "ERROR: unable to compile the schema: Reference already exists: \"#/x\"");
}

TEST_CASE("references gavel cannot follow, and pointers into nothing") {
    CHECK(
        typed(R"({"$ref": "https://example.com/schemas/pod.json"})") ==
        "ERROR: unable to compile the schema: remote reference loading disabled: https://example.com/schemas/pod.json");
    CHECK(typed(R"({"$ref": "other.json"})") ==
          "ERROR: unable to compile the schema: Reference /other.json must be canonical");
    CHECK(typed(R"({"$ref": "#/definitions/none"})") ==
          "ERROR: unable to compile the schema: Object has no key 'definitions'");
    // gojsonpointer's message: the array's length, then the index asked for.
    CHECK(typed(R"({"$ref": "#/items/3", "items": [{}]})") ==
          "ERROR: unable to compile the schema: Out of bound array[0,1] index '3'");
    CHECK(typed(R"({"$ref": "#/type/x", "type": "string"})") ==
          "ERROR: unable to compile the schema: Invalid token reference 'x'");
    // A fragment that is no JSON pointer names the document itself (gojsonreference ignores
    // it): a reference to itself, which types nothing (OPA's type checker recurses until its
    // stack is exhausted). Only what url.Parse rejects is an error, in its words.
    CHECK(typed(R"({"$ref": "#foo"})") == "any");
    CHECK(typed(R"({"id": "#foo", "properties": {"a": {"$id": "http://x.com/s#bar", "type": "string"}}})") ==
          "object<a: string>");
    CHECK(typed(R"({"$ref": "#%zz"})") ==
          "ERROR: unable to compile the schema: parse \"#%zz\": invalid URL escape \"%zz\"");
    CHECK(typed(R"({"$id": "http://x.com:abc/s"})") ==
          "ERROR: unable to compile the schema: parse \"http://x.com:abc/s\": invalid port \":abc\" after host");
    CHECK(typed(R"({"$ref": ":x"})") == "ERROR: unable to compile the schema: parse \":x\": missing protocol scheme");
    CHECK(typed(R"({"$ref": "#/definitions/x", "definitions": {"x": 3}})") ==
          "ERROR: unable to compile the schema: Invalid type. Expected: Array Of Schemas, given: definitions");
}

TEST_CASE("a recursive schema is unfolded a few times, then any; mutual recursion too") {
    std::string list = typed(R"({"$ref": "#/definitions/node", "definitions": {"node": {"type": "object",
                                "properties": {"value": {"type": "string"}, "next": {"$ref": "#/definitions/node"}}}}})");
    std::string level = "object<next: X, value: string>";
    std::string expected = "any";
    for (unsigned i = 0; i <= types::kSchemaUnfold; ++i) expected = "object<next: " + expected + ", value: string>";
    CHECK(list == expected);
    CHECK(typed(R"({"properties": {"self": {"$ref": "#"}}})").find("self: any") != std::string::npos);
    CHECK(typed(R"({"definitions": {"a": {"properties": {"b": {"$ref": "#/definitions/b"}}},
                                     "b": {"properties": {"a": {"$ref": "#/definitions/a"}}}},
                   "$ref": "#/definitions/a"})")
              .find("any") != std::string::npos);
    // References that only name each other type nothing.
    CHECK(
        typed(
            R"({"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}, "$ref": "#/definitions/a"})") ==
        "any");
    // An allOf that includes itself never ends in OPA; here it is an error.
    CHECK(typed(R"({"allOf": [{"$ref": "#"}]})") == "ERROR: type checking: schema nests deeper than 256 levels");
}

TEST_CASE("a recursive schema whose unfolding would be huge is unfolded less") {
    // Ten recursive properties: ten to the unfolding depth copies, were it not bounded.
    std::string props;
    for (int i = 0; i < 10; ++i)
        props += std::string(i ? "," : "") + "\"p" + std::to_string(i) + "\": {\"$ref\": \"#\"}";
    auto start = std::chrono::steady_clock::now();
    std::string t = typed("{\"type\": \"object\", \"properties\": {" + props + "}}");
    CHECK(t.rfind("object<p0: object<p0: ", 0) == 0);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("a schema nested too deeply is an error, never a deep recursion") {
    JsonTree schema;
    schema.kind = JsonTree::Kind::Object;
    JsonTree* at = &schema;
    for (int i = 0; i < 400; ++i) {
        JsonTree props;
        props.kind = JsonTree::Kind::Object;
        JsonTree child;
        child.kind = JsonTree::Kind::Object;
        props.members.emplace_back("a", std::move(child));
        at->members.emplace_back("properties", std::move(props));
        at = &at->members.back().second.members.back().second;
    }
    auto r = types::schema_type(schema);
    CHECK_FALSE(r.type);
    CHECK(r.error == "unable to compile the schema: schema nests deeper than 256 levels");
    // Definitions so many levels of references deep that their type is too large.
    std::string defs;
    for (int i = 0; i < 40; ++i) {
        std::string next = "{\"$ref\": \"#/definitions/d" + std::to_string(i + 1) + "\"}";
        (defs += i ? "," : "") +=
            "\"d" + std::to_string(i) + "\": {\"properties\": {\"a\": " + next + ", \"b\": " + next + "}}";
    }
    defs += ",\"d40\": {\"type\": \"string\"}";
    CHECK(typed("{\"definitions\": {" + defs + "}, \"$ref\": \"#/definitions/d0\"}") ==
          "ERROR: type checking: schema too large: its type has more than 1000000 parts");
}

TEST_CASE("malformed schemas: gojsonschema's messages") {
    const std::string prefix = "ERROR: unable to compile the schema: ";
    CHECK(typed(R"({"type": "strin"})") == prefix +
                                               "has a primitive type that is NOT VALID -- given: /strin/ Expected "
                                               "valid values are:[array boolean integer number null object string]");
    CHECK(typed(R"({"type": ["string", "string"]})") == prefix + "string type is duplicated");
    // gojsonschema names the keyword as the type expected here, and the types as the one given.
    CHECK(typed(R"({"type": 3})") == prefix + "Invalid type. Expected: type, given: string/Array Of Strings");
    CHECK(typed(R"({"type": ["string", 3]})") ==
          prefix + "Invalid type. Expected: type, given: string/Array Of Strings");
    CHECK(typed(R"({"properties": []})") == prefix + "Properties must be of type object");
    CHECK(typed(R"({"properties": {"a": 3}})") == prefix + "Expected: Valid Schema, given: Invalid JSON");
    CHECK(typed(R"({"items": 3})") == prefix + "Invalid type. Expected: Valid Schema/Array Of Schemas, given: items");
    CHECK(typed(R"({"minLength": -1})") == prefix + "minLength must be greater than or equal to 0");
    CHECK(typed(R"({"minLength": 1.5})") == prefix + "minLength must be of an integer");
    CHECK(typed(R"({"minLength": 3, "maxLength": 2})") == prefix + "minLength cannot be greater than maxLength");
    CHECK(typed(R"({"minimum": "a"})") == prefix + "minimum must be of a Number");
    CHECK(typed(R"({"exclusiveMinimum": true})") == prefix + "exclusiveMinimum cannot be used without minimum");
    CHECK(typed(R"({"multipleOf": 0})") == prefix + "multipleOf must be strictly greater than 0");
    CHECK(typed(R"({"multipleOf": -0.0})") == prefix + "multipleOf must be strictly greater than 0");
    // Compared exactly (big.Rat): a positive number too small for a double is positive.
    CHECK(typed(R"({"multipleOf": 1e-400})") == "any");
    CHECK(typed(R"({"required": ["a", "a"]})") == prefix + "required items must be unique");
    CHECK(typed(R"({"enum": [1, 1.0]})") == prefix + "enum items must be unique");
    CHECK(typed(R"({"anyOf": {}})") == prefix + "anyOf must be of an array");
    CHECK(typed(R"({"additionalProperties": 1})") ==
          prefix + "Invalid type. Expected: boolean/Valid Schema, given: additionalProperties");
    CHECK(typed(R"({"$schema": 4})") == prefix + "$schema must be of type string");
    CHECK(typed(R"("a string")") == prefix + "schema is invalid");
    // Draft 4 has no boolean schemas, and its exclusiveMinimum is a boolean.
    CHECK(typed(R"({"$schema": "http://json-schema.org/draft-04/schema#", "properties": {"a": true}})") ==
          prefix + "Expected: Valid Schema, given: Invalid JSON");
    CHECK(typed(R"({"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 1, "exclusiveMinimum": 1})") ==
          prefix + "Invalid type. Expected: boolean, given: exclusiveMinimum");
    // A pattern is not compiled (OPA neither): ECMA-262 lookaheads are fine.
    CHECK(typed(R"js({"type": "string", "pattern": "^(?!x)"})js") == "string");
}

// ---- the schema of input ----------------------------------------------------------------

TEST_CASE("-s FILE: input has the schema's type in every module; a misspelt key is OPA's undefined ref") {
    std::string module = "package p\n\ndeny if {\n\tinput.request.kind.kinds == \"Pod\"\n}\n";
    CHECK(errors_with({module}, {{"", kInput}}) ==
          "4:2 rego_type_error: undefined ref: input.request.kind.kinds\n"
          "\tinput.request.kind.kinds\n"
          "\t                   ^\n"
          "\t                   have: \"kinds\"\n"
          "\t                   want (one of): [\"kind\" \"version\"]\n");
    CHECK(errors_with({module}, {}, false).empty());
    CHECK(errors_with({"package p\n\nallow if input.request.kind.kind == \"Pod\"\n", "package q\n\nx := input.user\n"},
                      {{"", kInput}})
              .empty());
    // An object without properties takes any key.
    CHECK(errors_with({"package p\n\nallow if input.request.object.spec.anything\n"}, {{"", kInput}}).empty());
    CHECK(errors_with({"package p\n\nallow if input.user == 1\n"}, {{"", kInput}}) ==
          "3:10 rego_type_error: match error\n\tleft  : string\n\tright : number\n");
}

TEST_CASE("-s FILE: queries see the input's type too") {
    gavel::compiler::CompileOptions options;
    auto set = std::make_shared<SchemaSet>();
    set->schemas[{}] = json(kInput);
    options.schemas = set;
    auto compiled = gavel::compiler::compile_modules({}, options);
    REQUIRE(compiled.ok());
    auto q = gavel::lang::parse_query("input.request.objct");
    auto result = gavel::compiler::compile_query(q.body, compiled);
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics.items()[0].message.rfind("undefined ref: input.request.objct\n", 0) == 0);
    auto ok = gavel::lang::parse_query("input.request.object");
    CHECK(gavel::compiler::compile_query(ok.body, compiled).ok());
}

TEST_CASE("a schema for input that does not compile: a type error without a location, and nothing else") {
    std::string errors = errors_with({"package p\n\nallow if input.x\n"}, {{"", R"({"type": "nope"})"}});
    CHECK(errors.rfind("0:0 rego_type_error: unable to compile the schema: has a primitive type that is NOT VALID",
                       0) == 0);
    // A JSON null is no schema (OPA's nil).
    CHECK(errors_with({"package p\n\nallow if input.x\n"}, {{"", "null"}}).empty());
}

// ---- METADATA schemas: annotations --------------------------------------------------------

TEST_CASE("rule scope: schema refs, the typo found, other rules untouched") {
    std::string module = R"(package policy

# METADATA
# schemas:
#   - input: schema.input
allow if {
	input.usr == "alice"
}

other if input.usr == "bob"
)";
    CHECK(errors_with({module}, {{"input", kInput}}) ==
          "7:2 rego_type_error: undefined ref: input.usr\n"
          "\tinput.usr\n"
          "\t      ^\n"
          "\t      have: \"usr\"\n"
          "\t      want (one of): [\"operation\" \"request\" \"user\"]\n");
    // schema["input"] names the same schema.
    std::string brackets = module;
    brackets.replace(brackets.find("schema.input"), 12, "schema[\"input\"]");
    CHECK(errors_with({brackets}, {{"input", kInput}}) == errors_with({module}, {{"input", kInput}}));
    // Without -s, a schema ref types nothing (as OPA: no schema set).
    CHECK(errors_with({module}, {}, false).empty());
}

TEST_CASE("an undefined schema is OPA's error at the rule") {
    std::string module = "package policy\n\n# METADATA\n# schemas:\n#   - input: schema.missing\nallow if input.x\n";
    CHECK(errors_with({module}, {{"input", kInput}}) == "6:1 rego_type_error: undefined schema: schema.missing\n");
    CHECK(errors_with({"package policy\n\n# METADATA\n# schemas:\n#   - input: schema[\"a-b\"]\nallow if input.x\n"},
                      {{"input", kInput}}) == "6:1 rego_type_error: undefined schema: schema[\"a-b\"]\n");
}

TEST_CASE("inline schemas work with or without -s; a bad one is an error at the rule") {
    std::string module =
        "package test\n\n# METADATA\n# schemas:\n# - input: {\"type\": \"string\"}\np if { input = 7 }\n";
    CHECK(errors_with({module}, {}, false) == "6:8 rego_type_error: match error\n\tleft  : string\n\tright : number\n");
    std::string yaml =
        "package test\n\n# METADATA\n# schemas:\n# - input.x:\n#     type: object\n#     properties:\n#       a:\n#    "
        "     type: number\n"
        "p if input.x.b\n";
    CHECK(errors_with({yaml}, {}, false).rfind("10:6 rego_type_error: undefined ref: input.x.b\n", 0) == 0);
    std::string bad = "package test\n\n# METADATA\n# schemas:\n# - input: {\"type\": 3}\np if input\n";
    CHECK(errors_with({bad}, {}, false) ==
          "6:1 rego_type_error: unable to compile the schema: Invalid type. Expected: type, given: string/Array Of "
          "Strings\n");
}

TEST_CASE("a schema for a path below input or data: the document's type is rewritten there") {
    std::string acl = R"({"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}})";
    std::string module = R"(package policy

import data.acl

# METADATA
# schemas:
#   - input: schema.input
#   - data.acl: schema["acl-schema"]
allow if {
	access := data.acl[input.user]
	access[_] == input.operation
}

# METADATA
# schemas:
#   - input: schema.input
#   - input.apple.orange: schema.input
deny if input.apple.orange.request.kind.kind == "Pod"

# METADATA
# schemas:
#   - input.request.object: {"type": "object", "properties": {"spec": {"type": "object"}}}
typo if input.request.object.spc
)";
    CHECK(errors_with({module}, {{"input", kInput}, {"acl-schema", acl}}) ==
          "23:9 rego_type_error: undefined ref: input.request.object.spc\n"
          "\tinput.request.object.spc\n"
          "\t                     ^\n"
          "\t                     have: \"spc\"\n"
          "\t                     want (one of): [\"spec\"]\n");
    // A later entry for the same document wins.
    std::string twice =
        "package p\n\n# METADATA\n# schemas:\n#   - input: schema.input\n#   - input: {\"type\": \"number\"}\nq if "
        "input = 1\n";
    CHECK(errors_with({twice}, {{"input", kInput}}).empty());
}

TEST_CASE("scopes: subpackages, package, document, rule; the nearer one wins") {
    const std::map<std::string, std::string> schemas = {{"number", R"({"type": "number"})"},
                                                        {"string", R"({"type": "string"})"}};
    auto match_error_at = [](int line, int col) {
        return std::to_string(line) + ":" + std::to_string(col) + " rego_type_error: match error\n";
    };
    // document scope covers every definition of the rule, wherever it is written
    std::string doc =
        "package test\n\np if { input.foo = [] }\n\n# METADATA\n# scope: document\n# schemas:\n# - input.foo: "
        "schema.number\np if { input.foo = 7 }\n";
    CHECK(errors_with({doc}, schemas).rfind(match_error_at(3, 8), 0) == 0);
    // rule scope overrides document scope
    std::string rule_over_doc =
        "package test\n\n# METADATA\n# scope: document\n# schemas:\n# - input.foo: schema.number\np if { input.foo = 7 "
        "}\n\n"
        "# METADATA\n# scope: rule\n# schemas:\n# - input.foo: schema.string\np if { input.foo = \"str\" }\n";
    CHECK(errors_with({rule_over_doc}, schemas).empty());
    // package scope, from another module of the package
    std::string pkg = "# METADATA\n# scope: package\n# schemas:\n# - input.foo: schema.string\npackage test\n";
    CHECK(errors_with({pkg, "package test\n\np if { input.foo = 7 }\n"}, schemas).rfind(match_error_at(3, 8), 0) == 0);
    CHECK(errors_with({pkg, "package test.sub\n\np if { input.foo = 7 }\n"}, schemas).empty());
    // subpackages scope reaches packages below
    std::string sub = "# METADATA\n# scope: subpackages\n# schemas:\n# - input: schema.number\npackage test\n";
    CHECK(
        errors_with({sub, "package test.a.b\n\np if { input = \"str\" }\n"}, schemas).rfind(match_error_at(3, 8), 0) ==
        0);
    CHECK(errors_with({sub, "package other\n\np if { input = \"str\" }\n"}, schemas).empty());
    // document scope overrides subpackages scope
    CHECK(
        errors_with(
            {sub + "\n# METADATA\n# scope: document\n# schemas:\n# - input: schema.string\np if { input = \"str\" }\n"},
            schemas)
            .empty());
    // a rule's own block does not reach its else branch (OPA attaches it to the first clause)
    std::string with_else =
        "package test\n\n# METADATA\n# schemas:\n# - input: schema.number\np := 1 if { input = \"a\" } else := 2 if { "
        "input = \"b\" }\n";
    CHECK(errors_with({with_else}, schemas) == match_error_at(6, 13) + "\tleft  : number\n\tright : string\n");
}

TEST_CASE("an entrypoint block without a scope is of document scope") {
    std::string module =
        "package test\n\n# METADATA\n# entrypoint: true\n# schemas:\n# - input: {\"type\": \"number\"}\np if { input = "
        "7 }\n\np if { input = \"a\" }\n";
    CHECK(errors_with({module}, {}, false).rfind("9:8 rego_type_error: match error\n", 0) == 0);
}

TEST_CASE("two package, document or subpackages blocks for one path: OPA's redeclared error") {
    std::string a = "# METADATA\n# scope: package\n# schemas:\n# - input.foo: {\"type\": \"string\"}\npackage test\n";
    std::string b =
        "# METADATA\n# scope: package\n# schemas:\n# - input.foo: {\"type\": \"number\"}\npackage test\n\np if { "
        "input.foo = 7 }\n";
    CHECK(errors_with({a, b}, {}, false) == "1:1 rego_type_error: package annotation redeclared: m0.rego:1\n");
    std::string doc =
        "package test\n\n# METADATA\n# scope: document\n# title: one\np := 1\n\n# METADATA\n# scope: document\n# "
        "title: two\np := 1\n";
    CHECK(errors_with({doc}, {}, false) == "8:1 rego_type_error: document annotation redeclared: m0.rego:3\n");
}

TEST_CASE("schemas: entries OPA's parser rejects") {
    auto parse_error = [](const std::string& entries) {
        std::string text = "package p\n\n# METADATA\n# schemas:\n" + entries + "p := 1\n";
        auto r = gavel::lang::parse_module("m.rego", text);
        return r.ok() ? std::string("OK") : r.diagnostics.items()[0].message;
    };
    CHECK(parse_error("#   - input: schema.input\n") == "OK");
    CHECK(parse_error("#   - input.x: schema[\"a-b\"]\n") == "OK");
    CHECK(parse_error("#   - data: schema\n") == "OK");
    CHECK(parse_error("#   - foo: schema.x\n") == "invalid document reference");
    CHECK(parse_error("#   - input: data.x\n") == "invalid schema reference");
    CHECK(parse_error("#   - input: \"schema[\"\n") == "invalid schema reference");
    CHECK(parse_error("#   - input: 7\n") == "invalid schema declaration for path \"input\"");
    CHECK(parse_error("#   - input: [a]\n") == "invalid schema declaration for path \"input\"");
    CHECK(parse_error("#   - input\n") ==
          "yaml: unmarshal errors:\n  line 2: cannot unmarshal !!str `input` into map[string]interface {}");
    CHECK(parse_error("#   input: schema.x\n") ==
          "yaml: unmarshal errors:\n  line 2: cannot unmarshal !!map into []map[string]interface {}");
}

TEST_CASE("a data schema does not restrict the rest of data; rules' types stay visible") {
    std::string module = R"(package policy

f(x) := x + 1

# METADATA
# schemas:
#   - data.acl: {"type": "object", "properties": {"alice": {"type": "string"}}}
allow if {
	data.acl.alice == "x"
	data.blah
	f(1) == 2
	data.policy.f(2) == 3
}
)";
    CHECK(errors_with({module}, {}, false).empty());
    CHECK(errors_with({"package policy\n\n# METADATA\n# schemas:\n#   - data.acl: {\"type\": \"object\", "
                       "\"properties\": {\"alice\": {}}}\n"
                       "allow if data.acl.bob\n"},
                      {}, false)
              .rfind("6:10 rego_type_error: undefined ref: data.acl.bob\n", 0) == 0);
}

TEST_CASE("inline schemas that would blow up: YAML aliases and deep nesting are errors") {
    std::string bomb =
        "package p\n\n# METADATA\n# schemas:\n# - input:\n#     l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 8; ++i) {
        std::string prev = "*l" + std::to_string(i - 1);
        bomb += "#     l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
        for (int j = 0; j < 10; ++j) bomb += (j ? ", " : "") + prev;
        bomb += "]\n";
    }
    bomb += "p := 1\n";
    auto start = std::chrono::steady_clock::now();
    auto r = gavel::lang::parse_module("m.rego", bomb);
    REQUIRE_FALSE(r.ok());
    CHECK(r.diagnostics.items()[0].message == "YAML document too large: more than 1000000 values (alias expansion?)");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
    std::string deep = "package p\n\n# METADATA\n# schemas:\n# - input: {\"a\": " + std::string(300, '[') +
                       std::string(300, ']') + "}\np := 1\n";
    auto d = gavel::lang::parse_module("m.rego", deep);
    REQUIRE_FALSE(d.ok());
    CHECK(d.diagnostics.items()[0].message == "YAML nesting too deep: more than 256 levels");
}
