// walk: every [path, value] pair of a document (see walk.hpp for why it is a
// relation rather than a function).

#include "stdlib/walk.hpp"

#include <vector>

namespace gavel::stdlib {

namespace {

using runtime::Value;

struct Walker {
    std::span<const std::optional<Value>> filter;
    bool paths_needed;
    const WalkEmit& emit;
    std::vector<Value> path;
    bool stopped = false;

    Value path_value() const {
        if (!paths_needed) return Value::null();
        runtime::ArrayBuilder b(path.size());
        for (const auto& p : path) b.push_back(p);
        return b.build();
    }

    void visit_child(const Value& key, const Value& child, std::size_t depth) {
        path.push_back(key);
        visit(child, depth + 1);
        path.pop_back();
    }

    void visit(const Value& v, std::size_t depth) {
        if (stopped) return;
        if (depth >= filter.size()) {
            if (!emit(Value::array({path_value(), v}))) {
                stopped = true;
                return;
            }
        } else if (filter[depth]) {
            // A ground path element: descend into that child only.
            const Value& key = *filter[depth];
            if (v.is_object()) {
                if (const Value* c = v.find(key)) visit_child(key, *c, depth);
            } else if (v.is_array()) {
                int64_t i;
                if (key.is_number() && key.as_int64(i) && i >= 0 && static_cast<std::size_t>(i) < v.size())
                    visit_child(key, v.array_elements()[static_cast<std::size_t>(i)], depth);
            } else if (v.is_set()) {
                if (v.contains(key)) visit_child(key, key, depth);
            }
            return;
        }
        if (v.is_array()) {
            const auto elems = v.array_elements();
            for (std::size_t i = 0; i < elems.size() && !stopped; ++i)
                visit_child(Value::integer(static_cast<int64_t>(i)), elems[i], depth);
        } else if (v.is_object()) {
            for (const auto& e : v.object_entries()) {
                if (stopped) break;
                visit_child(e.key, e.value, depth);
            }
        } else if (v.is_set()) {
            for (const auto& e : v.set_elements()) {
                if (stopped) break;
                visit_child(e, e, depth);
            }
        }
    }
};

}  // namespace

void walk_pairs(const Value& root, std::span<const std::optional<Value>> path_filter, bool paths_needed,
                const WalkEmit& emit) {
    Walker w{path_filter, paths_needed, emit, {}, false};
    w.visit(root, 0);
}

// Each pair is work (its path is built for it): a document whose values are
// shared many times over has far more pairs than nodes in memory.
BuiltinResult walk_relation(std::span<const Value> args, BuiltinContext& ctx, const WalkEmit& emit) {
    if (args.empty()) return BuiltinResult::undefined();
    bool stopped = false;
    walk_pairs(args[0], {}, true, [&](const Value& pair) {
        const std::size_t path_length = pair.array_elements().empty() ? 0 : pair.array_elements()[0].size();
        if (ctx.spend(2 + path_length)) {
            stopped = true;
            return false;
        }
        return emit(pair);
    });
    return stopped ? BuiltinResult::cancelled() : BuiltinResult::undefined();
}

void register_walk(Registry& r) {
    Builtin b;
    b.name = "walk";
    b.arity = 1;
    b.relation = walk_relation;
    r.add(std::move(b));
}

}  // namespace gavel::stdlib
