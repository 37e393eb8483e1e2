#include "runtime/eval/planner.hpp"
#include "runtime/eval/comprehension_index.hpp"
#include "runtime/eval/repeatable.hpp"
#include "runtime/eval/shared_prefix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "lang/copy.hpp"
#include "compiler/ast/data_paths.hpp"
#include "compiler/ast/terms.hpp"
#include "compiler/ast/var_visitor.hpp"
#include "lang/term_order.hpp"
#include "lang/walk.hpp"
#include "runtime/eval/term_values.hpp"
#include "support/split_escaped.hpp"

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

bool is_generated_name(std::string_view v) { return v.rfind("__local", 0) == 0; }

// ---- fusing the compiler's temporaries -----------------------------------------------
// The compiler binds every nested call and every ref operand to a variable of
// its own (`g(x, t); f(t)`), which is what OPA evaluates. Where the variable
// is used once, by the very next expression, outside any negation or
// closure, evaluating the term in place means the same and costs one
// expression less: `f(g(x))`.

// How often each variable occurs in a rule (heads, bodies, nested bodies).
using Counts = std::map<std::string, std::size_t>;

void count_vars(const lang::Term& t, Counts& counts) {
    lang::walk_terms(t, [&](const lang::Term& x) {
        if (x.kind == TermKind::Var) ++counts[x.text];
        return false;
    });
}

void count_vars(const lang::Body& b, Counts& counts) {
    lang::walk_terms_in_body(b, [&](const lang::Term& x) {
        if (x.kind == TermKind::Var) ++counts[x.text];
        return false;
    });
}

// The temporary a generated expression binds and the term it binds it to.
struct Temporary {
    std::string var;
    TermPtr value;
};

std::optional<Temporary> temporary_of(const lang::Expr& e) {
    if (!e.generated || e.negated || !e.withs.empty() || !compiler::is_call_expr(e)) return std::nullopt;
    const auto& elems = e.term->elems;
    if (compiler::is_equality(e)) {
        if (elems.size() == 3 && elems[1]->kind == TermKind::Var && is_generated_name(elems[1]->text))
            return Temporary{elems[1]->text, elems[2]};
        return std::nullopt;
    }
    // f(args..., t): the call without its output.
    const TermPtr& out = elems.back();
    if (elems.size() < 2 || out->kind != TermKind::Var || !is_generated_name(out->text)) return std::nullopt;
    auto call = std::make_shared<lang::Term>(*e.term);
    call->elems.pop_back();
    return Temporary{out->text, call};
}

// Replaces the one occurrence of `var` among the terms `t` evaluates itself
// (not in closures); false when it is not there.
bool substitute(TermPtr& t, const Temporary& tmp) {
    switch (t->kind) {
        case TermKind::Var:
            if (t->text != tmp.var) return false;
            t = tmp.value;
            return true;
        case TermKind::Ref:
        case TermKind::Array:
        case TermKind::Set:
        case TermKind::Call:
            for (auto& e : t->elems)
                if (substitute(e, tmp)) return true;
            return false;
        case TermKind::Object:
            for (auto& [k, v] : t->items)
                if (substitute(k, tmp) || substitute(v, tmp)) return true;
            return false;
        default: return false;
    }
}

// Whether `var` is reached in `t` before anything that may be undefined or fail: a ref (or a
// lookup in one before the variable's key), a call, a comprehension. Fused there it runs
// first, as OPA runs the expression the compiler hoisted it into (`input.a == f(x)`: f's
// error comes before input.a's absence). `found` is set where it occurs.
bool reached_first(const lang::Term& t, const std::string& var, bool& found) {
    auto may_fail = [](const lang::Term& x) {
        bool fails = false;
        lang::walk_terms(x, [&](const lang::Term& y) {
            if (y.kind == TermKind::Ref || y.kind == TermKind::Call || y.body || y.kind == TermKind::Template)
                fails = true;
            return fails;
        });
        return fails;
    };
    switch (t.kind) {
        case TermKind::Var: found = t.text == var; return true;
        case TermKind::Ref:
            // Looking up the parts before the variable's may end the ref first.
            return reached_first(*t.elems[0], var, found);
        case TermKind::Array:
        case TermKind::Set:
        case TermKind::Call:
            for (std::size_t i = t.kind == TermKind::Call ? 1 : 0; i < t.elems.size(); ++i) {
                if (!reached_first(*t.elems[i], var, found)) return false;
                if (found) return true;
                if (may_fail(*t.elems[i])) return false;
            }
            return true;
        case TermKind::Object:
            for (const auto& [k, v] : t.items)
                for (const auto* x : {k.get(), v.get()}) {
                    if (!reached_first(*x, var, found)) return false;
                    if (found) return true;
                    if (may_fail(*x)) return false;
                }
            return true;
        default: return true;
    }
}

bool substitute_into(lang::Expr& e, const Temporary& tmp) {
    if (e.negated || !e.withs.empty()) return false;
    if (e.kind == ExprKind::Term) {
        bool found = false;
        return reached_first(*e.term, tmp.var, found) && found && substitute(e.term, tmp);
    }
    if (e.kind == ExprKind::Every) return substitute(e.every.domain, tmp);
    return false;
}

void fuse(lang::Body& body, const Counts& counts) {
    lang::Body out;
    out.reserve(body.size());
    for (std::size_t i = 0; i < body.size(); ++i) {
        auto tmp = i + 1 < body.size() ? temporary_of(body[i]) : std::nullopt;
        auto count = tmp ? counts.find(tmp->var) : counts.end();
        if (tmp && count != counts.end() && count->second == 2 && substitute_into(body[i + 1], *tmp))
            continue;  // fused into the next one, which may in turn fuse into what follows it
        out.push_back(std::move(body[i]));
    }
    body = std::move(out);
}

// Every body of a rule, nested ones included.
void fuse_all(lang::Body& body, const Counts& counts) {
    fuse(body, counts);
    lang::walk_terms_in_body(body, [&](lang::Term& t) {
        if (t.body && t.kind != TermKind::Template) fuse_all(*t.body, counts);
        return t.body != nullptr;
    });
    for (auto& e : body) {
        if (e.every.body) fuse_all(*e.every.body, counts);
        if (e.body) fuse_all(*e.body, counts);
        for (auto& c : e.children)
            if (c.body) fuse_all(*c.body, counts);
    }
}

// OPA's set literal is an ast.Set: it keeps its terms in its term order, compared as
// the compiler left them (`{__local10__, __local9__}`: by name), and iterates them in
// that order. Sorted before fusing puts refs and calls back in the variables' places.
void order_set_literals(lang::Body& body) {
    lang::walk_terms_in_body(body, [](lang::Term& t) {
        if (t.kind == TermKind::Set) lang::stable_sort_terms(t.elems);
        return false;
    });
}

// ---- lowering ---------------------------------------------------------------------------

