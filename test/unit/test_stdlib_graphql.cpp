// graphql.* builtins: edge cases beyond the conformance suite (lexer corner
// cases, error positions, nesting limits, validation rules the suite does
// not reach, and AST objects as inputs).

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "runtime/json.hpp"
#include "stdlib/registry.hpp"

namespace {

using gavel::runtime::Value;
using gavel::stdlib::BuiltinContext;
using gavel::stdlib::BuiltinResult;
using Status = BuiltinResult::Status;

BuiltinResult call(const std::string& name, const std::vector<Value>& args) {
    const auto* b = gavel::stdlib::standard_registry().find(name);
    REQUIRE_MESSAGE(b != nullptr, name);
    BuiltinContext ctx;
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

Value str(const std::string& s) { return Value::string(s); }

std::string parse_query(const std::string& q) { return describe(call("graphql.parse_query", {str(q)})); }
std::string parse_schema(const std::string& s) { return describe(call("graphql.parse_schema", {str(s)})); }

bool is_valid(const std::string& query, const std::string& schema) {
    auto r = call("graphql.is_valid", {str(query), str(schema)});
    REQUIRE(r.status == Status::Value);
    return r.value.as_bool();
}

bool schema_is_valid(const std::string& schema) {
    auto r = call("graphql.schema_is_valid", {str(schema)});
    REQUIRE(r.status == Status::Value);
    return r.value.as_bool();
}

const char* kSchema = R"(
  type Query {
    hero(episode: Episode): Character
    search(text: String!): [SearchResult]
    count(limit: Int = 10): Int
  }
  enum Episode { NEWHOPE EMPIRE JEDI }
  interface Character { id: ID! name: String }
  type Human implements Character { id: ID! name: String height: Float }
  type Droid implements Character { id: ID! name: String primaryFunction: String }
  union SearchResult = Human | Droid
  input Filter { name: String! limit: Int }
  type Mutation { rename(id: ID!, filter: Filter): Character }
)";

}  // namespace

TEST_CASE("graphql: string literals decode escapes and block strings drop common indentation") {
    CHECK(parse_query(R"({ f(a: "\u0041\n\"") })").find(R"("Raw":"A\n\"")") != std::string::npos);
    CHECK(parse_query(R"({ f(a: "\uD800") })").find("\"Raw\":\"\xEF\xBF\xBD\"") != std::string::npos);
    CHECK(parse_query("{ f(a: \"\"\"\n    one\n      two\n    \"\"\") }").find(R"("Raw":"one\n  two")") !=
          std::string::npos);
    CHECK(parse_query("{ f(a: -1.5e3, b: 0) }").find(R"("Kind":2,"Raw":"-1.5e3")") != std::string::npos);
}

TEST_CASE("graphql: lexer errors surface as gqlparser reports them") {
    CHECK(parse_query(R"({ f(a: "abc) })") == "error: Unexpected <Invalid> in GraphQL string at location 1:15");
    CHECK(parse_query("{ f(a: 01) }") == "error: Unexpected <Invalid> in GraphQL string at location 1:9");
    // A token value is quoted as Go's strconv.Quote does (gqlparser's %q): a non-printable
    // code point such as U+00A0 is escaped, as OPA prints it.
    CHECK(parse_query("{ f } \"a\xC2\xA0"
                      "b\"") == "error: Unexpected String \"a\\u00a0b\" in GraphQL string at location 1:8");
    CHECK(parse_query("{ f ? }") == "error: Expected Name, found <Invalid> in GraphQL string at location 1:5");
    // Columns count characters, not bytes.
    CHECK(parse_query("{ \"é\" }") == "error: Expected Name, found String in GraphQL string at location 1:4");
    CHECK(parse_query("{ f(a: \"éé\") ) }") == "error: Expected Name, found ) in GraphQL string at location 1:14");
    CHECK(parse_query("# é\n{ f(a: 1 }") == "error: Expected Name, found } in GraphQL string at location 2:10");
}

TEST_CASE("graphql: deep nesting is refused without exhausting the stack") {
    std::string deep;
    for (int i = 0; i < 50000; ++i) deep += "{a";
    auto r = call("graphql.parse_query", {str(deep)});
    CHECK(r.status == Status::BuiltinError);
    CHECK(r.message.find("maximum depth") != std::string::npos);
    std::string list = "{ f(a: " + std::string(100000, '[') + ") }";
    CHECK(call("graphql.parse_query", {str(list)}).status == Status::BuiltinError);
    CHECK_FALSE(is_valid(deep, kSchema));
    // Moderate nesting is fine.
    std::string ok = "{ f(a: " + std::string(50, '[') + std::string(50, ']') + ") }";
    CHECK(call("graphql.parse_query", {str(ok)}).status == Status::Value);
}

