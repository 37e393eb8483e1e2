#pragma once
// Types as OPA's type checker infers them (OPA's `types` package): immutable
// nodes shared by pointer. A null TypePtr is OPA's nil type, "nothing is known
// yet" (printed "???"). The members of a union (Any) are kept sorted in OPA's
// type order and object properties by key, so that printing and comparing
// give OPA's results.
//
// A type is never deeper than kMaxDepth: a deeper one is `any`. Types follow
// the terms they come from, so this only caps pathological input, and keeps
// every recursion over types bounded.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gavel::compiler::types {

// In OPA's type order: a union sorts its members by it.
enum class Kind : uint8_t { Null, Boolean, Number, String, Array, Object, Set, Any, Function };

class Type;
using TypePtr = std::shared_ptr<const Type>;

// A static object key: a JSON scalar, as OPA keeps keys (Go values).
struct Key {
    enum class Kind : uint8_t { Null, Boolean, Number, String } kind = Kind::Null;
    std::string text;  // Number: as written; String: the value; Boolean: "true" / "false"
};
int compare(const Key& a, const Key& b);  // OPA's util.Compare: null < boolean < number < string
std::string to_string(const Key& k);      // as Go's %v shows it in a type: a, 1, true, <nil>
std::string value_string(const Key& k);   // as a Rego value: "a", 1, true, null

struct StaticProperty {
    Key key;
    TypePtr value;
};
struct DynamicProperty {
    TypePtr key;
    TypePtr value;
};

class Type {
public:
    Kind kind = Kind::Any;
    std::vector<TypePtr> elems;          // Array: static items; Any: members; Function: arguments
    TypePtr of;                          // Array: dynamic items; Set: members; Function: result
    std::vector<StaticProperty> props;   // Object: static properties, sorted by key
    std::optional<DynamicProperty> dyn;  // Object: dynamic properties
    TypePtr variadic;                    // Function
    std::vector<std::string> arg_names;  // Function: a builtin's argument names ("" where unnamed)
    std::string result_name;             // Function: a builtin's result name
    uint32_t depth = 1;
};

inline constexpr uint32_t kMaxDepth = 2048;

// The scalar types and `any` (OPA's Nl, B, N, S, A).
extern const TypePtr Nl, B, N, S, A;

TypePtr array(std::vector<TypePtr> items, TypePtr dynamic);
TypePtr object(std::vector<StaticProperty> props, std::optional<DynamicProperty> dynamic);
TypePtr set(TypePtr of);
TypePtr any_of(std::vector<TypePtr> members);  // OPA's NewAny: sorted, as given otherwise
TypePtr function(std::vector<TypePtr> args, TypePtr result, TypePtr variadic = nullptr);
// A builtin's function type, with the names OPA shows in messages.
TypePtr named_function(std::vector<TypePtr> args, std::vector<std::string> arg_names, TypePtr result,
                       std::string result_name, TypePtr variadic);

const char* kind_name(Kind k);      // OPA's type markers: "null", "boolean" ... "any", "function"
bool is_any(const TypePtr& t);      // `any` itself (an empty union)
bool is(const TypePtr& t, Kind k);  // non-null and of kind k

int compare(const TypePtr& a, const TypePtr& b);       // OPA's types.Compare (null first)
bool contains(const TypePtr& a, const TypePtr& b);     // a is a superset of b or equal
TypePtr union_of(const TypePtr& a, const TypePtr& b);  // OPA's types.Or

// The union of many types, as folding union_of over them gives it, without
// rebuilding the union at each step (an object with thousands of keys has
// thousands of value types).
class UnionBuilder {
public:
    void add(const TypePtr& t);
    TypePtr result() const;

private:
    enum class State : uint8_t { Nothing, One, Many } state_ = State::Nothing;
    TypePtr one_;                // One: the union so far (not a union of members)
    std::vector<TypePtr> many_;  // Many: the members so far, sorted
};
TypePtr select(const TypePtr& t, const Key& key);  // OPA's types.Select of a scalar key
TypePtr keys(const TypePtr& t);                    // what iterating t gives as keys
TypePtr values(const TypePtr& t);                  // ... and as values
bool is_nil(const TypePtr& t);                     // unknown, or unknown somewhere inside
TypePtr type_of(const Key& k);

std::string to_string(const TypePtr& t);  // OPA's types.Sprint: "???" for null
// A function's arguments as OPA prints FuncArgs: "(number, string...)"; with
// `named`, a builtin's names too ("(x: number)"), and its result appended
// when `with_result` (what the checker expects of an output operand).
std::string args_string(const Type& fn, bool named, bool with_result = false);

}  // namespace gavel::compiler::types
