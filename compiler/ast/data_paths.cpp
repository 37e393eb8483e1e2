#include "compiler/ast/data_paths.hpp"

namespace gavel::compiler {

using lang::TermKind;

std::vector<std::string> package_path(const lang::Module& m) {
    const auto& p = *m.package.path;
    if (p.kind != TermKind::Ref) return {p.text};
    std::vector<std::string> out;
    out.reserve(p.elems.size());
    for (const auto& e : p.elems) out.push_back(e->text);
    return out;
}

std::vector<std::string> rule_path(const lang::Module& m, const lang::Rule& r) {
    auto out = package_path(m);
    const auto& ref = r.head.ref->elems;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        if (i > 0 && ref[i]->kind != TermKind::String) break;
        out.push_back(ref[i]->text);
    }
    return out;
}

}  // namespace gavel::compiler