TEST_CASE("graphql: operand types") {
    CHECK(describe(call("graphql.parse_query", {Value::integer(1)})) ==
          "type error: operand 1 must be string but got number");
    CHECK(describe(call("graphql.parse", {Value::integer(1), str(kSchema)})) ==
          "type error: operand 0 must be one of {string, object} but got number");
    CHECK(describe(call("graphql.is_valid", {Value::integer(1), str(kSchema)})) == "false");
    CHECK(describe(call("graphql.schema_is_valid", {Value::null()})) == "false");
    CHECK(describe(call("graphql.parse_and_verify", {str("{"), str(kSchema)})) == "[false,{},{}]");
}

TEST_CASE("graphql: query validation rules") {
    CHECK(is_valid("{ hero { id name ... on Human { height } } }", kSchema));
    CHECK(is_valid("{ __typename hero { __typename } __schema { queryType { name } } }", kSchema));
    CHECK(is_valid("query($e: Episode = JEDI) { hero(episode: $e) { id } }", kSchema));
    CHECK(is_valid("{ search(text: \"x\") { ... on Droid { primaryFunction } } }", kSchema));
    CHECK(is_valid("mutation { rename(id: 1, filter: {name: \"n\"}) { id } }", kSchema));
    CHECK(is_valid("{ count }", kSchema));

    CHECK_FALSE(is_valid("{ hero { nope } }", kSchema));                       // unknown field
    CHECK_FALSE(is_valid("{ hero(season: 1) { id } }", kSchema));              // unknown argument
    CHECK_FALSE(is_valid("{ search { __typename } }", kSchema));               // missing required argument
    CHECK_FALSE(is_valid("{ hero }", kSchema));                                // composite needs selection
    CHECK_FALSE(is_valid("{ count { x } }", kSchema));                         // leaf has no selection
    CHECK_FALSE(is_valid("{ hero(episode: PHANTOM) { id } }", kSchema));       // unknown enum value
    CHECK_FALSE(is_valid("{ hero(episode: \"JEDI\") { id } }", kSchema));      // string for enum
    CHECK_FALSE(is_valid("{ count(limit: 1.5) }", kSchema));                   // float for Int
    CHECK_FALSE(is_valid("{ count(limit: 99999999999999999999) }", kSchema));  // beyond 64 bits
    CHECK(is_valid("{ count(limit: 3000000000) }", kSchema));  // gqlparser only parses Int literals as int64
    CHECK_FALSE(is_valid("mutation { rename(id: 1, filter: {limit: 1}) { id } }", kSchema));  // required input field
    CHECK_FALSE(is_valid("query { hero(episode: $e) { id } }", kSchema));                     // undefined variable
    CHECK_FALSE(is_valid("query($e: Episode) { count }", kSchema));                           // unused variable
    CHECK_FALSE(is_valid("query($t: String) { search(text: $t) { __typename } }", kSchema));  // nullable in non-null
    CHECK(is_valid("query($t: String = \"a\") { search(text: $t) { __typename } }", kSchema));
    CHECK_FALSE(is_valid("query($c: Character) { count }", kSchema));              // non-input variable
    CHECK_FALSE(is_valid("{ hero { ...F } }", kSchema));                           // unknown fragment
    CHECK_FALSE(is_valid("{ hero { id } } fragment F on Human { id }", kSchema));  // unused fragment
    CHECK_FALSE(is_valid("{ hero { ...A } } fragment A on Human { ...B } fragment B on Human { ...A }", kSchema));
    CHECK_FALSE(is_valid("{ hero { ... on Episode { id } } }", kSchema));  // non-composite condition
    CHECK_FALSE(is_valid("{ search(text: \"\") { ... on Character { id } } } fragment X on Query { count }", kSchema));
    CHECK_FALSE(is_valid("query A { count } query A { count }", kSchema));  // duplicate operation name
    CHECK_FALSE(is_valid("{ count } query B { count }", kSchema));          // anonymous not alone
    CHECK_FALSE(is_valid("subscription { count }", kSchema));               // no subscription root
    const std::string with_subscription = std::string(kSchema) + " type Subscription { a: Int b: Int }";
    CHECK(is_valid("subscription { a }", with_subscription));
    CHECK(is_valid("subscription { x: a ... on Subscription { x: a } }", with_subscription));
    CHECK_FALSE(is_valid("subscription { a ... on Subscription { b } }", with_subscription));
    CHECK_FALSE(is_valid("subscription S { ...F } fragment F on Subscription { a b }", with_subscription));
    CHECK_FALSE(is_valid("subscription { __typename }", with_subscription));
    CHECK_FALSE(is_valid("{ count @skip(if: true) @skip(if: false) }", kSchema));  // repeated directive
    CHECK_FALSE(is_valid("{ count @unknown }", kSchema));
    CHECK_FALSE(is_valid("{ count @include }", kSchema));  // directive arg required
    CHECK(is_valid("query($a: Boolean!) @custom(if: $a) { count }",
                   std::string(kSchema) + " directive @custom(if: Boolean) on QUERY"));  // used in a directive
}