struct Lowering {
    const Program& program;
    const std::map<std::string, std::string>& rewritten;  // generated -> as written
    const std::map<std::string, std::string>* query_rewritten = nullptr;
    lang::Diagnostics& diags;
    std::map<std::string, uint32_t> slots;
    Counts counts;  // occurrences per variable in what is being lowered
    // OPA binds a variable to a set literal as a term (`s := {input.c, input.s}`) and iterates
    // that term's elements (`some x in s`: null twice). The variables of the expressions
    // lowered so far, and those a set literal of plain terms bound where they first occur.
    std::set<std::string> seen{};
    std::map<std::string, TermPtr> set_literals{};
    bool has_with = false;  // refs in a literal may read other documents under a `with`
    // The comprehensions OPA indexes, found before fusing (comprehension_index.hpp).
    ComprehensionIndexKeys comprehension_keys{};
    bool in_function = false;  // lowering a function's clause: its closed calls are kept (PTerm::closed)

    // A term whose value does not depend on the frame it is evaluated in.
    static bool reads_no_frame(const PTerm& t) {
        switch (t.op) {
            case TermOp::Const:
            case TermOp::Input:
            case TermOp::Data: return true;
            case TermOp::Call: return t.closed;
            case TermOp::Ref:
                if (t.elems[0].op != TermOp::Input && t.elems[0].op != TermOp::Data) return false;
                return std::all_of(t.elems.begin() + 1, t.elems.end(),
                                   [](const PTerm& e) { return e.op == TermOp::Const; });
            case TermOp::Array:
            case TermOp::Set:
            case TermOp::Object:
                return std::all_of(t.elems.begin(), t.elems.end(), reads_no_frame) &&
                       std::all_of(t.items.begin(), t.items.end(), [](const PTermPair& i) {
                           return reads_no_frame(i.first) && reads_no_frame(i.second);
                       });
            default: return false;
        }
    }

    void find_withs(const lang::Body& b) {
        lang::walk_exprs(b, [&](const lang::Expr& e) {
            has_with = has_with || !e.withs.empty();
            return has_with;
        });
    }

    void note_vars(const lang::Expr& e) {
        lang::walk_terms_in_expr(e, [&](const lang::Term& t) {
            if (t.kind == TermKind::Var) seen.insert(t.text);
            return false;
        });
    }

    // `v = {a, input.b}` (either way round) where v occurs for the first time: a literal
    // whose elements can be evaluated again without effect (variables, scalars, refs by them).
    void note_set_literal(const lang::Expr& e) {
        if (e.negated || has_with) return;
        auto plain = [](const lang::Term& set) {
            bool ok = true;
            for (const auto& elem : set.elems)
                lang::walk_terms(*elem, [&](const lang::Term& y) {
                    ok = ok && (y.kind == TermKind::Var || y.kind == TermKind::Ref || compiler::is_scalar(y));
                    return !ok;
                });
            return ok;
        };
        const TermPtr& a = e.term->elems[1];
        const TermPtr& b = e.term->elems[2];
        for (auto [v, literal] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
            const lang::Term& var = **v;
            if (var.kind != TermKind::Var || var.text == "input" || var.text == "data" || seen.count(var.text))
                continue;
            if ((*literal)->kind != TermKind::Set || !plain(**literal)) continue;
            set_literals[var.text] = *literal;
        }
    }

    uint32_t slot(const std::string& name) {
        auto [it, fresh] = slots.emplace(name, static_cast<uint32_t>(slots.size()));
        return it->second;
    }

    static PTerm constant(Value v, const Location& loc) {
        PTerm t;
        t.op = TermOp::Const;
        t.value = std::move(v);
        t.loc = loc;
        return t;
    }

