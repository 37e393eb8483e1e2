#include "engine/partial/rule_index.hpp"

#include <algorithm>
#include <map>

#include "support/split_escaped.hpp"

namespace gavel::partial {

namespace {

// A ref a rule tests and the value it tests it against (OPA's refindex).
struct RefIndex {
    TermPtr ref;
    TermPtr value;          // a scalar, a var, or an array of those
    std::string delimiter;  // glob.match: the value is a pattern split by these characters
    bool glob = false;
};

// OPA's indexValue: scalars, vars, and arrays of those.
TermPtr index_value(const TermPtr& b) {
    switch (b->kind) {
        case TermKind::Null:
        case TermKind::Boolean:
        case TermKind::Number:
        case TermKind::String:
        case TermKind::Var: return b;
        case TermKind::Array:
            for (const auto& e : b->elems)
                if (!is_scalar(*e) && e->kind != TermKind::Var) return nullptr;
            return b;
        default: return nullptr;
    }
}

int compare_locations(const lang::Location& a, const lang::Location& b) {
    // OPA's Location.Compare: no location (a generated term, `args`) sorts last.
    if (!a.source || !b.source) return !a.source && !b.source ? 0 : !a.source ? 1 : -1;
    std::string_view fa = a.file(), fb = b.file();
    if (fa != fb) return fa < fb ? -1 : 1;
    if (a.line != b.line) return a.line < b.line ? -1 : 1;
    if (a.col != b.col) return a.col < b.col ? -1 : 1;
    return 0;
}

class RefIndices {
public:
    explicit RefIndices(const std::function<bool(const Term&)>& is_virtual) : is_virtual_(is_virtual) {}

    void update(const Rule* rule, const lang::Expr& e) {
        if (e.negated || !e.withs.empty() || !is_call(e)) return;
        std::string op = operator_name(e);
        std::size_t n = operand_count(e);
        if (op == "eq" || (op == "equal" && n == 2)) {
            update_eq(rule, e);
        } else if (op == "glob.match" && n == 3) {
            update_glob(rule, e);
        }
    }

    // The refs by how many rules test them (most first), then by where they are written.
    const std::vector<TermPtr>& sorted() {
        if (!sorted_done_) {
            std::vector<std::size_t> order(refs_.size());
            for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                if (counts_[a] != counts_[b]) return counts_[a] > counts_[b];
                return compare_locations(refs_[a]->elems[0]->loc, refs_[b]->elems[0]->loc) < 0;
            });
            for (std::size_t i : order) sorted_.push_back(refs_[i]);
            sorted_done_ = true;
        }
        return sorted_;
    }

    bool indexed(const Rule* rule) const {
        auto it = rules_.find(rule);
        return it != rules_.end() && !it->second.empty();
    }

    const RefIndex* find(const Rule* rule, const Term& ref) const {
        auto it = rules_.find(rule);
        if (it == rules_.end()) return nullptr;
        for (const auto& idx : it->second)
            if (equal(*idx.ref, ref)) return &idx;
        return nullptr;
    }

private:
    void update_eq(const Rule* rule, const lang::Expr& e) {
        const TermPtr& a = operand(e, 0);
        const TermPtr& b = operand(e, 1);
        if (auto idx = to_index(rule, a, b)) {
            insert(rule, std::move(*idx));
            return;
        }
        if (auto idx = to_index(rule, b, a)) insert(rule, std::move(*idx));
    }

    std::optional<RefIndex> to_index(const Rule* rule, const TermPtr& a, const TermPtr& b) const {
        if (a->kind == TermKind::Var) {
            for (std::size_t i = 0; i < rule->args.size(); ++i) {
                if (rule->args[i]->kind == TermKind::Var && rule->args[i]->text == a->text) {
                    if (auto v = index_value(b)) return RefIndex{args_ref(i), v, {}, false};
                }
            }
            return std::nullopt;
        }
        if (a->kind == TermKind::Ref) {
            if (a->elems.empty() || !is_root_document(*a->elems[0])) return std::nullopt;
            if (is_virtual_(*a)) return std::nullopt;
            if (ref_is_nested(*a) || !is_ground(*a)) return std::nullopt;
            if (auto v = index_value(b)) return RefIndex{a, v, {}, false};
        }
        return std::nullopt;
    }

    static TermPtr args_ref(std::size_t i) { return make_ref({make_var("args"), make_int(static_cast<int64_t>(i))}); }

