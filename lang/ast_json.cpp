// The AST printed as `opa parse` prints it: JSON (`--format json`) and the
// indented tree (`--format pretty`).
//
// Shapes follow OPA 1.x (ast/policy.go, ast/term.go, ast/annotations.go MarshalJSON):
//  - Go's encoding/json writes map-backed nodes with their keys sorted, so Term is
//    {location?, type, value}, Expr {index, location?, negated?, terms, with?}, Rule
//    {annotations?, body, default?, else?, head, location?}, Package {location?, path},
//    Import {alias?, location?, path}, With {location?, target, value}, SomeDecl
//    {location?, symbols}, Every {body, domain, key, location?, value} (key is null when absent).
//  - Head is a struct: {location?, ref, key?, value?, name?, args?, assign?}.
//  - Module is a struct: {package, imports?, annotations?, rules?, comments?}; comments are
//    Go structs without tags: {"Location": {...}, "Text": <base64>}.
//  - Values: null is `{}` (Go's encoding of struct{}); numbers are the literal as written;
//    refs, arrays and calls are arrays of terms; sets and objects are sorted in OPA's term
//    order with duplicates removed (objects: [[key, value], ...]); comprehensions are
//    {term, body} / {key, value, body}; template strings {parts, multi_line}, where text
//    parts are string terms and `{...}` parts are exprs.
//  - An expression that is a call prints its terms as an array (operator first); `some`
//    prints a SomeDecl ({"symbols": [...]}, `some x in xs` as the symbol
//    call internal.member_2(x, xs)); `every` prints an Every.
//  - What the OPA parser adds is added here too: a copy of the module is normalised
//    (lang/normalize_module.hpp: generated values and bodies, else
//    clauses with their rule's head, `p { a } { b }` as two rules, `_` as `$0`, `$1` ...).
//    The package path is rooted at `data`. Heads print as OPA's Head: v0 `p[x] = y { }` is
//    name p, key x; `p[x] if` gets key x.
//  - Locations are {file, text?, row, col}; `text` (base64 of the node's source text) only
//    with AstJsonOptions::location_text, as `opa parse --json-include locations` does.
// Sets and objects sort in OPA's order of terms (lang/term_order.hpp).
// Shapes chosen here because OPA had none to copy (said again where they are printed): the experimental `and`/`or` literals print
// as {"type": "and"|"or", "lhs": body, "rhs": body, "explicit_lhs"?, "explicit_rhs"?},
// folded to the left.

#include "lang/ast_json.hpp"

#include "support/base64.hpp"
#include "lang/go_quote.hpp"
#include "lang/copy.hpp"
#include "lang/ground.hpp"
#include "lang/json_tree_yaml.hpp"
#include "lang/normalize_module.hpp"
#include "lang/term_order.hpp"
#include "lang/yaml_node.hpp"
#include "support/json_string.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace gavel::lang {