    PTerm local(const std::string& name, const Location& loc) {
        PTerm t;
        t.op = TermOp::Local;
        t.slot = slot(name);
        t.loc = loc;
        return t;
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

    PTerm term(const lang::Term& t) {
        PTerm out;
        out.loc = t.loc;
        switch (t.kind) {
            case TermKind::Null:
            case TermKind::Boolean:
            case TermKind::Number:
            case TermKind::String: {
                auto v = scalar_value(t);
                if (!v.ok) diags.add(t.loc, lang::codes::parse_error, v.error);
                return constant(std::move(v.value), t.loc);
            }
            case TermKind::Var:
                if (t.text == "input") {
                    out.op = TermOp::Input;
                    return out;
                }
                if (t.text == "data") {
                    out.op = TermOp::Data;
                    return out;
                }
                return local(t.text, t.loc);
            case TermKind::Ref: {
                // `s[x]` with x first here (unbound): over the set literal s was bound to, term by term.
                const lang::Term& first = *t.elems[0];
                auto literal = first.kind == TermKind::Var && t.elems.size() >= 2 &&
                                       t.elems[1]->kind == TermKind::Var && !seen.count(t.elems[1]->text)
                                   ? set_literals.find(first.text)
                                   : set_literals.end();
                PTerm head = literal != set_literals.end() ? term(*literal->second) : term(first);
                if (head.op == TermOp::Ref) {
                    out = std::move(head);  // a ref on a ref (a fused temporary): one ref
                } else {
                    out.op = TermOp::Ref;
                    out.elems.push_back(std::move(head));
                }
                out.loc = t.loc;
                for (std::size_t i = 1; i < t.elems.size(); ++i) out.elems.push_back(term(*t.elems[i]));
                if (out.elems[0].op == TermOp::Data) find_data_prefix(out);
                return out;
            }
            case TermKind::Array:
            case TermKind::Set:
                out.op = t.kind == TermKind::Array ? TermOp::Array : TermOp::Set;
                for (const auto& e : t.elems) out.elems.push_back(term(*e));
                return fold_constant(std::move(out));
            case TermKind::Object:
                out.op = TermOp::Object;
                for (const auto& [k, v] : t.items) out.items.emplace_back(term(*k), term(*v));
                return fold_constant(std::move(out));
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
            case TermKind::ObjectComprehension: {
                out.body = std::make_shared<PBody>(body(*t.body));
                if (auto keys = comprehension_keys.find(t.body.get()); keys != comprehension_keys.end()) {
                    for (const auto& name : keys->second) out.body->index_keys.push_back(slot(name));
                    out.body->closed = keys->second.empty();
                }
                if (t.kind == TermKind::ObjectComprehension) {
                    out.op = TermOp::ObjectCompr;
                    out.elems.push_back(term(*t.key));
                } else {
                    out.op = t.kind == TermKind::ArrayComprehension ? TermOp::ArrayCompr : TermOp::SetCompr;
                }
                out.elems.push_back(term(*t.value));
                return out;
            }
            case TermKind::Call: return call(t, t.elems.size() - 1);
            case TermKind::Template:
                diags.add(t.loc, lang::codes::compile_error, "template string left by the compiler");
                return out;
        }
        return out;
    }

    // The rule-tree node a data ref's leading constant keys reach, each step one the
    // evaluator's walk takes without a decision (a node without rules, a child of that name).
    void find_data_prefix(PTerm& ref) const {
        const DataNode* node = &program.root;
        uint32_t length = 0;
        for (std::size_t i = 1; i < ref.elems.size(); ++i) {
            const PTerm& part = ref.elems[i];
            if (part.op != TermOp::Const || !part.value.is_string() || node->rules) break;
            auto child = node->children.find(part.value.as_string());
            if (child == node->children.end()) break;
            node = child->second.get();
            ++length;
        }
        if (length == 0) return;
        ref.data_prefix = node;
        ref.data_prefix_length = length;
    }

    // The function a call's operator names: a user function (data path) or a builtin.
    std::shared_ptr<const Callee> callee(const lang::Term& op) {
        auto c = std::make_shared<Callee>();
        c->name = compiler::dotted_name(op);
        if (op.kind == TermKind::Ref && compiler::is_ref_to(op, "data")) {
            std::vector<std::string> path;
            for (std::size_t i = 1; i < op.elems.size(); ++i) path.push_back(op.elems[i]->text);
            const DataNode* node = program.node_at(path);
            if (node && node->rules && node->rules->kind == RuleKind::Function) {
                c->function = node->rules;
                c->name = node->rules->dotted();
                return c;
            }
        }
        c->builtin = program.find_builtin(c->name);
        return c;
    }

    PTerm call(const lang::Term& t, std::size_t argc) {
        PTerm out;
        out.op = TermOp::Call;
        out.loc = t.loc;
        out.callee = callee(*t.elems[0]);
        if (!out.callee->builtin && !out.callee->function)
            diags.add(t.loc, lang::codes::type_error, fmt::format("undefined function {}", out.callee->name));
        for (std::size_t i = 1; i <= argc; ++i) out.elems.push_back(term(*t.elems[i]));
        out.nested_calls =
            std::any_of(out.elems.begin(), out.elems.end(), [](const PTerm& arg) { return arg.op == TermOp::Call; });
        const runtime::Builtin* b = out.callee->builtin;
        out.closed = in_function && b && b->impl && !b->relation && Repeatable(program).builtin(*b) &&
                     std::all_of(out.elems.begin(), out.elems.end(), reads_no_frame);
        return out;
    }

    std::size_t arity(const Callee& c, std::size_t given) const {
        if (c.function) return c.function->arity;
        if (c.builtin) return c.builtin->arity;
        return given;
    }

    PExpr expr(const lang::Expr& e) {
        PExpr out;
        out.loc = e.loc;
        switch (e.kind) {
            case ExprKind::Term: term_expr(e, out); break;
            case ExprKind::Every: {
                out.op = ExprOp::Every;
                out.iteration = std::make_unique<PIteration>();
                out.iteration->domain = term(*e.every.domain);
                out.iteration->key_present = true;
                out.iteration->key = term(*e.every.key);
                out.iteration->value = term(*e.every.value);
                out.body = std::make_shared<PBody>(body(*e.every.body));
                break;
            }
            case ExprKind::Block:
                out.op = ExprOp::And;
                out.body = std::make_shared<PBody>(body(*e.body));
                break;
            case ExprKind::LogicAnd: {
                out.op = ExprOp::And;
                out.body = std::make_shared<PBody>();
                for (const auto& c : e.children) {
                    if (c.kind == ExprKind::Block && !c.negated) {
                        PExpr block;
                        block.op = ExprOp::And;
                        block.loc = c.loc;
                        block.body = std::make_shared<PBody>(body(*c.body));
                        out.body->exprs.push_back(std::move(block));
                    } else {
                        out.body->exprs.push_back(expr(c));
                    }
                }
                break;
            }
            case ExprKind::LogicOr:
                out.op = ExprOp::Or;
                for (const auto& c : e.children)
                    out.alternatives.push_back(std::make_shared<PBody>(
                        c.kind == ExprKind::Block && !c.negated ? body(*c.body) : body(lang::Body{c})));
                break;
            case ExprKind::Some:
                out.op = ExprOp::Truthy;
                out.a = constant(Value::boolean(true), e.loc);
                break;
        }
        if (e.negated) {
            PExpr inner = std::move(out);
            if (e.kind == ExprKind::Block) inner.withs.clear();
            out = PExpr();
            out.loc = e.loc;
            out.op = ExprOp::Not;
            if (e.kind == ExprKind::Block) {
                out.body = inner.body;  // `not { ... }`
            } else {
                out.body = std::make_shared<PBody>();
                out.body->exprs.push_back(std::move(inner));
            }
        }
        for (const auto& w : e.withs) out.withs.push_back(with(w));
        return out;
    }

    void term_expr(const lang::Expr& e, PExpr& out) {
        const lang::Term& t = *e.term;
        if (compiler::is_equality(e) || compiler::is_assignment(e)) {
            if (t.elems.size() == 3) {
                note_set_literal(e);
                out.op = ExprOp::Unify;
                out.a = term(*t.elems[1]);
                if (!iterate(e, out)) out.b = term(*t.elems[2]);
                return;
            }
        }
        if (t.kind == TermKind::Call) {
            auto c = callee(*t.elems[0]);
            std::size_t given = t.elems.size() - 1;
            std::size_t n = arity(*c, given);
            if ((c->function || c->builtin) && given == n + 1) {
                // f(x, out): the last operand receives the result.
                out.op = ExprOp::Unify;
                out.a = term(*t.elems.back());
                out.b = call(t, n);
                return;
            }
            out.op = ExprOp::Truthy;
            out.a = call(t, given);
            return;
        }
        out.op = ExprOp::Truthy;
        out.a = term(t);
    }

    // `v = xs[k]` where k is a fresh variable nothing else uses (`some v in xs`
    // as the compiler writes it): iterate xs directly.
    bool iterate(const lang::Expr& e, PExpr& out) {
        if (!e.withs.empty() || e.negated) return false;
        const lang::Term& rhs = *e.term->elems[2];
        if (rhs.kind != TermKind::Ref || rhs.elems.size() < 2) return false;
        const lang::Term& key = *rhs.elems.back();
        if (key.kind != TermKind::Var || !is_generated_name(key.text)) return false;
        auto n = counts.find(key.text);
        if (n == counts.end() || n->second != 1) return false;
        auto domain = std::make_shared<lang::Term>(rhs);
        domain->elems.pop_back();
        out.op = ExprOp::Iterate;
        out.iteration = std::make_unique<PIteration>();
        const lang::Term& whole = domain->elems.size() == 1 ? *domain->elems[0] : *domain;
        auto literal = whole.kind == TermKind::Var ? set_literals.find(whole.text) : set_literals.end();
        out.iteration->domain = literal != set_literals.end() ? term(*literal->second) : term(whole);
        out.iteration->key_present = true;
        out.iteration->key = term(key);
        out.iteration->value = std::move(out.a);
        return true;
    }

    PWith with(const lang::With& w) {
        PWith out;
        out.loc = w.loc;
        const lang::Term& target = *w.target;
        std::vector<std::string> path;
        const auto& parts = target.kind == TermKind::Ref ? target.elems : std::vector<TermPtr>{w.target};
        for (std::size_t i = 1; i < parts.size(); ++i) path.push_back(parts[i]->text);
        const std::string root = parts[0]->kind == TermKind::Var ? parts[0]->text : "";
        // `with f as g`: g may name a function or builtin rather than a value.
        const lang::Term& value = *w.value;
        if (value.kind == TermKind::Ref && value.elems[0]->kind == TermKind::Var &&
            !slots.count(value.elems[0]->text) && value.elems[0]->text != "input") {
            auto replacement = callee(value);
            bool data_value = compiler::is_ref_to(value, "data") && !replacement->function;
            if (!data_value && (replacement->function || replacement->builtin)) out.replacement = replacement;
        }
        if (!out.replacement) out.value = term(value);
        if (root == "input") {
            out.target = PWith::Target::Input;
            out.path = std::move(path);
            return out;
        }
        // A ref naming a node of the rule tree replacing a function stays unevaluated (OPA's
        // validateWithFunctionValue): a rule, or a package, found by its constant path.
        auto defer_rule_ref = [&] {
            if (out.replacement || !compiler::is_ref_to(value, "data")) return;
            std::vector<std::string> value_path;
            for (std::size_t i = 1; i < value.elems.size(); ++i) {
                if (value.elems[i]->kind != TermKind::String) return;
                value_path.push_back(value.elems[i]->text);
            }
            out.deferred = program.node_at(value_path) != nullptr;
        };
        if (root == "data") {
            const DataNode* node = program.node_at(path);
            if (node && node->rules && node->rules->kind == RuleKind::Function) {
                out.target = PWith::Target::Function;
                out.function_name = node->rules->dotted();
                defer_rule_ref();
            } else {
                out.target = PWith::Target::Data;
            }
            out.path = std::move(path);
            return out;
        }
        out.target = PWith::Target::Function;
        out.function_name = compiler::dotted_name(target);
        defer_rule_ref();
        return out;
    }

    PBody body(const lang::Body& b) {
        PBody out;
        out.exprs.reserve(b.size());
        for (const auto& e : b) {
            out.exprs.push_back(expr(e));
            note_vars(e);
        }
        return out;
    }

    std::string display(const std::string& name) const {
        if (auto it = rewritten.find(name); it != rewritten.end()) return it->second;
        if (query_rewritten)
            if (auto it = query_rewritten->find(name); it != query_rewritten->end()) return it->second;
        return name;
    }
};

// ---- rules --------------------------------------------------------------------------------

// The static part of a rule's head ref: the name and the string parts after it.
std::size_t static_length(const lang::RuleHead& head) {
    std::size_t n = 1;
    while (n < head.ref->elems.size() && head.ref->elems[n]->kind == TermKind::String) ++n;
    return n;
}

RuleKind kind_of(const lang::RuleHead& head, std::size_t static_len) {
    if (head.has_args) return RuleKind::Function;
    if (!head.value) return RuleKind::PartialSet;  // its set may sit below a ref (`p[q] contains r`)
    if (static_len < head.ref->elems.size()) return RuleKind::PartialObject;
    return RuleKind::Complete;
}

std::vector<IndexGuard> index_guards(const Program& program, const lang::Rule& clause);

// One clause: its own slots; the else chain is lowered by the caller, iteratively.
std::shared_ptr<PRule> lower_clause(const Program& program, const compiler::CompiledModules& compiled,
                                    lang::Rule clause, RuleKind kind, std::size_t static_len,
                                    lang::Diagnostics& diags) {
    Counts counts;
    for (const auto& a : clause.head.args) count_vars(*a, counts);
    for (const auto* t : {&clause.head.key, &clause.head.value})
        if (*t) count_vars(**t, counts);
    for (std::size_t i = 1; i < clause.head.ref->elems.size(); ++i) count_vars(*clause.head.ref->elems[i], counts);
    count_vars(clause.body, counts);
    std::vector<IndexGuard> guards = index_guards(program, clause);
    ComprehensionIndexKeys comprehension_keys;
    compiler::VarSet arguments;
    for (const auto& a : clause.head.args) compiler::add_all(arguments, compiler::vars_of(*a));
    find_comprehension_indexes(
        clause.body, std::move(arguments), [&](const lang::Term& op) { return compiled.arity(op); },
        comprehension_keys);
    order_set_literals(clause.body);
    fuse_all(clause.body, counts);

    Lowering low{program, compiled.rewritten_vars, nullptr, diags, {}, std::move(counts)};
    low.comprehension_keys = std::move(comprehension_keys);
    for (const auto& a : clause.head.args)  // bound before the body: no set literal binds them
        lang::walk_terms(*a, [&](const lang::Term& t) {
            if (t.kind == TermKind::Var) low.seen.insert(t.text);
            return false;
        });
    low.find_withs(clause.body);
    low.in_function = kind == RuleKind::Function;
    auto out = std::make_shared<PRule>();
    out->loc = clause.loc;
    out->is_default = clause.is_default;
    if (!clause.is_default) out->guards = std::move(guards);
    for (const auto& g : out->guards) out->check_guards = out->check_guards || !g.implied;
    const lang::RuleHead& head = clause.head;
    if (kind == RuleKind::Function)
        for (const auto& a : head.args) out->params.push_back(low.term(*a));
    out->body = low.body(clause.body);
    if (kind == RuleKind::PartialSet || kind == RuleKind::PartialObject)
        for (std::size_t i = static_len; i < head.ref->elems.size(); ++i)
            out->key_path.push_back(low.term(*head.ref->elems[i]));
    // The parser gives every rule its value (a set's key); a head without one is refused here
    // rather than trusted, should any earlier stage ever let one through.
    const lang::TermPtr& result = kind == RuleKind::PartialSet ? head.key : head.value;
    if (!result) {
        diags.add(clause.loc, lang::codes::compile_error, "rule head without a value");
        out->value = low.term(*lang::make_bool(false, clause.loc));
    } else {
        out->value = low.term(*result);
    }
    out->slots = static_cast<uint32_t>(low.slots.size());
    return out;
}

// ---- rule index guards ------------------------------------------------------------------
// What OPA's index (v1/ast/index.go, refindices) records of a clause: for each
// top-level literal `ref = value`, `equal(ref, value)` or `glob.match(p, d, x)`,
// the ref and the value it must have. Read from the compiled body before fusing,
// which is the body OPA's compiler hands its index.

bool is_scalar_kind(TermKind k) {
    return k == TermKind::Null || k == TermKind::Boolean || k == TermKind::Number || k == TermKind::String;
}

bool is_root_name(const lang::Term& t) { return t.kind == TermKind::Var && (t.text == "input" || t.text == "data"); }

// A key of OPA's rule tree: its nodes are a map by value, where numbers are their text.
bool same_tree_key(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) return a.as_number().to_string() == b.as_number().to_string();
    return a.kind() == b.kind() && a == b;
}

