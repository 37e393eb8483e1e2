#include "runtime/eval/planner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "runtime/eval/term_values.hpp"
#include "stdlib/rego_metadata.hpp"

namespace gavel::eval {

using lang::ExprKind;
using lang::Location;
using lang::TermKind;
using lang::TermPtr;

std::string RuleSet::dotted() const {
    std::string out = "data";
    for (const auto& p : path) out += "." + p;
    return out;
}

const runtime::Builtin* Program::find_builtin(std::string_view name) const {
    auto it = custom_builtins.find(std::string(name));
    if (it != custom_builtins.end()) return &it->second;
    return builtins ? builtins->find(name) : nullptr;
}

const DataNode* Program::node_at(const std::vector<std::string>& path) const {
    const DataNode* node = &root;
    for (const auto& p : path) {
        auto it = node->children.find(p);
        if (it == node->children.end()) return nullptr;
        node = it->second.get();
    }
    return node;
}

namespace {

// ---- scopes ---------------------------------------------------------------------

struct ModuleScope {
    std::vector<std::string> package;                       // below data
    const std::set<std::string>* rule_names = nullptr;      // first path segments of the package's rules
    std::map<std::string, std::vector<std::string>> imports; // alias -> full path ("data"/"input" first)
    bool rego_v1 = true;                                     // deprecated builtins only in v0 modules
    bool not_whole_expression = false;                       // `import future.keywords.not`: see hoist_negated_operands
    const lang::Module* ast = nullptr;                       // for rego.metadata.* (null in queries)
    const std::vector<const lang::Module*>* all_modules = nullptr;
};

struct VarScope {
    std::map<std::string, uint32_t> vars;
    VarScope* parent = nullptr;
    // Names declared with `:=`, by the index of the declaring literal, and the
    // literal being planned: a nested body sees such a name only after its declaration.
    std::map<std::string, std::size_t> declared_at;
    std::size_t current = 0;

    const uint32_t* find(const std::string& name) const {
        for (const VarScope* s = this; s; s = s->parent) {
            auto it = s->vars.find(name);
            if (it == s->vars.end()) continue;
            if (s != this) {
                auto d = s->declared_at.find(name);
                if (d != s->declared_at.end() && d->second > s->current) continue;
            }
            return &it->second;
        }
        return nullptr;
    }
};

struct Planner {
    Program& program;
    const ModuleScope* module = nullptr;
    const lang::Rule* current_rule = nullptr;  // the rule being planned (rego.metadata.*)
    lang::Diagnostics& diags;
    uint32_t next_slot = 0;
    std::vector<std::string> slot_names;

    Planner(Program& p, lang::Diagnostics& d) : program(p), diags(d) {}

    uint32_t new_slot(const std::string& name) {
        slot_names.push_back(name);
        return next_slot++;
    }

    void error(const Location& loc, std::string_view code, std::string message) {
        diags.add(loc, code, std::move(message));
    }

    // ---- name resolution ------------------------------------------------------------

    bool is_global(const std::string& name) const {
        if (name == "input" || name == "data") return true;
        if (module && module->imports.count(name)) return true;
        return module && module->rule_names && module->rule_names->count(name);
    }

    // A global name as a Ref term (data.pkg.rule, an import, input, data).
    PTerm global_ref(const std::string& name, const Location& loc) {
        std::vector<std::string> path;
        if (name == "input" || name == "data") {
            path = {name};
        } else if (auto it = module->imports.find(name); it != module->imports.end()) {
            path = it->second;
        } else {
            path.push_back("data");
            for (const auto& p : module->package) path.push_back(p);
            path.push_back(name);
        }
        PTerm ref;
        ref.op = TermOp::Ref;
        ref.loc = loc;
        PTerm head;
        head.op = path[0] == "input" ? TermOp::Input : TermOp::Data;
        head.loc = loc;
        ref.elems.push_back(std::move(head));
        for (std::size_t i = 1; i < path.size(); ++i) ref.elems.push_back(constant(Value::string(path[i]), loc));
        if (ref.elems.size() == 1) return std::move(ref.elems[0]);
        return ref;
    }

    static PTerm constant(Value v, const Location& loc) {
        PTerm t;
        t.op = TermOp::Const;
        t.value = std::move(v);
        t.loc = loc;
        return t;
    }

    PTerm local(uint32_t slot, const Location& loc) {
        PTerm t;
        t.op = TermOp::Local;
        t.slot = slot;
        t.loc = loc;
        return t;
    }

    // ---- declaration pre-scan ------------------------------------------------------
    // Before a body is planned, every variable name it uses at its own level is
    // declared in its scope (or found in an enclosing one), so a comprehension
    // and its enclosing body agree on which variable a name means.

    static void names_in_term(const TermPtr& t, std::vector<std::string>& out) {
        if (!t) return;
        switch (t->kind) {
            case TermKind::Var: out.push_back(t->text); break;
            case TermKind::Ref:
            case TermKind::Array:
            case TermKind::Set:
                for (const auto& e : t->elems) names_in_term(e, out);
                break;
            case TermKind::Call:
                for (std::size_t i = 1; i < t->elems.size(); ++i) names_in_term(t->elems[i], out);
                break;
            case TermKind::Object:
                for (const auto& [k, v] : t->items) {
                    names_in_term(k, out);
                    names_in_term(v, out);
                }
                break;
            case TermKind::Template:
                for (const auto& part : *t->body) names_in_expr(part, out);
                break;
            default: break;  // comprehensions scope their own names
        }
    }

    static void names_in_expr(const lang::Expr& e, std::vector<std::string>& out) {
        switch (e.kind) {
            case ExprKind::Term: names_in_term(e.term, out); break;
            case ExprKind::Some:
                if (e.some.in_call) names_in_term(e.some.in_call->elems.back(), out);  // the domain only
                break;
            case ExprKind::Every: names_in_term(e.every.domain, out); break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr:
                for (const auto& c : e.children) names_in_expr(c, out);
                break;
            case ExprKind::Block: break;
        }
        // `with f as g`: a bare name is usually a function, not a variable to declare.
        for (const auto& w : e.withs)
            if (w.value->kind != TermKind::Var && w.value->kind != TermKind::Ref) names_in_term(w.value, out);
    }

    // Names a literal declares afresh in its own scope: `some x`, `x := ...`, `some x in xs`.
    static void declared_in_expr(const lang::Expr& e, std::vector<std::string>& out) {
        if (e.kind == ExprKind::Some) {
            if (e.some.in_call) {
                for (std::size_t i = 1; i + 1 < e.some.in_call->elems.size(); ++i) names_in_term(e.some.in_call->elems[i], out);
            } else {
                for (const auto& v : e.some.vars) out.push_back(v->text);
            }
        } else if (e.kind == ExprKind::Term && e.term && e.term->call_name() == "assign") {
            names_in_term(e.term->elems[1], out);
        }
    }

