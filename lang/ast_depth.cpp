#include "lang/ast_depth.hpp"

#include <vector>

namespace gavel::lang {

namespace {

class DepthWalk {
public:
    explicit DepthWalk(std::size_t limit) : limit_(limit) {}

    void term(const TermPtr& t, std::size_t depth) {
        if (t) terms_.push_back({t.get(), depth});
    }

    void body(const Body* b, std::size_t depth) {
        if (b) bodies_.push_back({b, depth});
    }

    void rule(const Rule& r) {
        // An else chain can be long: its clauses are visited in a loop, not nested.
        for (const Rule* clause = &r; clause; clause = clause->else_rule.get()) {
            const RuleHead& h = clause->head;
            term(h.ref, 1);
            for (const auto& a : h.args) term(a, 1);
            term(h.key, 1);
            term(h.value, 1);
            body(&clause->body, 1);
            for (const auto& extra : clause->extra_bodies) body(&extra, 1);
        }
    }

    std::optional<Location> run() {
        while (!terms_.empty() || !bodies_.empty()) {
            if (!bodies_.empty()) {
                auto [b, depth] = bodies_.back();
                bodies_.pop_back();
                for (const auto& e : *b) expr(e, depth);
                continue;
            }
            auto [t, depth] = terms_.back();
            terms_.pop_back();
            if (depth > limit_) return t->loc;
            for (const auto& e : t->elems) term(e, depth + 1);
            for (const auto& [k, v] : t->items) {
                term(k, depth + 1);
                term(v, depth + 1);
            }
            term(t->key, depth + 1);
            term(t->value, depth + 1);
            body(t->body.get(), depth + 1);
        }
        return std::nullopt;
    }

private:
    struct PendingTerm {
        const Term* term;
        std::size_t depth;
    };
    struct PendingBody {
        const Body* body;
        std::size_t depth;
    };

    std::size_t limit_;
    std::vector<PendingTerm> terms_;
    std::vector<PendingBody> bodies_;

    // Expressions nest only through and/or operands and blocks, which need brackets.
    void expr(const Expr& e, std::size_t depth) {
        term(e.term, depth);
        for (const auto& v : e.some.vars) term(v, depth);
        term(e.some.in_call, depth);
        term(e.every.key, depth);
        term(e.every.value, depth);
        term(e.every.domain, depth);
        body(e.every.body.get(), depth + 1);
        for (const auto& c : e.children) expr(c, depth + 1);
        body(e.body.get(), depth + 1);
        for (const auto& w : e.withs) {
            term(w.target, depth);
            term(w.value, depth);
        }
    }
};

}  // namespace

std::optional<Location> find_too_deep(const Rule& rule, std::size_t limit) {
    DepthWalk walk(limit);
    walk.rule(rule);
    return walk.run();
}

std::optional<Location> find_too_deep(const Body& body, std::size_t limit) {
    DepthWalk walk(limit);
    walk.body(&body, 1);
    return walk.run();
}

std::optional<Location> find_too_deep(const TermPtr& term, std::size_t limit) {
    DepthWalk walk(limit);
    walk.term(term, 1);
    return walk.run();
}

}  // namespace gavel::lang
