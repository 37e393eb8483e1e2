#include "lang/ground.hpp"
#include "lang/format/writer.hpp"

#include <algorithm>

#include "lang/builtins.hpp"
#include "lang/go_quote.hpp"
#include "lang/term_string.hpp"

namespace gavel::lang::format {

namespace {

using Status = Writer::Status;
using Comments = Writer::Comments;

constexpr std::string_view kIndent = "\t";

constexpr std::string_view kKeywordsV0[] = {"not",  "package", "import", "as",    "default", "else",
                                            "with", "null",    "true",   "false", "some"};
constexpr std::string_view kKeywordsV1Extra[] = {"if", "contains", "in", "every"};

int count_newlines(std::string_view s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

bool is_true(const Term& t) { return t.kind == TermKind::Boolean && t.boolean; }

// OPA's Body.Equal(expandedConst): the body is the single literal `true`.
bool is_true_body(const Body* body) {
    if (!body) return true;
    if (body->size() != 1) return false;
    const Expr& e = body->front();
    return e.kind == ExprKind::Term && !e.negated && e.withs.empty() && e.term && is_true(*e.term);
}

bool starts_with_paren(std::string_view text) { return !text.empty() && text.front() == '('; }

std::string_view trim(std::string_view s) {
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
    while (!s.empty() && blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && blank(s.back())) s.remove_suffix(1);
    return s;
}

bool is_metadata_comment(const CommentView& c) { return c.col == 1 && trim(c.text).starts_with("METADATA"); }

int compare_rows(int row_a, int col_a, int row_b, int col_b) { return row_a != row_b ? row_a - row_b : col_a - col_b; }

// OPA's Import.Compare on paths of a var and strings, then the alias.
int compare_imports(const ImportView& a, const ImportView& b) {
    for (std::size_t i = 0; i < std::min(a.path.size(), b.path.size()); ++i) {
        const Term& x = *a.path[i];
        const Term& y = *b.path[i];
        if (x.kind != y.kind) return x.kind == TermKind::String ? -1 : 1;  // strings sort before vars
        if (int c = x.text.compare(y.text)) return c;
    }
    if (a.path.size() != b.path.size()) return a.path.size() < b.path.size() ? -1 : 1;
    return a.alias.compare(b.alias);
}

bool is_or_call(const Term& t) { return t.kind == TermKind::Call && t.call_name() == "or"; }

}  // namespace

// ---- locations ------------------------------------------------------------

Span Writer::loc(const Term& t) const {
    if (forced_) return *forced_;
    if (auto it = location_of_.find(&t); it != location_of_.end()) return it->second;
    return spans_.of(t);
}

Span Writer::loc(const Expr& e) const {
    if (forced_) return *forced_;
    return spans_.of(e);
}

Span Writer::loc(const With& w) const {
    if (forced_) return *forced_;
    return spans_.of(w.loc);
}

Span Writer::loc(const Element& e) const {
    if (e.expr) return loc(*e.expr);
    return loc(*e.term);
}

// ---- the module -----------------------------------------------------------

std::string Writer::write_module(const ModuleView& m) {
    Comments comments;
    for (const auto& c : m.comments) comments.push_back(&c);

    struct Other {
        int row, col;
        const ImportView* imp;
        const RuleView* rule;
    };
    std::vector<Other> others;
    for (const auto& i : m.imports) others.push_back({i.row, i.col, &i, nullptr});
    for (const auto& r : m.rules) others.push_back({r.loc.row, r.loc.col, nullptr, &r});
    std::stable_sort(others.begin(), others.end(),
                     [](const Other& a, const Other& b) { return compare_rows(a.row, a.col, b.row, b.col) < 0; });

    write_package(m, comments);
    std::size_t i = 0;
    while (i < others.size()) {
        std::vector<const ImportView*> imports;
        for (; i < others.size() && others[i].imp; ++i) imports.push_back(others[i].imp);
        write_imports(std::move(imports), comments);
        std::vector<const RuleView*> rules;
        for (; i < others.size() && others[i].rule; ++i) rules.push_back(others[i].rule);
        write_rules(rules, comments);
    }
    for (std::size_t k = 0; k < comments.size(); ++k) {
        write_line(comments[k]->str());
        if (k + 1 == comments.size()) write("\n");
    }

    // OPA's squashTrailingNewlines.
    if (!buf_.empty() && buf_.back() == '\n') {
        while (!buf_.empty() && buf_.back() == '\n') buf_.pop_back();
        buf_.push_back('\n');
    }
    return std::move(buf_);
}

void Writer::write_package(const ModuleView& m, Comments& comments) {
    if (insert_comments(comments, m.package_loc) != Status::Ok) {
        errors_.push_back("unexpected comment before the package");
        comments.clear();
        return;
    }
    start_line();
    if (m.package_path.empty()) {
        errors_.push_back("invalid package path");
        return;
    }
    write("package ");
    Comments none;
    write_ref(m.package_path, none);
    blank_line();
}

void Writer::write_comments(const Comments& comments) {
    bool in_metadata_block = false;
    for (std::size_t i = 0; i < comments.size(); ++i) {
        if (i > 0) {
            int l = compare_rows(comments[i]->row, comments[i]->col, comments[i - 1]->row, comments[i - 1]->col);
            if (l > 1) {
                blank_line();
                in_metadata_block = false;
            } else if (l == 1 && in_metadata_block && is_metadata_comment(*comments[i])) {
                blank_line();
            }
        }
        if (is_metadata_comment(*comments[i])) in_metadata_block = true;
        write_line(comments[i]->str());
    }
}

void Writer::write_rules(const std::vector<const RuleView*>& rules, Comments& comments) {
    for (std::size_t i = 0; i < rules.size(); ++i) {
        const RuleView& rule = *rules[i];
        if (insert_comments(comments, rule.loc) == Status::Failed) errors_.push_back("failed to place comments");
        if (write_rule(rule, false, comments) == Status::Failed) errors_.push_back("failed to write rule");
        if (i + 1 < rules.size() && groupable_one_liner(rule)) {
            const RuleView& next = *rules[i + 1];
            if (groupable_one_liner(next) && next.loc.row == rule.loc.row + 1) continue;
        }
        blank_line();
    }
}

bool Writer::groupable_one_liner(const RuleView& rule) const {
    if ((rule.body && rule.body->size() > 1) || rule.is_default) return false;
    bool partial_set_exception = opts_.contains || rule.head.value;
    return (opts_.rego_v1 || opts_.ifs) && partial_set_exception;
}

Status Writer::write_rule(const RuleView& rule, bool is_else, Comments& comments) {
    if (!is_else) start_line();
    if (rule.is_default) write("default ");

    const bool is_expanded_const = is_true_body(rule.body) && !rule.else_rule;
    write_comment_on_final_line_ = is_expanded_const;

    bool unexpected_comment = false;
    Status st = write_head(rule.head, rule.is_default, is_expanded_const, is_else, comments);
    if (st == Status::UnexpectedComment) {
        unexpected_comment = true;
    } else if (st != Status::Ok) return stopped(st, comments);

    if (!rule.body || is_expanded_const) {
        end_line();
        return Status::Ok;
    }
    write_comment_on_final_line_ = true;

    const Body& body = *rule.body;
    // The one literal of an else clause's body sits, for OPA, where the clause does.
    std::optional<Span> saved_forced = forced_;
    if (rule.literal_body && is_else) forced_ = rule.loc;
    auto restore = [&] { forced_ = saved_forced; };

    const bool partial_set_exception = opts_.contains || rule.head.value;
    if ((opts_.rego_v1 || opts_.ifs) && partial_set_exception) {
        write(" if");
        if (body.size() == 1 && loc(body[0]).row == rule.head.loc.row) {
            write(" ");
            st = write_expr(body[0], comments);
            restore();
            if (st != Status::Ok) return stopped(st, comments);
            end_line();
            if (rule.else_rule) {
                st = write_else(rule, comments);
                if (st != Status::Ok) return stopped(st, comments);
            }
            return Status::Ok;
        }
    }
    if (unexpected_comment && !comments.empty()) {
        write(" { ");
    } else {
        write(" {");
        end_line();
    }
    up();
    st = write_body(body, comments);
    restore();
    if (st == Status::Failed) {
        comments.clear();
        return st;
    }

    int close_row;
    if (!rule.head.args.empty() && !is_else) close_row = spans_.closing_row('(', ')', '{', '}', rule.loc);
    else if (rule.head.key) close_row = spans_.closing_row('[', ']', '{', '}', rule.loc);
    else close_row = spans_.closing_row(0, 0, '{', '}', rule.loc);
    st = insert_comments(comments, Span{close_row, 0, 0, 0});
    if (st != Status::Ok) return stopped(st, comments);
    down();
    start_line();
    write("}");
    if (rule.else_rule) {
        st = write_else(rule, comments);
        if (st != Status::Ok) return stopped(st, comments);
    }
    return Status::Ok;
}

Status Writer::write_else(const RuleView& rule, Comments& comments) {
    const Rule& e = *rule.else_rule;
    const uint32_t chain_end = spans_.of(rule.top->loc).end;

    RuleView ev;
    ev.loc = spans_.make(e.loc, e.loc.offset, chain_end);
    ev.body = e.body.empty() ? nullptr : &e.body;
    ev.else_rule = e.else_rule.get();
    ev.top = rule.top;
    ev.literal_body = e.literal_body;
    ev.head.key = rule.head.key;
    uint32_t head_end = e.loc.offset + 4;  // `else`
    if (e.head.value) head_end = std::max(head_end, spans_.of(*e.head.value).end);
    ev.head.loc = spans_.make(e.loc, e.loc.offset, head_end);
    Location else_word = e.loc;
    else_word.length = 4;
    ev.head.ref.push_back(make_var("else", else_word));
    if (e.head.value) {
        ev.head.value = e.head.value;
        ev.head.assign = e.head.assign == AssignOp::Assign;
    } else {
        auto t = make_term(TermKind::Boolean, else_word);
        t->boolean = true;
        ev.head.value = t;
        ev.head.assign = rule.head.assign;
    }
    // OPA moves the else value to the head's location (its text then starts with `else`).
    location_of_[ev.head.value.get()] = ev.head.loc;

    // `} else {` stays on one line; an `else` that started its own line keeps doing so.
    bool was_inline = false;
    std::string_view rule_text = text(rule.loc);
    int relative_else_row = ev.loc.row - rule.loc.row;
    if (relative_else_row > 0) {
        int row = 0;
        std::size_t start = 0;
        while (row < relative_else_row && start != std::string_view::npos) {
            start = rule_text.find('\n', start);
            if (start != std::string_view::npos) ++start;
            ++row;
        }
        if (start != std::string_view::npos) {
            std::size_t stop = rule_text.find('\n', start);
            std::string_view else_line = rule_text.substr(start, stop == std::string_view::npos ? stop : stop - start);
            if (!trim(else_line).starts_with("else")) was_inline = true;
        }
    }

    const bool has_comment_above =
        (!comments.empty() && comments[0]->row - ev.head.loc.row < 0) || before_end_ != nullptr;
    if (!has_comment_above && was_inline) {
        write(" ");
    } else {
        blank_line();
        start_line();
    }
    Status st = insert_comments(comments, ev.head.loc);
    if (st != Status::Ok) return stopped(st, comments);
    if (has_comment_above && !was_inline) start_line();
    return write_rule(ev, true, comments);
}

Status Writer::write_head(const HeadView& head, bool is_default, bool is_expanded_const, bool is_else,
                          Comments& comments) {
    std::vector<TermPtr> ref = head.ref;
    if (head.key && !head.value) {
        bool dynamic = false;
        for (std::size_t i = 1; i < ref.size(); ++i) dynamic |= !is_ground(*ref[i]);
        if (!dynamic) {
            std::size_t n = 1;
            while (n < ref.size() && is_ground(*ref[n])) ++n;
            ref.resize(n);
        }
    }
    if (opts_.ref_heads || ref.size() == 1) {
        Status st = write_ref(ref, comments);
        if (st != Status::Ok) return stopped(st, comments);
    } else {
        // Comments inside the head's key: OPA copies the head as written.
        if (!comments.empty() && loc(*ref[1]).row == comments[0]->row) {
            Comments saved = comments;
            return write_unformatted(head.loc, saved, comments);
        }
        write(lang::to_string(*ref[0]));
        write("[");
        write(lang::to_string(*ref[1]));
        write("]");
    }

    if (!head.args.empty() && !is_else) {
        write("(");
        std::vector<Element> args;
        for (const auto& a : head.args) args.push_back({a.get(), nullptr, nullptr});
        Status st = write_iterable(std::move(args), head.loc, spans_.closing_row(0, 0, '(', ')', head.loc), comments,
                                   &Writer::list_entry);
        write(")");
        if (st != Status::Ok) return st;
    }
    if (head.key) {
        if (opts_.contains && !head.value) {
            write(" contains ");
            Status st = write_term(*head.key, comments);
            if (st != Status::Ok) return st;
        } else if (!head.value) {
            write("[");
            Status st = write_term(*head.key, comments);
            if (st != Status::Ok) return st;
            write("]");
        }
    }
    if (head.value && (head.key || !is_true(*head.value) || is_expanded_const || is_default)) {
        const bool rego_v1_ref_const = opts_.rego_v1 && is_expanded_const && !head.key && head.args.empty();
        if (head.value_at_head && !is_else && is_true(*head.value) && !rego_v1_ref_const) return Status::Ok;
        write(head.assign || opts_.rego_v1 ? " := " : " = ");
        return write_term(*head.value, comments);
    }
    return Status::Ok;
}

// ---- comments -------------------------------------------------------------

Status Writer::insert_comments(Comments& comments, const Span& at) {
    Comments before, after;
    const CommentView* here = nullptr;
    for (const CommentView* c : comments) {
        int cmp = c->row - at.row;
        if (cmp < 0) before.push_back(c);
        else if (cmp > 0) after.push_back(c);
        else here = c;
    }
    write_comments(before);
    if (!before.empty() && at.row - before.back()->row > 1) blank_line();
    comments = std::move(after);
    return before_line_end(here);
}

Status Writer::before_line_end(const CommentView* c) {
    if (before_end_) {
        if (!c) return Status::Ok;
        before_end_ = nullptr;
        return Status::UnexpectedComment;
    }
    before_end_ = c;
    return Status::Ok;
}

// ---- bodies and expressions -----------------------------------------------

Status Writer::write_body(const Body& body, Comments& comments) {
    if (body.empty()) return Status::Ok;
    Status st = insert_comments(comments, loc(body[0]));
    if (st != Status::Ok) return st;
    for (std::size_t i = 0; i < body.size(); ++i) {
        if (i > 0) {
            Span prev = loc(body[i - 1]);
            int last_row = prev.row + count_newlines(text(prev));
            if (loc(body[i]).row > last_row + 1) blank_line();
        }
        start_line();
        st = write_expr(body[i], comments);
        if (st == Status::Failed) errors_.push_back("failed to write expression");
        end_line();
    }
    return Status::Ok;
}

Status Writer::write_expr(const Expr& expr, Comments& comments) {
    Status st = insert_comments(comments, loc(expr));
    if (st != Status::Ok) return st;
    if (!inline_) start_line();
    if (expr.negated) write("not ");

    switch (expr.kind) {
        case ExprKind::Some:
            st = write_some(expr, comments);
            if (st != Status::Ok) return stopped(st, comments);
            break;
        case ExprKind::Every:
            st = write_every(expr, comments);
            if (st != Status::Ok) return stopped(st, comments);
            break;
        case ExprKind::Term:
            st = expr.term->kind == TermKind::Call ? write_function_call(*expr.term, comments)
                                                   : write_term(*expr.term, comments);
            // A term copied as written (a comment inside it) still has its `with`
            // modifiers to write: OPA 1.18's writer returns here and loses them
            // (and the comments after them); gavel keeps them (README).
            if (st == Status::UnexpectedComment) break;
            if (st != Status::Ok) return st;
            break;
        default: errors_.push_back("the experimental `and`/`or` keywords cannot be formatted"); return Status::Failed;
    }

    if (expr.withs.empty()) return Status::Ok;
    int last_row = expr_terms_end_row(expr);
    std::size_t i = 0;
    if (loc(expr.withs[0]).row == last_row) {
        st = write_with(expr.withs[0], comments, false);
        if (st != Status::Ok) return st;
        last_row = loc(expr.withs[0]).row;
        i = 1;
    }
    bool indented = false;
    for (; i < expr.withs.size(); ++i) {
        const With& with = expr.withs[i];
        int row = loc(with).row;
        bool indent = row > last_row;
        if (indent) {
            if (!indented) {
                up();
                indented = true;
            }
            end_line();
            start_line();
            last_row = row;
        }
        st = write_with(with, comments, indent);
        if (st != Status::Ok) {
            if (indented) down();
            return st;
        }
    }
    if (indented) down();
    return Status::Ok;
}

// The row where an expression's own terms end, its `with` modifiers left out.
int Writer::expr_terms_end_row(const Expr& expr) const {
    Span l = loc(expr);
    std::string_view t = text(l);
    if (!expr.withs.empty()) {
        Span w = loc(expr.withs[0]);
        if (w.begin > l.begin && w.begin - l.begin <= t.size()) t = t.substr(0, w.begin - l.begin);
    }
    while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r' || t.back() == '\n'))
        t.remove_suffix(1);
    return l.row + count_newlines(t);
}

Status Writer::write_some(const Expr& expr, Comments& comments) {
    Span decl = forced_ ? *forced_ : spans_.make(expr.loc, expr.loc.offset, expr.loc.offset + 4);
    Status st = insert_comments(comments, decl);
    if (st != Status::Ok) return stopped(st, comments);
    write("some ");
    if (expr.some.in_call) {
        const Term& call = *expr.some.in_call;
        st = write_in_operator(false, call.elems, 1, comments, decl, call.elems.size() - 1 == 3 ? 3 : 2);
        return stopped(st, comments);
    }
    int row = decl.row;
    const auto& vars = expr.some.vars;
    for (std::size_t i = 0; i < vars.size(); ++i) {
        int r = loc(*vars[i]).row;
        if (r > row) {
            end_line();
            start_line();
            write(kIndent);
            row = r;
        } else if (i > 0) {
            write(" ");
        }
        st = write_term(*vars[i], comments);
        if (st != Status::Ok) return stopped(st, comments);
        if (i + 1 < vars.size()) write(",");
    }
    return Status::Ok;
}

Status Writer::write_every(const Expr& expr, Comments& comments) {
    const Every& every = expr.every;
    Span at = loc(expr);
    Status st = insert_comments(comments, at);
    if (st != Status::Ok) return stopped(st, comments);
    write("every ");
    if (every.key) {
        st = write_term(*every.key, comments);
        if (st != Status::Ok) return stopped(st, comments);
        write(", ");
    }
    st = write_term(*every.value, comments);
    if (st != Status::Ok) return stopped(st, comments);
    write(" in ");
    st = write_term(*every.domain, comments);
    if (st != Status::Ok) return stopped(st, comments);
    write(" {");
    st = write_comprehension_body('{', '}', *every.body, at, at, comments);
    if (st == Status::Failed) {
        comments.clear();
        return st;
    }
    int every_row = forced_ ? forced_->row : static_cast<int>(expr.loc.line);
    if (every.body->size() == 1 && loc(every.body->front()).row == every_row) write(" ");
    write("}");
    return Status::Ok;
}

void Writer::arity_error(const std::string& op) { errors_.push_back(op + ": arity mismatch"); }

Status Writer::write_function_call(const Term& call, Comments& comments) {
    const std::string op = call.call_name();
    const std::size_t num_call_args = call.elems.size() - 1;
    if (op == "internal.member_2" || op == "internal.member_3")
        return write_in_operator(false, call.elems, 1, comments, loc(*call.elems[0]),
                                 op == "internal.member_2" ? 2 : 3);
    const BuiltinDecl* decl = op.empty() ? nullptr : find_builtin_decl(op);
    if (!decl || decl->infix.empty()) return write_function_call_plain(call, comments);

    if (num_call_args == decl->arity) {
        Status st = write_term(*call.elems[1], comments);
        if (st != Status::Ok) return stopped(st, comments);
        write(" " + decl->infix + " ");
        return write_term(*call.elems[2], comments);
    }
    if (num_call_args == decl->arity + 1) {
        // `plus(a, b, c)` is `c = a + b`.
        Status st = write_term(*call.elems[3], comments);
        if (st != Status::Ok) return stopped(st, comments);
        write(" = ");
        st = write_term(*call.elems[1], comments);
        if (st != Status::Ok) return stopped(st, comments);
        write(" " + decl->infix + " ");
        st = write_term(*call.elems[2], comments);
        if (st != Status::Ok) return stopped(st, comments);
        return Status::Ok;
    }
    arity_error(op);
    return write_function_call_plain(call, comments);
}

Status Writer::write_function_call_plain(const Term& call, Comments& comments) {
    const Term& op = *call.elems[0];
    if (op.kind == TermKind::Ref) {
        // OPA writes the operator with its own copy of the comments and keeps the list it had.
        Comments copy = comments;
        Status st = write_ref(op.elems, copy);
        if (st != Status::Ok) {
            comments = std::move(copy);
            return st;
        }
    } else {
        write(lang::to_string(op));
    }
    write("(");
    std::vector<Element> args;
    for (std::size_t i = 1; i < call.elems.size(); ++i) args.push_back({call.elems[i].get(), nullptr, nullptr});
    Span at = loc(op);
    Status st =
        write_iterable(std::move(args), at, spans_.closing_row(0, 0, '(', ')', at), comments, &Writer::list_entry);
    write(")");
    if (st != Status::Ok) return stopped(st, comments);
    return Status::Ok;
}

Status Writer::write_with(const With& with, Comments& comments, bool indented) {
    Status st = insert_comments(comments, loc(with));
    if (st != Status::Ok) return stopped(st, comments);
    if (!indented) write(" ");
    write("with ");
    st = write_term(*with.target, comments);
    if (st != Status::Ok) return stopped(st, comments);
    write(" as ");
    st = write_term(*with.value, comments);
    // A value copied as written (comments inside it) does not end the chain of `with`s.
    if (st == Status::Failed) return st;
    return Status::Ok;
}

// ---- terms ----------------------------------------------------------------

Status Writer::write_term(const Term& term, Comments& comments) {
    if (comments.empty()) return write_term_parens(false, term, comments);

    const std::size_t current_len = buf_.size();
    const int current_level = level_;
    const Comments saved = comments;
    Status st = write_term_parens(false, term, comments);
    if (st != Status::UnexpectedComment) return st;

    // A comment OPA cannot place inside the term: copy the term as written.
    buf_.resize(current_len);
    level_ = current_level;
    Span at = loc(term);
    std::string_view t = text(at);
    if (before_end_ && !t.empty()) {
        int end_row = at.row + count_newlines(t);
        if (before_end_->row >= at.row && before_end_->row <= end_row) before_end_ = nullptr;
    }
    Status u = write_unformatted(at, saved, comments);
    if (u == Status::Failed) {
        comments.clear();
        return u;
    }
    return Status::UnexpectedComment;
}

Status Writer::write_unformatted(const Span& at, const Comments& saved, Comments& comments) {
    std::string_view t = text(at);
    if (t.empty()) {
        errors_.push_back("original unformatted text is empty");
        return Status::Failed;
    }
    const int last_row = at.row + count_newlines(t);
    write(t);
    Comments out;
    for (const CommentView* c : saved) {
        if (write_comment_on_final_line_ && c->row == last_row) {
            write(" ");
            write(c->raw);
            continue;
        }
        if (c->row < last_row) continue;  // inside the text just copied
        out.push_back(c);
    }
    comments = std::move(out);
    return Status::Ok;
}

Status Writer::write_term_parens(bool parens, const Term& term, Comments& comments) {
    Status st = insert_comments(comments, loc(term));
    if (st != Status::Ok) return stopped(st, comments);
    if (!inline_) start_line();

    switch (term.kind) {
        case TermKind::Ref: st = write_ref(term.elems, comments); break;
        case TermKind::Object: st = write_object(term, comments); break;
        case TermKind::Array: st = write_array(term, comments); break;
        case TermKind::Set: st = write_set(term, comments); break;
        case TermKind::ArrayComprehension:
            write("[");
            st = write_comprehension('[', ']', *term.value, *term.body, loc(term), comments);
            write("]");
            break;
        case TermKind::SetComprehension:
            write("{");
            st = write_comprehension('{', '}', *term.value, *term.body, loc(term), comments);
            write("}");
            break;
        case TermKind::ObjectComprehension: st = write_object_comprehension(term, comments); break;
        case TermKind::String: {
            std::string_view t = text(loc(term));
            if (!t.empty() && t.front() == '`') {
                write(t);  // a raw string stays as written
            } else if (!t.empty() && (t.back() == '"' || t.back() == '`')) {
                // The text as written, from its first quote (a moved else value's text starts with `else :=`).
                std::size_t q = t.find(t.back());
                write(t.substr(q));
            } else {
                write(go_quote(term.text));
            }
            break;
        }
        case TermKind::Template: write_template(term); break;
        case TermKind::Var: write(term.text); break;
        case TermKind::Call: st = write_call(parens, term, comments); break;
        case TermKind::Number: write(term.text); break;
        case TermKind::Boolean: write(term.boolean ? "true" : "false"); break;
        case TermKind::Null: write("null"); break;
    }
    if (st != Status::Ok) return stopped(st, comments);
    if (!inline_) start_line();
    return Status::Ok;
}

// Template strings are copied as written.
void Writer::write_template(const Term& term) { write(spans_.text(spans_.of(term))); }

Status Writer::write_ref(const std::vector<TermPtr>& ref, Comments& comments) {
    if (ref.empty()) return Status::Ok;
    const Term& head = *ref[0];
    bool parens = head.kind == TermKind::Call && starts_with_paren(text(loc(head)));
    Status st = write_term_parens(parens, head, comments);
    if (st != Status::Ok) return stopped(st, comments);
    for (std::size_t i = 1; i < ref.size(); ++i) {
        const Term& part = *ref[i];
        if (part.kind == TermKind::String) {
            write_ref_string_path(part);
        } else if (part.kind == TermKind::Var) {
            write("[" + part.text + "]");
        } else {
            write("[");
            st = write_term(part, comments);
            if (st == Status::UnexpectedComment) {
                write("\n");  // the closing bracket must not end up in the copied comment
            } else if (st != Status::Ok) return stopped(st, comments);
            write("]");
        }
    }
    return Status::Ok;
}

void Writer::write_ref_string_path(const Term& part) {
    if (should_bracket_ref_term(part)) {
        write('[' + go_quote(part.text) + "]");
    } else {
        write(".");
        write(part.text);
    }
}

bool Writer::should_bracket_ref_term(const Term& part) const {
    const std::string& s = part.text;
    if (!is_var_compatible(s)) return true;
    bool keyword = std::find(std::begin(kKeywordsV0), std::end(kKeywordsV0), s) != std::end(kKeywordsV0);
    if (opts_.rego_v1)
        keyword |= std::find(std::begin(kKeywordsV1Extra), std::end(kKeywordsV1Extra), s) != std::end(kKeywordsV1Extra);
    else
        keyword |=
            std::find(opts_.future_keywords.begin(), opts_.future_keywords.end(), s) != opts_.future_keywords.end();
    if (keyword) {
        if (!opts_.allow_keywords_in_refs) return true;
        std::string_view t = text(loc(part));
        if (!t.empty() && t.front() == '"') return true;  // `p["not"]` keeps its brackets
    }
    return false;
}

Status Writer::write_call(bool parens, const Term& call, Comments& comments) {
    const std::string op = call.call_name();
    const BuiltinDecl* decl = op.empty() ? nullptr : find_builtin_decl(op);
    if (!decl || decl->infix.empty()) return write_function_call_plain(call, comments);
    if (decl->infix == "in") return write_in_operator(true, call.elems, 1, comments, loc(call), decl->arity);

    if (parens) write("(");
    if (decl->arity != call.elems.size() - 1) {
        arity_error(op);
        return Status::Ok;
    }
    Status st = write_term_parens(true, *call.elems[1], comments);
    if (st != Status::Ok) return stopped(st, comments);
    write(" " + decl->infix + " ");
    st = write_term_parens(true, *call.elems[2], comments);
    if (st != Status::Ok) return stopped(st, comments);
    if (parens) write(")");
    return Status::Ok;
}

Status Writer::write_in_operator(bool parens, const std::vector<TermPtr>& operands, std::size_t from,
                                 Comments& comments, const Span&, std::size_t arity) {
    const std::size_t n = operands.size() - from;
    if (n != arity) {
        arity_error(arity == 3 ? "internal.member_3" : "internal.member_2");
        return Status::Ok;
    }
    auto operand = [&](std::size_t i) -> Status {
        Status st = write_term_parens(true, *operands[from + i], comments);
        return stopped(st, comments);
    };
    if (n == 2) {
        if (Status st = operand(0); st != Status::Ok) return st;
        write(" in ");
        return operand(1);
    }
    if (parens) write("(");
    Status st = operand(0);
    if (st == Status::Ok) {
        write(", ");
        st = operand(1);
    }
    if (st == Status::Ok) {
        write(" in ");
        st = operand(2);
    }
    if (parens) write(")");
    return st;
}

Status Writer::write_object(const Term& term, Comments& comments) {
    write("{");
    std::vector<Element> items;
    for (const auto& [k, v] : term.items) items.push_back({k.get(), v.get(), nullptr});
    Span at = loc(term);
    Status st =
        write_iterable(std::move(items), at, spans_.closing_row(0, 0, '{', '}', at), comments, &Writer::object_entry);
    write("}");
    return st;
}

Status Writer::write_array(const Term& term, Comments& comments) {
    write("[");
    std::vector<Element> elems;
    for (const auto& e : term.elems) elems.push_back({e.get(), nullptr, nullptr});
    Span at = loc(term);
    Status st =
        write_iterable(std::move(elems), at, spans_.closing_row(0, 0, '[', ']', at), comments, &Writer::list_entry);
    write("]");
    return stopped(st, comments);
}

Status Writer::write_set(const Term& term, Comments& comments) {
    Span at = loc(term);
    if (term.elems.empty()) {
        write("set()");
        Status st = insert_comments(comments, Span{spans_.closing_row(0, 0, '(', ')', at), 0, 0, 0});
        return stopped(st, comments);
    }
    write("{");
    std::vector<Element> elems;
    for (const auto& e : term.elems) elems.push_back({e.get(), nullptr, nullptr});
    Status st =
        write_iterable(std::move(elems), at, spans_.closing_row(0, 0, '{', '}', at), comments, &Writer::list_entry);
    write("}");
    return stopped(st, comments);
}

Status Writer::write_object_comprehension(const Term& term, Comments& comments) {
    write("{");
    Span at = loc(term);
    Span key = loc(*term.key);
    location_of_[term.value.get()] = key;  // OPA keeps the value on the key's line
    if (key.row - at.row > 1) {
        end_line();
        start_line();
    }
    Status st = write_term(*term.key, comments);
    if (st != Status::Ok) {
        write("}");
        return stopped(st, comments);
    }
    write(": ");
    st = write_comprehension('{', '}', *term.value, *term.body, at, comments);
    write("}");
    return st;
}

Status Writer::write_comprehension(char open, char close, const Term& head, const Body& body, const Span& at,
                                   Comments& comments) {
    Span head_loc = loc(head);
    if (head_loc.row - at.row >= 1) {
        end_line();
        start_line();
    }
    bool parens = head.kind == TermKind::Call && starts_with_paren(text(head_loc));
    Status st = write_term_parens(parens, head, comments);
    if (st != Status::Ok) return stopped(st, comments);
    write(" |");
    return write_comprehension_body(open, close, body, head_loc, at, comments);
}

Status Writer::write_comprehension_body(char open, char close, const Body& body, const Span& head, const Span& compr,
                                        Comments& comments) {
    std::vector<Element> exprs;
    for (const auto& e : body) exprs.push_back({nullptr, nullptr, &e});
    auto lines = group_iterable(exprs, head);
    const int close_row = spans_.closing_row(0, 0, open, close, compr);

    if (loc(body[0]).row - head.row > 0 || lines.size() > 1) {
        end_line();
        up();
        Status st = write_body(body, comments);
        if (st == Status::Ok) {
            st = insert_comments(comments, Span{close_row, 0, 0, 0});
            if (st == Status::Failed) comments.clear();
        }
        down();
        start_line();
        return st;
    }
    write(" ");
    for (std::size_t i = 0; i < body.size(); ++i) {
        if (i > 0) write("; ");
        Status st = write_expr(body[i], comments);
        if (st != Status::Ok) return st;
    }
    Status st = insert_comments(comments, Span{close_row, 0, 0, 0});
    return stopped(st, comments);
}

// ---- imports --------------------------------------------------------------

void Writer::write_imports(std::vector<const ImportView*> imports, Comments& comments) {
    // A comment on an import's line stays at its end.
    std::vector<std::pair<const ImportView*, const CommentView*>> trailing;
    Comments leftovers;
    for (const CommentView* c : comments) {
        bool matched = false;
        for (const ImportView* imp : imports) {
            if (c->row == imp->row) {
                trailing.emplace_back(imp, c);
                matched = true;
                break;
            }
        }
        if (!matched) leftovers.push_back(c);
    }
    comments = std::move(leftovers);

    std::vector<std::vector<const ImportView*>> groups;
    for (const ImportView* imp : imports) {
        if (groups.empty() || imp->row - groups.back().back()->row > 1) groups.emplace_back();
        groups.back().push_back(imp);
    }
    for (auto& group : groups) {
        if (insert_comments(comments, Span{group[0]->row, group[0]->col, 0, 0}) != Status::Ok) {
            errors_.push_back("unexpected comment between imports");
            comments.clear();
            return;
        }
        std::stable_sort(group.begin(), group.end(),
                         [](const ImportView* a, const ImportView* b) { return compare_imports(*a, *b) < 0; });
        for (const ImportView* imp : group) {
            start_line();
            write_import(*imp);
            for (const auto& [i, c] : trailing)
                if (i == imp) write(' ' + c->str());
            end_line();
        }
        blank_line();
    }
}

void Writer::write_import(const ImportView& imp) {
    write("import ");
    const bool future = imp.path.size() == 3 && imp.path[0]->text == "future" && imp.path[1]->text == "keywords";
    const bool saved = opts_.allow_keywords_in_refs;
    if (future) opts_.allow_keywords_in_refs = true;  // `future.keywords.in` is never bracketed
    Comments none;
    write_ref(imp.path, none);
    opts_.allow_keywords_in_refs = saved;
    if (!imp.alias.empty()) write(" as " + imp.alias);
}

// ---- collections ----------------------------------------------------------

Status Writer::write_iterable(std::vector<Element> elements, const Span& last, int close_row, Comments& comments,
                              EntryWriter fn) {
    auto lines = group_iterable(elements, last);
    bool newline_precedes_item = false;
    if (lines.size() == 1) {
        // A comment inside a collection written on one line: OPA keeps it as written.
        for (const CommentView* c : comments)
            if (c->row > last.row && c->row < close_row) return Status::UnexpectedComment;
        if (!elements.empty()) {
            std::string_view outer = text(last);
            std::string_view first = text(loc(elements[0]));
            std::size_t cut = first.empty() ? 0 : outer.find(first);
            if (cut != std::string_view::npos && cut > 0) {
                std::size_t nl = outer.substr(0, cut).find('\n');
                newline_precedes_item = nl != std::string_view::npos && nl > 0;
            }
        }
    }
    const bool multiline = lines.size() > 1 || newline_precedes_item;
    if (multiline) {
        delay_ = true;
        start_multiline_seq();
    }
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        Status st = write_iterable_line(lines[i], comments, fn);
        if (st != Status::Ok) return stopped(st, comments);
        write(",");
        end_line();
        start_line();
    }
    Status st = write_iterable_line(lines.back(), comments, fn);
    if (st != Status::Ok) return stopped(st, comments);
    if (multiline) {
        write(",");
        end_line();
        st = insert_comments(comments, Span{close_row, 0, 0, 0});
        if (st != Status::Ok) return stopped(st, comments);
        down();
        start_line();
    }
    return Status::Ok;
}

Status Writer::write_iterable_line(const std::vector<Element>& elements, Comments& comments, EntryWriter fn) {
    for (std::size_t i = 0; i < elements.size(); ++i) {
        if (i > 0) write(", ");
        Status st = (this->*fn)(elements[i], comments);
        if (st != Status::Ok) {
            if (i + 1 < elements.size()) comments.clear();
            return st;
        }
    }
    return Status::Ok;
}

Status Writer::object_entry(const Element& e, Comments& comments) {
    bool paren = is_or_call(*e.term) && starts_with_paren(text(loc(*e.term)));
    if (paren) write("(");
    Status st = write_term(*e.term, comments);
    if (st != Status::Ok) return stopped(st, comments);
    if (paren) write(")");
    write(": ");
    paren = is_or_call(*e.value) && starts_with_paren(text(loc(*e.value)));
    if (paren) write("(");
    st = write_term(*e.value, comments);
    if (paren) write(")");
    return st;
}

Status Writer::list_entry(const Element& e, Comments& comments) {
    bool paren = is_or_call(*e.term) && starts_with_paren(text(loc(*e.term)));
    if (paren) write("(");
    Status st = write_term(*e.term, comments);
    if (paren) write(")");
    return st;
}

// Elements in source order, split where a new row starts.
std::vector<std::vector<Writer::Element>> Writer::group_iterable(std::vector<Element>& elements, const Span& last) {
    std::vector<Span> locs;
    std::vector<std::size_t> order(elements.size());
    for (std::size_t i = 0; i < elements.size(); ++i) {
        locs.push_back(loc(elements[i]));
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return compare_rows(locs[a].row, locs[a].col, locs[b].row, locs[b].col) < 0;
    });
    std::vector<Element> sorted;
    for (std::size_t i : order) sorted.push_back(elements[i]);
    elements = sorted;

    std::vector<std::vector<Element>> lines;
    std::vector<Element> cur;
    int last_row = last.row;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const Span& l = locs[order[k]];
        if (l.row - last_row > 0 && k > 0) {
            lines.push_back(std::move(cur));
            cur.clear();
        }
        last_row = l.row;
        cur.push_back(elements[k]);
    }
    lines.push_back(std::move(cur));
    return lines;
}

// ---- lines ----------------------------------------------------------------

void Writer::start_line() {
    inline_ = true;
    for (int i = 0; i < level_; ++i) write(kIndent);
}

void Writer::end_line() {
    inline_ = false;
    if (before_end_ && !delay_) {
        write(' ' + before_end_->str());
        before_end_ = nullptr;
    }
    delay_ = false;
    write("\n");
}

void Writer::blank_line() {
    if (inline_) end_line();
    write("\n");
}

void Writer::write_line(std::string_view s) {
    if (!inline_) start_line();
    write(s);
    end_line();
}

void Writer::start_multiline_seq() {
    end_line();
    up();
    start_line();
}

void Writer::down() {
    if (level_ == 0) {
        errors_.push_back("negative indentation level");
        return;
    }
    --level_;
}

}  // namespace gavel::lang::format