    void declare_body(const lang::Body& body, VarScope& scope) {
        for (std::size_t i = 0; i < body.size(); ++i) {
            std::vector<std::string> declared;
            declared_in_expr(body[i], declared);
            for (const auto& name : declared) {
                if (name == "_" || scope.vars.count(name)) continue;
                scope.vars[name] = new_slot(name);
                if (body[i].kind == ExprKind::Term) scope.declared_at[name] = i;
            }
        }
        std::vector<std::string> used;
        for (const auto& e : body) names_in_expr(e, used);
        for (const auto& name : used) {
            if (name == "_" || scope.find(name) || is_global(name)) continue;
            scope.vars[name] = new_slot(name);
        }
    }

    // ---- terms -----------------------------------------------------------------------

    PTerm plan_var(const lang::Term& t, VarScope& scope) {
        if (t.text == "_") return local(new_slot("_"), t.loc);
        if (const uint32_t* slot = scope.find(t.text)) return local(*slot, t.loc);
        if (is_global(t.text)) return global_ref(t.text, t.loc);
        // A name first seen in a nested position (a with value, a head): a fresh local.
        uint32_t slot = new_slot(t.text);
        scope.vars[t.text] = slot;
        return local(slot, t.loc);
    }

    PTerm plan_term(const TermPtr& tp, VarScope& scope) {
        const lang::Term& t = *tp;
        PTerm out;
        out.loc = t.loc;
        switch (t.kind) {
            case TermKind::Null:
            case TermKind::Boolean:
            case TermKind::Number:
            case TermKind::String: {
                auto v = scalar_value(t);
                if (!v.ok) error(t.loc, lang::codes::parse_error, v.error);
                return constant(std::move(v.value), t.loc);
            }
            case TermKind::Var: return plan_var(t, scope);
            case TermKind::Ref: {
                PTerm head = plan_term(t.elems[0], scope);
                if (head.op == TermOp::Ref) {
                    out = std::move(head);
                } else {
                    out.op = TermOp::Ref;
                    out.elems.push_back(std::move(head));
                }
                out.loc = t.loc;
                for (std::size_t i = 1; i < t.elems.size(); ++i) out.elems.push_back(plan_term(t.elems[i], scope));
                return out;
            }
            case TermKind::Array:
            case TermKind::Set:
                out.op = t.kind == TermKind::Array ? TermOp::Array : TermOp::Set;
                for (const auto& e : t.elems) out.elems.push_back(plan_term(e, scope));
                return fold_constant(std::move(out));
            case TermKind::Object:
                out.op = TermOp::Object;
                for (const auto& [k, v] : t.items) out.items.emplace_back(plan_term(k, scope), plan_term(v, scope));
                return fold_constant(std::move(out));
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
            case TermKind::ObjectComprehension: {
                VarScope inner;
                inner.parent = &scope;
                uint32_t first = next_slot;
                declare_body(*t.body, inner);
                out.body = std::make_shared<PBody>(plan_body(*t.body, inner, first));
                if (t.kind == TermKind::ObjectComprehension) {
                    out.op = TermOp::ObjectCompr;
                    out.elems.push_back(plan_term(t.key, inner));
                } else {
                    out.op = t.kind == TermKind::ArrayComprehension ? TermOp::ArrayCompr : TermOp::SetCompr;
                }
                out.elems.push_back(plan_term(t.value, inner));
                check_head_safe(out.elems, *out.body, first, t.loc);
                return out;
            }
            case TermKind::Call: return plan_call(t, scope);
            case TermKind::Template: {
                out.op = TermOp::Template;
                for (const auto& part : *t.body) {
                    if (part.withs.empty() && part.kind == ExprKind::Term) {
                        out.elems.push_back(plan_term(part.term, scope));
                        continue;
                    }
                    // A part with `with` is evaluated as a one-literal comprehension.
                    VarScope inner;
                    inner.parent = &scope;
                    uint32_t first = next_slot;
                    uint32_t result = new_slot("__template_part");
                    lang::Body body{part};
                    declare_body(body, inner);
                    PTerm wrapper;
                    wrapper.op = TermOp::ArrayCompr;
                    wrapper.template_part = true;
                    wrapper.loc = part.loc;
                    wrapper.body = std::make_shared<PBody>();
                    wrapper.body->first_local = first;
                    PExpr e = plan_expr(part, inner);
                    PExpr bind;
                    bind.op = ExprOp::Unify;
                    bind.a = local(result, part.loc);
                    bind.b = std::move(e.a);
                    bind.withs = std::move(e.withs);
                    bind.loc = part.loc;
                    wrapper.body->exprs.push_back(std::move(bind));
                    wrapper.elems.push_back(local(result, part.loc));
                    out.elems.push_back(std::move(wrapper));
                }
                return out;
            }
        }
        return out;
    }

    // Arrays, sets and objects of constants become one constant.
    static PTerm fold_constant(PTerm t) {
        auto is_const = [](const PTerm& x) { return x.op == TermOp::Const; };
        if (t.op == TermOp::Object) {
            for (const auto& [k, v] : t.items)
                if (!is_const(k) || !is_const(v)) return t;
            runtime::ObjectBuilder b;
            for (auto& [k, v] : t.items) b.insert(k.value, v.value);
            return constant(b.build(), t.loc);
        }
        if (!std::all_of(t.elems.begin(), t.elems.end(), is_const)) return t;
        if (t.op == TermOp::Array) {
            runtime::ArrayBuilder b;
            for (auto& e : t.elems) b.push_back(e.value);
            return constant(b.build(), t.loc);
        }
        runtime::SetBuilder b;
        for (auto& e : t.elems) b.insert(e.value);
        return constant(b.build(), t.loc);
    }

    // The function a dotted name means: a user function by data path, a builtin, or nothing.
    std::shared_ptr<Callee> find_callee(const lang::Term& op) {
        auto callee = std::make_shared<Callee>();
        std::vector<std::string> parts;
        if (op.kind == TermKind::Var) parts.push_back(op.text);
        for (const auto& p : op.elems) parts.push_back(p->text);
        std::string dotted = op.kind == TermKind::Var ? op.text : op.ref_dotted();
        callee->name = dotted;
        if (parts.empty()) return callee;
        std::vector<std::string> path;
        const std::string& head = parts[0];
        if (head == "data") {
            path.assign(parts.begin() + 1, parts.end());
        } else if (module && module->imports.count(head)) {
            const auto& imp = module->imports.at(head);
            if (!imp.empty() && imp[0] == "data") {
                path.assign(imp.begin() + 1, imp.end());
                path.insert(path.end(), parts.begin() + 1, parts.end());
            }
        } else if (module && module->rule_names && module->rule_names->count(head)) {
            path = module->package;
            path.insert(path.end(), parts.begin(), parts.end());
        }
        if (!path.empty()) {
            const DataNode* node = program.node_at(path);
            if (node && node->rules && node->rules->kind == RuleKind::Function) {
                callee->function = node->rules;
                callee->name = node->rules->dotted();
                return callee;
            }
        }
        callee->builtin = program.find_builtin(dotted);
        return callee;
    }

