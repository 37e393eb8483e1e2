// Stage: every call names a known function with the right number of
// operands (OPA's checkUndefinedFuncs): "undefined function f", and for a
// builtin "count: arity mismatch" with what was given and what it takes.
// A call may pass one operand more than the arity: the output variable.

#include <fmt/format.h>

#include "compiler/ast/term_string.hpp"
#include "compiler/ast/terms.hpp"
#include "compiler/ast/walk.hpp"
#include "compiler/stages/stages.hpp"
#include "lang/types.hpp"

namespace gavel::compiler {

using lang::Term;
using lang::TermKind;

namespace {

// What is known of an operand's type before type checking: constants' shapes.
std::string operand_type(const Term& t) {
    switch (t.kind) {
        case TermKind::Null: return "null";
        case TermKind::Boolean: return "boolean";
        case TermKind::Number: return "number";
        case TermKind::String:
        case TermKind::Template: return "string";
        case TermKind::Array: {
            if (t.elems.empty()) return "array[any]";
            std::string out = "array<";
            for (std::size_t i = 0; i < t.elems.size(); ++i) out += (i ? ", " : "") + operand_type(*t.elems[i]);
            return out + ">";
        }
        case TermKind::Set: return t.elems.empty() ? "set[any]" : "set[" + operand_type(*t.elems[0]) + "]";
        case TermKind::Object: return t.items.empty() ? "object[any: any]" : "object";
        default:
            if (is_ref_to(t, "input")) return "any";
            return "???";
    }
}

std::string display_ref(const CompileContext& ctx, const Term& op) {
    auto copy = std::make_shared<Term>(op);
    for (auto& p : copy->elems)
        if (p->kind == TermKind::Var) {
            auto v = std::make_shared<Term>(*p);
            v->text = ctx.original_name(v->text);
            p = v;
        }
    return to_string(*copy);
}

lang::Diagnostic arity_error(const CompileContext& ctx, const lang::Expr& e, const Term& op, int want, std::size_t have) {
    std::string name = display_ref(ctx, op);
    if (const lang::BuiltinDecl* b = ctx.builtin(dotted_name(op))) {
        std::string given = "(";
        for (std::size_t i = 1; i < e.term->elems.size(); ++i) given += (i > 1 ? ", " : "") + operand_type(*e.term->elems[i]);
        given += ")";
        return lang::Diagnostic::at(e.loc, lang::codes::type_error,
                                    fmt::format("{}: arity mismatch\n\thave: {}\n\twant: {}", name, given,
                                                lang::args_string(b->signature)));
    }
    return lang::Diagnostic::at(e.loc, lang::codes::type_error,
                                fmt::format("function {} has arity {}, got {} argument{}", name, want, have, have == 1 ? "" : "s"));
}

}  // namespace

void check_undefined_funcs_in(CompileContext& ctx, const lang::Body& body) {
    bool stop = false;
    walk_exprs(body, [&](const lang::Expr& e) {
        if (stop || !is_call_expr(e)) return stop;
        const Term& op = operator_of(*e.term);
        std::size_t operands = e.term->elems.size() - 1;
        int arity = ctx.arity(op);
        if (arity >= 0) {
            auto want = static_cast<std::size_t>(arity);
            if (e.generated) {
                if (!is_equality(e) && operands != want + 1 && !ctx.error(arity_error(ctx, e, op, arity, operands - 1))) stop = true;
            } else if (operands != want && operands != want + 1 && !ctx.error(arity_error(ctx, e, op, arity, operands))) {
                stop = true;
            }
            return true;
        }
        if (!ctx.error(e.loc, lang::codes::type_error, fmt::format("undefined function {}", display_ref(ctx, op)))) stop = true;
        return true;
    });
}

void check_undefined_funcs(CompileContext& ctx) {
    for (const lang::Module* m : ctx.modules) {
        for_each_rule(*m, [&](const lang::Rule& r) {
            check_undefined_funcs_in(ctx, r.body);
            for (const auto* t : {&r.head.key, &r.head.value})
                if (*t)
                    walk_terms(**t, [&](const Term& x) {
                        if (x.body && x.kind != TermKind::Template) check_undefined_funcs_in(ctx, *x.body);
                        return x.body != nullptr;
                    });
        });
    }
}

}  // namespace gavel::compiler
