#include "engine/partial/residual.hpp"

#include "engine/partial/program.hpp"
#include "lang/format/format.hpp"
#include "lang/term_string.hpp"
#include "lang/go_quote.hpp"
#include "runtime/json.hpp"

namespace gavel::partial {

namespace {

void append_string(std::string& out, std::string_view s) {
    runtime::JsonWriteOptions o;
    o.escape_html = true;  // as Go's encoding/json
    runtime::append_json_string(out, s, o);
}

void append_term(std::string& out, const Term& t);
void append_body(std::string& out, const Body& b);

void append_terms(std::string& out, const std::vector<TermPtr>& terms) {
    out += '[';
    for (std::size_t i = 0; i < terms.size(); ++i) {
        if (i) out += ',';
        append_term(out, *terms[i]);
    }
    out += ']';
}

void append_term(std::string& out, const Term& t) {
    out += "{\"type\":";
    append_string(out, lang::value_name(t.kind));
    out += ",\"value\":";
    switch (t.kind) {
        case TermKind::Null: out += "null"; break;
        case TermKind::Boolean: out += t.boolean ? "true" : "false"; break;
        case TermKind::Number: out += t.text; break;
        case TermKind::String:
        case TermKind::Var: append_string(out, t.text); break;
        case TermKind::Ref:
        case TermKind::Array:
        case TermKind::Call: append_terms(out, t.elems); break;
        case TermKind::Set: append_terms(out, sorted_elems(t)); break;
        case TermKind::Object: {
            out += '[';
            bool first = true;
            for (const auto& [k, v] : sorted_items(t)) {
                if (!first) out += ',';
                first = false;
                out += '[';
                append_term(out, *k);
                out += ',';
                append_term(out, *v);
                out += ']';
            }
            out += ']';
            break;
        }
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
            // ast.ArrayComprehension / SetComprehension: struct fields in declared order.
            out += "{\"term\":";
            append_term(out, *t.value);
            out += ",\"body\":";
            append_body(out, *t.body);
            out += '}';
            break;
        case TermKind::ObjectComprehension:
            out += "{\"key\":";
            append_term(out, *t.key);
            out += ",\"value\":";
            append_term(out, *t.value);
            out += ",\"body\":";
            append_body(out, *t.body);
            out += '}';
            break;
        case TermKind::Template: out += "null"; break;
    }
    out += '}';
}

void append_expr(std::string& out, const lang::Expr& e, std::size_t index) {
    // Go writes a map: keys sorted (generated, index, negated, terms, with).
    out += '{';
    if (e.generated) out += "\"generated\":true,";
    out += "\"index\":" + std::to_string(index);
    if (e.negated) out += ",\"negated\":true";
    out += ",\"terms\":";
    if (e.kind == lang::ExprKind::Every) {
        // ast.Every marshals a map: keys sorted (body, domain, key, value).
        out += "{\"body\":";
        append_body(out, *e.every.body);
        out += ",\"domain\":";
        append_term(out, *e.every.domain);
        out += ",\"key\":";
        if (e.every.key) append_term(out, *e.every.key);
        else out += "null";
        out += ",\"value\":";
        append_term(out, *e.every.value);
        out += '}';
    } else if (is_call(e)) {
        append_terms(out, e.term->elems);
    } else if (e.term) {
        append_term(out, *e.term);
    } else {
        out += "null";
    }
    if (!e.withs.empty()) {
        out += ",\"with\":[";
        for (std::size_t i = 0; i < e.withs.size(); ++i) {
            if (i) out += ',';
            out += "{\"target\":";
            append_term(out, *e.withs[i].target);
            out += ",\"value\":";
            append_term(out, *e.withs[i].value);
            out += '}';
        }
        out += ']';
    }
    out += '}';
}

void append_body(std::string& out, const Body& b) {
    out += '[';
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (i) out += ',';
        append_expr(out, b[i], i);
    }
    out += ']';
}

void append_rule(std::string& out, const SupportRule& r) {
    out += "{\"body\":";
    append_body(out, r.body);
    if (r.is_default) out += ",\"default\":true";
    out += ",\"head\":{";
    bool first = true;
    auto field = [&](const char* name) {
        if (!first) out += ',';
        first = false;
        out += '"';
        out += name;
        out += "\":";
    };
    if (!r.name.empty()) {
        field("name");
        append_string(out, r.name);
    }
    if (!r.args.empty()) {
        field("args");
        append_terms(out, r.args);
    }
    if (r.key) {
        field("key");
        append_term(out, *r.key);
    }
    if (r.value) {
        field("value");
        append_term(out, *r.value);
    }
    field("ref");
    append_terms(out, r.ref.empty() ? std::vector<TermPtr>{make_var(r.name)} : r.ref);
    out += "}}";
}

}  // namespace