// OPA's isVirtual: the ref's path reaches a node of the rule tree that holds rules, or ends
// inside the tree. A rule sits at its head's ground prefix, so below a set's path the nodes
// are its rules' constant keys (`r[1000000] := 1` makes r[1000000] a node and r none: a ref
// to r[1] is no virtual document to OPA's index, which then reads it from the store).
bool is_virtual(const Program& program, const std::vector<Value>& path) {
    const DataNode* node = &program.root;
    for (std::size_t i = 0; i < path.size(); ++i) {
        const DataNode* child = nullptr;
        if (path[i].is_string()) {
            auto it = node->children.find(path[i].as_string());
            if (it != node->children.end()) child = it->second.get();
        }
        if (!child) {
            if (!node->rules) return false;
            // Below a set's path: the nodes of its rules' constant keys.
            std::vector<const std::vector<Value>*> rules;
            for (const auto& keys : node->rules->head_ground_keys) rules.push_back(&keys);
            for (std::size_t d = 0; i + d < path.size(); ++d) {
                std::erase_if(rules, [&](const std::vector<Value>* keys) {
                    return keys->size() <= d || !same_tree_key((*keys)[d], path[i + d]);
                });
                if (rules.empty()) return false;
                for (const auto* keys : rules)
                    if (keys->size() == d + 1) return true;  // a rule sits at this node
            }
            return true;
        }
        if (child->rules)
            for (const auto& keys : child->rules->head_ground_keys)
                if (keys.empty()) return true;  // a rule sits at the set's own path
        node = child;
    }
    return true;
}

