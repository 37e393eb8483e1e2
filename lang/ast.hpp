#pragma once
// The Rego abstract syntax tree: plain structs, a Location on every node.
//
// Shapes follow OPA's ast package so that a reader who knows OPA finds their
// way: a Ref is a head term followed by path terms (`a.b[c]` is
// [Var a, String "b", Var c]); an infix operator is a Call whose operator is a
// Ref to the builtin's name (`x + 1` is Call[plus](x, 1)); `x := 1` in a body is
// an Expr holding the Call assign(x, 1).

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lang/json_tree.hpp"
#include "lang/location.hpp"

namespace gavel::lang {

struct Term;
struct Expr;
struct Rule;
using TermPtr = std::shared_ptr<Term>;
using Body = std::vector<Expr>;
using BodyPtr = std::shared_ptr<Body>;

enum class TermKind : uint8_t {
    Null,
    Boolean,
    Number,               // text = the literal as written (arbitrary precision)
    String,               // text = the decoded string
    Var,                  // text = the name (`_` is the wildcard)
    Ref,                  // elems = head, then path parts
    Array,                // elems
    Set,                  // elems
    Object,               // items
    ArrayComprehension,   // value = the produced term, body
    SetComprehension,     // value, body
    ObjectComprehension,  // key, value, body
    Call,                 // elems = operator (a Ref), then the arguments
    Template,             // body = the parts, in order: String terms for text, literals for `{expr}`
};

struct Term {
    TermKind kind = TermKind::Null;
    Location loc;
    bool boolean = false;  // Boolean: the value. Call: written infix. String: written raw (`...`).
    uint8_t parens = 0;    // pairs of parentheses written around the term (`(a + b)`): loc excludes them
    std::string text;
    std::vector<TermPtr> elems;
    std::vector<std::pair<TermPtr, TermPtr>> items;
    TermPtr key;    // ObjectComprehension
    TermPtr value;  // comprehensions
    BodyPtr body;   // comprehensions; the parts of a Template

    Term() = default;
    Term(const Term&) = default;
    Term(Term&&) = default;
    Term& operator=(const Term&) = default;
    Term& operator=(Term&&) = default;
    // Releases the subtree without recursion: `1 + 1 + ...` nests one call per operator.
    ~Term();

    // The operator name of a Call whose operator is a plain dotted ref (`plus`, `io.jwt.decode`), or "".
    std::string call_name() const;
    // For a Ref whose parts are a Var head and then string parts: "a.b.c". "" otherwise.
    std::string ref_dotted() const;
};

// `with target as value`
struct With {
    Location loc;
    TermPtr target;
    TermPtr value;
};

// `some x, y` declares vars; `some x in xs` / `some k, v in xs` iterates.
struct SomeDecl {
    std::vector<TermPtr> vars;  // declared variables (a plain `some` declaration)
    TermPtr in_call;            // for `some ... in ...`: Call internal.member_2 / internal.member_3
};

// `every k, v in domain { body }`
struct Every {
    TermPtr key;  // may be null (`every x in xs`)
    TermPtr value;
    TermPtr domain;
    BodyPtr body;
};

enum class ExprKind : uint8_t {
    Term,      // term: a value, a ref, or a Call (assign, eq, equal, builtin ...)
    Some,      // some
    Every,     // every
    LogicAnd,  // children (experimental `and` keyword)
    LogicOr,   // children (experimental `or` keyword)
    Block,     // body: a braced group of literals used as an operand of and/or
};

struct Expr {
    ExprKind kind = ExprKind::Term;
    Location loc;
    bool negated = false;        // `not`
    bool generated = false;      // made by the compiler: an output variable, a hoisted operand
    bool implicit_body = false;  // Block: one literal wrapped by the compiler (a `not` of future.keywords.not)
    // Term: the term is a call written as a value, not a call expression (OPA's
    // Expr holding one Call term: partial evaluation's residue has them).
    bool call_value = false;
    TermPtr term;
    SomeDecl some;
    Every every;
    std::vector<Expr> children;
    BodyPtr body;
    std::vector<With> withs;
};

enum class AssignOp : uint8_t { None, Unify /* = */, Assign /* := */ };

struct RuleHead {
    Location loc;
    TermPtr ref;                // the rule's name as a Ref: `p`, `a.b.c`, `a.b[x]` (v0 `p[x]` keeps x as key instead)
    std::vector<TermPtr> args;  // function arguments; has_args tells `f()` apart from a non-function
    bool has_args = false;
    TermPtr key;    // partial set (`contains x`, v0 `p[x] { }`) or v0 partial object `p[k] = v`
    TermPtr value;  // `= v` / `:= v`; null when the value is implicitly true
    AssignOp assign = AssignOp::None;
    bool contains = false;    // written with `contains`
    bool v0_bracket = false;  // written `p[x]` in the v0 style
    // The value is the `true` OPA's parser adds to a rule written without one
    // (OPA's Head.generatedValue; set by lang/normalize_module.hpp).
    bool generated_value = false;
};

struct Rule {
    Location loc;
    bool is_default = false;
    RuleHead head;
    Body body;                        // empty when the rule has no body (constant rule)
    bool has_if = false;              // written with `if`
    bool literal_body = false;        // the body is one literal after `if`, written without braces
    std::shared_ptr<Rule> else_rule;  // the next clause of an `else` chain (head.value may be null)
    // The body is the `true` OPA's parser adds to a rule written without one
    // (OPA's Rule.generatedBody; set by lang/normalize_module.hpp).
    bool generated_body = false;
    std::vector<Body> extra_bodies;  // `p { a } { b }`, `p if { a } { b }`: more bodies for the same head

