#include "engine/partial/program.hpp"

#include <algorithm>
#include <set>

#include "compiler/rule_tree.hpp"
#include "engine/partial/rule_index.hpp"

namespace gavel::partial {

namespace {

// A key for a ground path: each part with its kind (strings may hold dots).
std::string path_key(const Term& ref) {
    std::string out;
    for (const auto& p : ref.elems) {
        out += static_cast<char>('A' + static_cast<int>(p->kind));
        out += p->kind == TermKind::Boolean ? (p->boolean ? "t" : "f") : p->text;
        out += '\x1f';
    }
    return out;
}

}  // namespace

TermPtr normalize_term(const TermPtr& t) {
    if (!t) return t;
    switch (t->kind) {
        case TermKind::Var:
            if (is_root_document(*t)) {
                auto r = make_ref({t});
                r->loc = t->loc;
                return r;
            }
            return t;
        case TermKind::Ref: {
            std::vector<TermPtr> parts;
            parts.reserve(t->elems.size());
            for (std::size_t i = 0; i < t->elems.size(); ++i)
                parts.push_back(i == 0 && t->elems[0]->kind == TermKind::Var ? t->elems[0]
                                                                             : normalize_term(t->elems[i]));
            return with_elems(*t, std::move(parts));
        }
        case TermKind::Call: {
            std::vector<TermPtr> parts;
            parts.reserve(t->elems.size());
            for (std::size_t i = 0; i < t->elems.size(); ++i)
                parts.push_back(i == 0 ? t->elems[0] : normalize_term(t->elems[i]));
            return with_elems(*t, std::move(parts));
        }
        case TermKind::Array:
        case TermKind::Set: {
            std::vector<TermPtr> elems;
            elems.reserve(t->elems.size());
            for (const auto& e : t->elems) elems.push_back(normalize_term(e));
            auto c = with_elems(*t, std::move(elems));
            c->loc = t->loc;
            return c;
        }
        case TermKind::Object: {
            std::vector<Item> items;
            items.reserve(t->items.size());
            for (const auto& [k, v] : t->items) items.emplace_back(normalize_term(k), normalize_term(v));
            return with_items(*t, std::move(items));
        }
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension: {
            auto c = std::make_shared<Term>(*t);
            c->key = normalize_term(t->key);
            c->value = normalize_term(t->value);
            c->body = std::make_shared<Body>(normalize_body(*t->body));
            return c;
        }
        default: return t;
    }
}

lang::Body normalize_body(const lang::Body& b) {
    Body out;
    out.reserve(b.size());
    for (const auto& e : b) {
        lang::Expr c = e;
        c.term = normalize_term(e.term);
        if (e.kind == lang::ExprKind::Every) {
            c.every.key = normalize_term(e.every.key);
            c.every.value = normalize_term(e.every.value);
            c.every.domain = normalize_term(e.every.domain);
            c.every.body = std::make_shared<Body>(normalize_body(*e.every.body));
        }
        if (e.body) c.body = std::make_shared<Body>(normalize_body(*e.body));
        for (auto& child : c.children) {
            Body one{child};
            child = normalize_body(one)[0];
        }
        for (auto& w : c.withs) {
            w.target = normalize_term(w.target);
            w.value = normalize_term(w.value);
        }
        out.push_back(std::move(c));
    }
    return out;
}

const TreeNode* TreeNode::child(const Term& key) const {
    for (const auto& c : children)
        if (equal(*c->key, key)) return c.get();
    return nullptr;
}

Program::Program(std::shared_ptr<const compiler::CompiledModules> compiled, const runtime::BuiltinRegistry* builtins,
                 const std::map<std::string, runtime::Builtin>* custom)
    : compiled_(std::move(compiled)), builtins_(builtins), custom_(custom) {
    for (const auto& m : compiled_->modules) add_module(*m);
    build_tree();
    build_indices(*root_);
}

Program::~Program() = default;

void Program::add_module(const lang::Module& m) {
    auto mod = std::make_unique<Module>();
    mod->package.push_back(make_var("data"));
    if (m.package.path) {
        const auto& p = *m.package.path;
        std::vector<TermPtr> parts = p.kind == TermKind::Ref ? p.elems : std::vector<TermPtr>{m.package.path};
        for (const auto& part : parts) {
            if (part->kind == TermKind::Var) {
                if (part->text == "data" && mod->package.size() == 1 && &part == &parts[0]) continue;
                auto s = make_string(part->text);
                s->loc = part->loc;
                mod->package.push_back(s);
            } else {
                mod->package.push_back(part);
            }
        }
    }
    for (const auto& r : m.rules) {
        Rule* previous = nullptr;
        for (const lang::Rule* clause = &r; clause; clause = clause->else_rule.get()) {
            auto rule = std::make_unique<Rule>();
            rule->module = mod.get();
            const lang::RuleHead& h = clause->head;
            if (h.ref) {
                if (h.ref->kind == TermKind::Ref) {
                    for (const auto& p : h.ref->elems) rule->reference.push_back(normalize_term(p));
                    if (!rule->reference.empty() && h.ref->elems[0]->kind == TermKind::Var)
                        rule->reference[0] = h.ref->elems[0];
                } else {
                    rule->reference.push_back(h.ref);
                }
            }
            if (rule->reference.size() == 1) rule->name = rule->reference[0]->text;
            for (const auto& a : h.args) rule->args.push_back(normalize_term(a));
            rule->function = h.has_args;
            rule->value = normalize_term(h.value);
            if (!rule->value) rule->key = normalize_term(h.key);
            rule->is_default = clause->is_default;
            rule->body = normalize_body(clause->body);
            rule->loc = clause->loc;
            std::vector<TermPtr> full = mod->package;
            for (std::size_t i = 0; i < rule->reference.size(); ++i) {
                const TermPtr& p = rule->reference[i];
                full.push_back(i == 0 && p->kind == TermKind::Var ? make_string(p->text) : p);
            }
            rule->full_ref = make_ref(std::move(full));
            Rule* raw = rule.get();
            if (previous) previous->else_rule = raw;
            else mod->rules.push_back(raw);
            previous = raw;
            mod->clauses.push_back(std::move(rule));
        }
    }
    modules_.push_back(std::move(mod));
}

namespace {

TreeNode* descend(TreeNode* node, const TermPtr& key) {
    for (auto& c : node->children)
        if (equal(*c->key, *key)) return c.get();
    auto child = std::make_unique<TreeNode>();
    child->key = key;
    auto pos =
        std::lower_bound(node->children.begin(), node->children.end(), key,
                         [](const std::unique_ptr<TreeNode>& c, const TermPtr& k) { return compare(*c->key, *k) < 0; });
    return node->children.insert(pos, std::move(child))->get();
}

}  // namespace

void Program::build_tree() {
    root_ = std::make_unique<TreeNode>();
    for (const auto& m : modules_) {
        TreeNode* node = root_.get();
        for (const auto& p : m->package) node = descend(node, p);
        for (const Rule* r : m->rules) {
            TreeNode* at = root_.get();
            TermPtr prefix = ref_ground_prefix(r->full_ref);
            for (const auto& p : prefix->elems) at = descend(at, p);
            at->values.push_back(r);
        }
    }
    if (TreeNode* data = const_cast<TreeNode*>(root_->child(*make_var("data"))))
        for (auto& c : data->children)
            if (c->key->kind == TermKind::String && c->key->text == "system") c->hide = true;
}

void Program::build_indices(const TreeNode& node) {
    if (!node.values.empty()) {
        std::vector<const Rule*> rules = node.values;
        bool non_ground = !is_ground(*make_ref(rules.back()->reference));
        if (non_ground) {
            std::vector<const TreeNode*> stack;
            for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) stack.push_back(it->get());
            while (!stack.empty()) {
                const TreeNode* n = stack.back();
                stack.pop_back();
                rules.insert(rules.end(), n->values.begin(), n->values.end());
                for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) stack.push_back(it->get());
            }
        }
        auto is_virtual = [this](const Term& ref) { return this->is_virtual(ref); };
        std::string key = path_key(*ref_ground_prefix(rules[0]->full_ref));
        indices_[key] = std::make_unique<RuleIndex>(rules, is_virtual);
        if (non_ground) return;
    }
    for (const auto& c : node.children) build_indices(*c);
}