namespace {

// ---------------------------------------------------------------------------
// Text helpers

// A JSON string as Go's encoding/json writes it (HTML-safe: <, > and & escaped).
void append_json_string(std::string& out, std::string_view s) {
    support::append_json_string(out, s, {.escape_html = true});
}

// Re-indents compact JSON as Go's json.MarshalIndent(v, "", "  ") does.
std::string indent_json(std::string_view in) {
    std::string out;
    out.reserve(in.size() * 2);
    int depth = 0;
    auto newline = [&] {
        out.push_back('\n');
        out.append(static_cast<std::size_t>(depth) * 2, ' ');
    };
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c == '"') {
            std::size_t j = i + 1;
            while (j < in.size() && in[j] != '"') j += in[j] == '\\' ? 2 : 1;
            out.append(in.substr(i, j - i + 1));
            i = j;
        } else if (c == '{' || c == '[') {
            out.push_back(c);
            if (i + 1 < in.size() && (in[i + 1] == '}' || in[i + 1] == ']')) {
                out.push_back(in[++i]);
            } else {
                ++depth;
                newline();
            }
        } else if (c == '}' || c == ']') {
            --depth;
            newline();
            out.push_back(c);
        } else if (c == ',') {
            out.push_back(',');
            newline();
        } else if (c == ':') {
            out += ": ";
        } else {
            out.push_back(c);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// A small JSON writer: commas and key/value separators are its business.

class JsonWriter {
public:
    std::string out;

    void begin_object() {
        separate();
        out.push_back('{');
        first_.push_back(true);
    }
    void end_object() {
        out.push_back('}');
        first_.pop_back();
    }
    void begin_array() {
        separate();
        out.push_back('[');
        first_.push_back(true);
    }
    void end_array() {
        out.push_back(']');
        first_.pop_back();
    }
    void key(std::string_view k) {
        separate();
        append_json_string(out, k);
        out.push_back(':');
        after_key_ = true;
    }
    void string(std::string_view s) {
        separate();
        append_json_string(out, s);
    }
    void raw(std::string_view s) {
        separate();
        out.append(s);
    }
    void boolean(bool b) { raw(b ? "true" : "false"); }
    void integer(long long n) { raw(fmt::format("{}", n)); }
    void null() { raw("null"); }

private:
    std::vector<bool> first_;
    bool after_key_ = false;

    void separate() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (first_.empty()) return;
        if (!first_.back()) out.push_back(',');
        first_.back() = false;
    }
};

// ---------------------------------------------------------------------------
// OPA's Head of a normalised rule. gavel keeps the x of `p[x] if` and of v0
// `p[x] = y { }` in the head's ref only; OPA's Head also has it as the key,
// and names the rule by the ref's first var where its parser did.

struct OpaHead {
    Location loc;
    std::vector<TermPtr> ref;
    TermPtr key;
    TermPtr value;
    std::string name;
    const std::vector<TermPtr>* args = nullptr;
    bool assign = false;
};

OpaHead opa_head(const Rule& r) {
    const RuleHead& h = r.head;
    OpaHead o;
    o.loc = h.loc.source ? h.loc : r.loc;
    if (h.ref) o.ref = h.ref->kind == TermKind::Ref ? h.ref->elems : std::vector<TermPtr>{h.ref};
    o.key = h.key;
    o.value = h.value;
    o.args = &h.args;
    o.assign = h.assign == AssignOp::Assign;
    const bool has_ref_name = !o.ref.empty() && o.ref[0]->kind == TermKind::Var;
    if (o.ref.size() == 1 && has_ref_name) o.name = o.ref[0]->text;
    if (!h.contains && !h.key && !r.is_default && o.ref.size() == 2 && h.args.empty()) {
        if (r.has_if) {
            // `p[x] if ...` is a single-value rule p[x]; a non-ground x is also its key.
            const TermPtr& k = o.ref[1];
            if (!is_ground(*k) || k->kind == TermKind::Ref) o.key = k;
            if (!h.generated_value && has_ref_name) o.name = o.ref[0]->text;
        } else if (!r.generated_body) {
            // v0 `p[x] = y { ... }` (partial object) and `p.q = y { ... }`.
            if (has_ref_name) o.name = o.ref[0]->text;
            o.key = o.ref[1];
        }
    }
    return o;
}

// An else clause: its rule's ref, name and key; its own location, arguments and value.
OpaHead opa_else_head(const OpaHead& first, const Rule& clause) {
    OpaHead o = first;
    o.loc = clause.head.loc;
    o.args = &clause.head.args;
    o.value = clause.head.value;
    o.assign = clause.head.assign == AssignOp::Assign;
    return o;
}

// The clauses of a rule's else chain, in order (in a loop: chains can be long).
std::vector<const Rule*> else_clauses(const Rule& r) {
    std::vector<const Rule*> out;
    for (const Rule* e = r.else_rule.get(); e; e = e->else_rule.get()) out.push_back(e);
    return out;
}

// ---------------------------------------------------------------------------
// Shared by both printers.

class Printer {
public:
    // The package path as OPA's parser roots it at `data` (`package a.b` is data.a.b).
    static std::vector<TermPtr> package_path(const TermPtr& path) {
        if (!path) return {};
        std::vector<TermPtr> parts = path->kind == TermKind::Ref ? path->elems : std::vector<TermPtr>{path};
        if (parts.empty() || parts[0]->kind != TermKind::Var || parts[0]->text == "data") return parts;
        const Location& first = parts[0]->loc;
        std::vector<TermPtr> rooted{make_var("data", first), make_string(parts[0]->text, first)};
        rooted.insert(rooted.end(), parts.begin() + 1, parts.end());
        return rooted;
    }

