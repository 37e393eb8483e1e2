#pragma once
// Collects the variables of AST nodes, with OPA's VarVisitor parameters that
// leave parts out (ref heads, closures, sets, object keys ...). The safety
// check, the output-variable analysis and several rewrites are built on it.

#include <functional>
#include <map>
#include <string>

#include "compiler/ast/var_set.hpp"
#include "lang/ast.hpp"

namespace gavel::compiler {

// The arity of the function a call's operator names, or -1 when unknown.
using ArityFn = std::function<int(const lang::Term& operator_ref)>;

struct VarVisitorParams {
    bool skip_ref_head = false;       // a ref's head is not a variable of it
    bool skip_ref_call_head = false;  // nor a call's operator
    bool skip_closures = false;       // comprehensions, every/not/and/or bodies, template strings
    bool skip_with_target = false;
    bool skip_sets = false;
    bool skip_object_keys = false;
    bool skip_template_strings = false;
    // With an arity: the one-literal bodies of `not` (future.keywords.not) and
    // of `and`/`or` operands contribute the variables they cannot bind
    // themselves, as OPA's safety visitor promotes them.
    const ArityFn* promote_implicit_bodies = nullptr;
};

// The parameters of OPA's safety check: SkipRefCallHead and SkipClosures.
inline VarVisitorParams safety_params(const ArityFn* arity = nullptr) {
    VarVisitorParams p;
    p.skip_ref_call_head = true;
    p.skip_closures = true;
    p.promote_implicit_bodies = arity;
    return p;
}

class VarVisitor {
public:
    explicit VarVisitor(VarVisitorParams params = {}) : params_(params) {}

    void walk(const lang::Term& t);
    void walk(const lang::TermPtr& t) {
        if (t) walk(*t);
    }
    void walk(const lang::Expr& e);
    void walk(const lang::Body& b);
    void walk(const lang::With& w);
    void walk_args(const std::vector<lang::TermPtr>& args);
    // The parts of a ref from `from` on, as OPA's WalkRef (recording locations).
    void walk_ref(const lang::Term& ref, std::size_t from = 0);
    // OPA's Head.Vars(): args, key, value and the ref's parts after its name.
    void walk_head_vars(const lang::RuleHead& head);

    void add(const std::string& v) { vars_.insert(v); }
    const VarSet& vars() const { return vars_; }
    // The last location each variable was seen at (as OPA's VarSet keeps it).
    const std::map<std::string, lang::Location>& locations() const { return locations_; }
    void clear() {
        vars_.clear();
        locations_.clear();
    }

private:
    void walk_value(const lang::Term& t);
    void walk_call_skipping_head(const lang::Term& call);
    void note_location(const lang::Term& t);

    VarVisitorParams params_;
    VarSet vars_;
    std::map<std::string, lang::Location> locations_;
};

VarSet vars_of(const lang::Term& t, VarVisitorParams params = {});
VarSet vars_of(const lang::Expr& e, VarVisitorParams params = {});
VarSet vars_of(const lang::Body& b, VarVisitorParams params = {});

}  // namespace gavel::compiler
