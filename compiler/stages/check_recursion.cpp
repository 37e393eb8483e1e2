// Stage: a rule that depends on itself, directly or through others, is an
// error (OPA's checkRecursion): "rule data.a.p is recursive: data.a.p ->
// data.a.q -> data.a.p". A rule depends on the rules every ref in it may
// name (a ref with a variable part may name a whole subtree) and the
// functions it calls; each clause of an else chain is a rule of its own.

#include <fmt/format.h>

#include <map>
#include <set>

#include "compiler/ast/term_string.hpp"
#include "compiler/ast/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::Term;
using lang::TermKind;

namespace {

using Graph = std::map<const lang::Rule*, std::vector<const lang::Rule*>>;

void add_dependencies(const CompileContext& ctx, const lang::Rule& clause, Graph& graph) {
    std::set<const lang::Rule*> seen;
    auto& edges = graph[&clause];
    auto visit = [&](const Term& t) {
        if (t.kind != TermKind::Ref) return false;
        for (lang::Rule* b : ctx.rules_dynamic(t, true))
            for (const lang::Rule* node = b; node; node = node->else_rule.get())
                if (seen.insert(node).second) edges.push_back(node);
        return false;
    };
    for (const auto& a : clause.head.args) walk_terms(*a, visit);
    for (const auto* t : {&clause.head.key, &clause.head.value})
        if (*t) walk_terms(**t, visit);
    walk_terms_in_body(clause.body, visit);
}

// A path from `from` back to itself, or empty (OPA's DFSPath).
std::vector<const lang::Rule*> cycle_through(const Graph& graph, const lang::Rule* from) {
    std::set<const lang::Rule*> visited;
    struct Frame {
        const lang::Rule* node;
        std::size_t next = 0;
    };
    std::vector<Frame> stack{{from}};
    visited.insert(from);
    while (!stack.empty()) {
        Frame& f = stack.back();
        auto it = graph.find(f.node);
        const auto* edges = it == graph.end() ? nullptr : &it->second;
        if (!edges || f.next >= edges->size()) {
            stack.pop_back();
            continue;
        }
        const lang::Rule* v = (*edges)[f.next++];
        if (v == from) {
            std::vector<const lang::Rule*> path;
            for (const auto& fr : stack) path.push_back(fr.node);
            path.push_back(from);
            return path;
        }
        if (visited.insert(v).second) stack.push_back({v});
    }
    return {};
}

}  // namespace

void check_recursion(CompileContext& ctx) {
    Graph graph;
    for (const lang::Module* m : ctx.modules)
        for_each_rule(*m, [&](const lang::Rule& r) { add_dependencies(ctx, r, graph); });
    auto name = [&](const lang::Rule* r) { return to_string(*rule_full_ref(*ctx.module_of.at(r), *r)); };
    std::vector<lang::Rule*> all;
    if (ctx.rule_tree) collect_rules(*ctx.rule_tree, true, all);
    for (const lang::Rule* rule : all) {
        for (const lang::Rule* clause = rule; clause; clause = clause->else_rule.get()) {
            auto path = cycle_through(graph, clause);
            if (path.empty()) continue;
            std::string chain;
            for (std::size_t i = 0; i < path.size(); ++i) chain += (i ? " -> " : "") + name(path[i]);
            if (!ctx.error(clause->loc, lang::codes::recursion_error,
                           fmt::format("rule {} is recursive: {}", name(clause), chain)))
                return;
        }
    }
    ctx.rule_graph = std::move(graph);  // for check_types' order
}

}  // namespace gavel::compiler
