#pragma once
// The layout engine: OPA's format.writer, step for step, over the module view.
// Line breaks follow the source's rows (OPA keeps a composite on one line when
// its elements were on one line), comments are placed by row, and a term whose
// comments cannot be placed is copied verbatim, as OPA does.

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/format/module_view.hpp"
#include "lang/format/source_spans.hpp"

namespace gavel::lang::format {

class Writer {
public:
    Writer(const SourceSpans& spans, WriterOptions options) : spans_(spans), opts_(std::move(options)) {}

    // The formatted module; errors (OPA's rego_format_error / arity messages) are collected in errors().
    std::string write_module(const ModuleView& module);
    const std::vector<std::string>& errors() const { return errors_; }

    using Comments = std::vector<const CommentView*>;
    enum class Status { Ok, UnexpectedComment, Failed };

    // One element of a collection, an argument list or a body.
    struct Element {
        const Term* term = nullptr;   // an element, or an object item's key
        const Term* value = nullptr;  // an object item's value
        const Expr* expr = nullptr;   // a body literal
    };
    using EntryWriter = Status (Writer::*)(const Element&, Comments&);

private:
    // Passes on a write that stopped: a failed one drops the comments not yet
    // placed, an unexpected comment keeps them for the rest of the module.
    static Status stopped(Status st, Comments& comments) {
        if (st == Status::Failed) comments.clear();
        return st;
    }

    const SourceSpans& spans_;
    WriterOptions opts_;
    std::string buf_;
    int level_ = 0;
    bool inline_ = false;
    const CommentView* before_end_ = nullptr;
    bool delay_ = false;
    bool write_comment_on_final_line_ = false;
    std::vector<std::string> errors_;
    // OPA moves every node of an else clause's one-literal body to the clause's location.
    std::optional<Span> forced_;
    // OPA gives an object comprehension's value its key's location.
    std::unordered_map<const Term*, Span> location_of_;

    Span loc(const Term& t) const;
    Span loc(const Expr& e) const;
    Span loc(const Element& e) const;
    Span loc(const With& w) const;
    std::string_view text(const Span& s) const { return spans_.text(s); }

    void write_package(const ModuleView& m, Comments& comments);
    void write_comments(const Comments& comments);
    void write_rules(const std::vector<const RuleView*>& rules, Comments& comments);
    bool groupable_one_liner(const RuleView& rule) const;
    Status write_rule(const RuleView& rule, bool is_else, Comments& comments);
    Status write_else(const RuleView& rule, Comments& comments);
    Status write_head(const HeadView& head, bool is_default, bool is_expanded_const, bool is_else, Comments& comments);
    Status insert_comments(Comments& comments, const Span& at);
    Status write_body(const Body& body, Comments& comments);
    Status write_expr(const Expr& expr, Comments& comments);
    int expr_terms_end_row(const Expr& expr) const;
    Status write_some(const Expr& expr, Comments& comments);
    Status write_every(const Expr& expr, Comments& comments);
    Status write_function_call(const Term& call, Comments& comments);
    Status write_function_call_plain(const Term& call, Comments& comments);
    Status write_with(const With& with, Comments& comments, bool indented);
    Status write_term(const Term& term, Comments& comments);
    Status write_unformatted(const Span& at, const Comments& saved, Comments& comments);
    Status write_term_parens(bool parens, const Term& term, Comments& comments);
    void write_template(const Term& term);
    Status write_ref(const std::vector<TermPtr>& ref, Comments& comments);
    void write_ref_string_path(const Term& part);
    bool should_bracket_ref_term(const Term& part) const;
    Status write_call(bool parens, const Term& call, Comments& comments);
    Status write_in_operator(bool parens, const std::vector<TermPtr>& operands, std::size_t from, Comments& comments,
                             const Span& at, std::size_t arity);
    Status write_object(const Term& term, Comments& comments);
    Status write_array(const Term& term, Comments& comments);
    Status write_set(const Term& term, Comments& comments);
    Status write_comprehension(char open, char close, const Term& head, const Body& body, const Span& at,
                               Comments& comments);
    Status write_object_comprehension(const Term& term, Comments& comments);
    Status write_comprehension_body(char open, char close, const Body& body, const Span& head, const Span& compr,
                                    Comments& comments);
    void write_imports(std::vector<const ImportView*> imports, Comments& comments);
    void write_import(const ImportView& imp);
    Status write_iterable(std::vector<Element> elements, const Span& last, int close_row, Comments& comments,
                          EntryWriter fn);
    Status write_iterable_line(const std::vector<Element>& elements, Comments& comments, EntryWriter fn);
    Status object_entry(const Element& e, Comments& comments);
    Status list_entry(const Element& e, Comments& comments);
    std::vector<std::vector<Element>> group_iterable(std::vector<Element>& elements, const Span& last);
    void arity_error(const std::string& op);

    void start_line();
    void end_line();
    Status before_line_end(const CommentView* c);
    void blank_line();
    void write(std::string_view s) { buf_.append(s); }
    void write_line(std::string_view s);
    void start_multiline_seq();
    void up() { ++level_; }
    void down();
};

}  // namespace gavel::lang::format
