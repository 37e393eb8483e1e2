#include "runtime/eval/repeatable.hpp"

#include <string_view>

namespace gavel::eval {

namespace {

// Parts nested deeper than this are taken as not repeatable (the walk recurses).
constexpr std::size_t kMaxDepth = 64;

}  // namespace

bool Repeatable::expr(const PExpr& e, std::size_t depth) {
    if (depth > kMaxDepth || !e.withs.empty()) return false;
    return each_part(
        e, [&](const PTerm& t) { return term(t, depth + 1); }, [&](const PBody& b) { return body(b, depth + 1); });
}

bool Repeatable::body(const PBody& b, std::size_t depth) {
    for (const PExpr& e : b.exprs)
        if (!expr(e, depth)) return false;
    return true;
}

bool Repeatable::term(const PTerm& t, std::size_t depth) {
    if (depth > kMaxDepth) return false;
    if (t.op == TermOp::Call && t.callee) {
        if (const runtime::Builtin* b = t.callee->builtin) {
            if (!builtin(*b)) return false;
        } else if (!t.callee->function || !function(*t.callee->function, depth + 1)) {
            return false;
        }
    }
    return each_part(
        t, [&](const PTerm& e) { return term(e, depth + 1); }, [&](const PBody& b) { return body(b, depth + 1); });
}

bool Repeatable::builtin(const runtime::Builtin& b) const {
    const bool standard =
        program_.builtins && program_.builtins->find(b.name) == &b && !program_.custom_builtins.contains(b.name);
    // print() is internal.print after compiling; trace notes and test-case names reach the tracer.
    static constexpr std::string_view kEffects[] = {"internal.print", "print", "trace", "internal.test_case"};
    for (std::string_view name : kEffects)
        if (b.name == name) return false;
    return standard && !(b.decl && b.decl->nondeterministic);
}

bool Repeatable::function(const RuleSet& fn, std::size_t depth) {
    if (auto it = functions_.find(&fn); it != functions_.end()) return it->second;
    functions_[&fn] = true;  // while looked at (a recursive function is a compile error anyway)
    bool ok = true;
    auto clause = [&](const PRule& r) {
        for (const PTerm& p : r.params) ok = ok && term(p, depth + 1);
        ok = ok && body(r.body, depth + 1) && term(r.value, depth + 1);
    };
    for (const auto& rule : fn.rules)
        for (const PRule* r = rule.get(); r && ok; r = r->else_rule.get()) clause(*r);
    if (fn.default_rule && ok) clause(*fn.default_rule);
    functions_[&fn] = ok;
    return ok;
}

}  // namespace gavel::eval
