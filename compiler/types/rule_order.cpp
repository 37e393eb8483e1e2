#include "compiler/types/rule_order.hpp"

#include <unordered_set>

#include "lang/walk.hpp"

namespace gavel::compiler::types {

std::vector<const lang::Rule*> rules_in_dependency_order(const CompileContext& ctx) {
    static const std::vector<const lang::Rule*> kNone;
    auto dependencies = [&](const lang::Rule* r) -> const std::vector<const lang::Rule*>& {
        auto it = ctx.rule_graph.find(r);
        return it == ctx.rule_graph.end() ? kNone : it->second;
    };
    std::vector<const lang::Rule*> order;
    std::unordered_set<const lang::Rule*> done, on_path;
    struct Frame {
        const lang::Rule* rule;
        std::size_t next = 0;
    };
    // Depth first from each rule in module order: a rule comes out once all it depends on has.
    auto visit = [&](const lang::Rule* start) {
        if (done.count(start)) return;
        std::vector<Frame> stack{{start}};
        on_path.insert(start);
        while (!stack.empty()) {
            Frame& f = stack.back();
            const auto& ds = dependencies(f.rule);
            if (f.next < ds.size()) {
                const lang::Rule* d = ds[f.next++];
                if (done.count(d) || on_path.count(d)) continue;
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
    for (const lang::Module* m : ctx.modules) lang::for_each_rule(*m, [&](const lang::Rule& r) { visit(&r); });
    return order;
}

}  // namespace gavel::compiler::types
