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

// Every maximal simple path from a root. Their number is exponential on dense
// graphs: as OPA's, there is no limit but the evaluation's deadline and memory
// limit, asked as the search goes (each step and each element of a recorded
// path is a unit of work). The search keeps its own stack, so a long chain
// cannot exhaust the thread's.
class PathSearch {
public:
    PathSearch(const Value& graph, BuiltinContext& ctx) : graph_(graph), ctx_(ctx) {}

    // Records every maximal simple path that starts with `root` and continues
    // to `next`. False when the evaluation must stop.
    bool from(const Value& root, const Value& next) {
        path_.assign({root});
        on_path_.clear();
        on_path_.insert(root);
        frames_.clear();
        if (!enter(next)) return false;
        while (!frames_.empty()) {
            Frame& f = frames_.back();
            if (f.next == f.edges.size()) {  // every neighbour done: step back
                if (f.inserted) on_path_.erase(path_.back());
                path_.pop_back();
                frames_.pop_back();
                continue;
            }
            const Value& n = f.edges[f.next++];
            if (on_path_.count(n) ? !record() : !enter(n)) return false;  // a cycle ends the path
        }
        return true;
    }

    // A root without neighbours is a path of its own.
    void lone(const Value& root) { results_.insert(Value::array({root})); }

    // The paths found, as a set; nullopt when the evaluation must stop.
    std::optional<Value> results() { return results_.build(ctx_); }

private:
    struct Frame {
        std::span<const Value> edges;
        std::size_t next = 0;   // the neighbour to visit next
        bool inserted = false;  // whether this node went onto on_path_ here (a root met again does not)
    };

    // Extends the path by `node`: records it when it ends there, else pushes a frame.
    bool enter(const Value& node) {
        if (ctx_.spend()) return false;
        const Value* edges = graph_.find(node);
        if (!edges) return record();  // not in the graph: the path ends before it
        auto next = vertices(*edges);
        path_.push_back(node);
        if (next.empty()) {
            bool ok = record();
            path_.pop_back();
            return ok;
        }
        frames_.push_back({next, 0, on_path_.insert(node).second});
        return true;
    }

    bool record() {
        const std::size_t bytes = path_.size() * sizeof(Value) + 64;
        if (ctx_.spend(path_.size()) || !ctx_.affords(bytes)) return false;
        runtime::ArrayBuilder b(path_.size());
        for (const auto& v : path_) b.push_back(v);
        return results_.insert(b.build(), ctx_);
    }

    const Value& graph_;
    BuiltinContext& ctx_;
    runtime::SetBuilder results_;
    std::vector<Value> path_;
    std::unordered_set<Value> on_path_;
    std::vector<Frame> frames_;
};

}  // namespace

void register_graph(Registry& r) {
    declare(r, "graph.reachable", 2, [](Args a, BuiltinContext& ctx) {
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
            if (ctx.spend(1 + edges->size())) return BuiltinResult::cancelled();
            for (const auto& n : vertices(*edges))
                if (!reached.count(n)) queue.push_back(n);
        }
        runtime::SetBuilder b(reached.size());
        for (const auto& v : reached) b.insert(v);
        return BuiltinResult::of(b.build());
    });
    declare(r, "graph.reachable_paths", 2, [](Args a, BuiltinContext& ctx) {
        if (auto err = check_operands(a)) return *err;
        PathSearch search(a[0], ctx);
        for (const auto& root : vertices(a[1])) {
            const Value* edges = a[0].find(root);
            if (!edges) continue;
            auto next = vertices(*edges);
            if (next.empty()) search.lone(root);
            for (const auto& n : next)
                if (!search.from(root, n)) return BuiltinResult::cancelled();
        }
        auto paths = search.results();
        if (!paths) return BuiltinResult::cancelled();
        return BuiltinResult::of(std::move(*paths));
    });
}

}  // namespace gavel::stdlib
