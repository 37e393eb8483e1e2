// Stage: a rule that depends on itself, directly or through others, is an
// error (OPA's checkRecursion): "rule data.a.p is recursive: data.a.p ->
// data.a.q -> data.a.p". A rule depends on the rules every ref in it may
// name (a ref with a variable part may name a whole subtree) and the
// functions it calls; each clause of an else chain is a rule of its own.

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "lang/term_string.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::Term;
using lang::TermKind;

namespace {

using Graph = std::map<const lang::Rule*, std::vector<const lang::Rule*>>;

void add_dependencies(const CompileContext& ctx, const lang::Rule& clause, Graph& graph) {
    std::set<const lang::Rule*> seen;
    auto& edges = graph[&clause];
    // `data` alone is the whole document (OPA resolves the variable to the ref `data`); the
    // `data` that heads a ref is that ref's.
    static const lang::TermPtr whole_data = lang::make_ref({lang::make_var("data", {})}, {});
    std::set<const Term*> ref_heads;
    auto visit = [&](const Term& t) {
        if (t.kind == TermKind::Ref && !t.elems.empty()) ref_heads.insert(t.elems.front().get());
        bool root = t.kind == TermKind::Var && t.text == "data" && !ref_heads.count(&t);
        if (t.kind != TermKind::Ref && !root) return false;
        for (lang::Rule* b : ctx.rules_dynamic(root ? *whole_data : t, true))
            for (const lang::Rule* node = b; node; node = node->else_rule.get())
                if (seen.insert(node).second) edges.push_back(node);
        return false;
    };
    for (const auto& a : clause.head.args) walk_terms(*a, visit);
    // The parts of a ref head after its name (`f[data] := true`): terms of the rule too.
    if (clause.head.ref && clause.head.ref->kind == TermKind::Ref)
        for (std::size_t i = 1; i < clause.head.ref->elems.size(); ++i) walk_terms(*clause.head.ref->elems[i], visit);
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

// The clauses that lie on a cycle: those in a strongly connected component of
// more than one, or with an edge to themselves (Tarjan's algorithm, without
// recursion). Only these need the search for a path back to themselves, which
// from every clause of a long chain of rules would take quadratic time.
std::set<const lang::Rule*> clauses_on_cycles(const Graph& graph) {
    struct Mark {
        std::size_t index = 0, low = 0;
        bool on_stack = false;
    };
    std::map<const lang::Rule*, Mark> marks;
    std::vector<const lang::Rule*> component_stack;
    std::set<const lang::Rule*> cyclic;
    std::size_t counter = 0;
    struct Frame {
        const lang::Rule* node;
        std::size_t next = 0;
    };
    auto edges_of = [&](const lang::Rule* r) -> const std::vector<const lang::Rule*>* {
        auto it = graph.find(r);
        return it == graph.end() ? nullptr : &it->second;
    };
    auto open = [&](const lang::Rule* r, std::vector<Frame>& stack) {
        marks[r] = Mark{counter, counter, true};
        ++counter;
        component_stack.push_back(r);
        stack.push_back({r});
    };
    for (const auto& [root, unused] : graph) {
        if (marks.count(root)) continue;
        std::vector<Frame> stack;
        open(root, stack);
        while (!stack.empty()) {
            Frame& f = stack.back();
            const auto* edges = edges_of(f.node);
            if (edges && f.next < edges->size()) {
                const lang::Rule* v = (*edges)[f.next++];
                auto it = marks.find(v);
                if (it == marks.end()) {
                    open(v, stack);
                } else if (it->second.on_stack) {
                    Mark& m = marks[f.node];
                    m.low = std::min(m.low, it->second.index);
                }
                continue;
            }
            const lang::Rule* node = f.node;
            stack.pop_back();
            Mark& m = marks[node];
            if (!stack.empty()) {
                Mark& parent = marks[stack.back().node];
                parent.low = std::min(parent.low, m.low);
            }
            if (m.low != m.index) continue;
            // `node` is the root of a component: pop it.
            std::vector<const lang::Rule*> component;
            const lang::Rule* popped = nullptr;
            while (popped != node) {
                popped = component_stack.back();
                component_stack.pop_back();
                marks[popped].on_stack = false;
                component.push_back(popped);
            }
            bool self_loop = false;
            if (const auto* own = edges_of(node)) self_loop = std::find(own->begin(), own->end(), node) != own->end();
            if (component.size() > 1 || self_loop) cyclic.insert(component.begin(), component.end());
        }
    }
    return cyclic;
}

}  // namespace

void check_recursion(CompileContext& ctx) {
    Graph graph;
    for (const lang::Module* m : ctx.modules)
        for_each_rule(*m, [&](const lang::Rule& r) { add_dependencies(ctx, r, graph); });
    auto name = [&](const lang::Rule* r) { return to_string(*rule_full_ref(*ctx.module_of.at(r), *r)); };
    std::vector<lang::Rule*> all;
    if (ctx.rule_tree) collect_rules(*ctx.rule_tree, true, all);
    const std::set<const lang::Rule*> cyclic = clauses_on_cycles(graph);
    for (const lang::Rule* rule : all) {
        for (const lang::Rule* clause = rule; clause; clause = clause->else_rule.get()) {
            if (!cyclic.count(clause)) continue;
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
