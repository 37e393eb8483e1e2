#include "engine/partial/filters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "compiler/annotation_chain.hpp"
#include "compiler/ast/data_paths.hpp"
#include "compiler/compiler.hpp"
#include "engine/partial/residual.hpp"
#include "engine/partial/terms.hpp"
#include "lang/parse.hpp"
#include "runtime/json.hpp"
#include "runtime/yaml.hpp"

namespace gavel::partial {

using runtime::Value;

// ---------------------------------------------------------------------------
// Targets and their constraints (OPA's internal/compile constraints).

namespace {

const std::set<std::string> kComparisons{"eq", "neq", "lt", "lte", "gt", "gte"};

std::set<std::string> with(std::set<std::string> s, std::initializer_list<const char*> more) {
    for (const char* m : more) s.insert(m);
    return s;
}

struct Constraint {
    std::string target;  // upper case, as OPA names it in errors
    std::string variant;
    std::set<std::string> builtins;
    std::set<std::string> features;
    std::string name() const { return variant.empty() ? target : target + " (" + variant + ")"; }
};

std::optional<Constraint> constraint_for(const FilterTarget& t, std::string& error) {
    Constraint c;
    c.target = t.target;
    std::transform(c.target.begin(), c.target.end(), c.target.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
    c.variant = t.dialect;
    std::string v = t.dialect;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    const auto all = with(kComparisons, {"internal.member_2", "startswith", "endswith", "contains"});
    if (t.target == "sql") {
        if (v == "sqlite") c.builtins = with(kComparisons, {"internal.member_2"});
        else if (v == "mysql" || v == "postgresql" || v == "sqlserver" || v == "sqlite-internal") c.builtins = all;
        else {
            error = fmt::format("unsupported variant for {}: {}", t.target, t.dialect);
            return std::nullopt;
        }
        c.features = {"not", "field-ref", "existence-ref"};
    } else if (t.target == "ucast") {
        if (v == "all") {
            c.variant = v;
            c.features = {"not", "field-ref"};
            c.builtins = all;
        } else if (v == "prisma") {
            c.variant = v;
            c.features = {"not", "existence-ref"};
            c.builtins = all;
        } else if (v == "linq") {
            c.variant = "LINQ";
            c.builtins = with(kComparisons, {"internal.member_2"});
        } else {
            c.variant = "";
            c.builtins = kComparisons;
        }
    } else {
        error = fmt::format("unknown target/dialect combination: {}/{}", t.target, t.dialect);
        return std::nullopt;
    }
    return c;
}

// The constraints of every target at once: what all of them support.
struct Constraints {
    std::vector<Constraint> all;

    std::optional<std::string> assert_builtin(const std::string& b) const {
        std::string out;
        for (const auto& c : all)
            if (!c.builtins.count(b)) out += (out.empty() ? "" : "\n") + ("unsupported for " + c.name());
        if (out.empty()) return std::nullopt;
        return out;
    }
    std::optional<std::string> assert_feature(const std::string& f) const {
        std::string out;
        for (const auto& c : all)
            if (!c.features.count(f))
                out += (out.empty() ? "" : "\n") + fmt::format("unsupported feature \"{}\" for {}", f, c.name());
        if (out.empty()) return std::nullopt;
        return out;
    }
};

bool is_ref(const TermPtr& t) { return t && t->kind == TermKind::Ref; }

bool has_prefix(const Term& ref, std::initializer_list<const char*> parts) {
    std::size_t i = 0;
    for (const char* p : parts) {
        if (i >= ref.elems.size()) return false;
        const Term& e = *ref.elems[i];
        if (i == 0 ? !is_var(e, p) : !(e.kind == TermKind::String && e.text == p)) return false;
        ++i;
    }
    return true;
}

FilterProblem problem(const lang::Location& loc, std::string message, std::string details = {}) {
    return FilterProblem{std::move(message), loc, std::move(details)};
}

std::string find_details(const Term& ref, const std::vector<SupportModule>& support) {
    for (const auto& m : support) {
        int count = 0;
        for (const auto& r : m.rules) {
            std::vector<TermPtr> full = m.package;
            for (std::size_t i = 0; i < r.ref.size(); ++i)
                full.push_back(i == 0 && r.ref[0]->kind == TermKind::Var ? make_string(r.ref[0]->text) : r.ref[i]);
            if (!equal(*make_ref(full), ref)) continue;
            ++count;
            // data.partial.a.b -> data.a.b
            std::vector<TermPtr> shown{make_var("data")};
            for (std::size_t i = 2; i < full.size(); ++i) shown.push_back(full[i]);
            if (r.is_default) return "use of default rule in " + term_source(*make_ref(shown), nullptr);
            if (count > 1) return "use of multi-value rule in " + term_source(*make_ref(shown), nullptr);
        }
    }
    return "";
}

// A call as OPA's Call.String writes it: `equal(a, "b")`, never infix.
std::string call_text(const Term& t) {
    if (t.kind != TermKind::Call) return term_source(t, nullptr);
    std::string out = ref_text(*t.elems[0]) + "(";
    for (std::size_t i = 1; i < t.elems.size(); ++i) out += (i > 1 ? ", " : "") + call_text(*t.elems[i]);
    return out + ")";
}

bool has_loc(const lang::Location& loc) { return loc.source != nullptr; }

std::optional<FilterProblem> check_operand(const std::set<std::string>& shorts, const Term& op,
                                           const lang::Location& oploc, const TermPtr& t) {
    std::string name = ref_text(op);
    if (!t) return problem(oploc, name + ": missing operand");
    if (t->kind == TermKind::Call)
        return problem(has_loc(oploc) ? oploc : t->elems[0]->loc, name + ": nested call operand: " + call_text(*t));
    if (t->kind == TermKind::Ref) {
        if (has_prefix(*t, {"input"})) {
            if (t->elems.size() == 3) return std::nullopt;
            if (t->elems.size() == 2 && t->elems[1]->kind == TermKind::String && shorts.count(t->elems[1]->text))
                return std::nullopt;
        }
        return problem(has_loc(oploc) ? oploc : t->loc, name + ": invalid ref operand: " + term_source(*t, nullptr));
    }
    return std::nullopt;
}

std::optional<FilterProblem> check_call(const Constraints& cs, const lang::Expr& e,
                                        const std::vector<SupportModule>& support) {
    if (e.negated) {
        if (!is_call(e)) return problem(e.loc, "\"not\" not permitted");
        if (auto err = cs.assert_feature("not")) return problem(e.loc, "\"not\" not permitted: " + *err);
        return std::nullopt;
    }
    if (is_call(e)) return std::nullopt;
    if (e.kind == lang::ExprKind::Every) return problem(e.loc, "\"every\" not permitted");
    if (!e.withs.empty()) return problem(e.loc, "\"with\" not permitted");
    if (e.term && e.term->kind == TermKind::Ref) {
        if (has_prefix(*e.term, {"data", "partial"}))
            return problem(e.term->elems.back()->loc, find_details(*e.term, support));
        if (has_prefix(*e.term, {"data"}))
            return problem(e.loc, fmt::format("invalid data reference \"{}\"", expr_source(e, nullptr)),
                           fmt::format("has rule \"{}\" an `else`?", term_source(*e.term, nullptr)));
    }
    return problem(e.loc, fmt::format("invalid statement \"{}\"", expr_source(e, nullptr)),
                   fmt::format("try `{} != false`", expr_source(e, nullptr)));
}

// Where OPA's parser puts an infix operator: at its token (`<=` in `a <= b`).
// gavel's parser gives the operator the whole call's span, so the token is
// found in the source between the last two operands (past white space and
// closing parentheses).
lang::Location operator_loc(const lang::Expr& e) {
    const Term& op = *operator_term(e);
    const TermPtr& call = e.term;
    const std::size_t n = operand_count(e);
    if (!call || call->kind != TermKind::Call || n < 2 || !has_loc(op.loc)) return op.loc;
    // A call operand made by evaluation has no location; its operator has.
    auto located = [](const Term& t) -> const Term& {
        return t.kind == TermKind::Call && !has_loc(t.loc) ? *t.elems[0] : t;
    };
    const Term& lhs = located(*operand(e, n - 2));
    const Term& rhs = located(*operand(e, n - 1));
    if (lhs.loc.source != op.loc.source || rhs.loc.source != op.loc.source) return op.loc;
    // Infix: the operator spans its operands (a prefix call's operator is its name alone).
    if (lhs.loc.offset < op.loc.offset || rhs.loc.offset + rhs.loc.length > op.loc.offset + op.loc.length)
        return op.loc;
    uint32_t from = lhs.loc.offset + lhs.loc.length, to = rhs.loc.offset;
    std::string_view text = op.loc.source->text();
    if (from > to || to > text.size() || from < op.loc.offset) return op.loc;
    uint32_t at = from;
    while (at < to && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r' || text[at] == ')'))
        ++at;
    if (at == to) return op.loc;
    lang::Location out = op.loc;
    for (uint32_t i = op.loc.offset; i < at; ++i) {
        if (text[i] == '\n') {
            ++out.line;
            out.col = 1;
        } else {
            ++out.col;
        }
    }
    out.offset = at;
    out.length = 1;
    return out;
}

std::optional<FilterProblem> check_builtins(const Constraints& cs, const std::set<std::string>& shorts,
                                            const lang::Expr& e) {
    if (!e.withs.empty() || !is_call(e)) return std::nullopt;
    const Term& op = *operator_term(e);
    const lang::Location loc = has_loc(op.loc) ? operator_loc(e) : e.loc;
    std::string name = ref_text(op);
    bool unknown_first = false, two_refs_ok = false;
    if (name == "eq" || name == "neq" || name == "lt" || name == "lte" || name == "gt" || name == "gte") {
        two_refs_ok = true;
    } else if (name == "startswith" || name == "endswith" || name == "contains" || name == "internal.member_2") {
        unknown_first = true;
    } else if (name == "internal.member_3") {
        return problem(loc, "invalid use of \"... in ...\"");
    } else if (has_prefix(op, {"data"})) {
        return problem(e.loc, fmt::format("invalid data reference \"{}\"", expr_source(e, nullptr)),
                       fmt::format("has function \"{}(...)\" an `else`?", name));
    } else {
        return problem(loc, fmt::format("invalid builtin `{}`", name));
    }
    if (auto err = cs.assert_builtin(name))
        return problem(loc, fmt::format("invalid builtin `{}`: {}", name == "internal.member_2" ? "in" : name, *err));
    for (std::size_t i = 0; i < 2; ++i)
        if (auto p = check_operand(shorts, op, has_loc(op.loc) ? loc : op.loc,
                                   i < operand_count(e) ? operand(e, i) : nullptr))
            return p;
    int refs = 0;
    for (std::size_t i = 0; i < 2; ++i) refs += is_ref(operand(e, i));
    if (refs == 2)
        if (auto err = cs.assert_feature("field-ref")) return problem(loc, "reference to field: " + *err);
    if (unknown_first) {
        if (!is_ref(operand(e, 0))) return problem(loc, fmt::format("rhs of {} must be known", name));
        return std::nullopt;
    }
    for (std::size_t i = 0; i < 2; ++i)
        if (is_scalar(*operand(e, i))) return std::nullopt;
    if (name == "eq" && refs == 1) {
        for (std::size_t i = 0; i < 2; ++i) {
            TermKind k = operand(e, i)->kind;
            if (k == TermKind::Var || k == TermKind::Ref) {
                if (auto err = cs.assert_feature("existence-ref")) return problem(loc, "existence of field: " + *err);
            } else {
                return problem(loc, "both rhs and lhs non-scalar/non-ground");
            }
        }
        return std::nullopt;
    }
    if (!two_refs_ok || refs != 2) return problem(loc, "both rhs and lhs non-scalar/non-ground");
    return std::nullopt;
}

}  // namespace

std::optional<AcceptedTarget> filter_target_for(std::string_view m) {
    static const std::map<std::string_view, AcceptedTarget> known{
        {"application/vnd.opa.multitarget+json", {true, {}}},
        {"application/vnd.opa.ucast.all+json", {false, {"ucast", "all"}}},
        {"application/vnd.opa.ucast.minimal+json", {false, {"ucast", "minimal"}}},
        {"application/vnd.opa.ucast.prisma+json", {false, {"ucast", "prisma"}}},
        {"application/vnd.opa.ucast.linq+json", {false, {"ucast", "linq"}}},
        {"application/vnd.opa.sql.postgresql+json", {false, {"sql", "postgresql"}}},
        {"application/vnd.opa.sql.mysql+json", {false, {"sql", "mysql"}}},
        {"application/vnd.opa.sql.sqlserver+json", {false, {"sql", "sqlserver"}}},
        {"application/vnd.opa.sql.sqlite+json", {false, {"sql", "sqlite"}}},
        {"application/json", {false, {"", ""}}},
    };
    auto it = known.find(m);
    if (it == known.end()) return std::nullopt;
    return it->second;
}

bool is_filter_media_type(std::string_view m) { return filter_target_for(m).has_value(); }

std::vector<FilterProblem> check_filters(const std::vector<lang::Body>& queries,
                                         const std::vector<SupportModule>& support,
                                         const std::vector<FilterTarget>& targets, const std::set<std::string>& shorts,
                                         std::string& error) {
    Constraints cs;
    for (const auto& t : targets) {
        auto c = constraint_for(t, error);
        if (!c) return {};
        cs.all.push_back(std::move(*c));
    }
    std::vector<FilterProblem> out;
    for (const auto& q : queries)
        for (const auto& e : q) {
            if (auto p = check_call(cs, e, support)) out.push_back(std::move(*p));
            if (auto p = check_builtins(cs, shorts, e)) out.push_back(std::move(*p));
        }
    return out;
}

// ---------------------------------------------------------------------------
// Mappings.

runtime::Value filter_mappings(const Value& mappings, const FilterTarget& t, std::string& error) {
    if (!mappings.is_object()) return Value();
    if (const Value* md = mappings.find(t.dialect); md && !md->is_null()) {
        if (!md->is_object()) {
            error = "invalid mappings for dialect " + t.dialect;
            return Value();
        }
        return *md;
    }
    if (const Value* mt = mappings.find(t.target); mt && !mt->is_null()) {
        if (!mt->is_object()) {
            error = "invalid mappings for target " + t.target;
            return Value();
        }
        return *mt;
    }
    return mappings;
}

std::set<std::string> short_unknowns(const Value& mappings) {
    std::set<std::string> out;
    if (!mappings.is_object()) return out;
    for (const auto& m : mappings.object_entries()) {
        if (!m.value.is_object()) continue;
        for (const auto& n : m.value.object_entries())
            if (n.value.is_object() && n.value.find("$table") && n.key.is_string())
                out.insert(std::string(n.key.as_string()));
    }
    return out;
}

// ---------------------------------------------------------------------------
// UCAST.

namespace {

struct Ucast {
    enum class Kind { Null, Value, FieldRef, Nodes } kind = Kind::Null;
    std::string type, op, field;
    TermPtr value;          // Kind::Value: a ground term
    std::string field_ref;  // Kind::FieldRef
    std::vector<Ucast> nodes;
};

std::string translate_field(const std::string& field, const Value& translations) {
    if (!translations.is_object()) return field;
    auto dot = field.find('.');
    bool found = dot != std::string::npos;
    std::string before = found ? field.substr(0, dot) : field, after = found ? field.substr(dot + 1) : "";
    std::string out_table = before, out_column = after;
    if (const Value* m = translations.find(before); m && m->is_object()) {
        if (const Value* t = m->find("$table"); t && t->is_string()) {
            out_table = std::string(t->as_string());
            after = before;
            before = out_table;
            found = true;
            out_column = after;
        }
    }
    if (const Value* m = translations.find(before); m && m->is_object()) {
        if (const Value* self = m->find("$self"); self && self->is_string()) out_table = std::string(self->as_string());
        if (found)
            if (const Value* col = m->find(after); col && col->is_string()) out_column = std::string(col->as_string());
    }
    return found ? out_table + "." + out_column : out_table;
}

std::optional<std::string> ref_to_field(const Term& r, const Value& translations) {
    std::string out;
    for (std::size_t i = 1; i < r.elems.size(); ++i) {
        const Term& p = *r.elems[i];
        if (p.kind != TermKind::Var && p.kind != TermKind::String) return std::nullopt;
        if (i > 1) out += '.';
        out += p.text;
    }
    return translate_field(out, translations);
}

std::optional<Ucast> field_node(std::string op, const Term& r, const TermPtr& v, const Value& tr, bool ref_ok) {
    Ucast n;
    n.type = "field";
    if (v->kind == TermKind::Ref) {
        if (ref_ok) {
            auto f = ref_to_field(*v, tr);
            if (!f) return std::nullopt;
            n.kind = Ucast::Kind::FieldRef;
            n.field_ref = *f;
        }
    } else if (v->kind == TermKind::Var) {
        if (op != "eq") return std::nullopt;
        op = "ne";  // `_ = <unknown>`: the field exists (IS NOT NULL)
    } else if (v->kind != TermKind::Null) {
        if (!is_constant(*v)) return std::nullopt;
        n.kind = Ucast::Kind::Value;
        n.value = v;
    }
    auto f = ref_to_field(r, tr);
    if (!f) return std::nullopt;
    n.op = std::move(op);
    n.field = *f;
    return n;
}

std::optional<Ucast> expr_to_ucast(const lang::Expr& e, const Value& tr) {
    if (!is_call(e) || operand_count(e) < 2) return std::nullopt;
    bool flip = !is_ref(operand(e, 0));
    const TermPtr& ref = flip ? operand(e, 1) : operand(e, 0);
    if (!is_ref(ref)) return std::nullopt;
    std::string op = operator_name(e);
    bool ref_ok = false;
    if (op == "neq") {
        ref_ok = true;
        op = "ne";
    } else if (op == "eq" || op == "lt" || op == "lte" || op == "gt" || op == "gte") {
        ref_ok = true;
    } else if (op == "internal.member_2") {
        op = "in";
    } else if (op != "startswith" && op != "endswith" && op != "contains") {
        return std::nullopt;
    }
    if (flip) {
        // The operands swap sides: `5 < x` is `x > 5`. (OPA's translation
        // writes the opposite comparison here, `x >= 5`: gavel keeps the meaning.)
        static const std::map<std::string, std::string> swapped{
            {"lt", "gt"}, {"lte", "gte"}, {"gt", "lt"}, {"gte", "lte"}};
        if (auto it = swapped.find(op); it != swapped.end()) op = it->second;
    }
    auto fn = field_node(op, *ref, operand(e, flip ? 0 : 1), tr, ref_ok);
    if (!fn) return std::nullopt;
    if (!e.negated) return fn;
    Ucast n;
    n.kind = Ucast::Kind::Nodes;
    n.type = "compound";
    n.op = "not";
    n.nodes.push_back(std::move(*fn));
    return n;
}

std::optional<Ucast> compound(const std::string& op, std::vector<Ucast> nodes) {
    Ucast n;
    n.kind = Ucast::Kind::Nodes;
    n.type = "compound";
    n.op = op;
    n.nodes = std::move(nodes);
    return n;
}

std::optional<Ucast> body_to_ucast(const lang::Body& b, const Value& tr) {
    if (b.empty()) return std::nullopt;
    if (b.size() == 1) return expr_to_ucast(b[0], tr);
    std::vector<Ucast> nodes;
    for (const auto& e : b) {
        auto u = expr_to_ucast(e, tr);
        if (!u) return std::nullopt;
        nodes.push_back(std::move(*u));
    }
    return compound("and", std::move(nodes));
}

// Null: unconditional (OPA's nil UCAST).
std::optional<Ucast> bodies_to_ucast(const std::vector<lang::Body>& bs, const Value& tr) {
    if (bs.empty()) return std::nullopt;
    if (bs.size() == 1) return body_to_ucast(bs[0], tr);
    std::vector<Ucast> nodes;
    for (const auto& b : bs) {
        auto u = body_to_ucast(b, tr);
        if (!u) return std::nullopt;
        nodes.push_back(std::move(*u));
    }
    return compound("or", std::move(nodes));
}

void append_json_value(std::string& out, const Term& t) {
    runtime::JsonWriteOptions o;
    o.escape_html = true;
    if (t.kind == TermKind::Number) {
        out += t.text;
        return;
    }
    if (t.kind == TermKind::Array || t.kind == TermKind::Set) {
        out += '[';
        bool first = true;
        for (const auto& e : t.kind == TermKind::Set ? sorted_elems(t) : t.elems) {
            if (!first) out += ',';
            first = false;
            append_json_value(out, *e);
        }
        out += ']';
        return;
    }
    if (t.kind == TermKind::Object) {
        out += '{';
        bool first = true;
        for (const auto& [k, v] : sorted_items(t)) {
            if (!first) out += ',';
            first = false;
            runtime::append_json_string(out, k->kind == TermKind::String ? k->text : term_source(*k, nullptr), o);
            out += ':';
            append_json_value(out, *v);
        }
        out += '}';
        return;
    }
    auto v = to_value(t);
    runtime::append_json(out, v ? *v : Value(), o);
}

void append_ucast_json(std::string& out, const Ucast& n) {
    runtime::JsonWriteOptions o;
    o.escape_html = true;
    // A Go map: keys sorted (field, operator, type, value).
    out += '{';
    if (!n.field.empty()) {
        out += "\"field\":";
        runtime::append_json_string(out, n.field, o);
        out += ',';
    }
    out += "\"operator\":";
    runtime::append_json_string(out, n.op, o);
    out += ",\"type\":";
    runtime::append_json_string(out, n.type, o);
    out += ",\"value\":";
    switch (n.kind) {
        case Ucast::Kind::Null: out += "null"; break;
        case Ucast::Kind::Value: append_json_value(out, *n.value); break;
        case Ucast::Kind::FieldRef:
            out += "{\"field\":";
            runtime::append_json_string(out, n.field_ref, o);
            out += '}';
            break;
        case Ucast::Kind::Nodes:
            out += '[';
            for (std::size_t i = 0; i < n.nodes.size(); ++i) {
                if (i) out += ',';
                append_ucast_json(out, n.nodes[i]);
            }
            out += ']';
            break;
    }
    out += '}';
}

// ---------------------------------------------------------------------------
// SQL (as go-sqlbuilder writes conditions and interpolates values).

std::string quote_string(const std::string& s, const std::string& dialect) {
    std::string out;
    if (dialect == "sqlserver") {
        out = "N'";
        for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
        return out + "'";
    }
    bool sqlite = dialect == "sqlite";
    out = dialect == "postgresql" ? "E'" : "'";
    for (char c : s) {
        switch (c) {
            case '\0': out += sqlite ? "'||char(0)||'" : "\\0"; break;
            case '\b': out += sqlite ? "\b" : "\\b"; break;
            case '\n': out += sqlite ? "\n" : "\\n"; break;
            case '\r': out += sqlite ? "\r" : "\\r"; break;
            case '\t': out += sqlite ? "\t" : "\\t"; break;
            case '\x1a': out += sqlite ? "\x1a" : "\\Z"; break;
            case '\'': out += sqlite ? "''" : "\\'"; break;
            case '"': out += sqlite ? "\"" : "\\\""; break;
            case '\\': out += sqlite ? "\\" : "\\\\"; break;
            default: out += c;
        }
    }
    return out + "'";
}

std::optional<std::string> sql_value(const Term& t, const std::string& dialect, std::string& error) {
    switch (t.kind) {
        case TermKind::Null: return std::string("NULL");
        case TermKind::Boolean: return std::string(t.boolean ? "TRUE" : "FALSE");
        case TermKind::String:
        case TermKind::Number: return quote_string(t.text, dialect);  // JSON numbers are strings to the SQL builder
        default: error = "sqlbuilder: unsupported args"; return std::nullopt;
    }
}

std::string like_pattern(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\\' || c == '_' || c == '%') out += '\\';
        out += c;
    }
    return out;
}

std::optional<std::string> node_sql(const Ucast& n, const std::string& dialect, std::string& error) {
    if (n.type == "compound") {
        std::vector<std::string> parts;
        for (const auto& c : n.nodes) {
            auto s = node_sql(c, dialect, error);
            if (!s) return std::nullopt;
            if (!s->empty()) parts.push_back(std::move(*s));
        }
        if (n.op == "not") {
            if (n.nodes.size() != 1) {
                error = "compound expression 'not' requires exactly one value";
                return std::nullopt;
            }
            return parts.empty() ? std::string() : "NOT " + parts[0];
        }
        if (parts.empty()) return std::string();
        std::string sep = n.op == "and" ? " AND " : " OR ";
        std::string out = "(";
        for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
        return out + ")";
    }
    const std::string& f = n.field;
    if (n.kind == Ucast::Kind::Null) {
        if (n.op == "eq") return f + " IS NULL";
        if (n.op == "ne") return f + " IS NOT NULL";
        error = "null value can only be used with 'eq' or 'ne' operators";
        return std::nullopt;
    }
    std::string value;
    if (n.kind == Ucast::Kind::FieldRef) {
        value = n.field_ref;
    } else if (n.op == "in") {
        if (n.value->kind != TermKind::Array && n.value->kind != TermKind::Set) {
            error = "field operator 'in' requires collection argument";
            return std::nullopt;
        }
        auto elems = n.value->kind == TermKind::Set ? sorted_elems(*n.value) : n.value->elems;
        if (elems.empty()) return std::string("0 = 1");
        std::string list;
        for (std::size_t i = 0; i < elems.size(); ++i) {
            auto v = sql_value(*elems[i], dialect, error);
            if (!v) return std::nullopt;
            list += (i ? ", " : "") + *v;
        }
        return f + " IN (" + list + ")";
    } else if (n.op == "startswith" || n.op == "endswith" || n.op == "contains") {
        if (n.value->kind != TermKind::String) {
            error = fmt::format("'{}' pattern requires string argument, got {}", n.op, term_source(*n.value, nullptr));
            return std::nullopt;
        }
        std::string p = like_pattern(n.value->text);
        p = n.op == "startswith" ? p + "%" : n.op == "endswith" ? "%" + p : "%" + p + "%";
        return f + " LIKE " + quote_string(p, dialect);
    } else {
        auto v = sql_value(*n.value, dialect, error);
        if (!v) return std::nullopt;
        value = *v;
    }
    static const std::map<std::string, std::string> ops{{"eq", " = "},  {"ne", " <> "}, {"gt", " > "},
                                                        {"lt", " < "},  {"ge", " >= "}, {"gte", " >= "},
                                                        {"le", " <= "}, {"lte", " <= "}};
    auto it = ops.find(n.op);
    if (it == ops.end()) {
        error = "unrecognized operator: " + n.op;
        return std::nullopt;
    }
    return f + it->second + value;
}

}  // namespace

std::string filter_ucast_json(const std::vector<lang::Body>& queries, const Value& mappings) {
    auto u = bodies_to_ucast(queries, mappings);
    if (!u) return "{}";
    std::string out;
    append_ucast_json(out, *u);
    return out;
}

std::optional<std::string> filter_sql(const std::vector<lang::Body>& queries, const Value& mappings,
                                      const std::string& dialect, std::string& error) {
    auto u = bodies_to_ucast(queries, mappings);
    if (!u) return std::string();
    auto cond = node_sql(*u, dialect, error);
    if (!cond) return std::nullopt;
    return "WHERE " + *cond;
}

}  // namespace gavel::partial

