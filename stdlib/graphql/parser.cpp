// GraphQL parsers; see parser.hpp. The token plumbing mirrors gqlparser's so
// that the first error reported (and its position) is the one OPA reports:
// once an error is recorded every later step is a no-op.

#include "stdlib/graphql/parser.hpp"

#include <functional>
#include <optional>

#include "stdlib/graphql/lexer.hpp"

namespace gavel::stdlib::graphql {

namespace {

class Parser {
public:
    explicit Parser(std::string_view source) : lexer_(source) {}

    std::optional<Error> error;

    // ---- token plumbing ----
    const Token& peek() {
        if (error) return prev_;
        if (!peeked_) {
            peek_error_.reset();
            peek_token_ = lexer_.next(peek_error_);
            peeked_ = true;
        }
        return peek_token_;
    }

    Token next() {
        if (error) return prev_;
        if (peeked_) {
            peeked_ = false;
            prev_ = peek_token_;
            if (peek_error_) error = peek_error_;
        } else {
            std::optional<Error> e;
            prev_ = lexer_.next(e);
            if (e) error = e;
        }
        return prev_;
    }

    const Token& prev() const { return prev_; }

    void fail_at(const Token& tok, std::string message) {
        if (!error) error = Error{std::move(message), tok.pos};
    }

    void unexpected(const Token& tok) { fail_at(tok, "Unexpected " + tok.describe()); }
    void unexpected() {
        Token t = peek();
        unexpected(t);
    }

    Token expect(TokenKind kind) {
        Token tok = peek();
        if (tok.kind == kind) return next();
        fail_at(tok, "Expected " + std::string(kind_text(kind)) + ", found " + std::string(kind_text(tok.kind)));
        return tok;
    }

    Token expect_keyword(std::string_view word) {
        Token tok = peek();
        if (tok.kind == TokenKind::Name && tok.value == word) return next();
        fail_at(tok, "Expected \"" + std::string(word) + "\", found " + tok.describe());
        return tok;
    }

    bool skip(TokenKind kind) {
        if (peek().kind != kind) return false;
        next();
        return true;
    }

    // start item* end; zero items allowed.
    void many(TokenKind start, TokenKind end, const std::function<void()>& item) {
        if (!skip(start)) return;
        while (peek().kind != end && !error) item();
        next();
    }

    // start item+ end.
    void some(TokenKind start, TokenKind end, const std::function<void()>& item) {
        if (!skip(start)) return;
        bool called = false;
        while (peek().kind != end && !error) {
            called = true;
            item();
        }
        if (!called) {
            Token t = peek();
            fail_at(t, "expected at least one definition, found " + std::string(kind_text(t.kind)));
            return;
        }
        next();
    }

    std::string parse_name() { return expect(TokenKind::Name).value; }

    // Nesting guard: selection sets, values and type references recurse.
    struct DepthGuard {
        Parser& p;
        explicit DepthGuard(Parser& parser) : p(parser) {
            if (++p.depth_ > kMaxDepth && !p.error)
                p.error =
                    Error{"document nesting exceeds the maximum depth of " + std::to_string(kMaxDepth), p.peek().pos};
        }
        ~DepthGuard() { --p.depth_; }
    };
    bool too_deep() const { return depth_ > kMaxDepth; }