    // A template part written as text (as opposed to a `{...}` literal): the
    // source before it is not an opening brace.
    static bool is_text_part(const Expr& e) {
        if (e.kind != ExprKind::Term || e.negated || !e.withs.empty() || !e.term || e.term->kind != TermKind::String)
            return false;
        const Location& loc = e.term->loc;
        if (!loc.source) return true;
        const std::string& text = loc.source->text();
        std::size_t i = loc.offset;
        while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n' || text[i - 1] == '\r')) --i;
        return !(i > 0 && text[i - 1] == '{');
    }

    static bool is_multi_line(const Term& t) { return t.loc.text().substr(0, 2) == "$`"; }
};

// ---------------------------------------------------------------------------
// METADATA blocks -> OPA's Annotations JSON (keys sorted as Go writes a map).

// The tree is bounded in depth and size (yaml_node.hpp), so this recursion is too.
void yaml_value(JsonWriter& w, const yaml::Node& node) {
    if (node.is_null()) return w.null();
    if (node.is_scalar()) {
        JsonTree t = lang::yaml_scalar(node);  // typed as OPA's YAML library types it
        switch (t.kind) {
            case JsonTree::Kind::Boolean: return w.boolean(t.boolean);
            case JsonTree::Kind::Number: return w.raw(t.text);
            case JsonTree::Kind::String: return w.string(t.text);
            default: return w.null();
        }
    }
    if (node.is_sequence()) {
        w.begin_array();
        for (const auto& e : node.items) yaml_value(w, *e);
        w.end_array();
        return;
    }
    std::map<std::string, const yaml::Node*> sorted;
    for (const auto& [k, v] : node.members) sorted[k->text] = v.get();
    w.begin_object();
    for (const auto& [k, v] : sorted) {
        w.key(k);
        yaml_value(w, *v);
    }
    w.end_object();
}

// ---------------------------------------------------------------------------
// JSON

class JsonPrinter : public Printer {
public:
    explicit JsonPrinter(const AstJsonOptions& options) : opt_(options) {}

    JsonWriter w;

    // `m` is normalised (lang/normalize_module.hpp).
    void module(const Module& m) {
        w.begin_object();
        w.key("package");
        w.begin_object();
        location(m.package.loc);
        w.key("path");
        ref_terms(package_path(m.package.path));
        w.end_object();
        if (opt_.imports && !m.imports.empty()) {
            w.key("imports");
            w.begin_array();
            for (const auto& imp : m.imports) {
                w.begin_object();
                if (!imp.alias.empty()) {
                    w.key("alias");
                    w.string(imp.alias);
                }
                location(imp.loc);
                w.key("path");
                term(imp.path);
                w.end_object();
            }
            w.end_array();
        }
        if (!m.annotations.empty()) {
            w.key("annotations");
            w.begin_array();
            for (const auto& a : m.annotations) annotation(a);
            w.end_array();
        }
        if (!m.rules.empty()) {
            w.key("rules");
            w.begin_array();
            for (std::size_t i = 0; i < m.rules.size(); ++i) rule(m, i);
            w.end_array();
        }
        if (opt_.comments && !m.comments.empty()) {
            w.key("comments");
            w.begin_array();
            for (const auto& c : m.comments) {
                w.begin_object();
                w.key("Location");  // a plain Go struct field: always there
                location_value(c.loc);
                w.key("Text");
                w.string(support::base64_encode(c.text));
                w.end_object();
            }
            w.end_array();
        }
        w.end_object();
    }

private:
    const AstJsonOptions& opt_;