    Rule() = default;
    Rule(const Rule&) = default;
    Rule(Rule&&) = default;
    Rule& operator=(const Rule&) = default;
    Rule& operator=(Rule&&) = default;
    // Releases the else chain clause by clause: a policy may have thousands of them.
    ~Rule();
};

struct Import {
    Location loc;
    TermPtr path;  // a Ref rooted at data, input, future or rego
    std::string alias;
};

struct Package {
    Location loc;
    TermPtr path;  // as written: `package a.b` is the Ref a.b (OPA's parser roots it at data)
};

struct Comment {
    Location loc;
    std::string text;  // without the leading '#'
};

// One entry of a METADATA block's `schemas:` list (OPA's SchemaAnnotation):
// the document it types (`input`, `input.x`, `data.a.b`) and either a ref
// into the schemas given with -s (`schema.a.b`, `schema["a-b"]`) or a schema
// written inline. The refs' locations are the block's.
struct SchemaAnnotation {
    TermPtr path;                                // a Ref
    TermPtr schema;                              // a Ref rooted at the var `schema`, or null
    std::shared_ptr<const JsonTree> definition;  // the inline schema, or null
};

// A `# METADATA` block: the YAML text (comment markers removed) and where it sits.
struct Annotation {
    Location loc;
    std::string yaml;
    std::string scope;  // `scope:` if given; else rule, document (an entrypoint rule) or package
    std::size_t rule_index = static_cast<std::size_t>(-1);  // the rule it precedes, if any
    bool on_package = false;
    std::vector<SchemaAnnotation> schemas;
};

struct Module {
    SourcePtr source;  // keeps every Location of this module valid
    Package package;
    std::vector<Import> imports;
    std::vector<Rule> rules;
    std::vector<Comment> comments;
    std::vector<Annotation> annotations;
    bool rego_v1 = true;  // parsed in the v1 dialect
};

// OPA's ValueName of a term kind: "var", "ref", "number", "call", "arraycomprehension" ...
std::string_view value_name(TermKind kind);

// Helpers used by the parser, the compiler and tests alike.
TermPtr make_term(TermKind kind, const Location& loc);
TermPtr make_var(std::string name, const Location& loc);
TermPtr make_string(std::string value, const Location& loc);
TermPtr make_ref(std::vector<TermPtr> parts, const Location& loc);
TermPtr make_bool(bool value, const Location& loc);
// A Call term with a named operator: make_call("plus", {a, b}, loc).
TermPtr make_call(std::string_view op, std::vector<TermPtr> args, const Location& loc, bool infix);
// An expression of one term (`true`, `x`, a call written as a literal).
Expr make_term_expr(TermPtr t, const Location& loc);

}  // namespace gavel::lang