std::string term_json(const Term& term) {
    std::string out;
    append_term(out, term);
    return out;
}

std::string body_json(const Body& body) {
    std::string out;
    append_body(out, body);
    return out;
}

std::string module_json(const SupportModule& m) {
    std::string out = "{\"package\":{\"path\":";
    append_terms(out, m.package);
    out += "},\"rules\":[";
    for (std::size_t i = 0; i < m.rules.size(); ++i) {
        if (i) out += ',';
        append_rule(out, m.rules[i]);
    }
    out += "]}";
    return out;
}

std::string partial_json(const std::vector<Body>& queries, const std::vector<SupportModule>& support) {
    std::string out = "{";
    if (!queries.empty()) {
        out += "\"queries\":[";
        for (std::size_t i = 0; i < queries.size(); ++i) {
            if (i) out += ',';
            append_body(out, queries[i]);
        }
        out += ']';
    }
    if (!support.empty()) {
        if (out.size() > 1) out += ',';
        out += "\"support\":[";
        for (std::size_t i = 0; i < support.size(); ++i) {
            if (i) out += ',';
            out += module_json(support[i]);
        }
        out += ']';
    }
    out += '}';
    return out;
}

// ---------------------------------------------------------------------------
// Rego source.

namespace {

class Printer {
public:
    explicit Printer(const Program* program) : program_(program) {}

    // OPA's formatter writes a wildcard (`$0`, `$_term_0_0`) as `_` when it occurs
    // once in what is printed, else by its name without `$`, starting with `_`.
    // A first printing counts them (count_wildcards), a second uses the counts.
    std::map<std::string, int> wildcards;
    bool counting = false;

    std::string var(const std::string& name) {
        if (name.empty() || name[0] != '$') return name;
        if (counting) {
            ++wildcards[name];
            return "_";
        }
        auto it = wildcards.find(name);
        if (it == wildcards.end() || it->second < 2) return "_";
        std::string w = name.substr(1);
        if (w.empty() || w[0] != '_') w = "_" + w;
        return w;
    }

    std::string term(const Term& t, bool nested = false) {
        switch (t.kind) {
            case TermKind::Var: return var(t.text);
            case TermKind::Ref: return ref(t);
            case TermKind::Array: return "[" + list(t.elems) + "]";
            case TermKind::Set: {
                auto elems = sorted_elems(t);
                return elems.empty() ? "set()" : "{" + list(elems) + "}";
            }
            case TermKind::Object: {
                std::string out = "{";
                bool first = true;
                for (const auto& [k, v] : sorted_items(t)) {
                    if (!first) out += ", ";
                    first = false;
                    out += term(*k) + ": " + term(*v);
                }
                return out + "}";
            }
            case TermKind::Call: return call(t.elems, nested);
            case TermKind::ArrayComprehension: return "[" + term(*t.value) + " | " + body_inline(*t.body) + "]";
            case TermKind::SetComprehension: return "{" + term(*t.value) + " | " + body_inline(*t.body) + "}";
            case TermKind::ObjectComprehension:
                return "{" + term(*t.key) + ": " + term(*t.value) + " | " + body_inline(*t.body) + "}";
            default: return lang::to_string(t);
        }
    }

    std::string expr(const lang::Expr& e) {
        std::string out = e.negated ? "not " : "";
        if (e.kind == lang::ExprKind::Every) {
            out += "every ";
            if (e.every.key) out += term(*e.every.key) + ", ";
            out += term(*e.every.value) + " in " + term(*e.every.domain) + " { " + body_inline(*e.every.body) +
                   // (OPA's formatter closes a one-line body of several expressions without the space)
                   (e.every.body->size() > 1 ? "}" : " }");
        } else if (is_call(e)) {
            out += call(e.term->elems, false, true);
        } else if (e.term) {
            out += term(*e.term);
        }
        for (const auto& w : e.withs) out += " with " + term(*w.target) + " as " + term(*w.value);
        return out;
    }

    std::string body_inline(const Body& b) {
        std::string out;
        for (std::size_t i = 0; i < b.size(); ++i) {
            if (i) out += "; ";
            out += expr(b[i]);
        }
        return out;
    }

private:
    std::string list(const std::vector<TermPtr>& elems, std::size_t from = 0) {
        std::string out;
        for (std::size_t i = from; i < elems.size(); ++i) {
            if (i > from) out += ", ";
            out += term(*elems[i]);
        }
        return out;
    }

    std::string ref(const Term& r) {
        if (r.elems.empty()) return "";
        std::string out;
        const Term& head = *r.elems[0];
        out = head.kind == TermKind::Var ? term(head) : term(head, true);
        for (std::size_t i = 1; i < r.elems.size(); ++i) {
            const Term& part = *r.elems[i];
            if (part.kind == TermKind::String && lang::is_var_compatible(part.text)) out += "." + part.text;
            else out += '[' + term(part) + "]";
        }
        return out;
    }