    std::shared_ptr<const Callee> resolve_callee(const lang::Term& call, std::size_t argc) {
        auto callee = find_callee(*call.elems[0]);
        if (callee->function) {
            check_arity(call, callee->name, callee->function->arity, argc);
        } else if (callee->builtin) {
            if (callee->builtin->decl && callee->builtin->decl->deprecated && module->rego_v1)
                error(call.loc, lang::codes::type_error,
                      fmt::format("deprecated built-in function calls in expression: {}", callee->name));
            check_arity(call, callee->name, callee->builtin->arity, argc);
        } else if (callee->name != "print") {  // print is variadic; the evaluator handles it
            error(call.loc, lang::codes::type_error, fmt::format("undefined function {}", callee->name));
        }
        return callee;
    }

    void check_arity(const lang::Term& call, const std::string& name, std::size_t arity, std::size_t argc) {
        if (argc != arity && argc != arity + 1)
            error(call.loc, lang::codes::type_error,
                  fmt::format("{}: arity mismatch\n\thave: {} argument{}\n\twant: {} argument{}", name, argc,
                              argc == 1 ? "" : "s", arity, arity == 1 ? "" : "s"));
    }

    PTerm plan_call(const lang::Term& t, VarScope& scope) {
        PTerm out;
        out.op = TermOp::Call;
        out.loc = t.loc;
        std::size_t argc = t.elems.size() - 1;
        out.callee = resolve_callee(t, argc);
        // rego.metadata.rule()/chain() depend only on where they are written: constants.
        if (argc == 0 && out.callee->builtin && current_rule && module->ast && module->all_modules) {
            if (out.callee->name == "rego.metadata.rule") return constant(stdlib::metadata_rule(*module->ast, *current_rule), t.loc);
            if (out.callee->name == "rego.metadata.chain")
                return constant(stdlib::metadata_chain(*module->all_modules, *module->ast, *current_rule), t.loc);
        }
        for (std::size_t i = 1; i < t.elems.size(); ++i) out.elems.push_back(plan_term(t.elems[i], scope));
        return out;
    }

    // ---- expressions -----------------------------------------------------------------

    PExpr plan_expr(const lang::Expr& e, VarScope& scope) {
        const uint32_t first_inner = next_slot;  // slots made while planning this literal are its own
        PExpr out;
        out.loc = e.loc;
        out.text = std::string(e.loc.text());
        switch (e.kind) {
            case ExprKind::Term: plan_term_expr(*e.term, scope, out); break;
            case ExprKind::Some:
                if (e.some.in_call) {
                    const auto& c = *e.some.in_call;
                    out.op = ExprOp::Iterate;
                    out.domain = plan_term(c.elems.back(), scope);
                    if (c.elems.size() == 4) {
                        out.key_present = true;
                        out.key = plan_term(c.elems[1], scope);
                        out.value = plan_term(c.elems[2], scope);
                    } else {
                        out.value = plan_term(c.elems[1], scope);
                    }
                } else {
                    out.op = ExprOp::Truthy;  // a declaration only
                    out.a = constant(Value::boolean(true), e.loc);
                }
                break;
            case ExprKind::Every: {
                out.op = ExprOp::Every;
                out.domain = plan_term(e.every.domain, scope);
                VarScope inner;
                inner.parent = &scope;
                if (e.every.key) {
                    out.key_present = true;
                    inner.vars[e.every.key->text] = new_slot(e.every.key->text);
                    out.key = plan_term(e.every.key, inner);
                }
                if (e.every.value->kind == TermKind::Var && e.every.value->text != "_")
                    inner.vars[e.every.value->text] = new_slot(e.every.value->text);
                out.value = plan_term(e.every.value, inner);
                uint32_t first = next_slot;  // key and value are bound before the body runs
                declare_body(*e.every.body, inner);
                out.body = std::make_shared<PBody>(plan_body(*e.every.body, inner, first));
                break;
            }
            case ExprKind::LogicAnd:
            case ExprKind::Block: {
                out.op = ExprOp::And;
                VarScope inner;
                inner.parent = &scope;
                uint32_t first = next_slot;
                const lang::Body& body = e.kind == ExprKind::Block ? *e.body : e.children;
                declare_body(body, inner);
                out.body = std::make_shared<PBody>(plan_body(body, inner, first));
                break;
            }
            case ExprKind::LogicOr:
                out.op = ExprOp::Or;
                for (const auto& child : e.children) {
                    VarScope inner;
                    inner.parent = &scope;
                    uint32_t first = next_slot;
                    lang::Body body{child};
                    declare_body(body, inner);
                    out.alternatives.push_back(std::make_shared<PBody>(plan_body(body, inner, first)));
                }
                break;
        }
        if (e.negated) {
            // `not expr` evaluates expr in a body of its own.
            PExpr inner = std::move(out);
            out = PExpr();
            out.loc = e.loc;
            out.text = std::string(e.loc.text());
            out.op = ExprOp::Not;
            out.body = std::make_shared<PBody>();
            out.body->first_local = first_inner;
            if (e.kind == ExprKind::Term && !(module && module->not_whole_expression)) {
                PBody operands;
                operands.first_local = first_inner;
                hoist_negated_operands(*e.term, inner, operands);
                if (!operands.exprs.empty()) out.operands = std::make_shared<PBody>(std::move(operands));
            }
            out.body->exprs.push_back(std::move(inner));
        }
        for (const auto& w : e.withs) out.withs.push_back(plan_with(w, scope));
        return out;
    }

    // ---- negation: operands evaluated outside ------------------------------------------
    // OPA's compiler (its "rewrite dynamic terms" and "rewrite expression terms"
    // stages) moves what a negated expression's operands need out of the
    // negation: calls nested anywhere, refs given as call arguments or inside
    // composite arguments, and refs used as ref keys. `not f(input.x)` runs as
    // `t = input.x; not f(t)`, so it is undefined, not true, when input.x is.
    // A ref that is the whole negated term (`not input.x`) or a side of `=`
    // (or of `==` in a module) stays inside. These are the rules our users' policies are tested with.
    // `import future.keywords.not` opts a module out: its `not` negates the
    // whole expression, operands included (OPA's suite, negation/not-body).

    void hoist_negated_operands(const lang::Term& source, PExpr& inner, PBody& operands) {
        std::string name = source.call_name();
        if (name == "eq") {  // `not a = b`: each side as a term
            hoist_in_term(inner.a, operands);
            hoist_in_term(inner.b, operands);
        } else if (inner.op == ExprOp::Unify && inner.b.op == TermOp::Call) {  // f(x, out)
            for (auto& arg : inner.b.elems) hoist(arg, operands);
        } else if (inner.op == ExprOp::Truthy && inner.a.op == TermOp::Call && source.kind == TermKind::Call) {
            if (inner.a.callee->name == "print") return;  // print shows undefined operands itself
            if (name == "equal" && module && module->ast && inner.a.elems.size() == 2) {
                // In modules OPA first turns `a == b` into `a = b` (its "rewrite
                // equals" stage), so the sides stay in place as `=`'s do; a
                // query keeps `==` a call.
                for (auto& side : inner.a.elems) hoist_in_term(side, operands);
                return;
            }
            for (auto& arg : inner.a.elems) hoist(arg, operands);
        } else if (inner.op == ExprOp::Truthy) {
            hoist_in_term(inner.a, operands);
        }
    }

