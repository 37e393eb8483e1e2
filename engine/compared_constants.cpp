#include "engine/compared_constants.hpp"

#include <algorithm>
#include <optional>

#include "compiler/compiler.hpp"
#include "engine/loader.hpp"
#include "lang/ast.hpp"

namespace gavel {

namespace {

using lang::Term;
using lang::TermKind;

// What a local variable of a body is known to hold.
struct Known {
    std::string ref;                  // a reference of interest, or ""
    std::set<std::string> constants;  // or one of these strings,
    bool collection = false;          // or a set or array of them
};
using Scope = std::map<std::string, Known>;

class Finder {
public:
    Finder(const std::vector<std::string>& refs, std::map<std::string, std::set<std::string>>& out)
        : refs_(refs.begin(), refs.end()), out_(out) {}

    void body(const lang::Body& b, Scope scope) {
        for (const auto& e : b) expr(e, scope);
    }

private:
    // The reference of interest a term stands for, if any.
    std::string ref_of(const Term& t, const Scope& scope) const {
        if (t.kind == TermKind::Ref) {
            std::string dotted = t.ref_dotted();
            if (refs_.count(dotted)) return dotted;
        }
        if (t.kind == TermKind::Var)
            if (auto it = scope.find(t.text); it != scope.end()) return it->second.ref;
        return {};
    }

    // The strings a term is known to be one of: a string, a set or array of
    // strings, or a variable holding one of those.
    std::optional<std::set<std::string>> constants_of(const Term& t, const Scope& scope, bool collection) const {
        if (!collection && t.kind == TermKind::String) return std::set<std::string>{t.text};
        // An element of a collection: `["Pod", "Job"][i]`, `kinds[_]` (how `some k in [...]` compiles).
        if (!collection && t.kind == TermKind::Ref && t.elems.size() == 2 && t.elems[1]->kind == TermKind::Var)
            return constants_of(*t.elems[0], scope, true);
        if (collection && (t.kind == TermKind::Set || t.kind == TermKind::Array)) {
            std::set<std::string> out;
            for (const auto& e : t.elems) {
                if (e->kind != TermKind::String) return std::nullopt;
                out.insert(e->text);
            }
            return out;
        }
        if (t.kind == TermKind::Var)
            if (auto it = scope.find(t.text);
                it != scope.end() && it->second.ref.empty() && it->second.collection == collection)
                return it->second.constants;
        return std::nullopt;
    }

    void record(const std::string& ref, const std::set<std::string>& values) {
        out_[ref].insert(values.begin(), values.end());
    }

    void expr(const lang::Expr& e, Scope& scope) {
        if (!e.negated && e.kind == lang::ExprKind::Term && e.term && e.term->kind == TermKind::Call)
            call(*e.term, scope);
        // Nested bodies see this body's variables.
        walk_nested(e, scope);
    }

    void call(const Term& c, Scope& scope) {
        std::string name = c.call_name();
        if ((name == "eq" || name == "equal" || name == "assign") && c.elems.size() == 3) {
            const Term& a = *c.elems[1];
            const Term& b = *c.elems[2];
            for (auto [x, y] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
                std::string ref = ref_of(*x, scope);
                if (ref.empty()) continue;
                if (auto values = constants_of(*y, scope, false)) {
                    record(ref, *values);
                    return;
                }
            }
            // A new local variable: `k := input.request.kind.kind`, `kinds := {"Pod"}`, `k := kinds[_]`.
            for (auto [x, y] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
                if (x->kind != TermKind::Var || scope.count(x->text)) continue;
                if (y->kind == TermKind::Ref)
                    if (auto values = constants_of(*y, scope, false)) {
                        scope[x->text] = Known{"", *values, false};
                        return;
                    }
                if (std::string ref = ref_of(*y, scope); !ref.empty()) {
                    scope[x->text] = Known{ref, {}, false};
                    return;
                }
                if (auto values = constants_of(*y, scope, true)) {
                    scope[x->text] = Known{"", *values, true};
                    return;
                }
            }
            return;
        }
        if (name == "internal.member_2" && c.elems.size() == 3) {
            const Term& member = *c.elems[1];
            auto values = constants_of(*c.elems[2], scope, true);
            if (!values) return;
            if (std::string ref = ref_of(member, scope); !ref.empty()) {
                record(ref, *values);
            } else if (member.kind == TermKind::Var && !scope.count(member.text)) {
                scope[member.text] = Known{"", *values, false};  // `some k in [...]`: k is one of them
            }
        }
    }

    void walk_nested(const lang::Expr& e, const Scope& scope) {
        auto terms = [&](const Term& t, auto&& self) -> void {
            if (t.body && t.kind != TermKind::Template) body(*t.body, scope);
            for (const auto& x : t.elems) self(*x, self);
            for (const auto& [k, v] : t.items) {
                self(*k, self);
                self(*v, self);
            }
            if (t.key) self(*t.key, self);
            if (t.value) self(*t.value, self);
        };
        if (e.term) terms(*e.term, terms);
        if (e.every.body) body(*e.every.body, scope);
        if (e.body) body(*e.body, scope);
        for (const auto& child : e.children) {
            Scope inner = scope;
            expr(child, inner);
        }
    }

    std::set<std::string> refs_;
    std::map<std::string, std::set<std::string>>& out_;
};

std::vector<std::string> package_path(const lang::Module& m) {
    std::vector<std::string> out;
    if (const auto& p = m.package.path) {
        if (p->kind == TermKind::Ref) {
            for (const auto& part : p->elems) out.push_back(part->text);
        } else {
            out.push_back(p->text);
        }
    }
    // Compiled packages are rooted at data.
    if (!out.empty() && out.front() == "data") out.erase(out.begin());
    return out;
}

}  // namespace

std::vector<ComparedConstants> find_compared_constants(const compiler::CompiledModules& compiled,
                                                       const std::vector<std::string>& refs) {
    std::map<std::string, ComparedConstants> by_package;
    for (const auto& module : compiled.modules) {
        std::string package = engine::data_path_text(package_path(*module));
        auto& entry = by_package[package];
        entry.package = package;
        Finder finder(refs, entry.values);
        for (const auto& rule : module->rules) {
            if (rule.head.ref && !rule.head.ref->elems.empty())
                entry.rules.insert(rule.head.ref->kind == TermKind::Ref ? rule.head.ref->elems[0]->text
                                                                        : rule.head.ref->text);
            for (const lang::Rule* r = &rule; r; r = r->else_rule.get()) {
                finder.body(r->body, {});
                for (const auto& extra : r->extra_bodies) finder.body(extra, {});
            }
        }
    }
    std::vector<ComparedConstants> out;
    for (auto& [name, entry] : by_package) out.push_back(std::move(entry));
    return out;
}

}  // namespace gavel
