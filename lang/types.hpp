#pragma once
// Types, as OPA's `types` package has them, and builtin signatures written in a
// compact notation, parsed once at startup. The compiler checks calls against
// them; `gavel capabilities` prints them as OPA's type declarations.
//
//   signature := "(" [arg ("," arg)*] ")" ["=>" arg]   |   "(" "..." type ")"  (variadic)
//   arg       := [name ":"] type                           a name as OPA's documentation gives it
//   type      := primary ("|" primary)*                    a union: OPA's any-of
//              | anyof(T1, T2 ...)                         the same, also for one member
//   primary   := any | null | boolean | number | string
//              | array[T] | set[T] | object[K: V]           dynamic collections
//              | [T1, T2, ...T]                             static array (optional dynamic tail)
//              | {"k": T, *K: V}                            static object (optional dynamic part)
//
// e.g. count is `(collection: string | array[any] | object[any: any] | set[any]) => n: number`.
// A name is letters, digits, `_` and spaces (time.format's result is "formatted timestamp").

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::lang {

struct TypeField;  // a static key of an object type and its value type (below)

struct Type {
    enum class Kind : uint8_t { Any, Null, Boolean, Number, String, Array, Set, Object } kind = Kind::Any;
    std::vector<Type> of;               // Any: the union's members (empty: any value)
    std::vector<Type> items;            // Array: static elements
    std::vector<TypeField> fields;      // Object: static keys
    std::shared_ptr<Type> dynamic;      // Array: element type; Set: member type; Object: value type
    std::shared_ptr<Type> dynamic_key;  // Object: key type of the dynamic part
};

// A pair of its own rather than std::pair<std::string, Type>, which needs Type complete.
struct TypeField {
    std::string first;  // the key
    Type second;        // its value's type
    TypeField() = default;
    TypeField(std::string key, Type type) : first(std::move(key)), second(std::move(type)) {}
};

struct Signature {
    std::vector<Type> args;
    std::optional<Type> result;    // none: the builtin has no result (print)
    std::optional<Type> variadic;  // print: any number of operands of this type
    // OPA's names of the operands and the result ("" where unnamed); type
    // errors show them: `want: (collection: any<...>)`.
    std::vector<std::string> arg_names;  // one per args entry
    std::string result_name;
};

// nullopt with `error` set (what and where) on a malformed signature.
std::optional<Signature> parse_signature(std::string_view text, std::string& error);

}  // namespace gavel::lang

namespace gavel::lang {

// A type as OPA prints it in messages: "number", "array[any]", "array<number, string>",
// "object[string: any]", "object<a: number>", "set[any]", "any<number, string>".
std::string to_string(const Type& t);

}  // namespace gavel::lang
