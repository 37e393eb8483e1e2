// graphql.parse_query, graphql.parse_schema, graphql.parse,
// graphql.parse_and_verify, graphql.is_valid, graphql.schema_is_valid:
// OPA's GraphQL builtins. Queries and schemas may be given as strings or as
// the AST objects these builtins return.

#include <fmt/format.h>

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/graphql/ast_values.hpp"
#include "stdlib/graphql/parser.hpp"
#include "stdlib/graphql/schema.hpp"
#include "stdlib/graphql/validate.hpp"

namespace gavel::stdlib {

namespace {

namespace gql = graphql;

// OPA: "<message> in GraphQL string at location <line>:<column>".
std::string located(const gql::Error& e) {
    return fmt::format("{} in GraphQL string at location {}:{}", e.message, e.pos.line, e.pos.column);
}

// A failure and whether it is an operand type error (reported as such).
struct Failure {
    std::string message;
    bool type_error = false;
};

template <typename T>
using Outcome = std::variant<T, Failure>;

Outcome<gql::QueryDocument> query_operand(const Value& v, std::size_t operand) {
    if (v.is_string()) {
        auto r = gql::parse_query(v.as_string());
        if (auto* e = std::get_if<gql::Error>(&r)) return Failure{located(*e)};
        return std::get<gql::QueryDocument>(std::move(r));
    }
    if (v.is_object()) {
        auto r = gql::query_from_value(v);
        if (auto* e = std::get_if<std::string>(&r)) return Failure{*e};
        return std::get<gql::QueryDocument>(std::move(r));
    }
    // OPA numbers these operands from 0 here.
    return Failure{fmt::format("operand {} must be one of {{string, object}} but got {}", operand, v.type_name()),
                   true};
}

Outcome<gql::SchemaDocument> schema_operand(const Value& v, std::size_t operand) {
    if (v.is_string()) {
        auto r = gql::parse_schema(v.as_string());
        if (auto* e = std::get_if<gql::Error>(&r)) return Failure{located(*e)};
        return std::get<gql::SchemaDocument>(std::move(r));
    }
    if (v.is_object()) {
        auto r = gql::schema_from_value(v);
        if (auto* e = std::get_if<std::string>(&r)) return Failure{*e};
        return std::get<gql::SchemaDocument>(std::move(r));
    }
    return Failure{fmt::format("operand {} must be one of {{string, object}} but got {}", operand, v.type_name()),
                   true};
}

// Builds the schema and validates the query against it.
std::optional<Failure> check(const gql::QueryDocument& query, const gql::SchemaDocument& schema_doc) {
    auto schema = gql::build_schema(schema_doc);
    if (auto* e = std::get_if<gql::Error>(&schema)) {
        std::string where = e->pos.line > 0 ? fmt::format("input:{}:{}", e->pos.line, e->pos.column) : "input";
        return Failure{"Error in gqlparser SchemaDocument to Schema conversion: " + where + ": " + e->message};
    }
    if (auto e = gql::validate_query(std::get<gql::Schema>(schema), query)) {
        gql::Error trimmed = *e;
        if (!trimmed.message.empty() && trimmed.message.back() == '.') trimmed.message.pop_back();
        return Failure{located(trimmed)};
    }
    return std::nullopt;
}

BuiltinResult fail(const Failure& f) {
    return f.type_error ? BuiltinResult::type_error(f.message) : BuiltinResult::error(f.message);
}

// Parses both operands and validates; the documents on success.
struct Verified {
    gql::QueryDocument query;
    gql::SchemaDocument schema;
};

Outcome<Verified> verify(Args a) {
    auto query = query_operand(a[0], 0);
    if (auto* f = std::get_if<Failure>(&query)) return *f;
    auto schema = schema_operand(a[1], 1);
    if (auto* f = std::get_if<Failure>(&schema)) return *f;
    auto& q = std::get<gql::QueryDocument>(query);
    auto& s = std::get<gql::SchemaDocument>(schema);
    if (auto f = check(q, s)) return *f;
    return Verified{std::move(q), std::move(s)};
}

}  // namespace

void register_graphql(Registry& r) {
    declare(r, "graphql.parse_query", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        auto doc = gql::parse_query(a[0].as_string());
        if (auto* e = std::get_if<gql::Error>(&doc)) return BuiltinResult::error(located(*e));
        return BuiltinResult::of(gql::query_to_value(std::get<gql::QueryDocument>(doc)));
    });
    declare(r, "graphql.parse_schema", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        auto doc = gql::parse_schema(a[0].as_string());
        if (auto* e = std::get_if<gql::Error>(&doc)) return BuiltinResult::error(located(*e));
        return BuiltinResult::of(gql::schema_to_value(std::get<gql::SchemaDocument>(doc)));
    });
    declare(r, "graphql.parse", 2, [](Args a, BuiltinContext&) {
        auto v = verify(a);
        if (auto* f = std::get_if<Failure>(&v)) return fail(*f);
        auto& ok = std::get<Verified>(v);
        return BuiltinResult::of(Value::array({gql::query_to_value(ok.query), gql::schema_to_value(ok.schema)}));
    });
    declare(r, "graphql.parse_and_verify", 2, [](Args a, BuiltinContext&) {
        auto v = verify(a);
        if (std::holds_alternative<Failure>(v))
            return BuiltinResult::of(
                Value::array({Value::boolean(false), Value::empty_object(), Value::empty_object()}));
        auto& ok = std::get<Verified>(v);
        return BuiltinResult::of(
            Value::array({Value::boolean(true), gql::query_to_value(ok.query), gql::schema_to_value(ok.schema)}));
    });
    declare(r, "graphql.is_valid", 2, [](Args a, BuiltinContext&) {
        return BuiltinResult::of(Value::boolean(std::holds_alternative<Verified>(verify(a))));
    });
    declare(r, "graphql.schema_is_valid", 1, [](Args a, BuiltinContext&) {
        auto schema = schema_operand(a[0], 0);
        auto* doc = std::get_if<gql::SchemaDocument>(&schema);
        return BuiltinResult::of(Value::boolean(doc && std::holds_alternative<gql::Schema>(gql::build_schema(*doc))));
    });
}

}  // namespace gavel::stdlib