    // ---- shared pieces ----
    std::shared_ptr<Value> parse_value(bool is_const) {
        DepthGuard guard(*this);
        if (too_deep()) return nullptr;
        Token tok = peek();
        auto v = std::make_shared<Value>();
        v->pos = tok.pos;
        switch (tok.kind) {
            case TokenKind::BracketL:
                v->kind = ValueKind::List;
                many(TokenKind::BracketL, TokenKind::BracketR, [&] {
                    ChildValue c;
                    c.pos = peek().pos;
                    c.value = parse_value(is_const);
                    v->children.push_back(std::move(c));
                });
                return v;
            case TokenKind::BraceL:
                v->kind = ValueKind::Object;
                many(TokenKind::BraceL, TokenKind::BraceR, [&] {
                    ChildValue c;
                    c.pos = peek().pos;
                    c.name = parse_name();
                    expect(TokenKind::Colon);
                    c.value = parse_value(is_const);
                    v->children.push_back(std::move(c));
                });
                return v;
            case TokenKind::Dollar:
                if (is_const) {
                    unexpected();
                    return nullptr;
                }
                v->kind = ValueKind::Variable;
                v->raw = parse_variable();
                return v;
            case TokenKind::Int: v->kind = ValueKind::Int; break;
            case TokenKind::Float: v->kind = ValueKind::Float; break;
            case TokenKind::String: v->kind = ValueKind::String; break;
            case TokenKind::BlockString: v->kind = ValueKind::Block; break;
            case TokenKind::Name:
                v->kind = tok.value == "true" || tok.value == "false" ? ValueKind::Boolean
                          : tok.value == "null"                       ? ValueKind::Null
                                                                      : ValueKind::Enum;
                break;
            default: unexpected(); return nullptr;
        }
        next();
        v->raw = tok.value;
        return v;
    }

    std::string parse_variable() {
        expect(TokenKind::Dollar);
        return parse_name();
    }

    std::shared_ptr<TypeRef> parse_type() {
        DepthGuard guard(*this);
        auto t = std::make_shared<TypeRef>();
        if (too_deep()) return t;
        if (skip(TokenKind::BracketL)) {
            t->pos = peek().pos;
            t->elem = parse_type();
            expect(TokenKind::BracketR);
        } else {
            t->pos = peek().pos;
            t->named = parse_name();
        }
        if (skip(TokenKind::Bang)) t->non_null = true;
        return t;
    }

    std::vector<Argument> parse_arguments(bool is_const) {
        std::vector<Argument> args;
        many(TokenKind::ParenL, TokenKind::ParenR, [&] {
            Argument a;
            a.pos = peek().pos;
            a.name = parse_name();
            expect(TokenKind::Colon);
            a.value = parse_value(is_const);
            args.push_back(std::move(a));
        });
        return args;
    }

    std::vector<Directive> parse_directives(bool is_const) {
        std::vector<Directive> dirs;
        while (peek().kind == TokenKind::At && !error) {
            expect(TokenKind::At);
            Directive d;
            d.pos = peek().pos;
            d.name = parse_name();
            d.arguments = parse_arguments(is_const);
            dirs.push_back(std::move(d));
        }
        return dirs;
    }

    // ---- executable documents ----
    QueryDocument parse_query_document() {
        QueryDocument doc;
        while (peek().kind != TokenKind::Eof) {
            if (error) return doc;
            const Token& tok = peek();
            if (tok.kind == TokenKind::Name) {
                if (tok.value == "query" || tok.value == "mutation" || tok.value == "subscription")
                    doc.operations.push_back(parse_operation());
                else if (tok.value == "fragment") doc.fragments.push_back(parse_fragment_definition());
                else unexpected();
            } else if (tok.kind == TokenKind::BraceL) {
                doc.operations.push_back(parse_operation());
            } else {
                unexpected();
            }
        }
        return doc;
    }

    Operation parse_operation() {
        Operation op;
        op.pos = peek().pos;
        if (peek().kind == TokenKind::BraceL) {
            op.operation = "query";
            op.selection_set = parse_required_selection_set();
            return op;
        }
        Token tok = next();
        if (tok.value == "query" || tok.value == "mutation" || tok.value == "subscription") op.operation = tok.value;
        else unexpected(tok);
        if (peek().kind == TokenKind::Name) op.name = next().value;
        op.variables = parse_variable_definitions();
        op.directives = parse_directives(false);
        op.selection_set = parse_required_selection_set();
        return op;
    }

    std::vector<VariableDefinition> parse_variable_definitions() {
        std::vector<VariableDefinition> defs;
        many(TokenKind::ParenL, TokenKind::ParenR, [&] {
            VariableDefinition d;
            d.pos = peek().pos;
            d.variable = parse_variable();
            expect(TokenKind::Colon);
            d.type = parse_type();
            if (skip(TokenKind::Equals)) d.default_value = parse_value(true);
            d.directives = parse_directives(false);
            defs.push_back(std::move(d));
        });
        return defs;
    }

