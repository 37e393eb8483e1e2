// Stage 0: the parser's shapes as the other stages expect them, which is how
// OPA's parser already builds its AST:
//   * `p { a } { b }`: each further body is a rule of its own with the same head;
//   * every single-value rule has a value (`true` when none is written) and
//     every rule a body (`true` when none is written); an else clause has the
//     head of its rule, with its own value;
//   * each `_` is a variable of its own (`$0`, `$1` ...);
//   * with `import future.keywords.not`, `not x` negates the whole expression:
//     it becomes a negated block of that one expression.

#include "compiler/ast/copy.hpp"
#include "compiler/ast/terms.hpp"
#include "compiler/ast/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::TermKind;

namespace {

bool imports_future_not(const lang::Module& m) {
    for (const auto& imp : m.imports)
        if (dotted_name(*imp.path) == "future.keywords.not") return true;
    return false;
}

bool is_multi_value(const lang::RuleHead& h) { return !h.value && h.key && !h.has_args; }

void ensure_body(lang::Rule& r, const lang::Location& loc) {
    if (r.body.empty()) r.body.push_back(make_term_expr(make_bool(true, loc), loc));
}

// `not x` of a future.keywords.not module: a negated block holding `x` (its `with` stays outside).
void wrap_negations(lang::Body& body) {
    walk_exprs(body, [](lang::Expr& e) {
        if (!e.negated || e.kind == ExprKind::Block) return false;
        lang::Expr inner = std::move(e);
        inner.negated = false;
        lang::Expr wrapper;
        wrapper.kind = ExprKind::Block;
        wrapper.loc = inner.loc;
        wrapper.negated = true;
        wrapper.implicit_body = true;
        wrapper.withs = std::move(inner.withs);
        inner.withs.clear();
        wrapper.body = std::make_shared<lang::Body>();
        wrapper.body->push_back(std::move(inner));
        e = std::move(wrapper);
        return false;
    });
}

class WildcardNamer {
public:
    void rename(lang::Term& t) {
        walk_terms(t, [this](lang::Term& x) {
            if (x.kind == TermKind::Var && x.text == "_") x.text = '$' + std::to_string(next_++);
            return false;
        });
    }
    void rename(lang::Body& b) {
        walk_terms_in_body(b, [this](lang::Term& x) {
            if (x.kind == TermKind::Var && x.text == "_") x.text = '$' + std::to_string(next_++);
            return false;
        });
    }
    void rename(lang::RuleHead& h) {
        if (h.ref) rename(*h.ref);
        for (auto& a : h.args) rename(*a);
        if (h.key) rename(*h.key);
        if (h.value) rename(*h.value);
    }

private:
    std::size_t next_ = 0;
};

}  // namespace

void name_wildcards(lang::Body& body) { WildcardNamer().rename(body); }

void normalize_rules(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules) {
        bool not_whole_expression = imports_future_not(*m);
        WildcardNamer wildcards;
        std::vector<lang::Rule> rules;
        rules.reserve(m->rules.size());
        std::vector<std::size_t> new_index;  // a parsed rule's position once extra bodies are rules of their own
        for (auto& parsed : m->rules) {
            std::vector<lang::Body> extras = std::move(parsed.extra_bodies);
            parsed.extra_bodies.clear();
            std::size_t first = rules.size();
            new_index.push_back(first);
            rules.push_back(std::move(parsed));
            for (auto& body : extras) {
                lang::Rule next;
                next.loc = body.empty() ? rules[first].loc : body.front().loc;
                next.head = copy_head(rules[first].head);
                next.has_if = rules[first].has_if;
                next.body = std::move(body);
                rules.push_back(std::move(next));
            }
        }
        m->rules = std::move(rules);
        for (auto& a : m->annotations)
            if (a.rule_index < new_index.size()) a.rule_index = new_index[a.rule_index];
        for (auto& rule : m->rules) {
            lang::RuleHead& head = rule.head;
            if (!is_multi_value(head) && !head.value) head.value = make_bool(true, head.loc);
            ensure_body(rule, rule.loc);
            // Else clauses share the head of their rule, with their own value.
            for (lang::Rule* e = rule.else_rule.get(); e; e = e->else_rule.get()) {
                lang::TermPtr value = e->head.value;
                lang::AssignOp assign = e->head.assign;
                lang::Location loc = e->loc;
                e->head = copy_head(head);
                e->head.loc = loc;
                e->head.value = value ? value : make_bool(true, loc);
                e->head.assign = value ? assign : lang::AssignOp::None;
                ensure_body(*e, loc);
            }
            for (lang::Rule* r = &rule; r; r = r->else_rule.get()) {
                wildcards.rename(r->head);
                wildcards.rename(r->body);
                if (!not_whole_expression) continue;
                wrap_negations(r->body);
                for (auto* t : {&r->head.key, &r->head.value})
                    if (*t)
                        walk_terms(**t, [](lang::Term& x) {
                            if (x.body && x.kind != TermKind::Template) wrap_negations(*x.body);
                            return false;
                        });
            }
        }
    }
}

}  // namespace gavel::compiler
