#include "compiler/annotation_chain.hpp"

#include <algorithm>
#include <utility>

#include "compiler/ast/data_paths.hpp"

namespace gavel::compiler {

std::vector<ChainLink> annotation_chain(const std::vector<const lang::Module*>& modules, const lang::Module& module,
                                        const lang::Rule& rule, std::size_t index) {
    std::vector<ChainLink> chain;
    const auto path = rule_path(module, rule);
    for (auto it = module.annotations.rbegin(); it != module.annotations.rend(); ++it)
        if (it->rule_index == index && it->scope == "rule") chain.push_back({&*it, path});
    const auto pkg = package_path(module);
    const lang::Annotation* document = nullptr;
    const lang::Annotation* package = nullptr;
    std::vector<std::pair<std::size_t, const lang::Annotation*>> subpackages;  // by package depth
    for (const lang::Module* m : modules) {
        const auto mpkg = package_path(*m);
        for (const auto& a : m->annotations) {
            if (a.scope == "document" && a.rule_index < m->rules.size() &&
                rule_path(*m, m->rules[a.rule_index]) == path) {
                if (!document) document = &a;
            } else if (a.on_package && a.scope == "package" && mpkg == pkg) {
                if (!package) package = &a;
            } else if (a.on_package && a.scope == "subpackages" && mpkg.size() <= pkg.size() &&
                       std::equal(mpkg.begin(), mpkg.end(), pkg.begin())) {
                subpackages.emplace_back(mpkg.size(), &a);
            }
        }
    }
    if (document) chain.push_back({document, path});
    if (package) chain.push_back({package, pkg});
    std::stable_sort(subpackages.begin(), subpackages.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [depth, a] : subpackages)
        chain.push_back({a, std::vector<std::string>(pkg.begin(), pkg.begin() + static_cast<long>(depth))});
    return chain;
}

std::size_t rule_scope_links(const std::vector<ChainLink>& chain) {
    std::size_t n = 0;
    while (n < chain.size() && chain[n].annotation->scope == "rule") ++n;
    return n;
}

}  // namespace gavel::compiler
