#include "runtime/eval/shared_prefix.hpp"

#include <algorithm>
#include <unordered_map>

#include "runtime/hash.hpp"
#include "runtime/json.hpp"

namespace gavel::eval {

namespace {

// Terms nested deeper than this are never taken as equal (the comparison recurses).
constexpr std::size_t kMaxDepth = 64;

// Slots of one clause paired with slots of another, one to one.
struct SlotPairing {
    std::unordered_map<uint32_t, uint32_t> forward, backward;
    bool pair(uint32_t a, uint32_t b) {
        auto [f, fresh_f] = forward.emplace(a, b);
        auto [r, fresh_r] = backward.emplace(b, a);
        return f->second == b && r->second == a;
    }
};

// Constants alike down to their spelling (`1` and `1.0` are equal values, written apart).
bool same_constant(const Value& a, const Value& b) {
    return a.kind() == b.kind() && a == b && runtime::to_json(a) == runtime::to_json(b);
}

bool same_body(const PBody& a, const PBody& b, SlotPairing& slots, std::size_t depth);
bool same_expr(const PExpr& a, const PExpr& b, SlotPairing& slots, std::size_t depth);

bool same_callee(const std::shared_ptr<const Callee>& a, const std::shared_ptr<const Callee>& b) {
    if (!a || !b) return a == b;
    return a->name == b->name && a->builtin == b->builtin && a->function == b->function;
}

bool same_term(const PTerm& a, const PTerm& b, SlotPairing& slots, std::size_t depth) {
    if (depth > kMaxDepth || a.op != b.op || a.elems.size() != b.elems.size() || a.items.size() != b.items.size() ||
        a.data_prefix != b.data_prefix || a.data_prefix_length != b.data_prefix_length || !a.body != !b.body)
        return false;
    if (a.op == TermOp::Const && !same_constant(a.value, b.value)) return false;
    if (a.op == TermOp::Local && !slots.pair(a.slot, b.slot)) return false;
    if (!same_callee(a.callee, b.callee)) return false;
    for (std::size_t i = 0; i < a.elems.size(); ++i)
        if (!same_term(a.elems[i], b.elems[i], slots, depth + 1)) return false;
    for (std::size_t i = 0; i < a.items.size(); ++i)
        if (!same_term(a.items[i].first, b.items[i].first, slots, depth + 1) ||
            !same_term(a.items[i].second, b.items[i].second, slots, depth + 1))
            return false;
    return !a.body || same_body(*a.body, *b.body, slots, depth + 1);
}

bool same_body(const PBody& a, const PBody& b, SlotPairing& slots, std::size_t depth) {
    if (a.exprs.size() != b.exprs.size()) return false;
    for (std::size_t i = 0; i < a.exprs.size(); ++i)
        if (!same_expr(a.exprs[i], b.exprs[i], slots, depth)) return false;
    return true;
}

bool same_expr(const PExpr& a, const PExpr& b, SlotPairing& slots, std::size_t depth) {
    if (depth > kMaxDepth || a.op != b.op || !a.withs.empty() || !b.withs.empty() || a.result_slot != b.result_slot ||
        !a.iteration != !b.iteration || !a.body != !b.body || a.alternatives.size() != b.alternatives.size())
        return false;
    if (!same_term(a.a, b.a, slots, depth + 1) || !same_term(a.b, b.b, slots, depth + 1)) return false;
    if (a.iteration) {
        const PIteration& x = *a.iteration;
        const PIteration& y = *b.iteration;
        if (x.key_present != y.key_present || !same_term(x.key, y.key, slots, depth + 1) ||
            !same_term(x.value, y.value, slots, depth + 1) || !same_term(x.domain, y.domain, slots, depth + 1))
            return false;
    }
    if (a.body && !same_body(*a.body, *b.body, slots, depth + 1)) return false;
    for (std::size_t i = 0; i < a.alternatives.size(); ++i)
        if (!same_body(*a.alternatives[i], *b.alternatives[i], slots, depth + 1)) return false;
    return true;
}

// How many leading literals two clauses share, and the pairing of their slots there.
std::size_t shared_length(const PRule& a, const PRule& b, Repeatable& repeatable, SlotPairing& slots,
                          std::size_t at_most) {
    const auto& x = a.body.exprs;
    const auto& y = b.body.exprs;
    std::size_t n = 0;
    while (n < at_most && n < x.size() && n < y.size() && repeatable.expr(x[n], 0) && same_expr(x[n], y[n], slots, 0))
        ++n;
    return n;
}

// The slots a clause's literals [0, length) name, each once, in the order met.
void collect_slots(const PTerm& t, std::vector<uint32_t>& out);
void collect_slots(const PBody& body, std::size_t length, std::vector<uint32_t>& out);

bool collect_parts(const auto& part, std::vector<uint32_t>& out) {
    return each_part(
        part,
        [&](const PTerm& t) {
            collect_slots(t, out);
            return true;
        },
        [&](const PBody& b) {
            collect_slots(b, b.exprs.size(), out);
            return true;
        });
}

void collect_slots(const PBody& body, std::size_t length, std::vector<uint32_t>& out) {
    for (std::size_t i = 0; i < length && i < body.exprs.size(); ++i) collect_parts(body.exprs[i], out);
}

void collect_slots(const PTerm& t, std::vector<uint32_t>& out) {
    if (t.op == TermOp::Local && std::find(out.begin(), out.end(), t.slot) == out.end()) out.push_back(t.slot);
    collect_parts(t, out);
}

// A fingerprint of a literal's shape down to a few levels, variables left out, so only
// clauses whose first literals may be alike are compared (a set can have thousands of
// clauses); and no more than kMaxCompared groups of one fingerprint are compared.
constexpr std::size_t kShapeDepth = 6;
constexpr std::size_t kMaxCompared = 16;

std::uint64_t shape(const PTerm& t, std::size_t depth) {
    std::uint64_t h = runtime::hash_mix(static_cast<std::uint64_t>(t.op) + 1);
    h = runtime::hash_combine(h, t.elems.size() + 31 * t.items.size());
    if (t.op == TermOp::Const) h = runtime::hash_combine(h, t.value.hash());
    if (t.callee) h = runtime::hash_combine(h, std::hash<std::string>{}(t.callee->name));
    if (depth < kShapeDepth) {
        for (const PTerm& e : t.elems) h = runtime::hash_combine(h, shape(e, depth + 1));
        for (const PTermPair& item : t.items) {
            h = runtime::hash_combine(h, shape(item.first, depth + 1));
            h = runtime::hash_combine(h, shape(item.second, depth + 1));
        }
    }
    return h;
}

std::uint64_t shape(const PExpr& e) {
    std::uint64_t h = runtime::hash_combine(static_cast<std::uint64_t>(e.op), shape(e.a, 0));
    h = runtime::hash_combine(h, shape(e.b, 0));
    if (e.iteration) h = runtime::hash_combine(h, shape(e.iteration->domain, 0));
    return h;
}

}  // namespace

void find_shared_prefixes(RuleSet& set, Repeatable& repeatable) {
    set.shared_prefixes.clear();
    if (set.kind != RuleKind::PartialSet && set.kind != RuleKind::PartialObject) return;
    struct Group {
        std::size_t length = 0;  // 0 while the leader is alone
        std::vector<std::size_t> members;
    };
    std::vector<Group> groups;
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> groups_by_shape;  // of the leader's first literal
    for (std::size_t i = 0; i < set.rules.size(); ++i) {
        PRule& rule = *set.rules[i];
        rule.shared_prefix = -1;
        // An else chain's clauses are tried in turn: its first clause's solutions decide more than its own body.
        if (rule.else_rule || rule.body.exprs.empty() || !repeatable.expr(rule.body.exprs[0], 0)) continue;
        auto& candidates = groups_by_shape[shape(rule.body.exprs[0])];
        std::size_t best = groups.size(), best_length = 0;
        const std::size_t first = candidates.size() > kMaxCompared ? candidates.size() - kMaxCompared : 0;
        for (std::size_t c = first; c < candidates.size(); ++c) {
            const Group& group = groups[candidates[c]];
            const std::size_t g = candidates[c];
            SlotPairing slots;
            std::size_t at_most = group.length ? group.length : SIZE_MAX;
            std::size_t n = shared_length(*set.rules[group.members[0]], rule, repeatable, slots, at_most);
            // A group keeps its length: a clause sharing fewer literals does not join it.
            if (n == 0 || (group.length && n < group.length)) continue;
            if (n > best_length) best = g, best_length = n;
        }
        if (best < groups.size()) {
            groups[best].length = best_length;
            groups[best].members.push_back(i);
            continue;
        }
        candidates.push_back(groups.size());
        groups.push_back({0, {i}});
    }
    for (const Group& group : groups) {
        if (group.members.size() < 2) continue;
        const PRule& leader = *set.rules[group.members[0]];
        SharedPrefix shared;
        shared.length = static_cast<uint32_t>(group.length);
        std::vector<uint32_t> leader_slots;
        collect_slots(leader.body, group.length, leader_slots);
        for (std::size_t member = 0; member < group.members.size(); ++member) {
            PRule& rule = *set.rules[group.members[member]];
            SlotPairing pairing;
            shared_length(leader, rule, repeatable, pairing, group.length);
            std::vector<uint32_t> slots;
            for (uint32_t s : leader_slots) slots.push_back(pairing.forward.at(s));
            shared.slots.push_back(std::move(slots));
            rule.shared_prefix = static_cast<int32_t>(set.shared_prefixes.size());
            rule.shared_prefix_member = static_cast<uint32_t>(member);
        }
        set.shared_prefixes.push_back(std::move(shared));
    }
}

}  // namespace gavel::eval
