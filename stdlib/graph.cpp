// graph.reachable, graph.reachable_paths. A graph is an object from node to
// its neighbours (an array or a set); nodes absent from the graph have no
// edges and are not reached.

#include <deque>
#include <unordered_set>

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

namespace {

std::span<const Value> vertices(const Value& v) {
    if (v.is_array()) return v.array_elements();
    if (v.is_set()) return v.set_elements();
    return {};
}

std::optional<BuiltinResult> check_operands(Args a) {
    if (!a[0].is_object()) return type_error(1, "object", a[0]);
    if (!a[1].is_array() && !a[1].is_set()) return type_error(2, "{array, set}", a[1]);
    return std::nullopt;
}

// Path enumeration is exponential on dense graphs; this bounds the work.
constexpr std::size_t kMaxPathSteps = 10'000'000;

struct PathSearch {
    const Value& graph;
    runtime::SetBuilder results;
    std::size_t steps = 0;
    bool exhausted = false;

    // Extends `path` by `node` and records every maximal simple path from there.
    void extend(const Value& node, std::vector<Value>& path, std::unordered_set<Value>& on_path) {
        if (++steps > kMaxPathSteps) {
            exhausted = true;
            return;
        }
        const Value* edges = graph.find(node);
        if (!edges) {  // not in the graph: the path ends before it
            results.insert(as_array(path));
            return;
        }
        path.push_back(node);
        auto next = vertices(*edges);
        if (next.empty()) {
            results.insert(as_array(path));
        } else {
            bool inserted = on_path.insert(node).second;
            for (const auto& n : next) {
                if (exhausted) break;
                if (on_path.count(n)) results.insert(as_array(path));  // a cycle ends the path
                else extend(n, path, on_path);
            }
            if (inserted) on_path.erase(node);
        }
        path.pop_back();
    }

    static Value as_array(const std::vector<Value>& path) {
        runtime::ArrayBuilder b(path.size());
        for (const auto& v : path) b.push_back(v);
        return b.build();
    }
};

}  // namespace

void register_graph(Registry& r) {
    declare(r, "graph.reachable", 2, [](Args a, BuiltinContext&) {
        if (auto err = check_operands(a)) return *err;
        const Value& graph = a[0];
        std::deque<Value> queue(vertices(a[1]).begin(), vertices(a[1]).end());
        std::unordered_set<Value> reached;
        while (!queue.empty()) {
            Value node = std::move(queue.front());
            queue.pop_front();
            if (reached.count(node)) continue;
            const Value* edges = graph.find(node);
            if (!edges) continue;
            reached.insert(node);
            for (const auto& n : vertices(*edges))
                if (!reached.count(n)) queue.push_back(n);
        }
        runtime::SetBuilder b(reached.size());
        for (const auto& v : reached) b.insert(v);
        return BuiltinResult::of(b.build());
    });
    declare(r, "graph.reachable_paths", 2, [](Args a, BuiltinContext&) {
        if (auto err = check_operands(a)) return *err;
        PathSearch search{a[0], {}, 0, false};
        for (const auto& root : vertices(a[1])) {
            const Value* edges = a[0].find(root);
            if (!edges) continue;
            auto next = vertices(*edges);
            if (next.empty()) {
                search.results.insert(Value::array({root}));
                continue;
            }
            for (const auto& n : next) {
                std::vector<Value> path{root};
                std::unordered_set<Value> on_path{root};
                search.extend(n, path, on_path);
            }
        }
        if (search.exhausted) return BuiltinResult::error("too many paths in graph");
        return BuiltinResult::of(search.results.build());
    });
}

}  // namespace gavel::stdlib