struct GuardBuilder {
    const Program& program;
    const std::vector<TermPtr>& args;  // a function's parameters (compiled: variables)
    std::vector<IndexGuard> guards;
    std::vector<std::string> bound_vars;  // per guard: the variable of `ref = x` (Defined), else ""

    // A ground, non-virtual ref to input or data (OPA's eqOperandsToRefAndValue, Ref case).
    bool ref_of(const lang::Term& t, IndexGuard& g) const {
        if (t.kind == TermKind::Var && t.text == "input") {
            g.root = IndexGuard::Root::Input;
            g.loc = t.loc;
            return true;
        }
        if (t.kind != TermKind::Ref || t.elems.empty() || !is_root_name(*t.elems[0])) return false;
        g.loc = t.elems[0]->loc;
        for (std::size_t i = 1; i < t.elems.size(); ++i) {
            if (!is_scalar_kind(t.elems[i]->kind)) return false;
            auto v = scalar_value(*t.elems[i]);
            if (!v.ok) return false;
            g.path.push_back(std::move(v.value));
        }
        if (t.elems[0]->text == "input") {
            g.root = IndexGuard::Root::Input;
            return true;
        }
        if (is_virtual(program, g.path)) return false;
        g.root = IndexGuard::Root::Data;
        g.ref.op = TermOp::Ref;
        g.ref.loc = t.loc;
        PTerm head;
        head.op = TermOp::Data;
        g.ref.elems.push_back(std::move(head));
        for (const auto& part : g.path) {
            PTerm c;
            c.op = TermOp::Const;
            c.value = part;
            g.ref.elems.push_back(std::move(c));
        }
        return true;
    }

    // OPA's indexValue: a scalar, a variable, or an array of those.
    bool pattern_of(const lang::Term& t, IndexGuard& g, std::string& var) const {
        if (is_scalar_kind(t.kind)) {
            auto v = scalar_value(t);
            if (!v.ok) return false;
            g.pattern = IndexGuard::Pattern::Scalar;
            g.scalar = std::move(v.value);
            return true;
        }
        if (t.kind == TermKind::Var && !is_root_name(t)) {
            g.pattern = IndexGuard::Pattern::Defined;
            var = t.text;
            return true;
        }
        if (t.kind != TermKind::Array) return false;
        std::vector<std::optional<Value>> elems;
        for (const auto& e : t.elems) {
            if (e->kind == TermKind::Var && !is_root_name(*e)) {
                elems.emplace_back();
                continue;
            }
            if (!is_scalar_kind(e->kind)) return false;
            auto v = scalar_value(*e);
            if (!v.ok) return false;
            elems.emplace_back(std::move(v.value));
        }
        g.pattern = IndexGuard::Pattern::Array;
        g.elems = std::move(elems);
        return true;
    }

    std::optional<uint32_t> arg_position(const lang::Term& t) const {
        if (t.kind != TermKind::Var || is_root_name(t)) return std::nullopt;
        for (std::size_t i = 0; i < args.size(); ++i)
            if (args[i]->kind == TermKind::Var && args[i]->text == t.text) return static_cast<uint32_t>(i);
        return std::nullopt;
    }

    bool eq_guard(const lang::Term& a, const lang::Term& b, IndexGuard& g, std::string& var) const {
        if (auto i = arg_position(a)) {
            g.root = IndexGuard::Root::Arg;
            g.arg = *i;
            return pattern_of(b, g, var);
        }
        return ref_of(a, g) && pattern_of(b, g, var);
    }

    static bool same_ref(const IndexGuard& x, const IndexGuard& y) {
        return x.root == y.root && x.arg == y.arg && x.path == y.path;
    }

    // A later test of the same ref replaces the earlier one (refindices.insert).
    void insert(IndexGuard g, std::string var) {
        for (std::size_t i = 0; i < guards.size(); ++i)
            if (same_ref(guards[i], g)) {
                g.loc = guards[i].loc;
                g.tests = guards[i].tests + 1;
                guards[i] = std::move(g);
                bound_vars[i] = std::move(var);
                return;
            }
        guards.push_back(std::move(g));
        bound_vars.push_back(std::move(var));
    }

    // Whether the literal was indexed.
    bool equality(const lang::Expr& e, bool implied) {
        const lang::Term& a = *compiler::operand(e, 0);
        const lang::Term& b = *compiler::operand(e, 1);
        for (auto [x, y] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
            IndexGuard g;
            std::string var;
            if (eq_guard(*x, *y, g, var)) {
                g.implied = implied;
                insert(std::move(g), std::move(var));
                return true;
            }
        }
        return false;
    }

    // OPA's globDelimiterToString and globPatternToArray.
    static std::optional<std::string> glob_delimiter(const lang::Term& t) {
        if (t.kind != TermKind::Array) return std::nullopt;
        if (t.elems.empty()) return ".";
        std::string out;
        for (const auto& e : t.elems) {
            if (e->kind != TermKind::String) return std::nullopt;
            out += e->text;
        }
        return out;
    }

    void glob_match(const lang::Expr& e) {
        auto delim = glob_delimiter(*compiler::operand(e, 1));
        const lang::Term& pattern = *compiler::operand(e, 0);
        const lang::Term& match = *compiler::operand(e, 2);
        if (!delim || pattern.kind != TermKind::String || match.kind != TermKind::Var || is_root_name(match)) return;
        std::vector<std::optional<Value>> elems;
        for (const auto& part : support::split_escaped(pattern.text, *delim)) {
            if (part == "*") {
                elems.emplace_back();
                continue;
            }
            if (support::has_glob_metachar(part)) return;  // not indexed
            elems.emplace_back(Value::string(part));
        }
        // The tested value: a variable an earlier guard bound to a ref, or a parameter.
        const IndexGuard* bound = nullptr;
        for (std::size_t i = 0; i < guards.size(); ++i)
            if (!bound_vars[i].empty() && bound_vars[i] == match.text) bound = &guards[i];
        IndexGuard g;
        if (bound) {
            g.root = bound->root;
            g.arg = bound->arg;
            g.path = bound->path;
            g.ref = bound->ref;
            g.loc = bound->loc;
        } else if (auto i = arg_position(match)) {
            g.root = IndexGuard::Root::Arg;
            g.arg = *i;
        } else {
            return;
        }
        g.pattern = IndexGuard::Pattern::Array;
        g.elems = std::move(elems);
        g.delimiters.push_back(*delim);
        insert(std::move(g), "");
    }