    void update_glob(const Rule* rule, const lang::Expr& e) {
        const TermPtr& delim_term = operand(e, 1);
        if (delim_term->kind != TermKind::Array) return;
        std::string delim;
        if (delim_term->elems.empty()) {
            delim = ".";
        } else {
            for (const auto& d : delim_term->elems) {
                if (d->kind != TermKind::String) return;
                delim += d->text;
            }
        }
        const TermPtr& pattern = operand(e, 0);
        if (pattern->kind != TermKind::String) return;
        std::vector<TermPtr> parts;
        for (const auto& part : support::split_escaped(pattern->text, delim)) {
            if (part == "*") {
                parts.push_back(make_var("$globwildcard"));
                continue;
            }
            if (support::has_glob_metachar(part)) return;  // not indexed
            parts.push_back(make_string(part));
        }
        const TermPtr& match = operand(e, 2);
        if (match->kind != TermKind::Var) return;
        TermPtr ref;
        if (auto it = rules_.find(rule); it != rules_.end())
            for (const auto& other : it->second)
                if (other.value->kind == TermKind::Var && other.value->text == match->text) ref = other.ref;
        if (!ref)
            for (std::size_t j = 0; j < rule->args.size(); ++j)
                if (equal(*rule->args[j], *match)) ref = args_ref(j);
        if (!ref) return;
        insert(rule, RefIndex{ref, make_array(std::move(parts)), delim, true});
    }

    void insert(const Rule* rule, RefIndex idx) {
        bool counted = false;
        for (std::size_t i = 0; i < refs_.size(); ++i) {
            if (equal(*refs_[i], *idx.ref)) {
                ++counts_[i];
                counted = true;
                break;
            }
        }
        if (!counted) {
            refs_.push_back(idx.ref);
            counts_.push_back(1);
        }
        auto& list = rules_[rule];
        for (auto& other : list) {
            if (equal(*other.ref, *idx.ref)) {
                other = std::move(idx);
                return;
            }
        }
        list.push_back(std::move(idx));
    }

    const std::function<bool(const Term&)>& is_virtual_;
    std::map<const Rule*, std::vector<RefIndex>> rules_;
    std::vector<TermPtr> refs_;
    std::vector<int> counts_;
    std::vector<TermPtr> sorted_;
    bool sorted_done_ = false;
};

}  // namespace

struct RuleIndex::Mapper {
    std::string delimiter;
    TermPtr map(const TermPtr& v) const {
        if (v->kind != TermKind::String) return v;
        std::vector<TermPtr> parts;
        for (auto& s : support::split_escaped(v->text, delimiter)) parts.push_back(make_string(std::move(s)));
        return make_array(std::move(parts));
    }
};

struct RuleIndex::Node {
    TermPtr ref;
    std::vector<Mapper> mappers;
    std::unique_ptr<Node> next, any, undefined, array;
    std::vector<std::pair<TermPtr, std::unique_ptr<Node>>> scalars;
    struct RuleEntry {
        int order;     // the rule's position among the indexed rules
        int priority;  // its clause's position in its else chain
        const Rule* rule;
    };
    std::vector<RuleEntry> rules;

    Node* scalar_child(const TermPtr& v, bool create) {
        for (auto& [k, child] : scalars)
            if (equal(*k, *v)) return child.get();
        if (!create) return nullptr;
        scalars.emplace_back(v, std::make_unique<Node>());
        return scalars.back().second.get();
    }

    static Node* ensure(std::unique_ptr<Node>& n) {
        if (!n) n = std::make_unique<Node>();
        return n.get();
    }

    Node* insert(const TermPtr& r, const TermPtr& value, const RefIndex* idx) {
        if (!next) {
            next = std::make_unique<Node>();
            next->ref = r;
        }
        if (idx && idx->glob) {
            bool known = false;
            for (const auto& m : next->mappers) known = known || m.delimiter == idx->delimiter;
            if (!known) next->mappers.push_back(Mapper{idx->delimiter});
        }
        return next->insert_value(value);
    }

    Node* insert_value(const TermPtr& value) {
        if (!value) return ensure(undefined);
        if (value->kind == TermKind::Var) return ensure(any);
        if (value->kind == TermKind::Array) return ensure(array)->insert_array(value->elems, 0);
        return scalar_child(value, true);
    }

    Node* insert_array(const std::vector<TermPtr>& elems, std::size_t i) {
        if (i == elems.size()) return this;
        if (elems[i]->kind == TermKind::Var) return ensure(any)->insert_array(elems, i + 1);
        return scalar_child(elems[i], true)->insert_array(elems, i + 1);
    }
};

struct RuleIndex::Traversal {
    std::vector<int> ordering;
    std::map<int, std::vector<std::pair<int, const Rule*>>> unordered;
};

RuleIndex::RuleIndex(const std::vector<const Rule*>& rules, const std::function<bool(const Term& ref)>& is_virtual)
    : root_(std::make_unique<Node>()) {
    if (rules.empty()) return;
    multi_value_ = rules[0]->multi_value();
    RefIndices indices(is_virtual);
    for (const Rule* first : rules) {
        for (const Rule* r = first; r; r = r->else_rule) {
            if (r->is_default) {
                default_rule_ = r;
                continue;
            }
            if (only_ground_refs_) only_ground_refs_ = is_ground(*make_ref(r->reference));
            bool skip = false;
            for (const auto& e : r->body) {
                if (!is_call(e)) continue;
                std::string op = operator_name(e);
                if (op == "internal.print" || op == "internal.test_case") skip = true;
            }
            if (!skip)
                for (const auto& e : r->body) indices.update(r, e);
        }
    }
    int order = 0;
    for (const Rule* first : rules) {
        int priority = 0;
        for (const Rule* r = first; r; r = r->else_rule) {
            if (r->is_default) continue;
            Node* node = root_.get();
            if (indices.indexed(r))
                for (const auto& ref : indices.sorted()) {
                    const RefIndex* idx = indices.find(r, *ref);
                    node = node->insert(ref, idx ? idx->value : nullptr, idx);
                }
            node->rules.push_back({order, priority, r});
            ++priority;
        }
        ++order;
    }
}