const RuleIndex* Program::index(const Term& path) const {
    auto it = indices_.find(path_key(path));
    return it == indices_.end() ? nullptr : it->second.get();
}

std::vector<const Rule*> Program::rules_dynamic(const Term& ref, bool include_hidden) const {
    std::set<const Rule*> seen;
    std::vector<const Rule*> out;
    auto add = [&](const std::vector<const Rule*>& rules) {
        for (const Rule* r : rules)
            if (seen.insert(r).second) out.push_back(r);
    };
    std::function<void(const TreeNode&, std::size_t)> walk = [&](const TreeNode& node, std::size_t i) {
        if (i >= ref.elems.size()) {
            std::vector<const TreeNode*> stack{&node};
            while (!stack.empty()) {
                const TreeNode* n = stack.back();
                stack.pop_back();
                add(n->values);
                if (!include_hidden && n->hide) continue;
                for (auto it = n->children.rbegin(); it != n->children.rend(); ++it) stack.push_back(it->get());
            }
            return;
        }
        if (i == 0 || is_constant(*ref.elems[i])) {
            const TreeNode* child = node.child(*ref.elems[i]);
            if (!child) return;
            add(child->values);
            walk(*child, i + 1);
            return;
        }
        for (const auto& child : node.children) {
            if (child->hide && !include_hidden) continue;
            add(child->values);
            walk(*child, i + 1);
        }
    };
    walk(*root_, 0);
    return out;
}

std::vector<const Rule*> Program::rules_exact(const Term& ref) const {
    const TreeNode* node = root_.get();
    for (const auto& p : ref.elems) {
        node = node->child(*p);
        if (!node) return {};
    }
    return node->values;
}

bool Program::is_virtual(const Term& ref) const {
    TermPtr prefix = ref_ground_prefix(std::make_shared<Term>(ref));
    const TreeNode* node = root_.get();
    for (const auto& p : prefix->elems) {
        const TreeNode* child = node->child(*p);
        if (!child) return false;
        if (!child->values.empty()) return true;
        node = child;
    }
    return true;
}

bool Program::is_function(const Term& ref) const {
    if (ref.kind != TermKind::Ref || ref.elems.empty()) return false;
    if (is_var(*ref.elems[0], "data")) {
        for (const Rule* r : rules_exact(ref))
            if (r->function) return true;
        return false;
    }
    if (is_var(*ref.elems[0], "input")) return false;
    return builtin_decl(ref_text(ref)) != nullptr;
}

int Program::arity(const Term& op) const {
    if (const auto* decl = builtin_decl(ref_text(op))) return static_cast<int>(decl->arity);
    auto rules = rules_exact(op);
    if (rules.empty()) return -1;
    return static_cast<int>(rules[0]->args.size());
}

const lang::BuiltinDecl* Program::builtin_decl(std::string_view name) const { return compiled_->builtin(name); }

const runtime::Builtin* Program::builtin(std::string_view name) const {
    if (custom_) {
        auto it = custom_->find(std::string(name));
        if (it != custom_->end()) return &it->second;
    }
    return builtins_ ? builtins_->find(name) : nullptr;
}

}  // namespace gavel::partial