// ---------------------------------------------------------------------------
// METADATA `compile:` blocks.

namespace gavel::partial {

namespace {

// The whole head ref is ground (the rule is exactly at its path).
bool ground_head(const lang::Rule& r) {
    const auto& ref = r.head.ref->elems;
    for (std::size_t i = 1; i < ref.size(); ++i)
        if (ref[i]->kind != TermKind::String) return false;
    return true;
}

}  // namespace

FilterAnnotations filter_annotations(const compiler::CompiledModules& modules, const std::vector<std::string>& path) {
    FilterAnnotations out;
    const lang::Module* module = nullptr;
    std::size_t index = 0;
    for (const auto& m : modules.modules) {
        for (std::size_t i = 0; i < m->rules.size() && !module; ++i)
            if (ground_head(m->rules[i]) && compiler::rule_path(*m, m->rules[i]) == path) {
                module = m.get();
                index = i;
            }
        if (module) break;
    }
    if (!module) return out;
    // The chain, nearest first: the rule's own blocks, its document's, its package's, subpackages'.
    std::vector<const lang::Module*> all;
    for (const auto& m : modules.modules) all.push_back(m.get());
    std::vector<const lang::Annotation*> chain;
    for (const auto& link : compiler::annotation_chain(all, *module, module->rules[index], index))
        chain.push_back(link.annotation);

    bool mask_found = false;
    for (const lang::Annotation* a : chain) {
        auto parsed = runtime::parse_yaml(a->yaml);
        if (!parsed || !parsed.value.is_object()) continue;
        const Value* compile = parsed.value.find("compile");
        if (!compile || !compile->is_object()) continue;
        if (const Value* unknowns = compile->find("unknowns"); unknowns && unknowns->is_array()) {
            for (const auto& u : unknowns->array_elements()) {
                if (!u.is_string()) continue;
                std::string text(u.as_string());
                auto term = lang::parse_term(text);
                bool ref = term.ok() && (term.term->kind == TermKind::Ref || term.term->kind == TermKind::Var);
                std::string head = !ref                               ? ""
                                   : term.term->kind == TermKind::Var ? term.term->text
                                                                      : term.term->elems[0]->text;
                if (!ref) {
                    out.errors.push_back(
                        lang::Diagnostic::at(a->loc, "invalid_unknown", "unknowns must be valid refs: " + text));
                } else if (head == "input" || head == "data") {
                    out.unknowns.push_back(text);
                } else {
                    out.errors.push_back(lang::Diagnostic::at(
                        a->loc, "invalid_unknown", "unknowns must be prefixed with `input` or `data`: " + text));
                }
            }
        }
        if (const Value* mask = compile->find("mask_rule"); !mask_found && mask && mask->is_string()) {
            mask_found = true;
            std::string text(mask->as_string());
            if (text.rfind("data.", 0) != 0 && text != "data") {
                std::string prefix = "data";
                for (const auto& p : compiler::package_path(*module)) prefix += "." + p;
                text = prefix + "." + text;
            }
            out.mask_rule = text;
        }
    }
    return out;
}

}  // namespace gavel::partial