    void location_value(const Location& loc) {
        w.begin_object();
        w.key("file");
        w.string(loc.file());
        if (opt_.locations && opt_.location_text && loc.length > 0) {
            w.key("text");
            w.string(support::base64_encode(loc.text()));
        }
        w.key("row");
        w.integer(loc.line);
        w.key("col");
        w.integer(loc.col);
        w.end_object();
    }

    void location(const Location& loc) {
        if (!opt_.locations || !loc.source) return;
        w.key("location");
        location_value(loc);
    }

    void terms(const std::vector<TermPtr>& ts) {
        w.begin_array();
        for (const auto& t : ts) term(t);
        w.end_array();
    }

    // A ref's elements (also a package path, a rule head's ref): its head is a variable as written.
    void ref_terms(const std::vector<TermPtr>& ts) {
        w.begin_array();
        for (std::size_t i = 0; i < ts.size(); ++i) term(ts[i], i > 0);
        w.end_array();
    }

    void term(const TermPtr& t, bool root_document_as_ref = true) {
        if (!t) return w.null();
        w.begin_object();
        location(t->loc);
        if (root_document_as_ref && opt_.root_documents_as_refs && t->kind == TermKind::Var &&
            (t->text == "input" || t->text == "data")) {
            // OPA's compiler turns the variable into a ref; the ref and its head keep its location.
            w.key("type");
            w.string("ref");
            w.key("value");
            w.begin_array();
            w.begin_object();
            location(t->loc);
            w.key("type");
            w.string("var");
            w.key("value");
            w.string(t->text);
            w.end_object();
            w.end_array();
            w.end_object();
            return;
        }
        w.key("type");
        w.string(value_name(t->kind));
        w.key("value");
        value(*t);
        w.end_object();
    }

    void value(const Term& t) {
        switch (t.kind) {
            case TermKind::Null: w.raw("{}"); break;  // Go encodes OPA's Null (struct{}) as {}
            case TermKind::Boolean: w.boolean(t.boolean); break;
            case TermKind::Number: w.raw(t.text.empty() ? "0" : t.text); break;
            case TermKind::String: w.string(t.text); break;
            case TermKind::Var: w.string(t.text); break;
            case TermKind::Ref: ref_terms(t.elems); break;
            case TermKind::Array:
            case TermKind::Call: terms(t.elems); break;
            case TermKind::Set: terms(sorted_set_elems(t)); break;
            case TermKind::Object:
                w.begin_array();
                for (const auto& [k, v] : sorted_object_items(t)) {
                    w.begin_array();
                    term(k);
                    term(v);
                    w.end_array();
                }
                w.end_array();
                break;
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
                w.begin_object();
                w.key("term");
                term(t.value);
                w.key("body");
                body(t.body.get());
                w.end_object();
                break;
            case TermKind::ObjectComprehension:
                w.begin_object();
                w.key("key");
                term(t.key);
                w.key("value");
                term(t.value);
                w.key("body");
                body(t.body.get());
                w.end_object();
                break;
            case TermKind::Template:
                w.begin_object();
                w.key("parts");
                w.begin_array();
                if (t.body) {
                    for (const auto& part : *t.body) {
                        if (is_text_part(part)) term(part.term);
                        else expr(part, 0);
                    }
                }
                w.end_array();
                w.key("multi_line");
                w.boolean(is_multi_line(t));
                w.end_object();
                break;
        }
    }