    // A term that stays in place: only what it contains moves out.
    void hoist_in_term(PTerm& t, PBody& operands) {
        switch (t.op) {
            case TermOp::Ref:
                if (!t.elems.empty() && t.elems[0].op == TermOp::Call) hoist(t.elems[0], operands);
                for (std::size_t i = 1; i < t.elems.size(); ++i) hoist(t.elems[i], operands);
                return;
            case TermOp::Call:
            case TermOp::Array:
            case TermOp::Set:
            case TermOp::Object: hoist(t, operands); return;
            default: return;
        }
    }

    // An operand: refs and calls become slots bound before the negation; composites are searched.
    void hoist(PTerm& t, PBody& operands) {
        switch (t.op) {
            case TermOp::Input:  // `input` alone is a ref too
            case TermOp::Ref:
            case TermOp::Call: {
                if (t.op == TermOp::Call && t.callee->name == "print") return;
                for (std::size_t i = t.op == TermOp::Ref ? 1 : 0; i < t.elems.size(); ++i) hoist(t.elems[i], operands);
                if (t.op == TermOp::Ref && !t.elems.empty() && t.elems[0].op == TermOp::Call) hoist(t.elems[0], operands);
                PExpr bind;
                bind.op = ExprOp::Unify;
                bind.loc = t.loc;
                bind.text = std::string(t.loc.text());
                uint32_t slot = new_slot("$operand");
                bind.a = local(slot, t.loc);
                bind.b = std::move(t);
                t = local(slot, bind.loc);
                operands.exprs.push_back(std::move(bind));
                return;
            }
            case TermOp::Array:
            case TermOp::Set:
                for (auto& e : t.elems) hoist(e, operands);
                return;
            case TermOp::Object:
                for (auto& [k, v] : t.items) {
                    hoist(k, operands);
                    hoist(v, operands);
                }
                return;
            default: return;
        }
    }

    void plan_term_expr(const lang::Term& t, VarScope& scope, PExpr& out) {
        std::string name = t.call_name();
        if (name == "eq" || name == "assign") {
            out.op = ExprOp::Unify;
            out.a = plan_term(t.elems[1], scope);
            out.b = plan_term(t.elems[2], scope);
            return;
        }
        if (t.kind == TermKind::Call) {
            PTerm call = plan_call(t, scope);
            const Callee& c = *call.callee;
            std::size_t arity = c.function ? c.function->arity : c.builtin ? c.builtin->arity : call.elems.size();
            if (call.elems.size() == arity + 1 && arity + 1 > 0 && (c.function || c.builtin)) {
                // f(x, out): the last argument receives the result.
                out.op = ExprOp::Unify;
                out.a = std::move(call.elems.back());
                call.elems.pop_back();
                out.b = std::move(call);
                return;
            }
            out.op = ExprOp::Truthy;
            out.a = std::move(call);
            return;
        }
        out.op = ExprOp::Truthy;
        out.a = plan_term(std::make_shared<lang::Term>(t), scope);
    }

    PWith plan_with(const lang::With& w, VarScope& scope) {
        PWith out;
        out.loc = w.loc;
        // `with f as g`: g may name a function or builtin rather than a value.
        if (w.value->kind == TermKind::Var || w.value->kind == TermKind::Ref) {
            auto replacement = find_callee(*w.value);
            bool local = w.value->kind == TermKind::Var ? scope.find(w.value->text) != nullptr
                                                        : (w.value->elems[0]->kind == TermKind::Var && scope.find(w.value->elems[0]->text));
            if (!local && (replacement->function || replacement->builtin)) out.replacement = replacement;
        }
        if (!out.replacement) out.value = plan_term(w.value, scope);
        const lang::Term& target = *w.target;
        std::vector<std::string> parts;
        if (target.kind == TermKind::Var) {
            parts.push_back(target.text);
        } else if (target.kind == TermKind::Ref) {
            for (const auto& p : target.elems) parts.push_back(p->text);
        }
        if (parts.empty()) {
            error(w.loc, lang::codes::type_error, "with target must be a reference");
            return out;
        }
        // Resolve an import alias or a package rule to its full path.
        std::vector<std::string> full;
        if (parts[0] == "input" || parts[0] == "data") {
            full = parts;
        } else if (module && module->imports.count(parts[0])) {
            full = module->imports.at(parts[0]);
            full.insert(full.end(), parts.begin() + 1, parts.end());
        } else if (module && module->rule_names && module->rule_names->count(parts[0])) {
            full.push_back("data");
            full.insert(full.end(), module->package.begin(), module->package.end());
            full.insert(full.end(), parts.begin(), parts.end());
        } else {
            full = parts;
        }
        if (full[0] == "input") {
            out.target = PWith::Target::Input;
            out.path.assign(full.begin() + 1, full.end());
            return out;
        }
        if (full[0] == "data") {
            std::vector<std::string> path(full.begin() + 1, full.end());
            const DataNode* node = program.node_at(path);
            if (node && node->rules && node->rules->kind == RuleKind::Function) {
                out.target = PWith::Target::Function;
                out.function_name = node->rules->dotted();
            } else {
                out.target = PWith::Target::Data;
            }
            out.path = std::move(path);
            return out;
        }
        std::string dotted;
        for (const auto& p : full) dotted += (dotted.empty() ? "" : ".") + p;
        if (!program.find_builtin(dotted) && dotted != "print") {
            error(w.loc, lang::codes::type_error, fmt::format("with keyword cannot replace {}: not a builtin or function", dotted));
        }
        out.target = PWith::Target::Function;
        out.function_name = dotted;
        return out;
    }

    // ---- bodies and ordering ---------------------------------------------------------

    PBody plan_body(const lang::Body& body, VarScope& scope, uint32_t first_local) {
        PBody out;
        out.first_local = first_local;
        for (std::size_t i = 0; i < body.size(); ++i) {
            scope.current = i;
            out.exprs.push_back(plan_expr(body[i], scope));
        }
        order_body(out, first_local);
        return out;
    }

