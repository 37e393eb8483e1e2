#include "engine/gatekeeper/template_rules.hpp"

#include <string>

#include "lang/term_string.hpp"
#include "lang/walk.hpp"

namespace gavel::gatekeeper {

namespace {

using lang::Term;
using lang::TermKind;

constexpr std::string_view kInvalid = "invalid ConstraintTemplate: ";

bool is_root(const Term& ref, std::string_view root) {
    return ref.kind == TermKind::Ref && !ref.elems.empty() && ref.elems[0]->kind == TermKind::Var &&
           ref.elems[0]->text == root;
}

// `ref` starts with data.<first>; `whole_prefix`: data.<first> itself counts too.
bool under(const Term& ref, std::string_view first) {
    return is_root(ref, "data") && ref.elems.size() >= 2 && ref.elems[1]->kind == TermKind::String &&
           ref.elems[1]->text == first;
}

std::string rule_name(const lang::Rule& rule) {
    const auto& ref = rule.head.ref;
    if (!ref) return {};
    if (ref->kind == TermKind::Var) return ref->text;
    if (ref->kind == TermKind::Ref && !ref->elems.empty() && ref->elems[0]->kind == TermKind::Var)
        return ref->elems[0]->text;
    return {};
}

lang::Diagnostic error_at(const lang::Location& loc, std::string message) {
    return lang::Diagnostic::at(loc, "rego_compile_error", std::string(kInvalid) + message);
}

template <class F>
void for_each_term(const lang::Module& m, F&& f) {
    auto visit = [&](const Term& t) {
        f(t);
        return false;
    };
    for (const auto& rule : m.rules) {
        for (const lang::Rule* r = &rule; r; r = r->else_rule.get()) {
            const auto& h = r->head;
            if (h.ref) lang::walk_terms(*h.ref, visit);
            for (const auto& a : h.args) lang::walk_terms(*a, visit);
            if (h.key) lang::walk_terms(*h.key, visit);
            if (h.value) lang::walk_terms(*h.value, visit);
            lang::walk_terms_in_body(r->body, visit);
            for (const auto& b : r->extra_bodies) lang::walk_terms_in_body(b, visit);
        }
    }
}

template <class F>
void for_each_ref(const lang::Module& m, F&& f) {
    for_each_term(m, [&](const Term& t) {
        if (t.kind == TermKind::Ref) f(t);
    });
}

void check_module(const lang::Module& m, std::string_view name, lang::Diagnostics& out) {
    for (const auto& imp : m.imports) {
        const Term& path = *imp.path;
        if (is_root(path, "input")) {
            out.add(error_at(imp.loc, "invalid import: cannot import input: \"" + lang::to_string(path) + "\""));
        } else if (!under(path, "lib") && !is_root(path, "future")) {
            out.add(error_at(imp.loc, "invalid import: bad import: \"" + lang::to_string(path) + "\""));
        }
    }
    std::vector<std::pair<lang::Location, std::string>> disallowed;
    for_each_ref(m, [&](const Term& ref) {
        if (!is_root(ref, "data")) return;
        if (under(ref, "inventory") || under(ref, "lib")) return;
        disallowed.emplace_back(ref.loc, lang::to_string(ref));
    });
    if (!disallowed.empty()) {
        std::string list;
        for (const auto& [loc, text] : disallowed)
            list += (list.empty() ? "disallowed ref " : ", disallowed ref ") + text;
        out.add(error_at(disallowed.front().first, "invalid data references: check refs failed on module " +
                                                       std::string(name) + ": [" + list + "]"));
    }
}

}  // namespace

std::vector<std::string> package_parts(const lang::Module& m) {
    std::vector<std::string> parts;
    const auto& p = m.package.path;
    if (!p) return parts;
    if (p->kind == TermKind::Ref)
        for (const auto& part : p->elems) parts.push_back(part->text);
    else parts.push_back(p->text);
    return parts;
}

bool refers_to_inventory(const lang::Module& m) {
    // Anything of `data` but data.lib... counts: data.inventory, and `data` itself.
    bool found = false;
    const Term* ref_head = nullptr;  // the `data` that heads the ref just seen (walks are pre-order)
    for_each_term(m, [&](const Term& t) {
        if (is_root(t, "data")) {
            found = found || !under(t, "lib");
            ref_head = t.elems[0].get();
        } else if (t.kind == TermKind::Var && t.text == "data" && &t != ref_head) {
            found = true;
        }
    });
    return found;
}

lang::Diagnostics check_template_modules(const lang::Module& entry, const std::vector<const lang::Module*>& libs) {
    lang::Diagnostics out;
    bool has_violation = false;
    for (const auto& rule : entry.rules) has_violation = has_violation || rule_name(rule) == "violation";
    if (!has_violation) {
        out.add(error_at(entry.package.loc, "invalid rego: missing required rules: [violation]"));
        return out;
    }
    for (const auto* lib : libs) {
        // The package is data.lib.<something>: data.lib alone is not a lib package.
        std::vector<std::string> parts = package_parts(*lib);
        if (!(parts.size() > 1 && parts[0] == "lib")) {
            std::string path = "data";
            for (const auto& p : parts) path += "." + p;
            out.add(error_at(lib->package.loc, "invalid libs: path " + path + " not found in lib prefixes"));
        }
    }
    if (!out.empty()) return out;
    for (std::size_t i = 0; i < libs.size(); ++i) check_module(*libs[i], "lib_" + std::to_string(i), out);
    check_module(entry, "template", out);
    return out;
}

}  // namespace gavel::gatekeeper