    void body(const Body* b) {
        w.begin_array();
        std::size_t shift = 0;
        if (b && opt_.generated && !b->empty() &&
            std::all_of(b->begin(), b->end(), [](const Expr& e) { return e.generated; })) {
            // A rule written without a body, whose head the compiler rewrote: OPA's parser
            // had given it the body `true`, and the compiler's expressions follow it.
            w.begin_object();
            w.key("index");
            w.integer(0);
            w.key("terms");
            w.begin_object();
            w.key("type");
            w.string("boolean");
            w.key("value");
            w.boolean(true);
            w.end_object();
            w.end_object();
            shift = 1;
        }
        if (b)
            for (std::size_t i = 0; i < b->size(); ++i) expr((*b)[i], i + shift);
        w.end_array();
    }

    void expr(const Expr& e, std::size_t index) {
        w.begin_object();
        if (e.generated && opt_.generated) {  // what the compiler made (OPA's Expr.Generated)
            w.key("generated");
            w.boolean(true);
        }
        w.key("index");
        w.integer(static_cast<long long>(index));
        location(e.loc);
        if (e.negated) {
            w.key("negated");
            w.boolean(true);
        }
        w.key("terms");
        expr_terms(e);
        if (!e.withs.empty()) {
            w.key("with");
            w.begin_array();
            for (const auto& with : e.withs) {
                w.begin_object();
                location(with.loc);
                w.key("target");
                term(with.target);
                w.key("value");
                term(with.value);
                w.end_object();
            }
            w.end_array();
        }
        w.end_object();
    }

    void expr_terms(const Expr& e) {
        switch (e.kind) {
            case ExprKind::Term:
                if (e.term && e.term->kind == TermKind::Call) terms(e.term->elems);
                else term(e.term);
                break;
            case ExprKind::Some:
                w.begin_object();
                location(e.loc);
                w.key("symbols");
                if (e.some.in_call) terms({e.some.in_call});
                else terms(e.some.vars);
                w.end_object();
                break;
            case ExprKind::Every:
                w.begin_object();
                w.key("body");
                body(e.every.body.get());
                w.key("domain");
                term(e.every.domain);
                w.key("key");
                term(e.every.key);  // null when absent, as OPA prints it
                location(e.loc);
                w.key("value");
                term(e.every.value);
                w.end_object();
                break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr: logic(e, e.children.size()); break;
            case ExprKind::Block:
                // Our shape: a braced group on its own (normally only inside and/or).
                w.begin_object();
                w.key("type");
                w.string("block");
                w.key("body");
                body(e.body.get());
                w.end_object();
                break;
        }
    }

    // Our shape for the experimental `and`/`or` literals, folded to the left:
    // {"type": "or", "lhs": body, "rhs": body, "explicit_lhs"?: true, "explicit_rhs"?: true}.
    void logic(const Expr& e, std::size_t count) {
        const char* type = e.kind == ExprKind::LogicAnd ? "and" : "or";
        if (count == 1) return operand_body(e.children[0]);
        w.begin_object();
        w.key("type");
        w.string(type);
        w.key("lhs");
        if (count == 2) {
            operand_body(e.children[0]);
        } else {
            w.begin_array();
            w.begin_object();
            w.key("index");
            w.integer(0);
            w.key("terms");
            logic(e, count - 1);
            w.end_object();
            w.end_array();
        }
        w.key("rhs");
        operand_body(e.children[count - 1]);
        if (count == 2 && e.children[0].kind == ExprKind::Block) {
            w.key("explicit_lhs");
            w.boolean(true);
        }
        if (e.children[count - 1].kind == ExprKind::Block) {
            w.key("explicit_rhs");
            w.boolean(true);
        }
        location(e.loc);
        w.end_object();
    }

    void operand_body(const Expr& operand) {
        if (operand.kind == ExprKind::Block) return body(operand.body.get());
        w.begin_array();
        expr(operand, 0);
        w.end_array();
    }

