#pragma once
// walk(x, [path, value]): a relation, not a function. OPA's walk emits one
// result per node of x (x itself first with path [], then each child in
// canonical order, depth first), so a call yields many values. It is
// registered as a relation (Builtin::relation): the evaluator unifies the
// output with each emitted [path, value] pair, stopping early when `emit`
// returns false.

#include <functional>
#include <optional>
#include <span>

#include "stdlib/registry.hpp"

namespace gavel::stdlib {

using WalkEmit = std::function<bool(const runtime::Value& pair)>;

// Emits [path, value] for every node of `root`. `path_filter` (optional) is
// OPA's speed-up for `walk(x, [["a", k, "b"], v])`: one entry per element of
// the output path pattern, the value when that element is ground, nullopt
// when it is a variable; only paths at least that long whose ground elements
// match are emitted. With `paths_needed` false (the pattern is `[_, v]`) the
// path element of each pair is null instead of being built.
void walk_pairs(const runtime::Value& root, std::span<const std::optional<runtime::Value>> path_filter,
                bool paths_needed, const WalkEmit& emit);

// The builtin-shaped entry point: args[0] is x; type errors never occur
// (any value can be walked).
BuiltinResult walk_relation(std::span<const runtime::Value> args, BuiltinContext& ctx, const WalkEmit& emit);

}  // namespace gavel::stdlib