    // Variables a term can bind (pattern positions and ref iteration) and those it needs bound.
    static void term_vars(const PTerm& t, std::set<uint32_t>& outputs, std::set<uint32_t>& needs, uint32_t first,
                          bool pattern) {
        switch (t.op) {
            case TermOp::Local: (pattern ? outputs : needs).insert(t.slot); break;
            case TermOp::Ref:
                if (!t.elems.empty() && t.elems[0].op == TermOp::Local) needs.insert(t.elems[0].slot);
                else if (!t.elems.empty()) term_vars(t.elems[0], outputs, needs, first, false);
                for (std::size_t i = 1; i < t.elems.size(); ++i) term_vars(t.elems[i], outputs, needs, first, true);
                break;
            case TermOp::Array:
            case TermOp::Set:
                for (const auto& e : t.elems) term_vars(e, outputs, needs, first, pattern && t.op == TermOp::Array);
                break;
            case TermOp::Object:
                for (const auto& [k, v] : t.items) {
                    term_vars(k, outputs, needs, first, false);
                    term_vars(v, outputs, needs, first, pattern);
                }
                break;
            case TermOp::Call:
            case TermOp::Template:
                for (const auto& e : t.elems) term_vars(e, outputs, needs, first, false);
                break;
            case TermOp::ArrayCompr:
            case TermOp::SetCompr:
            case TermOp::ObjectCompr: {
                std::set<uint32_t> all;
                for (const auto& e : t.elems) all_vars(e, all);
                body_vars(*t.body, all);
                for (uint32_t s : all)
                    if (s < t.body->first_local) needs.insert(s);
                break;
            }
            default: break;
        }
    }

    // Variables a term uses from its surroundings: comprehensions count only
    // what they capture from outside.
    static void free_vars(const PTerm& t, std::set<uint32_t>& out) {
        if (t.op == TermOp::Local) out.insert(t.slot);
        if (t.body) {
            std::set<uint32_t> inner;
            for (const auto& e : t.elems) all_vars(e, inner);
            body_vars(*t.body, inner);
            for (uint32_t s : inner)
                if (s < t.body->first_local) out.insert(s);
            return;
        }
        for (const auto& e : t.elems) free_vars(e, out);
        for (const auto& [k, v] : t.items) {
            free_vars(k, out);
            free_vars(v, out);
        }
    }

    static void all_vars(const PTerm& t, std::set<uint32_t>& out) {
        if (t.op == TermOp::Local) out.insert(t.slot);
        for (const auto& e : t.elems) all_vars(e, out);
        for (const auto& [k, v] : t.items) {
            all_vars(k, out);
            all_vars(v, out);
        }
        if (t.body) body_vars(*t.body, out);
    }

    static void body_vars(const PBody& b, std::set<uint32_t>& out) {
        for (const auto& e : b.exprs) {
            all_vars(e.a, out);
            all_vars(e.b, out);
            all_vars(e.key, out);
            all_vars(e.value, out);
            all_vars(e.domain, out);
            if (e.body) body_vars(*e.body, out);
            if (e.operands) body_vars(*e.operands, out);
            for (const auto& alt : e.alternatives) body_vars(*alt, out);
            for (const auto& w : e.withs) all_vars(w.value, out);
        }
    }

    static void expr_vars(const PExpr& e, std::set<uint32_t>& outputs, std::set<uint32_t>& needs, uint32_t first) {
        switch (e.op) {
            case ExprOp::Truthy:
                term_vars(e.a, outputs, needs, first, false);
                // A variable the literal's own refs bind is no precondition (`x == xs[x]`).
                for (uint32_t s : outputs) needs.erase(s);
                break;
            case ExprOp::Unify:
                term_vars(e.a, outputs, needs, first, true);
                term_vars(e.b, outputs, needs, first, true);
                break;
            case ExprOp::Iterate:
                term_vars(e.domain, outputs, needs, first, false);
                if (e.key_present) term_vars(e.key, outputs, needs, first, true);
                term_vars(e.value, outputs, needs, first, true);
                break;
            case ExprOp::Every: {
                term_vars(e.domain, outputs, needs, first, false);
                std::set<uint32_t> inner, own;
                body_vars(*e.body, inner);
                all_vars(e.key, own);
                all_vars(e.value, own);
                for (uint32_t s : inner)
                    if (s < e.body->first_local && !own.count(s)) needs.insert(s);
                break;
            }
            case ExprOp::Not:
            case ExprOp::And:
            case ExprOp::Or: {
                // Variables of the enclosing body used inside must be bound first.
                std::set<uint32_t> inner;
                if (e.body) {
                    body_vars(*e.body, inner);
                    if (e.operands) body_vars(*e.operands, inner);
                    for (uint32_t s : inner)
                        if (s < e.body->first_local) needs.insert(s);
                }
                for (const auto& alt : e.alternatives) {
                    inner.clear();
                    body_vars(*alt, inner);
                    for (uint32_t s : inner)
                        if (s < alt->first_local) needs.insert(s);
                }
                break;
            }
        }
        for (const auto& w : e.withs) {
            std::set<uint32_t> ignored;
            term_vars(w.value, ignored, needs, first, false);
            for (uint32_t s : ignored) needs.insert(s);
        }
    }

    // Local variables in a unification pattern's own positions (not inside refs or calls).
    static void pattern_locals(const PTerm& t, std::set<uint32_t>& out) {
        switch (t.op) {
            case TermOp::Local: out.insert(t.slot); break;
            case TermOp::Array:
                for (const auto& e : t.elems) pattern_locals(e, out);
                break;
            case TermOp::Object:
                for (const auto& [k, v] : t.items) pattern_locals(v, out);
                break;
            default: break;
        }
    }

    // Does `a = b` bind every variable of its patterns, given `bound`? A side's
    // variables are bound only from a side that is known (element-wise for
    // arrays and objects with the same constant keys): `x = y` with both
    // unbound binds nothing, and is unsafe as in OPA.
    static bool unify_binds_all(const PTerm& a, const PTerm& b, std::set<uint32_t> bound) {
        auto known = [&](const PTerm& t) {
            std::set<uint32_t> locals;
            pattern_locals(t, locals);
            return std::all_of(locals.begin(), locals.end(), [&](uint32_t s) { return bound.count(s) > 0; });
        };
        auto bind_all = [&](const PTerm& t) {
            std::set<uint32_t> locals;
            pattern_locals(t, locals);
            bound.insert(locals.begin(), locals.end());
        };
        std::function<bool(const PTerm&, const PTerm&)> step = [&](const PTerm& x, const PTerm& y) {
            bool changed = false;
            if (x.op == TermOp::Array && y.op == TermOp::Array && x.elems.size() == y.elems.size()) {
                for (std::size_t i = 0; i < x.elems.size(); ++i) changed |= step(x.elems[i], y.elems[i]);
                return changed;
            }
            if (x.op == TermOp::Object && y.op == TermOp::Object && x.items.size() == y.items.size()) {
                bool paired = true;
                for (const auto& [xk, xv] : x.items) {
                    const PTerm& key = xk;  // a structured binding is not captured (C++17 rules, clang 14)
                    auto it = std::find_if(y.items.begin(), y.items.end(), [&](const auto& item) {
                        return key.op == TermOp::Const && item.first.op == TermOp::Const && item.first.value == key.value;
                    });
                    if (it == y.items.end()) paired = false;
                    else changed |= step(xv, it->second);
                }
                if (paired) return changed;
            }
            if (!known(x) && known(y)) bind_all(x), changed = true;
            if (!known(y) && known(x)) bind_all(y), changed = true;
            return changed;
        };
        while (step(a, b)) {
        }
        return known(a) && known(b);
    }