    void head(const OpaHead& h) {
        w.begin_object();
        location(h.loc);
        w.key("ref");
        ref_terms(h.ref);
        if (h.key) {
            w.key("key");
            term(h.key);
        }
        if (h.value) {
            w.key("value");
            term(h.value);
        }
        if (!h.name.empty()) {
            w.key("name");
            w.string(h.name);
        }
        if (!h.args->empty()) {
            w.key("args");
            terms(*h.args);
        }
        if (h.assign) {
            w.key("assign");
            w.boolean(true);
        }
        w.end_object();
    }

    // A rule and its else clauses: each clause is the "else" field of the one before
    // (keys in Go's order: annotations, body, default, else, head, location), written
    // as the openings of the whole chain, then its closings from the innermost out.
    void rule(const Module& m, std::size_t index) {
        const Rule& r = m.rules[index];
        const std::vector<const Rule*> chain = else_clauses(r);
        const std::size_t clauses = 1 + chain.size();
        auto clause = [&](std::size_t i) -> const Rule& { return i == 0 ? r : *chain[i - 1]; };
        for (std::size_t i = 0; i < clauses; ++i) {
            const Rule& c = clause(i);
            w.begin_object();
            if (i == 0 && annotated(m, index)) {
                w.key("annotations");
                w.begin_array();
                for (const auto& a : m.annotations)
                    if (!a.on_package && a.rule_index == index) annotation(a);
                w.end_array();
            }
            w.key("body");
            body(&c.body);
            if (c.is_default) {
                w.key("default");
                w.boolean(true);
            }
            if (i + 1 < clauses) w.key("else");
        }
        const OpaHead first = opa_head(r);
        for (std::size_t i = clauses; i-- > 0;) {
            const Rule& c = clause(i);
            w.key("head");
            head(i == 0 ? first : opa_else_head(first, c));
            location(c.loc);
            w.end_object();
        }
    }

    static bool annotated(const Module& m, std::size_t index) {
        return std::any_of(m.annotations.begin(), m.annotations.end(),
                           [&](const Annotation& a) { return !a.on_package && a.rule_index == index; });
    }

    // Authors and related resources take OPA's object shapes; other keys are
    // written as the YAML says (keys sorted, as Go writes maps).
    void annotation(const Annotation& a) {
        yaml::Documents doc = yaml::read_documents(a.yaml, yaml::ErrorDialect::GoYamlV3, {}, 1);
        const yaml::Node* root = doc.ok && !doc.documents.empty() ? doc.documents.front().get() : nullptr;
        std::map<std::string, std::function<void()>> fields;
        fields["scope"] = [this, &a] { w.string(a.scope); };
        if (opt_.locations && a.loc.source) fields["location"] = [this, &a] { location_value(a.loc); };
        if (root && root->is_mapping()) {
            for (const auto& [key, value] : root->members) {
                const std::string& k = key->text;
                const yaml::Node* v = value.get();
                if (k == "scope") continue;
                if (k == "authors") {
                    fields[k] = [this, v] { authors(*v); };
                } else if (k == "title" || k == "description") {  // Go strings: the scalar as written
                    if (auto text = yaml::go_string(v); text && !text->empty())
                        fields[k] = [this, v] { w.string(v->text); };
                } else if (k == "organizations" && v->is_sequence()) {
                    fields[k] = [this, v] {
                        w.begin_array();
                        for (const auto& item : v->items)
                            if (auto text = yaml::go_string(item.get())) w.string(*text);
                        w.end_array();
                    };
                } else if (k == "related_resources") {
                    fields[k] = [this, v] { related_resources(*v); };
                } else {
                    fields[k] = [this, v] { yaml_value(w, *v); };
                }
            }
        }
        w.begin_object();
        for (const auto& [k, f] : fields) {
            w.key(k);
            f();
        }
        w.end_object();
    }

    static std::string text_of(const yaml::Node* n) { return n && n->is_scalar() ? n->text : std::string(); }