    std::vector<Selection> parse_selection_set_body() {
        DepthGuard guard(*this);
        std::vector<Selection> sels;
        if (too_deep()) return sels;
        some(TokenKind::BraceL, TokenKind::BraceR, [&] { sels.push_back(parse_selection()); });
        return sels;
    }

    std::vector<Selection> parse_required_selection_set() {
        Token tok = peek();
        if (tok.kind != TokenKind::BraceL) {
            fail_at(tok, "Expected {, found " + std::string(kind_text(tok.kind)));
            return {};
        }
        return parse_selection_set_body();
    }

    Selection parse_selection() {
        if (peek().kind == TokenKind::Spread) return parse_fragment_selection();
        Selection f;
        f.kind = SelectionKind::Field;
        f.pos = peek().pos;
        f.alias = parse_name();
        f.name = skip(TokenKind::Colon) ? parse_name() : f.alias;
        f.arguments = parse_arguments(false);
        f.directives = parse_directives(false);
        if (peek().kind == TokenKind::BraceL) f.selection_set = parse_selection_set_body();
        return f;
    }

    Selection parse_fragment_selection() {
        expect(TokenKind::Spread);
        Selection s;
        const Token& tok = peek();
        if (tok.kind == TokenKind::Name && tok.value != "on") {
            s.kind = SelectionKind::FragmentSpread;
            s.pos = tok.pos;
            s.name = parse_fragment_name();
            s.directives = parse_directives(false);
            return s;
        }
        s.kind = SelectionKind::InlineFragment;
        s.pos = tok.pos;
        if (tok.value == "on") {  // gqlparser checks only the text here
            next();
            s.type_condition = parse_name();
        }
        s.directives = parse_directives(false);
        s.selection_set = parse_required_selection_set();
        return s;
    }

    std::string parse_fragment_name() {
        if (peek().value == "on") {
            unexpected();
            return {};
        }
        return parse_name();
    }

    Fragment parse_fragment_definition() {
        Fragment f;
        f.pos = peek().pos;
        expect_keyword("fragment");
        f.name = parse_fragment_name();
        f.variables = parse_variable_definitions();
        expect_keyword("on");
        f.type_condition = parse_name();
        f.directives = parse_directives(false);
        f.selection_set = parse_required_selection_set();
        return f;
    }

    // ---- schema documents ----
    SchemaDocument parse_schema_document() {
        SchemaDocument doc;
        while (peek().kind != TokenKind::Eof) {
            if (error) return doc;
            std::string description;
            bool has_description = false;
            if (peek().kind == TokenKind::BlockString || peek().kind == TokenKind::String) {
                description = next().value;
                has_description = true;
            }
            if (peek().kind != TokenKind::Name) {
                unexpected();
                break;
            }
            const std::string word = peek().value;
            if (word == "scalar" || word == "type" || word == "interface" || word == "union" || word == "enum" ||
                word == "input") {
                doc.definitions.push_back(parse_type_definition(description));
            } else if (word == "schema") {
                doc.schema.push_back(parse_schema_definition(description));
            } else if (word == "directive") {
                doc.directives.push_back(parse_directive_definition(description));
            } else if (word == "extend") {
                if (has_description && !description.empty()) unexpected(prev_);
                parse_extension(doc);
            } else {
                unexpected();
                return doc;
            }
        }
        return doc;
    }

    std::string parse_description() {
        const Token& tok = peek();
        if (tok.kind != TokenKind::BlockString && tok.kind != TokenKind::String) return {};
        return next().value;
    }

    SchemaDefinition parse_schema_definition(std::string description) {
        expect_keyword("schema");
        SchemaDefinition def;
        def.pos = peek().pos;
        def.description = std::move(description);
        def.directives = parse_directives(true);
        some(TokenKind::BraceL, TokenKind::BraceR, [&] { def.operation_types.push_back(parse_operation_type()); });
        return def;
    }