    // As OPA's formatter: the expression's own infix call writes its operands
    // bare (writeFunctionCall); an infix call written as an operand of another
    // is parenthesised and so are its operands (writeCall); `x in xs` never is;
    // arguments of a plain call and elements of collections are written bare.
    std::string call(const std::vector<TermPtr>& terms, bool parens, bool top = false) {
        std::string name = ref_text(*terms[0]);
        const lang::BuiltinDecl* decl = program_ ? program_->builtin_decl(name) : lang::find_builtin_decl(name);
        if (!decl) decl = lang::find_builtin_decl(name);
        std::size_t args = terms.size() - 1;
        bool inner = !top;  // operands of a nested infix call are parenthesised
        if (decl && !decl->infix.empty()) {
            if (decl->infix == "in") {
                if (name == "internal.member_2" && args == 2)
                    return term(*terms[1], true) + " in " + term(*terms[2], true);
                if (name == "internal.member_3" && args == 3) {
                    std::string out =
                        term(*terms[1], true) + ", " + term(*terms[2], true) + " in " + term(*terms[3], true);
                    return parens && !top ? "(" + out + ")" : out;
                }
            } else if (args == decl->arity) {
                std::string out = term(*terms[1], inner) + " " + decl->infix + " " + term(*terms[2], inner);
                return parens && !top ? "(" + out + ")" : out;
            } else if (top && args == decl->arity + 1 && args == 3) {
                return term(*terms[3], false) + " = " + term(*terms[1], false) + " " + decl->infix + " " +
                       term(*terms[2], false);
            }
        }
        return ref(*terms[0]) + "(" + list(terms, 1) + ")";
    }

    const Program* program_;
};

std::string module_text(Printer& p, const SupportModule& m) {
    std::string text = "package ";
    for (std::size_t i = 1; i < m.package.size(); ++i) {
        const Term& part = *m.package[i];
        if (i > 1) text += part.kind == TermKind::String && lang::is_var_compatible(part.text) ? "." : "";
        if (part.kind == TermKind::String && lang::is_var_compatible(part.text)) text += part.text;
        else text += '[' + p.term(part) + "]";
    }
    text += "\n";
    for (const auto& r : m.rules) {
        text += "\n";
        if (r.is_default) text += "default ";
        std::vector<TermPtr> ref = r.ref.empty() ? std::vector<TermPtr>{make_var(r.name)} : r.ref;
        text += p.term(*make_ref(ref));
        if (!r.args.empty()) {
            text += "(";
            for (std::size_t i = 0; i < r.args.size(); ++i) text += (i ? ", " : "") + p.term(*r.args[i]);
            text += ")";
        }
        bool multi = r.key && !r.value;
        // A body of just `true` (or none) is not written; then the head says what holds (`p := true`).
        bool trivial = r.body.empty() || (r.body.size() == 1 && r.body[0].kind == lang::ExprKind::Term &&
                                          r.body[0].term && r.body[0].term->kind == TermKind::Boolean &&
                                          r.body[0].term->boolean && !r.body[0].negated && r.body[0].withs.empty());
        if (multi) {
            text += " contains " + p.term(*r.key);
        } else if (r.value && !(r.value->kind == TermKind::Boolean && r.value->boolean && !r.is_default && !trivial)) {
            text += " := " + p.term(*r.value);
        }
        if (r.is_default) {
            text += "\n";
            continue;
        }
        if (!trivial && r.body.size() == 1) {
            text += " if " + p.expr(r.body[0]);
        } else if (!trivial) {
            text += " if {\n";
            for (const auto& e : r.body) text += '\t' + p.expr(e) + "\n";
            text += "}";
        }
        text += "\n";
    }
    return text;
}

}  // namespace

std::string term_source(const Term& t, const Program* program) { return Printer(program).term(t); }

std::string expr_source(const lang::Expr& e, const Program* program) { return Printer(program).expr(e); }

std::string body_source(const Body& body, const Program* program) {
    Printer p(program);
    p.counting = true;
    for (const auto& e : body) p.expr(e);
    p.counting = false;
    std::string out;
    for (std::size_t i = 0; i < body.size(); ++i) {
        if (i) out += '\n';
        out += p.expr(body[i]);
    }
    return out;
}

std::string module_source(const SupportModule& m, const Program* program) {
    Printer p(program);
    p.counting = true;
    module_text(p, m);
    p.counting = false;
    std::string text = module_text(p, m);
    auto formatted = lang::format::format_module("support.rego", text);
    return formatted.ok() ? *formatted.text : text;
}

}  // namespace gavel::partial
