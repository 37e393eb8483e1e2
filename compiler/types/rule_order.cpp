#include "compiler/types/rule_order.hpp"

#include <map>
#include <set>

#include "compiler/ast/walk.hpp"

namespace gavel::compiler::types {

namespace {

// The rules a clause refers to (the rules any of its refs may name, their else clauses too).
std::vector<const lang::Rule*> dependencies(const CompileContext& ctx, const lang::Rule& clause) {
    std::vector<const lang::Rule*> out;
    std::set<const lang::Rule*> seen;
    auto visit = [&](const lang::Term& t) {
        if (t.kind != lang::TermKind::Ref) return false;
        for (lang::Rule* r : ctx.rules_dynamic(t, true))
            for (const lang::Rule* c = r; c; c = c->else_rule.get())
                if (seen.insert(c).second) out.push_back(c);
        return false;
    };
    for (const auto& a : clause.head.args) walk_terms(*a, visit);
    for (const auto* t : {&clause.head.key, &clause.head.value})
        if (*t) walk_terms(**t, visit);
    walk_terms_in_body(clause.body, visit);
    return out;
}

}  // namespace

std::vector<const lang::Rule*> rules_in_dependency_order(const CompileContext& ctx) {
    std::vector<const lang::Rule*> order;
    std::map<const lang::Rule*, std::vector<const lang::Rule*>> deps;
    std::set<const lang::Rule*> done;
    struct Frame {
        const lang::Rule* rule;
        std::size_t next = 0;
    };
    auto visit = [&](const lang::Rule* start) {
        if (done.count(start)) return;
        std::set<const lang::Rule*> on_path{start};
        std::vector<Frame> stack{{start}};
        deps.emplace(start, dependencies(ctx, *start));
        while (!stack.empty()) {
            Frame& f = stack.back();
            const auto& ds = deps[f.rule];
            if (f.next < ds.size()) {
                const lang::Rule* d = ds[f.next++];
                if (done.count(d) || on_path.count(d)) continue;
                deps.emplace(d, dependencies(ctx, *d));
                on_path.insert(d);
                stack.push_back({d});
                continue;
            }
            done.insert(f.rule);
            on_path.erase(f.rule);
            order.push_back(f.rule);
            stack.pop_back();
        }
    };
    for (const lang::Module* m : ctx.modules) for_each_rule(*m, [&](const lang::Rule& r) { visit(&r); });
    return order;
}

}  // namespace gavel::compiler::types