    void authors(const yaml::Node& v) {
        w.begin_array();
        auto one = [this](const yaml::Node& a) {
            std::string name, email;
            if (a.is_mapping()) {
                name = text_of(a.get("name"));
                email = text_of(a.get("email"));
            } else if (a.is_scalar()) {
                const std::string& s = a.text;
                auto lt = s.rfind('<');
                if (lt != std::string::npos && !s.empty() && s.back() == '>') {
                    email = s.substr(lt + 1, s.size() - lt - 2);
                    name = s.substr(0, lt);
                    while (!name.empty() && name.back() == ' ') name.pop_back();
                } else {
                    name = s;
                }
            }
            w.begin_object();
            if (!email.empty()) {
                w.key("email");
                w.string(email);
            }
            if (!name.empty()) {
                w.key("name");
                w.string(name);
            }
            w.end_object();
        };
        if (v.is_sequence())
            for (const auto& a : v.items) one(*a);
        else one(v);
        w.end_array();
    }

    void related_resources(const yaml::Node& v) {
        w.begin_array();
        auto one = [this](const yaml::Node& r) {
            w.begin_object();
            if (r.is_mapping()) {
                if (const yaml::Node* d = r.get("description")) {
                    w.key("description");
                    w.string(text_of(d));
                }
                if (const yaml::Node* ref = r.get("ref")) {
                    w.key("ref");
                    w.string(text_of(ref));
                }
            } else if (r.is_scalar()) {
                w.key("ref");
                w.string(r.text);
            }
            w.end_object();
        };
        if (v.is_sequence())
            for (const auto& r : v.items) one(*r);
        else one(v);
        w.end_array();
    }
};

// ---------------------------------------------------------------------------
// Pretty: OPA's ast.Pretty. One node per line, one more space of indentation
// per level; terms print their values (strings quoted, wildcards as `_`).

class PrettyPrinter : public Printer {
public:
    std::string out;

    // `m` is normalised (lang/normalize_module.hpp).
    void module(const Module& m, bool with_comments) {
        line(0, "module");
        line(1, "package");
        line(2, "ref");
        for (const auto& t : package_path(m.package.path)) term(t, 3);
        for (const auto& imp : m.imports) {
            line(1, "import");
            term(imp.path, 2);
            line(2, imp.alias);
        }
        for (const auto& r : m.rules) rule_chain(r, 1);
        for (std::size_t i = 0; i < m.annotations.size(); ++i) line(1, "annotations");
        if (with_comments)
            for (std::size_t i = 0; i < m.comments.size(); ++i) line(1, "comment");
    }

private:
    void line(int depth, std::string_view text) {
        out.append(static_cast<std::size_t>(depth), ' ');
        out.append(text);
        out.push_back('\n');
    }

    void term(const TermPtr& t, int d) {
        if (!t) return;
        switch (t->kind) {
            case TermKind::Null: line(d, "null"); break;
            case TermKind::Boolean: line(d, t->boolean ? "true" : "false"); break;
            case TermKind::Number: line(d, t->text); break;
            case TermKind::String: line(d, go_quote(t->text)); break;
            case TermKind::Var:
                line(d, t->text.starts_with('$') ? "_" : t->text);
                break;  // OPA prints wildcards as `_`
            case TermKind::Ref:
            case TermKind::Array:
            case TermKind::Call:
                line(d, value_name(t->kind));
                for (const auto& e : t->elems) term(e, d + 1);
                break;
            case TermKind::Set:
                line(d, "set");
                for (const auto& e : sorted_set_elems(*t)) term(e, d + 1);
                break;
            case TermKind::Object:
                line(d, "object");
                for (const auto& [k, v] : sorted_object_items(*t)) {
                    term(k, d + 1);
                    term(v, d + 1);
                }
                break;
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
                line(d, value_name(t->kind));
                term(t->value, d + 1);
                body(t->body.get(), d + 1);
                break;
            case TermKind::ObjectComprehension:
                line(d, "objectcomprehension");
                term(t->key, d + 1);
                term(t->value, d + 1);
                body(t->body.get(), d + 1);
                break;
            case TermKind::Template:
                line(d, "templatestring");
                if (t->body)
                    for (const auto& part : *t->body) {
                        if (is_text_part(part)) term(part.term, d + 1);
                        else expr(part, 0, d + 1);
                    }
                break;
        }
    }