    // Reorders literals so each runs once what it needs is bound; the original
    // order is kept wherever it already works.
    void order_body(PBody& body, uint32_t first_local) {
        std::set<uint32_t> bound;
        // Locals of enclosing scopes are bound before a nested body runs.
        for (uint32_t s = 0; s < first_local; ++s) bound.insert(s);
        order_exprs(body.exprs, bound, first_local);
    }

    void order_exprs(std::vector<PExpr>& exprs, std::set<uint32_t>& bound, uint32_t first_local) {
        std::vector<PExpr> ordered;
        std::vector<bool> done(exprs.size(), false);
        // Needs computed against the body's own first local: what is declared at this level.
        std::vector<std::set<uint32_t>> outs(exprs.size()), needs(exprs.size());
        for (std::size_t i = 0; i < exprs.size(); ++i) {
            expr_vars(exprs[i], outs[i], needs[i], next_slot);
            // A nested body's needs are the locals of this level (and above) it uses.
        }
        for (std::size_t n = 0; n < exprs.size(); ++n) {
            std::size_t pick = exprs.size();
            for (std::size_t i = 0; i < exprs.size() && pick == exprs.size(); ++i) {
                if (done[i]) continue;
                bool ready = std::all_of(needs[i].begin(), needs[i].end(), [&](uint32_t s) { return bound.count(s); });
                if (ready && exprs[i].op == ExprOp::Unify) ready = unify_binds_all(exprs[i].a, exprs[i].b, bound);
                if (ready) pick = i;
            }
            if (pick == exprs.size()) {
                // Nothing can run: report the first variable that is never bound.
                for (std::size_t i = 0; i < exprs.size(); ++i) {
                    if (done[i]) continue;
                    for (uint32_t s : needs[i]) {
                        if (bound.count(s)) continue;
                        error(exprs[i].loc, lang::codes::unsafe_var_error,
                              fmt::format("var {} is unsafe", display_name(s)));
                        return;
                    }
                }
                // Only unifications of unknowns remain (`x = y`): name the first variable never bound.
                for (std::size_t i = 0; i < exprs.size(); ++i) {
                    if (done[i] || exprs[i].op != ExprOp::Unify) continue;
                    // The right side first: in `msg := unknown` the culprit is `unknown`.
                    for (const PTerm* side : {&exprs[i].b, &exprs[i].a}) {
                        std::set<uint32_t> locals;
                        pattern_locals(*side, locals);
                        for (uint32_t s : locals) {
                            if (bound.count(s)) continue;
                            error(exprs[i].loc, lang::codes::unsafe_var_error,
                                  fmt::format("var {} is unsafe", display_name(s)));
                            return;
                        }
                    }
                }
                return;
            }
            done[pick] = true;
            for (uint32_t s : outs[pick]) bound.insert(s);
            ordered.push_back(std::move(exprs[pick]));
        }
        (void)first_local;
        exprs = std::move(ordered);
    }

    std::string display_name(uint32_t slot) const {
        return slot < slot_names.size() ? slot_names[slot] : fmt::format("${}", slot);
    }

    // The head of a rule or comprehension may only use variables its body binds.
    void check_head_safe(const std::vector<PTerm>& head, const PBody& body, uint32_t first_local, const Location& loc) {
        std::set<uint32_t> bound;
        for (uint32_t s = 0; s < first_local; ++s) bound.insert(s);
        for (const auto& e : body.exprs) {
            std::set<uint32_t> outs, needs;
            expr_vars(e, outs, needs, next_slot);
            bound.insert(outs.begin(), outs.end());
        }
        for (const auto& t : head) {
            std::set<uint32_t> all;
            free_vars(t, all);
            for (uint32_t s : all) {
                if (!bound.count(s) && slot_names[s] != "_") {
                    error(loc, lang::codes::unsafe_var_error, fmt::format("var {} is unsafe", display_name(s)));
                    return;
                }
            }
        }
    }

    // ---- rules -----------------------------------------------------------------------