    OperationTypeDefinition parse_operation_type() {
        OperationTypeDefinition op;
        op.pos = peek().pos;
        Token tok = next();
        if (tok.value == "query" || tok.value == "mutation" || tok.value == "subscription") op.operation = tok.value;
        else unexpected(tok);
        expect(TokenKind::Colon);
        op.type = parse_name();
        return op;
    }

    std::vector<std::string> parse_implements() {
        std::vector<std::string> names;
        if (peek().value == "implements") {
            next();
            skip(TokenKind::Amp);
            names.push_back(parse_name());
            while (skip(TokenKind::Amp) && !error) names.push_back(parse_name());
        }
        return names;
    }

    std::vector<std::string> parse_union_members() {
        std::vector<std::string> names;
        if (skip(TokenKind::Equals)) {
            skip(TokenKind::Pipe);
            names.push_back(parse_name());
            while (skip(TokenKind::Pipe) && !error) names.push_back(parse_name());
        }
        return names;
    }

    ArgumentDefinition parse_argument_definition() {
        ArgumentDefinition def;
        def.pos = peek().pos;
        def.description = parse_description();
        def.name = parse_name();
        expect(TokenKind::Colon);
        def.type = parse_type();
        if (skip(TokenKind::Equals)) def.default_value = parse_value(true);
        def.directives = parse_directives(true);
        return def;
    }

    std::vector<ArgumentDefinition> parse_argument_definitions() {
        std::vector<ArgumentDefinition> args;
        some(TokenKind::ParenL, TokenKind::ParenR, [&] { args.push_back(parse_argument_definition()); });
        return args;
    }

    std::vector<FieldDefinition> parse_fields(bool input) {
        std::vector<FieldDefinition> fields;
        some(TokenKind::BraceL, TokenKind::BraceR, [&] {
            FieldDefinition def;
            def.pos = peek().pos;
            def.description = parse_description();
            def.name = parse_name();
            if (!input) def.arguments = parse_argument_definitions();
            expect(TokenKind::Colon);
            def.type = parse_type();
            if (input && skip(TokenKind::Equals)) def.default_value = parse_value(true);
            def.directives = parse_directives(true);
            fields.push_back(std::move(def));
        });
        return fields;
    }

    std::vector<EnumValueDefinition> parse_enum_values() {
        std::vector<EnumValueDefinition> values;
        some(TokenKind::BraceL, TokenKind::BraceR, [&] {
            EnumValueDefinition def;
            def.pos = peek().pos;
            def.description = parse_description();
            def.name = parse_name();
            def.directives = parse_directives(true);
            values.push_back(std::move(def));
        });
        return values;
    }

    // The body of a type definition or extension after its keyword.
    Definition parse_type_body(const std::string& word, bool extension) {
        Definition def;
        def.pos = peek().pos;
        def.name = parse_name();
        if (word == "scalar") {
            def.kind = "SCALAR";
            def.directives = parse_directives(true);
            if (extension && def.directives.empty()) unexpected();
        } else if (word == "type" || word == "interface") {
            def.kind = word == "type" ? "OBJECT" : "INTERFACE";
            // gqlparser lets interface extensions declare no interfaces.
            if (!(extension && word == "interface")) def.interfaces = parse_implements();
            def.directives = parse_directives(true);
            def.fields = parse_fields(false);
            if (extension && def.interfaces.empty() && def.directives.empty() && def.fields.empty()) unexpected();
        } else if (word == "union") {
            def.kind = "UNION";
            def.directives = parse_directives(true);
            def.types = parse_union_members();
            if (extension && def.directives.empty() && def.types.empty()) unexpected();
        } else if (word == "enum") {
            def.kind = "ENUM";
            def.directives = parse_directives(true);
            def.enum_values = parse_enum_values();
            if (extension && def.directives.empty() && def.enum_values.empty()) unexpected();
        } else {
            def.kind = "INPUT_OBJECT";
            def.directives = parse_directives(!extension);
            def.fields = parse_fields(true);
            if (extension && def.directives.empty() && def.fields.empty()) unexpected();
        }
        return def;
    }

