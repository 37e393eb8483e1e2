#pragma once
// The GraphQL document model the graphql.* builtins work on: executable
// documents (operations, fragments) and schema documents (SDL), shaped after
// the Go library OPA uses (vektah/gqlparser) because OPA hands those structs
// to policies as JSON. Positions are kept for error messages only; they never
// reach the JSON form.

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gavel::stdlib::graphql {

struct Position {
    int line = 0;
    int column = 0;
};

// An error with the location OPA reports ("... at location L:C").
struct Error {
    std::string message;
    Position pos;
};

// Numbering is gqlparser's ValueKind, which OPA exposes as "Kind": <int>.
enum class ValueKind : int { Variable = 0, Int, Float, String, Block, Boolean, Null, Enum, List, Object };

struct ChildValue;

struct Value {
    ValueKind kind = ValueKind::Null;
    std::string raw;                   // literal text; variable name without '$'
    std::vector<ChildValue> children;  // list items (empty names) or object fields
    Position pos;
};

struct ChildValue {
    std::string name;
    std::shared_ptr<Value> value;
    Position pos;
};

// A type reference: a named type or a list of one, maybe non-null.
struct TypeRef {
    std::string named;              // empty for lists
    std::shared_ptr<TypeRef> elem;  // list element type
    bool non_null = false;
    Position pos;

    const std::string& innermost_name() const { return elem ? elem->innermost_name() : named; }
    std::string to_string() const {
        std::string s = elem ? '[' + elem->to_string() + "]" : named;
        return non_null ? s + "!" : s;
    }
};

struct Argument {
    std::string name;
    std::shared_ptr<Value> value;
    Position pos;
};

struct Directive {
    std::string name;
    std::vector<Argument> arguments;
    Position pos;
};

enum class SelectionKind { Field, FragmentSpread, InlineFragment };

// One struct for the three selection kinds; unused members stay empty.
struct Selection {
    SelectionKind kind = SelectionKind::Field;
    std::string alias;           // Field
    std::string name;            // Field, FragmentSpread
    std::string type_condition;  // InlineFragment ("" when absent)
    std::vector<Argument> arguments;
    std::vector<Directive> directives;
    std::vector<Selection> selection_set;
    Position pos;
};

struct VariableDefinition {
    std::string variable;
    std::shared_ptr<TypeRef> type;
    std::shared_ptr<Value> default_value;
    std::vector<Directive> directives;
    Position pos;
};

struct Operation {
    std::string operation;  // "query", "mutation", "subscription"
    std::string name;
    std::vector<VariableDefinition> variables;
    std::vector<Directive> directives;
    std::vector<Selection> selection_set;
    Position pos;
};

struct Fragment {
    std::string name;
    std::vector<VariableDefinition> variables;  // legacy fragment variables
    std::string type_condition;
    std::vector<Directive> directives;
    std::vector<Selection> selection_set;
    Position pos;
};

struct QueryDocument {
    std::vector<Operation> operations;
    std::vector<Fragment> fragments;
};

// ---- schema documents -------------------------------------------------------

struct ArgumentDefinition {
    std::string description;
    std::string name;
    std::shared_ptr<Value> default_value;
    std::shared_ptr<TypeRef> type;
    std::vector<Directive> directives;
    Position pos;
};

// Fields of objects and interfaces, and input fields (which have no arguments).
struct FieldDefinition {
    std::string description;
    std::string name;
    std::vector<ArgumentDefinition> arguments;
    std::shared_ptr<Value> default_value;
    std::shared_ptr<TypeRef> type;
    std::vector<Directive> directives;
    Position pos;
};

struct EnumValueDefinition {
    std::string description;
    std::string name;
    std::vector<Directive> directives;
    Position pos;
};

// Kinds as gqlparser spells them: SCALAR OBJECT INTERFACE UNION ENUM INPUT_OBJECT.
struct Definition {
    std::string kind;
    std::string description;
    std::string name;
    std::vector<Directive> directives;
    std::vector<std::string> interfaces;
    std::vector<FieldDefinition> fields;
    std::vector<std::string> types;  // union members
    std::vector<EnumValueDefinition> enum_values;
    Position pos;
    bool built_in = false;
};

struct OperationTypeDefinition {
    std::string operation;
    std::string type;
    Position pos;
};

struct SchemaDefinition {
    std::string description;
    std::vector<Directive> directives;
    std::vector<OperationTypeDefinition> operation_types;
    Position pos;
};

struct DirectiveDefinition {
    std::string description;
    std::string name;
    std::vector<ArgumentDefinition> arguments;
    std::vector<std::string> locations;
    bool repeatable = false;
    Position pos;
};

struct SchemaDocument {
    std::vector<SchemaDefinition> schema;
    std::vector<SchemaDefinition> schema_extensions;
    std::vector<DirectiveDefinition> directives;
    std::vector<Definition> definitions;
    std::vector<Definition> extensions;
};

}  // namespace gavel::stdlib::graphql