    std::shared_ptr<PRule> plan_rule(const lang::Rule& r, const lang::Rule& first, RuleKind kind, std::size_t static_len) {
        next_slot = 0;
        slot_names.clear();
        auto out = std::make_shared<PRule>();
        out->loc = r.loc;
        out->is_default = r.is_default;
        VarScope scope;
        const lang::RuleHead& head = r.head.ref ? r.head : first.head;  // else clauses share the first head
        // Function parameters are bound on entry.
        std::set<uint32_t> params_bound;
        // A template string parameter (`f($"{x} y")`) is a fresh parameter that
        // must equal the rendered template once the body has bound its variables.
        std::vector<std::pair<uint32_t, TermPtr>> template_params;
        if (kind == RuleKind::Function) {
            for (const auto& a : head.args)
                if (a->kind == TermKind::Template) template_params.emplace_back(new_slot("__template_param"), a);
            std::vector<std::string> names;
            for (const auto& a : head.args)
                if (a->kind != TermKind::Template) names_in_term(a, names);  // a template's vars come from the body
            for (const auto& n : names)
                if (n != "_" && !scope.vars.count(n)) scope.vars[n] = new_slot(n);
        }
        uint32_t params_end = next_slot;
        declare_body(r.body, scope);
        // Head variables not in the body are still locals of the rule.
        std::vector<std::string> head_names;
        if (head.key) names_in_term(head.key, head_names);
        if (r.head.value) names_in_term(r.head.value, head_names);
        for (std::size_t i = static_len; head.ref && i < head.ref->elems.size(); ++i) names_in_term(head.ref->elems[i], head_names);
        for (const auto& n : head_names)
            if (n != "_" && !scope.find(n) && !is_global(n)) scope.vars[n] = new_slot(n);

        if (kind == RuleKind::Function)
            for (std::size_t i = 0, t = 0; i < head.args.size(); ++i)
                out->params.push_back(head.args[i]->kind == TermKind::Template
                                          ? local(template_params[t++].first, head.args[i]->loc)
                                          : plan_term(head.args[i], scope));
        for (std::size_t i = 0; i < r.body.size(); ++i) {
            scope.current = i;
            out->body.exprs.push_back(plan_expr(r.body[i], scope));
        }
        scope.current = r.body.size();  // the head sees every declaration
        for (const auto& [slot, term] : template_params) {
            PExpr match;
            match.op = ExprOp::Unify;
            match.a = local(slot, term->loc);
            match.b = plan_term(term, scope);
            match.loc = term->loc;
            out->body.exprs.push_back(std::move(match));
        }
        order_body(out->body, params_end);

        // The dynamic part of a ref head (`p[q].r`) is the key path of the produced leaf.
        if ((kind == RuleKind::PartialSet || kind == RuleKind::PartialObject) && head.ref)
            for (std::size_t i = static_len; i < head.ref->elems.size(); ++i) out->key_path.push_back(plan_term(head.ref->elems[i], scope));
        if (kind == RuleKind::PartialSet)
            out->value = plan_term(head.key, scope);  // the element
        else
            out->value = r.head.value ? plan_term(r.head.value, scope) : constant(Value::boolean(true), r.loc);
        std::vector<PTerm> head_terms = out->key_path;
        head_terms.push_back(out->value);
        check_head_safe(head_terms, out->body, params_end, r.loc);
        out->slots = next_slot;
        if (r.else_rule) out->else_rule = plan_rule(*r.else_rule, first, kind, static_len);
        out->slots = std::max(out->slots, out->else_rule ? out->else_rule->slots : 0);
        return out;
    }
};

// The static part of a rule's head ref: the name and the string parts after it.
std::size_t static_length(const lang::RuleHead& head) {
    std::size_t n = 1;
    while (n < head.ref->elems.size() && head.ref->elems[n]->kind == TermKind::String) ++n;
    return n;
}

RuleKind kind_of(const lang::RuleHead& head, std::size_t static_len) {
    if (head.has_args) return RuleKind::Function;
    if (head.contains || head.v0_bracket) return RuleKind::PartialSet;  // its set may sit below a ref (`p[q] contains r`)
    if (static_len < head.ref->elems.size()) return RuleKind::PartialObject;
    return RuleKind::Complete;
}

std::vector<std::string> package_path(const lang::Module& m) {
    std::vector<std::string> out;
    const auto& elems = m.package.path->kind == TermKind::Ref ? m.package.path->elems : std::vector<TermPtr>{m.package.path};
    for (const auto& e : elems) out.push_back(e->text);
    return out;  // `package a.b` is data.a.b: the parser keeps the parts after `package`
}

// ---- rule indexing ---------------------------------------------------------------------
// Stage 6: find the constant tests of input in each rule body, and where many
// rules of one set test the same input path, group them by the value tested.

std::optional<IndexCondition> index_condition(const PExpr& e) {
    if (!e.withs.empty()) return std::nullopt;
    const PTerm* a = nullptr;
    const PTerm* b = nullptr;
    if (e.op == ExprOp::Unify) {
        a = &e.a;
        b = &e.b;
    } else if (e.op == ExprOp::Truthy && e.a.op == TermOp::Call && e.a.callee && e.a.callee->builtin &&
               e.a.callee->builtin->name == "equal" && e.a.elems.size() == 2) {
        a = &e.a.elems[0];
        b = &e.a.elems[1];
    } else {
        return std::nullopt;
    }
    if (a->op == TermOp::Const) std::swap(a, b);
    if (b->op != TermOp::Const || a->op != TermOp::Ref || a->elems.empty() || a->elems[0].op != TermOp::Input)
        return std::nullopt;
    IndexCondition c;
    for (std::size_t i = 1; i < a->elems.size(); ++i) {
        if (a->elems[i].op != TermOp::Const) return std::nullopt;
        c.path.push_back(a->elems[i].value);
    }
    c.value = b->value;
    return c;
}

void build_index(RuleSet& set) {
    if (set.kind == RuleKind::Function) return;
    std::map<std::vector<Value>, std::size_t> paths;
    for (auto& rule : set.rules) {
        if (rule->else_rule) continue;  // an else clause runs exactly when the body fails
        for (const auto& e : rule->body.exprs)
            if (auto c = index_condition(e)) rule->index.push_back(std::move(*c));
        for (const auto& c : rule->index) ++paths[c.path];
    }
    // A hash index pays off once several rules test one path.
    const std::vector<Value>* best = nullptr;
    std::size_t best_count = 0;
    for (const auto& [path, count] : paths)
        if (count > best_count) {
            best = &path;
            best_count = count;
        }
    if (!best || best_count < 4) return;
    auto index = std::make_unique<RuleIndex>();
    index->path = *best;
    for (std::size_t i = 0; i < set.rules.size(); ++i) {
        const IndexCondition* on_path = nullptr;
        for (const auto& c : set.rules[i]->index)
            if (c.path == index->path) on_path = &c;
        if (on_path) index->by_value[on_path->value].push_back(i);
        else index->unindexed.push_back(i);
    }
    set.rule_index = std::move(index);
}

// ---- recursion -----------------------------------------------------------------------
// Stage 5: a rule that depends on itself, directly or through others, is an
// error before anything runs. Dependencies are the rules a rule's refs name
// statically and the functions it calls.

void rule_dependencies(const Program& program, const PTerm& t, std::set<const RuleSet*>& out);

void body_dependencies(const Program& program, const PBody& b, std::set<const RuleSet*>& out) {
    for (const auto& e : b.exprs) {
        for (const PTerm* t : {&e.a, &e.b, &e.key, &e.value, &e.domain}) rule_dependencies(program, *t, out);
        if (e.body) body_dependencies(program, *e.body, out);
        if (e.operands) body_dependencies(program, *e.operands, out);
        for (const auto& alt : e.alternatives) body_dependencies(program, *alt, out);
        for (const auto& w : e.withs) rule_dependencies(program, w.value, out);
    }
}

void rule_dependencies(const Program& program, const PTerm& t, std::set<const RuleSet*>& out) {
    if (t.op == TermOp::Ref && !t.elems.empty() && t.elems[0].op == TermOp::Data) {
        const DataNode* node = &program.root;
        for (std::size_t i = 1; i < t.elems.size() && node; ++i) {
            if (node->rules) break;
            const PTerm& part = t.elems[i];
            if (part.op != TermOp::Const || !part.value.is_string()) {
                node = nullptr;  // a dynamic part: no static dependency
                break;
            }
            auto it = node->children.find(std::string(part.value.as_string()));
            node = it == node->children.end() ? nullptr : it->second.get();
        }
        if (node && node->rules) out.insert(node->rules);
    }
    if (t.op == TermOp::Call && t.callee && t.callee->function) out.insert(t.callee->function);
    for (const auto& e : t.elems) rule_dependencies(program, e, out);
    for (const auto& [k, v] : t.items) {
        rule_dependencies(program, k, out);
        rule_dependencies(program, v, out);
    }
    if (t.body) body_dependencies(program, *t.body, out);
}

void check_recursion(const Program& program, lang::Diagnostics& diags) {
    std::map<const RuleSet*, std::set<const RuleSet*>> deps;
    for (const auto& set : program.rule_sets) {
        auto& d = deps[set.get()];
        auto add_rule = [&](const PRule& first) {
            for (const PRule* r = &first; r; r = r->else_rule.get()) {
                body_dependencies(program, r->body, d);
                rule_dependencies(program, r->value, d);
                for (const auto& k : r->key_path) rule_dependencies(program, k, d);
            }
        };
        for (const auto& r : set->rules) add_rule(*r);
        if (set->default_rule) add_rule(*set->default_rule);
    }
    enum class Mark : uint8_t { None, Active, Done };
    std::map<const RuleSet*, Mark> mark;
    std::vector<const RuleSet*> stack;
    std::set<const RuleSet*> reported;
    std::function<void(const RuleSet*)> visit = [&](const RuleSet* r) {
        mark[r] = Mark::Active;
        stack.push_back(r);
        for (const RuleSet* d : deps[r]) {
            if (mark[d] == Mark::Active) {
                auto from = std::find(stack.begin(), stack.end(), d);
                std::string cycle;
                for (auto it = from; it != stack.end(); ++it) cycle += (*it)->dotted() + " -> ";
                cycle += d->dotted();
                if (reported.insert(d).second)
                    diags.add(d->loc, lang::codes::recursion_error, fmt::format("rule {} is recursive: {}", d->dotted(), cycle));
            } else if (mark[d] == Mark::None) {
                visit(d);
            }
        }
        stack.pop_back();
        mark[r] = Mark::Done;
    };
    for (const auto& set : program.rule_sets)
        if (mark[set.get()] == Mark::None) visit(set.get());
}

}  // namespace

lang::Diagnostics plan_modules(const std::vector<const lang::Module*>& modules, Program& program) {
    lang::Diagnostics diags;
    struct Pending {
        const lang::Module* module;
        const lang::Rule* rule;
        RuleSet* set;
        std::size_t static_len;
    };
    std::vector<Pending> pending;
    std::map<std::vector<std::string>, std::set<std::string>> rule_names;

    // Stage 1: the rule tree.
    for (const lang::Module* m : modules) {
        auto pkg = package_path(*m);
        DataNode* pkg_node = &program.root;
        for (const auto& p : pkg) {
            auto& child = pkg_node->children[p];
            if (!child) child = std::make_unique<DataNode>();
            pkg_node = child.get();
        }
        auto& names = rule_names[pkg];
        for (const auto& rule : m->rules) {
            std::size_t static_len = static_length(rule.head);
            RuleKind kind = kind_of(rule.head, static_len);
            std::vector<std::string> path = pkg;
            for (std::size_t i = 0; i < static_len; ++i) path.push_back(rule.head.ref->elems[i]->text);
            names.insert(path[pkg.size()]);
            DataNode* node = &program.root;
            for (const auto& p : path) {
                node->has_rules_below = true;
                auto& child = node->children[p];
                if (!child) child = std::make_unique<DataNode>();
                node = child.get();
            }
            if (!node->rules) {
                auto set = std::make_unique<RuleSet>();
                set->path = path;
                set->kind = kind;
                set->arity = rule.head.args.size();
                set->loc = rule.loc;
                set->index = program.rule_sets.size();
                node->rules = set.get();
                program.rule_sets.push_back(std::move(set));
            } else if (node->rules->kind != kind ||
                       (kind == RuleKind::Function && node->rules->arity != rule.head.args.size())) {
                diags.add(rule.loc, lang::codes::type_error,
                          fmt::format("conflicting rules {} found", node->rules->dotted()));
                continue;
            }
            pending.push_back({m, &rule, node->rules, static_len});
        }
    }
    // A rule path that is also a prefix of another rule's path is a conflict.
    for (const auto& set : program.rule_sets) {
        const DataNode* node = program.node_at(set->path);
        if (node && !node->children.empty() && set->kind == RuleKind::Function)
            diags.add(set->loc, lang::codes::type_error, fmt::format("rule {} conflicts with rules below it", set->dotted()));
    }

    // Stages 2-4 per rule.
    std::map<const lang::Module*, ModuleScope> scopes;
    for (const lang::Module* m : modules) {
        ModuleScope& s = scopes[m];
        s.package = package_path(*m);
        s.rule_names = &rule_names[s.package];
        s.rego_v1 = m->rego_v1;
        s.ast = m;
        s.all_modules = &modules;
        for (const auto& imp : m->imports) {
            std::vector<std::string> path;
            for (const auto& p : imp.path->elems) path.push_back(p->text);
            if (imp.path->kind == TermKind::Var) path = {imp.path->text};
            if (path == std::vector<std::string>{"future", "keywords", "not"}) s.not_whole_expression = true;
            if (path.empty() || (path[0] != "data" && path[0] != "input")) continue;  // future.*, rego.v1
            std::string alias = imp.alias.empty() ? path.back() : imp.alias;
            s.imports[alias] = path;
        }
    }
    for (const auto& p : pending) {
        if (p.rule->else_rule && (p.set->kind == RuleKind::PartialSet || p.set->kind == RuleKind::PartialObject)) {
            diags.add(p.rule->loc, lang::codes::type_error,
                      p.set->kind == RuleKind::PartialSet ? "else keyword cannot be used on multi-value rules"
                                                          : "else keyword cannot be used on rules with variables in head");
            continue;
        }
        Planner planner(program, diags);
        planner.module = &scopes[p.module];
        planner.current_rule = p.rule;
        auto rule = planner.plan_rule(*p.rule, *p.rule, p.set->kind, p.static_len);
        if (p.rule->is_default) {
            if (p.set->default_rule)
                diags.add(p.rule->loc, lang::codes::type_error, fmt::format("multiple default rules {} found", p.set->dotted()));
            p.set->default_rule = rule;
        } else {
            p.set->rules.push_back(rule);
        }
        // v0 `p { a } { b }`: each further body is a rule of its own with the same head.
        for (const auto& extra : p.rule->extra_bodies) {
            lang::Rule copy = *p.rule;
            copy.body = extra;
            copy.extra_bodies.clear();
            copy.else_rule.reset();
            Planner again(program, diags);
            again.module = &scopes[p.module];
            again.current_rule = p.rule;
            p.set->rules.push_back(again.plan_rule(copy, copy, p.set->kind, p.static_len));
        }
    }
    if (diags.empty()) check_recursion(program, diags);
    for (auto& set : program.rule_sets) build_index(*set);
    return diags;
}

lang::Diagnostics plan_query(const lang::Body& body, const Program& program, PlannedQuery& out) {
    lang::Diagnostics diags;
    Planner planner(const_cast<Program&>(program), diags);
    ModuleScope empty;
    static const std::set<std::string> no_rules;
    empty.rule_names = &no_rules;
    empty.rego_v1 = !program.v0_compatible;
    planner.module = &empty;
    VarScope scope;
    planner.declare_body(body, scope);
    std::map<std::string, uint32_t> visible = scope.vars;
    out.body.first_local = 0;
    for (std::size_t i = 0; i < body.size(); ++i) {
        scope.current = i;
        PExpr planned = planner.plan_expr(body[i], scope);
        planned.result_slot = static_cast<int32_t>(planner.new_slot("__expr"));
        out.body.exprs.push_back(std::move(planned));
    }
    planner.order_body(out.body, 0);
    out.slots = planner.next_slot;
    for (const auto& [name, slot] : visible)
        if (name != "_" && name.rfind("__", 0) != 0 && name[0] != '$') out.variables.emplace_back(name, slot);
    return diags;
}

}  // namespace gavel::eval