RuleIndex::~RuleIndex() = default;

namespace {

class Walker {
public:
    Walker(const IndexResolver& resolve, RuleIndex::Traversal& tr) : resolve_(resolve), tr_(tr) {}

    void add(const RuleIndex::Node& n) {
        for (const auto& e : n.rules) {
            auto it = tr_.unordered.find(e.order);
            if (it == tr_.unordered.end()) {
                tr_.ordering.push_back(e.order);
                it = tr_.unordered.emplace(e.order, std::vector<std::pair<int, const Rule*>>{}).first;
            }
            it->second.emplace_back(e.priority, e.rule);
        }
    }

    // OPA's Traverse: this node's rules, then the next ref's branches.
    void traverse_node(const RuleIndex::Node* n) {
        if (!n) return;
        add(*n);
        traverse_ref(n->next.get());
    }

    void traverse_ref(const RuleIndex::Node* n) {
        if (!n) return;
        Resolved v = resolve_(*n->ref);
        if (v.unknown) {
            traverse_unknown(n);
            return;
        }
        if (n->undefined) traverse_node(n->undefined.get());
        if (!v.value) return;
        if (n->any) traverse_node(n->any.get());
        traverse_value(n, v.value);
        for (const auto& m : n->mappers) traverse_value(n, m.map(v.value));
    }

    void traverse_value(const RuleIndex::Node* n, const TermPtr& v) {
        if (v->kind == TermKind::Array) {
            if (n->array) traverse_array(n->array.get(), v->elems, 0);
            return;
        }
        if (!is_scalar(*v)) return;
        for (const auto& [k, child] : n->scalars)
            if (equal(*k, *v)) {
                traverse_node(child.get());
                return;
            }
    }

    void traverse_array(const RuleIndex::Node* n, const std::vector<TermPtr>& elems, std::size_t i) {
        if (i == elems.size()) {
            traverse_node(n);
            return;
        }
        if (n->any) traverse_array(n->any.get(), elems, i + 1);
        if (!is_scalar(*elems[i])) return;
        for (const auto& [k, child] : n->scalars)
            if (equal(*k, *elems[i])) {
                traverse_array(child.get(), elems, i + 1);
                return;
            }
    }

    void traverse_unknown(const RuleIndex::Node* n) {
        if (!n) return;
        traverse_node(n);
        traverse_unknown(n->undefined.get());
        traverse_unknown(n->any.get());
        traverse_unknown(n->array.get());
        for (const auto& [k, child] : n->scalars) traverse_unknown(child.get());
    }

private:
    const IndexResolver& resolve_;
    RuleIndex::Traversal& tr_;
};

}  // namespace

namespace {

// OPA's trieNode.Do with a ruleWalker (AllRules): every node, in the order
// node, any, undefined, scalars, array, next.
void walk_all(const RuleIndex::Node* n, const std::function<void(const RuleIndex::Node&)>& add);

}  // namespace

IndexResult RuleIndex::result_of(Traversal& tr) const {
    IndexResult out;
    out.default_rule = default_rule_;
    out.multi_value = multi_value_;
    out.only_ground_refs = only_ground_refs_;
    for (int pos : tr.ordering) {
        auto& nodes = tr.unordered[pos];
        std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        const Rule* root = nodes[0].second;
        out.rules.push_back(root);
        if (nodes.size() > 1) {
            auto& list = out.else_rules[root];
            for (std::size_t i = 1; i < nodes.size(); ++i) list.push_back(nodes[i].second);
        }
    }
    return out;
}

IndexResult RuleIndex::lookup(const IndexResolver& resolve) const {
    Traversal tr;
    Walker(resolve, tr).traverse_node(root_.get());
    return result_of(tr);
}

IndexResult RuleIndex::all_rules() const {
    Traversal tr;
    IndexResolver none = [](const Term&) { return Resolved{}; };
    Walker w(none, tr);
    walk_all(root_.get(), [&](const Node& n) { w.add(n); });
    return result_of(tr);
}

namespace {

void walk_all(const RuleIndex::Node* n, const std::function<void(const RuleIndex::Node&)>& add) {
    if (!n) return;
    add(*n);
    walk_all(n->any.get(), add);
    walk_all(n->undefined.get(), add);
    for (const auto& [k, child] : n->scalars) walk_all(child.get(), add);
    walk_all(n->array.get(), add);
    walk_all(n->next.get(), add);
}

}  // namespace

}  // namespace gavel::partial