TEST_CASE("graphql: validation errors from graphql.parse carry the query position") {
    auto r = call("graphql.parse", {str("{\n  hero {\n    nope\n  }\n}"), str(kSchema)});
    CHECK(describe(r) ==
          "error: Cannot query field \"nope\" on type \"Character\". Did you mean \"name\"? in GraphQL string at "
          "location 3:5");
    CHECK(describe(call("graphql.parse", {str("{ search(text: \"x\") { name } }"), str(kSchema)})) ==
          "error: Cannot query field \"name\" on type \"SearchResult\". Did you mean to use an inline fragment on "
          "\"Character\", \"Droid\", or \"Human\"? in GraphQL string at location 1:23");
    CHECK(describe(call("graphql.parse", {str("{ hero(episod: JEDI) { id } }"), str(kSchema)})) ==
          "error: Unknown argument \"episod\" on field \"Query.hero\". Did you mean \"episode\"? in GraphQL string at "
          "location 1:8");
    CHECK(describe(call("graphql.parse", {str("{ hero(episode: JEDY) { id } }"), str(kSchema)})) ==
          "error: Value \"JEDY\" does not exist in \"Episode\" enum. Did you mean the enum value \"JEDI\"? in GraphQL "
          "string at location 1:17");
    auto s = call("graphql.parse", {str("{ x }"), str("type Query { x: Nope }")});
    CHECK(describe(s) ==
          "error: Error in gqlparser SchemaDocument to Schema conversion: input:1:17: Undefined type Nope.");
}

TEST_CASE("graphql: schema validation") {
    CHECK(schema_is_valid(kSchema));
    CHECK_FALSE(schema_is_valid("type A { x: Int } type A { y: Int }"));                     // redeclared
    CHECK_FALSE(schema_is_valid("scalar S union U = S"));                                    // union of a scalar
    CHECK_FALSE(schema_is_valid("type A { x: Int x: Int }"));                                // field twice
    CHECK_FALSE(schema_is_valid("type __A { x: Int }"));                                     // reserved name
    CHECK_FALSE(schema_is_valid("interface I { x: Int! } type A implements I { x: Int }"));  // not covariant
    CHECK(schema_is_valid("interface I { x: Int } type A implements I { x: Int! }"));
    CHECK(schema_is_valid(
        "interface I { x: Int } interface J implements I { x: Int } type A implements J & I { x: Int }"));
    CHECK_FALSE(schema_is_valid("type A { f(x: A): Int }"));            // object as argument
    CHECK_FALSE(schema_is_valid("type A { x: Int @skip(if: true) }"));  // directive location
    CHECK_FALSE(schema_is_valid("scalar A extend type A @deprecated"));
    CHECK_FALSE(schema_is_valid("type Query { x: Int } schema { query: Query } schema { query: Query }"));
    CHECK(schema_is_valid("type Q { x: Int } schema { query: Q }"));
    // The spec's directives may be restated; others only declared once.
    CHECK(schema_is_valid("directive @skip(if: Boolean!) on FIELD type Query { x: Int }"));
    CHECK(schema_is_valid("directive @defer(label: String) on INLINE_FRAGMENT type Query { x: Int }"));
    CHECK_FALSE(schema_is_valid("directive @a on FIELD directive @a on FIELD type Query { x: Int }"));
    CHECK_FALSE(schema_is_valid("enum E { true }"));
    // With a schema definition, Mutation is not a root by name.
    CHECK_FALSE(is_valid("mutation { x }", "schema { query: Query } type Query { x: Int } type Mutation { x: Int }"));
    CHECK(is_valid("mutation { x }", "type Query { x: Int } type Mutation { x: Int }"));
}