    void body(const lang::Body& b) {
        for (const auto& e : b)  // a clause that prints is not indexed
            if (compiler::is_call_expr(e)) {
                std::string op = compiler::dotted_name(compiler::operator_of(*e.term));
                if (op == "internal.print" || op == "internal.test_case") return;
            }
        // Up to the first literal that is not an indexed equality (those only read input,
        // base documents and locals), the body tests its guards itself, first.
        bool leading = true;
        for (const auto& e : b) {
            bool indexed = false;
            if (!e.negated && e.withs.empty() && compiler::is_call_expr(e)) {
                std::string op = compiler::dotted_name(compiler::operator_of(*e.term));
                std::size_t n = compiler::operand_count(e);
                if ((op == "eq" || op == "assign" || op == "equal") && n == 2) indexed = equality(e, leading);
                else if (op == "glob.match" && n == 3) glob_match(e);  // a call: it may fail
            }
            leading = leading && indexed;
        }
    }
};

std::vector<IndexGuard> index_guards(const Program& program, const lang::Rule& clause) {
    GuardBuilder builder{program, clause.head.args, {}, {}};
    builder.body(clause.body);
    return std::move(builder.guards);
}

// OPA's rule tree keeps a rule at the node of its head's ground prefix (`r[1][x]` at r[1],
// `r[x]` at r) and hands an index a node's rules, then its children's depth first (a node
// without rules: its children in key order). So rules sit in the order of their leading
// constant keys, a node's own before those below it; rules at one node as written.
void order_like_opa_rule_tree(RuleSet& set) {
    auto ground_keys = [](const PRule& r) {
        std::size_t n = 0;
        while (n < r.key_path.size() && r.key_path[n].op == TermOp::Const) ++n;
        return n;
    };
    std::stable_sort(set.rules.begin(), set.rules.end(), [&](const auto& a, const auto& b) {
        std::size_t na = ground_keys(*a), nb = ground_keys(*b);
        for (std::size_t i = 0; i < std::min(na, nb); ++i) {
            const Value& x = a->key_path[i].value;
            const Value& y = b->key_path[i].value;
            if (x < y) return true;
            if (y < x) return false;
        }
        return na < nb;
    });
}

// Where OPA's index trie puts each of `rules` (by its first clause; v1/ast/index.go): rules
// without guards at its root, the others depth first over the refs tested (most tested
// first, then by where first tested), at each ref those that do not test it first, then
// those that only need a value, then those wanting a scalar or an array (element by
// element: any before a given scalar). A lookup meets them in the order of these keys;
// rules with equal keys meet at one node and keep their order.
std::vector<std::vector<uint8_t>> opa_index_keys(const std::vector<const PRule*>& rules) {
    struct RefStat {
        const IndexGuard* first;
        std::size_t tests = 0;
    };
    std::vector<RefStat> refs;
    auto same_ref = [](const IndexGuard& x, const IndexGuard& y) {
        return x.root == y.root && x.arg == y.arg && x.path == y.path;
    };
    for (const PRule* rule : rules)
        for (const PRule* r = rule; r; r = r->else_rule.get())
            for (const auto& g : r->guards) {
                auto it =
                    std::find_if(refs.begin(), refs.end(), [&](const RefStat& s) { return same_ref(*s.first, g); });
                if (it == refs.end()) refs.push_back({&g, g.tests});
                else it->tests += g.tests;
            }
    auto before = [](const RefStat& a, const RefStat& b) {
        if (a.tests != b.tests) return a.tests > b.tests;
        const lang::Location& x = a.first->loc;
        const lang::Location& y = b.first->loc;
        if (x.file() != y.file()) return x.file() < y.file();
        if (x.line != y.line) return x.line < y.line;
        if (x.col != y.col) return x.col < y.col;
        return a.first->arg < b.first->arg;
    };
    std::stable_sort(refs.begin(), refs.end(), before);
    std::vector<std::vector<uint8_t>> keys;
    for (const PRule* r : rules) {
        std::vector<uint8_t>& k = keys.emplace_back();
        if (r->guards.empty()) continue;
        k.push_back(1);
        for (const auto& ref : refs) {
            auto g = std::find_if(r->guards.begin(), r->guards.end(),
                                  [&](const IndexGuard& x) { return same_ref(x, *ref.first); });
            if (g == r->guards.end()) {
                k.push_back(0);  // the "undefined" branch: always taken, first
                continue;
            }
            switch (g->pattern) {
                case IndexGuard::Pattern::Defined: k.push_back(1); break;
                case IndexGuard::Pattern::Scalar: k.push_back(2); break;
                case IndexGuard::Pattern::Array:
                    k.push_back(2);
                    for (const auto& e : g->elems) k.push_back(e ? 1 : 0);
                    break;
            }
        }
    }
    return keys;
}

// An explicit element comparison: vector<uint8_t>'s operator< becomes a memcmp whose
// bound GCC 12 misjudges (-Wstringop-overread) once inlined into a merge.
bool index_key_less(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [](uint8_t x, uint8_t y) { return x < y; });
}

// OPA evaluates the rules an index lookup keeps in the order its trie traversal meets them
// (opa_index_keys). An else chain goes where its first clause does (OPA places it by the
// first clause the lookup keeps).
void order_like_opa_index(RuleSet& set) {
    std::vector<const PRule*> rules;
    for (const auto& rule : set.rules) rules.push_back(rule.get());
    auto keys = opa_index_keys(rules);
    std::vector<std::pair<std::vector<uint8_t>, std::shared_ptr<PRule>>> keyed;
    for (std::size_t i = 0; i < set.rules.size(); ++i) keyed.emplace_back(std::move(keys[i]), std::move(set.rules[i]));
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return index_key_less(a.first, b.first); });
    for (std::size_t i = 0; i < keyed.size(); ++i) set.rules[i] = std::move(keyed[i].second);
}

// Where many rules of one set require a scalar at one input path, group them by it.
void build_index(RuleSet& set) {
    // OPA keeps glob.match's mappers on the trie node of their ref: any array
    // pattern on that ref also matches a string split at those delimiters.
    std::vector<IndexGuard*> arrays;
    for (auto& rule : set.rules)
        for (PRule* r = rule.get(); r; r = r->else_rule.get())
            for (auto& g : r->guards)
                if (g.pattern == IndexGuard::Pattern::Array) arrays.push_back(&g);
    for (IndexGuard* g : arrays)
        for (const IndexGuard* other : arrays)
            if (other != g && g->root == other->root && g->arg == other->arg && g->path == other->path)
                for (const auto& d : other->delimiters)
                    if (std::find(g->delimiters.begin(), g->delimiters.end(), d) == g->delimiters.end())
                        g->delimiters.push_back(d);

    if (set.kind == RuleKind::Function) return;
    auto scalar_on_input = [](const IndexGuard& g) {
        return g.root == IndexGuard::Root::Input && g.pattern == IndexGuard::Pattern::Scalar;
    };
    std::map<std::vector<Value>, std::size_t> paths;
    for (auto& rule : set.rules) {
        if (rule->else_rule) continue;  // a chain is tried clause by clause
        for (const auto& g : rule->guards)
            if (scalar_on_input(g)) ++paths[g.path];
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
        const IndexGuard* on_path = nullptr;
        if (!set.rules[i]->else_rule)
            for (const auto& g : set.rules[i]->guards)
                if (scalar_on_input(g) && g.path == index->path) on_path = &g;
        if (on_path) index->by_value[on_path->scalar].push_back(i);
        else index->unindexed.push_back(i);
    }
    set.rule_index = std::move(index);
}