    Definition parse_type_definition(std::string description) {
        const std::string word = peek().value;
        expect_keyword(word);
        Definition def = parse_type_body(word, false);
        def.description = std::move(description);
        return def;
    }

    void parse_extension(SchemaDocument& doc) {
        expect_keyword("extend");
        const std::string word = peek().value;
        if (word == "schema") {
            expect_keyword("schema");
            SchemaDefinition def;
            def.pos = peek().pos;
            def.directives = parse_directives(true);
            some(TokenKind::BraceL, TokenKind::BraceR, [&] { def.operation_types.push_back(parse_operation_type()); });
            if (def.directives.empty() && def.operation_types.empty()) unexpected();
            doc.schema_extensions.push_back(std::move(def));
        } else if (word == "scalar" || word == "type" || word == "interface" || word == "union" || word == "enum" ||
                   word == "input") {
            expect_keyword(word);
            doc.extensions.push_back(parse_type_body(word, true));
        } else {
            unexpected();
        }
    }

    DirectiveDefinition parse_directive_definition(std::string description) {
        expect_keyword("directive");
        expect(TokenKind::At);
        DirectiveDefinition def;
        def.pos = peek().pos;
        def.description = std::move(description);
        def.name = parse_name();
        def.arguments = parse_argument_definitions();
        if (const Token& t = peek(); t.kind == TokenKind::Name && t.value == "repeatable") {
            def.repeatable = true;
            skip(TokenKind::Name);
        }
        expect_keyword("on");
        skip(TokenKind::Pipe);
        def.locations.push_back(parse_directive_location());
        while (skip(TokenKind::Pipe) && !error) def.locations.push_back(parse_directive_location());
        return def;
    }

    std::string parse_directive_location() {
        static constexpr std::string_view kLocations[] = {"QUERY",
                                                          "MUTATION",
                                                          "SUBSCRIPTION",
                                                          "FIELD",
                                                          "FRAGMENT_DEFINITION",
                                                          "FRAGMENT_SPREAD",
                                                          "INLINE_FRAGMENT",
                                                          "VARIABLE_DEFINITION",
                                                          "SCHEMA",
                                                          "SCALAR",
                                                          "OBJECT",
                                                          "FIELD_DEFINITION",
                                                          "ARGUMENT_DEFINITION",
                                                          "INTERFACE",
                                                          "UNION",
                                                          "ENUM",
                                                          "ENUM_VALUE",
                                                          "INPUT_OBJECT",
                                                          "INPUT_FIELD_DEFINITION"};
        Token name = expect(TokenKind::Name);
        for (auto loc : kLocations)
            if (name.value == loc) return name.value;
        unexpected(name);
        return {};
    }

private:
    Lexer lexer_;
    bool peeked_ = false;
    Token peek_token_;
    std::optional<Error> peek_error_;
    Token prev_;
    int depth_ = 0;
};

Error too_large() {
    return Error{"document exceeds the maximum size of " + std::to_string(kMaxInputBytes) + " bytes", {1, 1}};
}

}  // namespace

std::variant<QueryDocument, Error> parse_query(std::string_view source) {
    if (source.size() > kMaxInputBytes) return too_large();
    Parser p(source);
    QueryDocument doc = p.parse_query_document();
    if (p.error) return *p.error;
    return doc;
}

std::variant<SchemaDocument, Error> parse_schema(std::string_view source, bool built_in) {
    if (source.size() > kMaxInputBytes) return too_large();
    Parser p(source);
    SchemaDocument doc = p.parse_schema_document();
    if (p.error) return *p.error;
    for (auto& d : doc.definitions) d.built_in = built_in;
    for (auto& d : doc.extensions) d.built_in = built_in;
    return doc;
}

}  // namespace gavel::stdlib::graphql
