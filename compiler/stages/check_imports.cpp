// Stage: in v1 modules (and in strict mode) two imports may not bind the
// same name (OPA's checkDuplicateImports).

#include <fmt/format.h>

#include <map>

#include "lang/term_string.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::TermKind;

void check_imports(CompileContext& ctx) {
    for (const lang::Module* m : ctx.modules) {
        if (!(ctx.options.strict || m->rego_v1)) continue;
        std::map<std::string, const lang::Import*> seen;
        for (const auto& imp : m->imports) {
            const lang::Term& last = imp.path->kind == TermKind::Ref ? *imp.path->elems.back() : *imp.path;
            std::string name = imp.alias.empty() ? last.text : imp.alias;
            auto [it, fresh] = seen.emplace(name, &imp);
            if (fresh) continue;
            const lang::Import& first = *it->second;
            std::string text = "import " + to_string(*first.path) + (first.alias.empty() ? "" : " as " + first.alias);
            if (!ctx.error(imp.loc, lang::codes::compile_error, fmt::format("import must not shadow {}", text))) return;
        }
    }
}

}  // namespace gavel::compiler