// OPA's early exit: complete rules (or functions) that all produce the same constant.
bool has_one_constant_value(const RuleSet& set) {
    if (set.kind != RuleKind::Complete && set.kind != RuleKind::Function) return false;
    const Value* value = nullptr;
    for (const auto& rule : set.rules)
        for (const PRule* r = rule.get(); r; r = r->else_rule.get()) {
            if (r->value.op != TermOp::Const) return false;
            if (value && *value != r->value.value) return false;
            value = &r->value.value;
        }
    return value != nullptr;
}

// Some clause has guards and the unguarded ones produce one constant (see RuleSet).
bool may_exit_early_when_guarded(const RuleSet& set) {
    if (set.kind != RuleKind::Complete && set.kind != RuleKind::Function) return false;
    bool guarded = false;
    const Value* value = nullptr;
    for (const auto& rule : set.rules)
        for (const PRule* r = rule.get(); r; r = r->else_rule.get()) {
            if (!r->guards.empty()) {
                guarded = true;
                continue;
            }
            if (r->value.op != TermOp::Const) return false;
            if (value && *value != r->value.value) return false;
            value = &r->value.value;
        }
    return guarded;
}

// A capture variable (rego's `$termN`): where a query expression's value is.
bool is_capture_var(std::string_view v) { return v.rfind("$term", 0) == 0; }

std::string capture_of(const lang::Expr& e) {
    if (!compiler::is_call_expr(e)) return {};
    const auto& last = e.term->elems.back();
    if (last->kind == TermKind::Var && is_capture_var(last->text)) return last->text;
    if (compiler::is_equality(e) && e.term->elems.size() == 3 && e.term->elems[1]->kind == TermKind::Var &&
        is_capture_var(e.term->elems[1]->text))
        return e.term->elems[1]->text;
    return {};
}

// `$t = X` (or `X = $t`) followed by `$t`: X must be true, and its value is the capture.
// rego's capture appends the tests `$t` after the whole query, and there they stay, as in
// OPA: a false comparison does not stop the expressions after it (their builtin errors and
// prints happen). Only a test that directly follows its expression fuses with it.
void fuse_capture_checks(PBody& body) {
    auto& exprs = body.exprs;
    for (std::size_t i = 0; i + 1 < exprs.size(); ++i) {
        PExpr& bind = exprs[i];
        const PExpr& check = exprs[i + 1];
        if (bind.op != ExprOp::Unify || !bind.withs.empty() || check.op != ExprOp::Truthy ||
            check.a.op != TermOp::Local || !check.withs.empty())
            continue;
        PTerm* value = nullptr;
        if (bind.a.op == TermOp::Local && bind.a.slot == check.a.slot) value = &bind.b;
        else if (bind.b.op == TermOp::Local && bind.b.slot == check.a.slot) value = &bind.a;
        if (!value) continue;
        PExpr fused;
        fused.op = ExprOp::Truthy;
        fused.a = std::move(*value);
        fused.result_slot = static_cast<int32_t>(check.a.slot);
        fused.loc = bind.loc;
        exprs[i] = std::move(fused);
        exprs.erase(exprs.begin() + static_cast<long>(i + 1));
    }
}

}  // namespace

namespace {

// A rule set with a variable key (`t[x] := ...`) makes its node one document: OPA evaluates
// the rules below it (`default t["a"] := 2`, `default t.a.b := 2`) as that document's
// partial rules, where a default has no place, so those defaults never apply
// (RuleSet::below_variable_keys).
void mark_sets_under_variable_keys(DataNode& root) {
    std::vector<std::pair<DataNode*, bool>> stack{{&root, false}};
    while (!stack.empty()) {
        auto [node, under_variable_keys] = stack.back();
        stack.pop_back();
        if (node->rules && under_variable_keys) {
            node->rules->below_variable_keys = true;
            if (node->rules->kind == RuleKind::Complete) node->rules->default_rule.reset();
        }
        bool below = under_variable_keys || (node->rules && !all_keys_constant(*node->rules));
        for (auto& [name, child] : node->children) stack.emplace_back(child.get(), below);
    }
}

// DataNode::children_first. OPA indexes a node whose rules have a variable key together
// with every rule below it (compile.go's buildRuleIndices), its own first; the rules below
// run first when one of them comes before all of the node's own in that index's order. The
// two groups can interleave there; the evaluator runs them group by group, in the order of
// each group's first rule.
void mark_children_first(DataNode& root) {
    std::vector<DataNode*> stack{&root};
    while (!stack.empty()) {
        DataNode* node = stack.back();
        stack.pop_back();
        for (auto& [name, child] : node->children) stack.push_back(child.get());
        const RuleSet* own = node->rules;
        if (!own || own->rules.empty() || all_keys_constant(*own) || node->children.empty()) continue;
        std::vector<const PRule*> rules;
        for (const auto& r : own->rules) rules.push_back(r.get());
        const std::size_t own_count = rules.size();
        std::vector<const DataNode*> below;  // depth first, by name
        for (auto it = node->children.rbegin(); it != node->children.rend(); ++it) below.push_back(it->second.get());
        while (!below.empty()) {
            const DataNode* at = below.back();
            below.pop_back();
            if (at->rules)
                for (const auto& r : at->rules->rules) rules.push_back(r.get());
            for (auto it = at->children.rbegin(); it != at->children.rend(); ++it) below.push_back(it->second.get());
        }
        if (rules.size() == own_count) continue;
        auto keys = opa_index_keys(rules);
        auto first_own =
            std::min_element(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(own_count), index_key_less);
        auto first_below =
            std::min_element(keys.begin() + static_cast<std::ptrdiff_t>(own_count), keys.end(), index_key_less);
        node->children_first = index_key_less(*first_below, *first_own);
    }
}

// The nodes OPA's rule tree has below a set's path for the constant keys of its rules'
// heads (RuleSet::tree_nodes). A rule with a variable key after constant ones is a partial
// document at the node of its constant keys: nodes below that one are part of it, not shown.
void find_tree_nodes(RuleSet& set) {
    if ((set.kind != RuleKind::PartialObject && set.kind != RuleKind::PartialSet) || set.below_variable_keys) return;
    std::vector<const PRule*> heads;
    for (const auto& rule : set.rules) heads.push_back(rule.get());
    if (set.default_rule) heads.push_back(set.default_rule.get());
    std::vector<std::vector<Value>> partial_nodes;  // where a rule with a variable key sits
    std::vector<RuleSet::TreeNode> nodes;
    for (const PRule* rule : heads) {
        std::size_t ground = 0;
        while (ground < rule->key_path.size() && rule->key_path[ground].op == TermOp::Const) ++ground;
        if (ground == 0) return;  // a rule at the set's own path: the set is one document
        std::vector<Value> keys;
        for (std::size_t i = 0; i < ground; ++i) keys.push_back(rule->key_path[i].value);
        const bool all_ground = ground == rule->key_path.size();
        // A complete rule's own node is its value (none when undefined); a partial set's is a set.
        const std::size_t shown = all_ground && set.kind == RuleKind::PartialObject ? ground - 1 : ground;
        for (std::size_t n = 1; n <= shown; ++n)
            nodes.push_back(
                {std::vector<Value>(keys.begin(), keys.begin() + static_cast<long>(n)), n == ground && all_ground});
        if (!all_ground) partial_nodes.push_back(std::move(keys));
    }
    auto inside_partial = [&](const std::vector<Value>& keys) {
        for (const auto& p : partial_nodes)
            if (p.size() < keys.size() && std::equal(p.begin(), p.end(), keys.begin())) return true;
        return false;
    };
    for (auto& node : nodes)
        if (!inside_partial(node.keys)) set.tree_nodes.push_back(std::move(node));
}

}  // namespace

