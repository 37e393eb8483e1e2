#include "engine/coverage.hpp"

namespace gavel::coverage {

namespace {

void body_lines(const lang::Body& body, std::set<uint32_t>& out);

// Bodies nested in terms (comprehensions) count too; template strings' parts
// are expressions of the template, not lines of their own.
void term_lines(const lang::TermPtr& t, std::set<uint32_t>& out) {
    if (!t) return;
    if (t->body && t->kind != lang::TermKind::Template) body_lines(*t->body, out);
    for (const auto& e : t->elems) term_lines(e, out);
    for (const auto& [k, v] : t->items) {
        term_lines(k, out);
        term_lines(v, out);
    }
    term_lines(t->key, out);
    term_lines(t->value, out);
}

void expr_lines(const lang::Expr& e, std::set<uint32_t>& out) {
    out.insert(e.loc.line);
    term_lines(e.term, out);
    if (e.body) body_lines(*e.body, out);
    if (e.every.body) body_lines(*e.every.body, out);
    for (const auto& c : e.children) expr_lines(c, out);
}

void body_lines(const lang::Body& body, std::set<uint32_t>& out) {
    for (const auto& e : body) expr_lines(e, out);
}

// An else chain is walked as a loop: its length is the user's to choose.
void rule_lines(const lang::Rule& first, std::set<uint32_t>& out) {
    for (const lang::Rule* rule = &first; rule; rule = rule->else_rule.get()) {
        out.insert(rule->loc.line);
        body_lines(rule->body, out);
        for (const auto& b : rule->extra_bodies) body_lines(b, out);
    }
}

}  // namespace

void add_coverable_lines(const lang::Module& module, std::set<uint32_t>& out) {
    for (const auto& rule : module.rules)
        if (!rule.is_default) rule_lines(rule, out);
}

void CoverageTracer::trace(const TraceEvent& e) {
    if (e.op != TraceOp::Eval && e.op != TraceOp::Exit) return;
    if (!current_ || e.file != current_file_) {
        current_file_ = std::string(e.file);
        current_ = &covered_[current_file_];
    }
    current_->insert(e.line);
}

}  // namespace gavel::coverage