TEST_CASE("graphql: AST objects round-trip through graphql.parse") {
    auto q = call("graphql.parse_query", {str("query Q($e: Episode) { hero(episode: $e) { ...F } } "
                                              "fragment F on Character { id ... on Human { height } }")});
    auto s = call("graphql.parse_schema", {str(kSchema)});
    REQUIRE(q.status == Status::Value);
    REQUIRE(s.status == Status::Value);
    auto r = call("graphql.parse", {q.value, s.value});
    REQUIRE(r.status == Status::Value);
    CHECK(r.value == Value::array({q.value, s.value}));
    CHECK(describe(call("graphql.is_valid", {q.value, str(kSchema)})) == "true");
    auto bad = gavel::runtime::parse_json(R"({"Operations": [{"Name": 3}]})");
    REQUIRE(bad.ok);
    CHECK(call("graphql.parse", {bad.value, s.value}).status == Status::BuiltinError);
}

TEST_CASE("graphql: schema AST shape for directives, input defaults and descriptions") {
    CHECK(parse_schema(R"("d" directive @a(x: Int = 1) repeatable on FIELD | QUERY)") ==
          R"({"Directives":[{"Arguments":[{"DefaultValue":{"ExpectedTypeHasDefault":false,"Kind":1,"Raw":"1"},)"
          R"("Description":"","Name":"x","Type":{"NamedType":"Int","NonNull":false}}],"Description":"d",)"
          R"("IsRepeatable":true,"Locations":["FIELD","QUERY"],"Name":"a"}]})");
    CHECK(parse_schema("input I { \"doc\" x: Int = 2 @deprecated }").find(R"("Description":"doc")") !=
          std::string::npos);
    CHECK(parse_schema("schema { query: Q } schema { mutation: M }").find(R"("Schema":[)") != std::string::npos);
}

TEST_CASE("graphql: suggestions are close names, closest first, in definition order on ties") {
    auto parse_error = [](const std::string& q, const std::string& schema) {
        return describe(call("graphql.parse", {str(q), str(schema)}));
    };
    CHECK(parse_error("{ NAME }", "type Query { name: String }") ==
          "error: Cannot query field \"NAME\" on type \"Query\". Did you mean \"name\"? in GraphQL string at location "
          "1:3");
    CHECK(parse_error("{ abcd }", "type Query { abce: Int abcf: Int abcd1: Int zzzz: Int }") ==
          "error: Cannot query field \"abcd\" on type \"Query\". Did you mean \"abce\", \"abcf\", or \"abcd1\"? "
          "in GraphQL string at location 1:3");
    CHECK(parse_error("{ q }", "type Query { name: String }") ==
          "error: Cannot query field \"q\" on type \"Query\" in GraphQL string at location 1:3");
}

TEST_CASE("graphql: fields sharing a response name must merge") {
    CHECK(is_valid("{ count count hero { id } hero { name } }", kSchema));
    CHECK(is_valid("{ hero { ... on Human { x: name } ... on Droid { x: primaryFunction } } }", kSchema));
    auto parse_error = [](const std::string& q) { return describe(call("graphql.parse", {str(q), str(kSchema)})); };
    CHECK(parse_error("{ a: count a: hero { id } }") ==
          "error: Fields \"a\" conflict because \"count\" and \"hero\" are different fields. Use different aliases on "
          "the fields to fetch both if this was intentional in GraphQL string at location 1:3");
    CHECK(parse_error("{ count(limit: 1) count(limit: 2) }").find("they have differing arguments") !=
          std::string::npos);
    CHECK(parse_error("{ hero { ... on Human { x: height } ... on Droid { x: primaryFunction } } }")
              .find("they return conflicting types \"Float\" and \"String\"") != std::string::npos);
    CHECK(parse_error("{ hero { id } ...F } fragment F on Query { hero { id: name } }")
              .find("Fields \"hero\" conflict because subfields \"id\" conflict because \"id\" and \"name\" are "
                    "different fields") != std::string::npos);
}

TEST_CASE("graphql: fragment cycles and long spread chains") {
    CHECK(describe(call("graphql.parse", {str("{ hero { ...A } } fragment A on Character { ...B } "
                                              "fragment B on Character { ...A }"),
                                          str(kSchema)}))
              .find("Cannot spread fragment \"A\" within itself via \"B\"") != std::string::npos);
    // A chain of spreads far longer than the nesting limit: refused, without
    // exhausting the stack.
    std::string chain = "{ ...F0 }";
    for (int i = 0; i < 20000; ++i)
        chain += " fragment F" + std::to_string(i) + " on Query { ...F" + std::to_string(i + 1) + " }";
    chain += " fragment F20000 on Query { count }";
    auto r = call("graphql.is_valid", {str(chain), str(kSchema)});
    REQUIRE(r.status == Status::Value);
    CHECK_FALSE(r.value.as_bool());
    // Short chains are fine.
    CHECK(is_valid("{ ...F0 } fragment F0 on Query { ...F1 } fragment F1 on Query { count }", kSchema));
}