namespace {

lang::Diagnostics plan_modules(std::shared_ptr<const compiler::CompiledModules> compiled, Program& program,
                               bool take_bodies) {
    lang::Diagnostics diags;
    program.compiled = compiled;
    struct Pending {
        lang::Rule* rule;  // the compiled modules' own: mutable only when take_bodies
        RuleSet* set;
        std::size_t static_len;
    };
    std::vector<Pending> pending;
    // The rule tree: packages first (an empty package is still a node of data).
    for (const auto& m : compiled->modules) {
        auto pkg = compiler::package_path(*m);
        DataNode* node = &program.root;
        for (const auto& p : pkg) {
            auto& child = node->children[p];
            if (!child) child = std::make_unique<DataNode>();
            node = child.get();
        }
        for (auto& rule : m->rules) {
            std::size_t static_len = static_length(rule.head);
            RuleKind kind = kind_of(rule.head, static_len);
            std::vector<std::string> path = pkg;
            for (std::size_t i = 0; i < static_len; ++i) path.push_back(rule.head.ref->elems[i]->text);
            DataNode* at = &program.root;
            for (const auto& p : path) {
                at->has_rules_below = true;
                auto& child = at->children[p];
                if (!child) child = std::make_unique<DataNode>();
                at = child.get();
            }
            if (!at->rules) {
                auto set = std::make_unique<RuleSet>();
                set->path = path;
                set->kind = kind;
                set->arity = rule.head.args.size();
                set->loc = rule.loc;
                set->index = program.rule_sets.size();
                at->rules = set.get();
                program.rule_sets.push_back(std::move(set));
            } else if (at->rules->kind != kind ||
                       (kind == RuleKind::Function && at->rules->arity != rule.head.args.size())) {
                diags.add(rule.loc, lang::codes::type_error,
                          fmt::format("conflicting rules {} found", at->rules->dotted()));
                continue;
            }
            std::vector<Value> ground;
            for (std::size_t i = static_len; i < rule.head.ref->elems.size(); ++i) {
                const lang::Term& key = *rule.head.ref->elems[i];
                if (!is_scalar_kind(key.kind)) break;
                auto v = scalar_value(key);
                if (!v.ok) break;
                ground.push_back(std::move(v.value));
            }
            at->rules->head_ground_keys.push_back(std::move(ground));
            pending.push_back({&rule, at->rules, static_len});
        }
    }
    for (const auto& p : pending) {
        // The clauses of an else chain, linked in order (chains can be long: no recursion).
        std::shared_ptr<PRule> first;
        PRule* last = nullptr;
        uint32_t slots = 0;
        for (lang::Rule* c = p.rule; c; c = c->else_rule.get()) {
            lang::Rule clause;
            clause.loc = c->loc;
            clause.is_default = c->is_default;
            clause.head = lang::copy_head(c->head);
            if (take_bodies) {
                clause.body = std::move(c->body);
                c->body.clear();
            } else {
                clause.body = lang::copy_body(c->body);
            }
            auto lowered = lower_clause(program, *compiled, std::move(clause), p.set->kind, p.static_len, diags);
            slots = std::max(slots, lowered->slots);
            if (!first) first = lowered;
            else last->else_rule = lowered;
            last = lowered.get();
        }
        for (PRule* r = first.get(); r; r = r->else_rule.get()) r->slots = slots;
        if (p.rule->is_default) p.set->default_rule = first;
        else p.set->rules.push_back(first);
    }
    mark_sets_under_variable_keys(program.root);
    Repeatable repeatable(program);
    for (auto& set : program.rule_sets) {
        if (set->kind == RuleKind::PartialObject || set->kind == RuleKind::PartialSet) order_like_opa_rule_tree(*set);
        order_like_opa_index(*set);
        build_index(*set);
        find_tree_nodes(*set);
        set->early_exit = has_one_constant_value(*set);
        set->guarded_early_exit = !set->early_exit && may_exit_early_when_guarded(*set);
        find_shared_prefixes(*set, repeatable);
        set->quiet = set->kind == RuleKind::Function && repeatable.function(*set);
    }
    mark_children_first(program.root);
    return diags;
}

}  // namespace

lang::Diagnostics plan_modules(std::shared_ptr<const compiler::CompiledModules> compiled, Program& program) {
    return plan_modules(std::move(compiled), program, false);
}

lang::Diagnostics plan_modules_taking_bodies(std::shared_ptr<compiler::CompiledModules> compiled, Program& program) {
    return plan_modules(std::move(compiled), program, true);
}

lang::Diagnostics plan_query(const compiler::CompiledQuery& query, const Program& program, PlannedQuery& out) {
    lang::Diagnostics diags;
    lang::Body body = lang::copy_body(query.body);
    Counts counts;
    count_vars(body, counts);
    // The result's expressions come from the compiled query before fusing changes it.
    std::vector<std::pair<const lang::Expr*, std::string>> results;
    for (const auto& e : body)
        if (!e.generated) results.emplace_back(&e, capture_of(e));
    for (const auto& [e, capture] : results) out.expressions.push_back({std::string(e->loc.text()), e->loc, -1});
    static const std::map<std::string, std::string> none;
    const auto& module_vars = program.compiled ? program.compiled->rewritten_vars : none;
    Lowering low{program, module_vars, &query.rewritten_vars, diags, {}, counts};
    if (program.compiled)
        find_comprehension_indexes(
            body, {}, [&](const lang::Term& op) { return program.compiled->arity(op); }, low.comprehension_keys);
    // Captures and user variables get their slots first, so fusing can't lose them.
    for (std::size_t i = 0; i < results.size(); ++i)
        if (!results[i].second.empty()) out.expressions[i].slot = static_cast<int32_t>(low.slot(results[i].second));
    order_set_literals(body);
    fuse_all(body, counts);
    low.find_withs(body);
    out.body = low.body(body);
    fuse_capture_checks(out.body);
    out.slots = static_cast<uint32_t>(low.slots.size());
    // The query's bindings: its own variables, not those inside its comprehensions, as written.
    compiler::VarVisitorParams top;
    top.skip_closures = true;
    top.skip_ref_call_head = true;
    compiler::VarSet own = compiler::vars_of(query.body, top);
    for (const auto& [name, slot] : low.slots) {
        if (!own.count(name)) continue;
        std::string shown = low.display(name);
        if (shown.empty() || shown[0] == '$' || is_generated_name(shown)) continue;
        out.variables.emplace_back(shown, slot);
    }
    std::sort(out.variables.begin(), out.variables.end());
    return diags;
}

}  // namespace gavel::eval
