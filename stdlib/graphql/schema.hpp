#pragma once
// A validated GraphQL schema: the user's schema document merged with the
// spec's built-in definitions (the "prelude": scalars, @skip/@include/
// @deprecated..., introspection types), extensions applied, and checked the
// way gqlparser's ValidateSchemaDocument checks it (graphql.schema_is_valid).

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "stdlib/graphql/ast.hpp"

namespace gavel::stdlib::graphql {

struct Schema {
    std::map<std::string, Definition, std::less<>> types;
    std::map<std::string, DirectiveDefinition, std::less<>> directives;
    // Abstract type (union, interface) -> object types that may stand for it;
    // every object and input type lists itself too.
    std::map<std::string, std::vector<std::string>, std::less<>> possible_types;
    std::string query_type, mutation_type, subscription_type;  // "" when absent

    const Definition* type(std::string_view name) const {
        auto it = types.find(name);
        return it == types.end() ? nullptr : &it->second;
    }
    const DirectiveDefinition* directive(std::string_view name) const {
        auto it = directives.find(name);
        return it == directives.end() ? nullptr : &it->second;
    }
    bool is_possible(std::string_view abstract, std::string_view object) const;
};

std::variant<Schema, Error> build_schema(const SchemaDocument& doc);

bool is_input_kind(const std::string& kind);      // SCALAR, ENUM, INPUT_OBJECT
bool is_composite_kind(const std::string& kind);  // OBJECT, INTERFACE, UNION

}  // namespace gavel::stdlib::graphql
