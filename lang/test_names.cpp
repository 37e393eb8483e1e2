#include "lang/test_names.hpp"

#include <fmt/format.h>

#include <map>
#include <string>

namespace gavel::lang {

namespace {

// The package's parts, as written after `package`.
std::string package_key(const Module& m) {
    std::string key;
    if (const auto& p = m.package.path) {
        if (p->kind == TermKind::Ref)
            for (const auto& part : p->elems) key += part->text + ".";
        else key += p->text + ".";
    }
    return key;
}

}  // namespace

void number_duplicate_tests(const std::vector<Module*>& modules) {
    std::map<std::string, int> seen;  // ground rule path -> definitions so far
    for (Module* m : modules) {
        const std::string package = package_key(*m);
        for (Rule& rule : m->rules) {
            TermPtr& ref = rule.head.ref;
            if (!ref) continue;
            // The ground prefix of the head: its name, then string parts (`test_a.b[x]` -> test_a, b).
            std::size_t ground = 1;
            if (ref->kind == TermKind::Ref) {
                if (ref->elems.empty()) continue;
                while (ground < ref->elems.size() && ref->elems[ground]->kind == TermKind::String) ++ground;
            }
            TermPtr& last = ref->kind == TermKind::Ref ? ref->elems[ground - 1] : ref;
            const std::string& name = last->text;
            if (name.rfind("test_", 0) != 0) continue;
            std::string key = package;
            for (std::size_t i = 0; ref->kind == TermKind::Ref && i < ground; ++i) key += ref->elems[i]->text + ".";
            if (ref->kind != TermKind::Ref) key += name;
            int& count = seen[key];
            if (count > 0) {
                // A new term: the AST may be shared with other copies of the module.
                std::string renamed = fmt::format("{}#{:02}", name, count);
                TermPtr replacement =
                    last->kind == TermKind::Var ? make_var(renamed, last->loc) : make_string(renamed, last->loc);
                if (ref->kind == TermKind::Ref) {
                    auto copy = std::make_shared<Term>(*ref);
                    copy->elems[ground - 1] = replacement;
                    ref = copy;
                } else {
                    ref = replacement;
                }
            }
            ++count;
        }
    }
}

}  // namespace gavel::lang