    void body(const Body* b, int d) {
        line(d, "body");
        if (b)
            for (std::size_t i = 0; i < b->size(); ++i) expr((*b)[i], i, d + 1);
    }

    void expr(const Expr& e, std::size_t index, int d) {
        line(d, fmt::format("expr {}index={}", e.negated ? "negated " : "", index));
        switch (e.kind) {
            case ExprKind::Term:
                if (e.term && e.term->kind == TermKind::Call)
                    for (const auto& t : e.term->elems) term(t, d + 1);
                else term(e.term, d + 1);
                break;
            case ExprKind::Some:
                line(d + 1, "somedecl");
                if (e.some.in_call) term(e.some.in_call, d + 2);
                else
                    for (const auto& v : e.some.vars) term(v, d + 2);
                break;
            case ExprKind::Every:
                line(d + 1, "every");
                term(e.every.key, d + 2);
                term(e.every.value, d + 2);
                term(e.every.domain, d + 2);
                body(e.every.body.get(), d + 2);
                break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr:
                // Our shape: the operator, then each operand as a body.
                line(d + 1, e.kind == ExprKind::LogicAnd ? "and" : "or");
                for (const auto& c : e.children) {
                    if (c.kind == ExprKind::Block) {
                        body(c.body.get(), d + 2);
                    } else {
                        line(d + 2, "body");
                        expr(c, 0, d + 3);
                    }
                }
                break;
            case ExprKind::Block: body(e.body.get(), d + 1); break;
        }
        for (const auto& w : e.withs) {
            line(d + 1, "with");
            term(w.target, d + 2);
            term(w.value, d + 2);
        }
    }

    void rule(const Rule& r, const OpaHead& h, int d) {
        line(d, "rule");
        line(d + 1, "head");
        // As OPA's visitor: the ref (the key is not visited when there is one), args, value.
        line(d + 2, "ref");
        for (const auto& t : h.ref) term(t, d + 3);
        if (!h.args->empty()) {
            line(d + 2, "args");
            for (const auto& a : *h.args) term(a, d + 3);
        }
        term(h.value, d + 2);
        body(&r.body, d + 1);
    }

    // OPA prints each else clause inside the one before, one level deeper.
    void rule_chain(const Rule& r, int d) {
        const OpaHead first = opa_head(r);
        rule(r, first, d);
        int depth = d;
        for (const Rule* e : else_clauses(r)) rule(*e, opa_else_head(first, *e), ++depth);
    }
};

}  // namespace

std::string module_to_json(Module&& module, const AstJsonOptions& options) {
    normalize_module(module);
    JsonPrinter p(options);
    p.module(module);
    return options.indent ? indent_json(p.w.out) : std::move(p.w.out);
}

std::string module_to_json(const Module& module, const AstJsonOptions& options) {
    return module_to_json(copy_module(module), options);
}

std::string module_to_json(const Module& module, bool with_locations) {
    AstJsonOptions options;
    options.locations = with_locations;
    return module_to_json(module, options);
}

std::string module_to_pretty(Module&& module, bool with_comments) {
    normalize_module(module);
    PrettyPrinter p;
    p.module(module, with_comments);
    return std::move(p.out);
}

std::string module_to_pretty(const Module& module, bool with_comments) {
    return module_to_pretty(copy_module(module), with_comments);
}

std::string module_to_pretty(const Module& module) { return module_to_pretty(module, true); }

}  // namespace gavel::lang
