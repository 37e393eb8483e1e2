// Query stage: calls to built-ins the caller declared unsafe in queries are
// type errors (OPA's checkUnsafeBuiltins; OPA's server refuses http.send in
// ad-hoc queries). After the expression terms were rewritten, every call is
// an expression of its own, located where the call was written.

#include <fmt/format.h>

#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

void check_unsafe_builtins_in(CompileContext& ctx, const lang::Body& body, const std::set<std::string>& unsafe) {
    if (unsafe.empty()) return;
    bool stop = false;
    walk_exprs(body, [&](const lang::Expr& e) {
        if (stop) return true;
        if (is_call_expr(e)) {
            std::string name = dotted_name(operator_of(*e.term));
            if (unsafe.count(name))
                stop = !ctx.error(e.loc, lang::codes::type_error,
                                  fmt::format("unsafe built-in function calls in expression: {}", name));
        }
        return false;
    });
}

}  // namespace gavel::compiler
