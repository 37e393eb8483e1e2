#include "engine/partial/evaluator_impl.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "compiler/ast/var_visitor.hpp"
#include "compiler/types/checker.hpp"
#include "runtime/stack_limit.hpp"

namespace gavel::partial {

EvalError make_error(std::string code, std::string message, const lang::Location& loc) {
    EvalError e;
    e.code = std::move(code);
    e.message = std::move(message);
    if (loc.source) {
        e.file = std::string(loc.file());
        e.line = loc.line;
        e.col = loc.col;
        if (e.file.empty()) e.text = std::string(loc.text());
    }
    return e;
}

void halt(std::string code, std::string message, const lang::Location& loc) {
    throw Halt{make_error(std::move(code), std::move(message), loc)};
}

namespace {

constexpr const char* kGenvarPrefix = "$";

bool is_false(const Term& t) { return t.kind == TermKind::Boolean && !t.boolean; }

bool is_input_ref(const Term& t) { return t.kind == TermKind::Ref && !t.elems.empty() && is_var(*t.elems[0], "input"); }
bool is_data_ref(const Term& t) { return t.kind == TermKind::Ref && !t.elems.empty() && is_var(*t.elems[0], "data"); }
bool is_other_ref(const Term& t) { return !is_input_ref(t) && !is_data_ref(t); }

// Calls f on every ref inside t (OPA's WalkRefs), comprehension bodies included.
void walk_refs(const TermPtr& t, const std::function<void(const TermPtr&)>& f);

void walk_expr_refs(const lang::Expr& e, const std::function<void(const TermPtr&)>& f, bool with_withs) {
    if (e.term) walk_refs(e.term, f);
    if (e.kind == lang::ExprKind::Every) {
        if (e.every.key) walk_refs(e.every.key, f);
        if (e.every.value) walk_refs(e.every.value, f);
        if (e.every.domain) walk_refs(e.every.domain, f);
        for (const auto& x : *e.every.body) walk_expr_refs(x, f, true);
    }
    if (with_withs)
        for (const auto& w : e.withs) {
            walk_refs(w.target, f);
            walk_refs(w.value, f);
        }
}

void walk_refs(const TermPtr& t, const std::function<void(const TermPtr&)>& f) {
    if (!t) return;
    if (t->kind == TermKind::Ref) f(t);
    for (const auto& e : t->elems) walk_refs(e, f);
    for (const auto& [k, v] : t->items) {
        walk_refs(k, f);
        walk_refs(v, f);
    }
    if (t->key) walk_refs(t->key, f);
    if (t->value) walk_refs(t->value, f);
    if (t->body)
        for (const auto& x : *t->body) walk_expr_refs(x, f, true);
}

// The variables of a term (OPA's VarVisitor with SkipClosures and SkipRefHead).
compiler::VarSet save_pair_vars(const Term& t) {
    compiler::VarVisitorParams params;
    params.skip_closures = true;
    params.skip_ref_head = true;
    return compiler::vars_of(t, params);
}

struct SavePair {
    TermPtr term;
    Bindings* b;
};

void save_pairs_from_term(const TermPtr& x, Bindings* b, std::vector<SavePair>& out) {
    if (x->kind == TermKind::Var) {
        out.push_back({x, b});
        return;
    }
    for (const auto& v : save_pair_vars(*x)) {
        auto [y, next] = b->apply(make_var(v));
        save_pairs_from_term(y, next, out);
    }
}

void save_pairs_from_expr(int decl_args, const lang::Expr& x, Bindings* b, std::vector<SavePair>& out) {
    if (x.kind != lang::ExprKind::Term || !x.term) return;
    if (!is_call(x)) {
        save_pairs_from_term(x.term, b, out);
        return;
    }
    const auto& terms = x.term->elems;
    if (is_equality(x)) {
        save_pairs_from_term(terms[1], b, out);
        save_pairs_from_term(terms[2], b, out);
        return;
    }
    if (decl_args == static_cast<int>(terms.size()) - 2) save_pairs_from_term(terms.back(), b, out);
}

// Expressions that cannot be negated as they are (OPA's containsNestedRefOrCall).
bool has_ref_or_call(const TermPtr& t) {
    bool found = false;
    std::function<void(const TermPtr&)> walk = [&](const TermPtr& x) {
        if (found || !x) return;
        if (x->kind == TermKind::Ref || x->kind == TermKind::Call) {
            found = true;
            return;
        }
        for (const auto& e : x->elems) walk(e);
        for (const auto& [k, v] : x->items) {
            walk(k);
            walk(v);
        }
        walk(x->key);
        walk(x->value);
        if (x->body)
            for (const auto& e : *x->body) {
                walk(e.term);
                if (e.kind == lang::ExprKind::Every) {
                    walk(e.every.key);
                    walk(e.every.value);
                    walk(e.every.domain);
                    found = true;  // an every body holds expressions: calls at least
                }
                for (const auto& w : e.withs) {
                    walk(w.target);
                    walk(w.value);
                }
            }
    };
    walk(t);
    return found;
}

bool nested_ref_or_call_in_term(const TermPtr& t) {
    if (t->kind == TermKind::Ref) {
        for (std::size_t i = 1; i < t->elems.size(); ++i)
            if (has_ref_or_call(t->elems[i])) return true;
        return false;
    }
    return has_ref_or_call(t);
}

bool contains_nested_ref_or_call(const lang::Expr& e) {
    if (e.kind == lang::ExprKind::Every) return true;
    if (is_equality(e)) return nested_ref_or_call_in_term(operand(e, 0)) || nested_ref_or_call_in_term(operand(e, 1));
    if (is_call(e)) {
        for (std::size_t i = 0; i < operand_count(e); ++i)
            if (has_ref_or_call(operand(e, i))) return true;
        return false;
    }
    return nested_ref_or_call_in_term(e.term);
}

bool can_inline_negation(const compiler::VarSet& safe, const std::vector<Body>& queries) {
    std::size_t size = 1;
    for (const auto& q : queries) {
        size *= q.size();
        for (const auto& e : q) {
            if (contains_nested_ref_or_call(e)) return false;
            if (!e.negated) {
                compiler::VarVisitorParams params;
                params.skip_ref_call_head = true;
                params.skip_closures = true;
                compiler::VarSet vars = compiler::vars_of(e, params);
                vars.erase("data");
                vars.erase("input");
                if (compiler::difference_count(vars, safe) > 0) return false;
            }
        }
    }
    return size <= 16;
}

void complemented_cartesian_product(const std::vector<Body>& queries, std::size_t idx, Body& curr,
                                    const std::function<void(const Body&)>& iter) {
    if (idx == queries.size()) {
        iter(curr);
        return;
    }
    for (const auto& e : queries[idx]) {
        lang::Expr c = e;
        c.negated = !c.negated;
        curr.push_back(std::move(c));
        complemented_cartesian_product(queries, idx + 1, curr, iter);
        curr.pop_back();
    }
}

// `with` on input or data: the document with `value` at the target's path
// (OPA's mergeTermWithValues, one target at a time).
TermPtr make_tree(const std::vector<TermPtr>& path, std::size_t from, const TermPtr& value) {
    TermPtr out = value;
    for (std::size_t i = path.size(); i-- > from;) out = make_object({{path[i], out}});
    return out;
}

TermPtr set_path(const TermPtr& doc, const std::vector<TermPtr>& path, std::size_t i, const TermPtr& value) {
    if (!doc || doc->kind != TermKind::Object) return make_tree(path, i, value);
    std::vector<Item> items = sorted_items(*doc);
    for (auto& [k, v] : items) {
        if (equal(*k, *path[i])) {
            if (i + 1 == path.size()) v = value;
            else if (v->kind == TermKind::Object) v = set_path(v, path, i + 1, value);
            else v = make_tree(path, i + 1, value);
            return make_object(std::move(items));
        }
    }
    items.emplace_back(path[i], make_tree(path, i + 1, value));
    return make_object(std::move(items));
}

TermPtr merge_with_values(const TermPtr& exist, const std::vector<std::pair<TermPtr, TermPtr>>& pairs) {
    TermPtr result = exist;
    bool init = false;
    for (const auto& [target, value] : pairs) {
        if (target->elems.size() == 1) {
            result = value;
        } else {
            if (!init) result = exist;
            result = result ? set_path(result, target->elems, 1, value) : make_tree(target->elems, 1, value);
        }
        init = true;
    }
    return result;
}

}  // namespace

// ---------------------------------------------------------------------------

Evaluator::Evaluator(const Program& program, const Options& options) : program_(program), options_(options) {
    builtin_context_.deadline = options.deadline;
    builtin_context_.cancel = options.cancel;
    builtin_context_.print = options.print ? options.print : [](std::string_view) {};
    mock_stack_.emplace_back();
}

Frame Evaluator::child(const Frame& e, const Body& query) {
    Frame c = e;
    c.index = 0;
    c.query = &query;
    c.query_id = next_query_id();
    c.bindings = new_bindings(c.query_id);
    return c;
}

Frame Evaluator::closure(const Frame& e, const Body& query) {
    Frame c = e;
    c.index = 0;
    c.query = &query;
    c.query_id = next_query_id();
    return c;
}

void Evaluator::check_cancelled(const Frame& e) {
    if ((++steps_ & 63) == 0 && builtin_context_.expired())
        halt("eval_cancel_error", options_.cancel && options_.cancel->load() ? "caller cancelled query execution"
                                                                             : "context deadline exceeded");
    static thread_local uintptr_t floor = runtime::stack_floor();
    if (runtime::stack_position() < floor) {
        halt("eval_internal_error",
             fmt::format("evaluation too deep: it reached the limit of this thread's stack ({} KiB)",
                         runtime::stack_size() / 1024),
             e.index < e.query->size() ? e.expr().loc : lang::Location{});
    }
}

void Evaluator::eval(Frame& e, EvalIter iter) {
    check_cancelled(e);
    if (e.index >= e.query->size()) {
        iter(e);
        return;
    }
    const lang::Expr& expr = e.expr();
    if (expr.kind != lang::ExprKind::Term && expr.kind != lang::ExprKind::Every)
        halt("eval_internal_error", "partial evaluation does not support the experimental and/or keywords", expr.loc);
    if (!expr.withs.empty()) {
        eval_with(e, iter);
        return;
    }
    eval_step(e, [&](Frame& f) { next(f, iter); });
}

void Evaluator::next(Frame& e, EvalIter iter) {
    ++e.index;
    eval(e, iter);
    --e.index;
}

void Evaluator::eval_step(Frame& e, EvalIter iter) {
    const lang::Expr& expr = e.expr();
    if (expr.negated) {
        eval_not(e, iter);
        return;
    }
    if (expr.kind == lang::ExprKind::Every) {
        eval_every(e, expr, [&] { iter(e); });
        return;
    }
    if (is_call(expr)) {
        if (is_equality(expr)) {
            unify(e, operand(expr, 0), operand(expr, 1), [&] { iter(e); });
        } else {
            eval_call(e, expr.term->elems, [&] { iter(e); });
        }
        return;
    }
    // OPA disables inlining of this variable only when it traces (its traced
    // branch of evalStep does, its untraced one does not): gavel does not trace
    // partial evaluation, and follows the untraced branch.
    TermPtr rterm = make_var(fmt::format("{}_term_{}_{}", kGenvarPrefix, e.query_id, e.index));
    unify(e, expr.term, rterm, [&] {
        if (save_set_.contains(*rterm, e.bindings)) {
            save_expr(e, make_term_expr(rterm), e.bindings, [&] { iter(e); });
            return;
        }
        if (!is_false(*e.bindings->plug(rterm))) iter(e);
    });
}

void Evaluator::eval_not(Frame& e, EvalIter iter) {
    const lang::Expr& expr = e.expr();
    if (unknown_expr(expr, e.bindings)) {
        eval_not_partial(e, iter);
        return;
    }
    lang::Expr negation = expr;
    negation.negated = false;
    negation.withs.clear();
    Body body{negation};
    Frame c = closure(e, body);
    bool defined = false;
    eval(c, [&](Frame&) { defined = true; });
    if (!defined) iter(e);
}

void Evaluator::eval_not_partial(Frame& e, EvalIter iter) {
    const lang::Expr& expr = e.expr();
    lang::Expr negation = expr;
    negation.negated = false;
    negation.withs.clear();
    Body body{negation};
    Frame c = closure(e, body);

    compiler::VarSet unknowns = save_set_.vars(caller_);
    CopyPropagator cp(unknowns, program_);
    cp.ensure_non_empty_body(true);
    std::vector<Body> saved;
    save_stack_.push_query({});
    eval(c, [&](Frame&) {
        Body plugged = plug_query(save_stack_.peek(), caller_);
        if (!passes_type_check(plugged)) return;
        if (!inlining_.shallow) plugged = cp.apply(plugged);
        saved.push_back(std::move(plugged));
    });
    save_stack_.pop_query();

    if (saved.empty()) {
        iter(e);
        return;
    }
    if (!can_inline_negation(unknowns, saved)) {
        eval_not_partial_support(e, c.query_id, expr, unknowns, saved, iter);
        return;
    }
    Body curr;
    complemented_cartesian_product(saved, 0, curr,
                                   [&](const Body& q) { save_inlined_negated_exprs(e, q, [&] { iter(e); }); });
}

void Evaluator::eval_not_partial_support(Frame& e, uint64_t negation_id, const lang::Expr& expr,
                                         compiler::VarSet unknowns, const std::vector<Body>& queries, EvalIter iter) {
    std::string name = fmt::format("__not{}_{}_{}__", e.query_id, e.index, negation_id);
    TermPtr term = make_ref({make_var("data"), make_string(options_.partial_namespace), make_string(name)});

    compiler::VarSet body_vars;
    for (const auto& q : queries) compiler::add_all(body_vars, compiler::vars_of(q));
    unknowns = compiler::intersection(unknowns, body_vars);
    std::vector<TermPtr> args;
    for (const auto& v : unknowns) args.push_back(make_var(v));  // sorted by name

    for (const auto& q : queries) {
        SupportRule rule;
        rule.name = name;
        rule.ref = {make_var(name)};
        rule.args = args;
        rule.value = make_bool(true);
        rule.body = q;
        save_support_.insert(*term, std::move(rule));
    }

    lang::Expr cpy = expr;
    if (!args.empty()) {
        std::vector<TermPtr> terms{term};
        terms.insert(terms.end(), args.begin(), args.end());
        cpy.term = make_call(std::move(terms));
    } else {
        cpy.term = term;
    }
    cpy.kind = lang::ExprKind::Term;
    save_inlined_negated_exprs(e, {cpy}, [&] { next(e, iter); });
}

void Evaluator::eval_with(Frame& e, EvalIter iter) {
    const lang::Expr& expr = e.expr();
    std::vector<TermPtr> disable;
    auto disable_ref = [&](const TermPtr& r) { disable.push_back(ref_ground_prefix(r)); };
    for (const auto& w : expr.withs) {
        if (is_function(*w.target) || is_other_ref(*w.target)) {
            walk_refs(w.value, disable_ref);
            continue;
        }
        if (save_set_.contains_recursive(w.value, e.bindings)) {
            save_expr_mark_unknowns(e, expr, e.bindings, [&] { next(e, iter); });
            return;
        }
        walk_refs(w.target, disable_ref);
        walk_refs(w.value, disable_ref);
    }
    walk_expr_refs(expr, disable_ref, false);

    std::vector<std::pair<TermPtr, TermPtr>> pairs_input, pairs_data;
    std::vector<TermPtr> targets;
    std::map<std::string, TermPtr> mocks;
    for (const auto& w : expr.withs) {
        const TermPtr& target = w.target;
        TermPtr plugged = e.bindings->plug(w.value);
        if (is_function(*target)) {
            mocks[ref_text(*target)] = plugged;
        } else if (is_input_ref(*target)) {
            pairs_input.emplace_back(target, plugged);
        } else if (is_data_ref(*target)) {
            pairs_data.emplace_back(target, plugged);
        } else {
            if (program_.builtin_decl(ref_text(*target))) {
                mocks[ref_text(*target)] = plugged;
                continue;
            }
        }
        targets.push_back(target);
    }

    TermPtr input = merge_with_values(e.input, pairs_input);
    TermPtr data = merge_with_values(e.data, pairs_data);

    TermPtr old_input, old_data;
    auto push = [&] {
        old_input = e.input;
        old_data = e.data;
        if (input) e.input = input;
        if (data) e.data = data;
        virtual_cache_.push();
        target_stack_.push_back(targets);
        inlining_.push_disable_refs(disable, true);
        mock_stack_.back().push_back(mocks);
    };
    auto pop = [&] {
        inlining_.pop_disable();
        target_stack_.pop_back();
        virtual_cache_.pop();
        mock_stack_.back().pop_back();
        e.input = old_input;
        e.data = old_data;
    };
    push();
    eval_step(e, [&](Frame& f) {
        pop();
        next(f, iter);
        push();
    });
    pop();
}

std::pair<TermPtr, bool> Evaluator::mock(const Term& ref) const {
    const auto& current = mock_stack_.back();
    std::string name = ref_text(ref);
    for (auto it = current.rbegin(); it != current.rend(); ++it) {
        auto m = it->find(name);
        if (m != it->end()) return {m->second, true};
    }
    return {nullptr, false};
}

void Evaluator::eval_call(Frame& e, const std::vector<TermPtr>& terms, Iter iter) {
    const Term& ref = *terms[0];
    auto [mocked_value, mocked] = mock(ref);
    if (mocked && mocked_value->kind == TermKind::Ref && is_function(*mocked_value)) {
        std::vector<TermPtr> call{mocked_value};
        call.insert(call.end(), terms.begin() + 1, terms.end());
        mock_stack_.emplace_back();
        eval_call(e, call, [&] {
            auto saved = std::move(mock_stack_.back());
            mock_stack_.pop_back();
            iter();
            mock_stack_.push_back(std::move(saved));
        });
        mock_stack_.pop_back();
        return;
    }

    if (!ref.elems.empty() && is_var(*ref.elems[0], "data")) {
        if (mocked) {
            int arity = program_.arity(ref);
            eval_call_value(e, static_cast<std::size_t>(std::max(arity, 0)), terms, mocked_value, iter);
            return;
        }
        IndexResult ir = get_rules(e, ref);
        eval_func(e, terms, ir, iter);
        return;
    }

    std::string name = ref_text(ref);
    const lang::BuiltinDecl* decl = program_.builtin_decl(name);
    const runtime::Builtin* bi = program_.builtin(name);
    if (!decl) halt("eval_type_error", "unsupported built-in", e.expr().loc);
    if (mocked) {
        eval_call_value(e, decl->arity, terms, mocked_value, iter);
        return;
    }
    if (unknown_expr(e.expr(), e.bindings)) {
        save_call(e, static_cast<int>(decl->arity), terms, iter);
        return;
    }
    if (!bi) halt("eval_type_error", "unsupported built-in", e.expr().loc);
    eval_builtin(e, *bi, *decl, terms, iter);
}

void Evaluator::eval_call_value(Frame& e, std::size_t arity, const std::vector<TermPtr>& terms, const TermPtr& mock,
                                Iter iter) {
    if (terms.size() == arity + 2) {
        unify(e, terms.back(), mock, iter);
    } else if (terms.size() == arity + 1) {
        if (!is_false(*mock)) iter();
    }
}

void Evaluator::eval_builtin(Frame& e, const runtime::Builtin& bi, const lang::BuiltinDecl& decl,
                             const std::vector<TermPtr>& terms, Iter iter) {
    std::vector<TermPtr> operands;
    for (std::size_t i = 1; i < terms.size(); ++i) operands.push_back(e.bindings->plug(terms[i]));
    std::size_t end = operands.size();
    if (end > decl.arity) --end;
    std::vector<runtime::Value> args;
    args.reserve(end);
    for (std::size_t i = 0; i < end && i < decl.arity; ++i) {
        auto v = to_value(*operands[i]);
        if (!v) return;  // not a value (a variable OPA would not have reached): undefined
        args.push_back(std::move(*v));
    }
    if (args.size() < decl.arity && !decl.variadic()) return;

    auto on_output = [&](const runtime::Value& out) {
        if (!decl.has_result()) {
            iter();
        } else if (operands.size() == decl.arity) {
            if (!(out.is_bool() && !out.as_bool())) iter();
        } else {
            unify(e, terms[end + 1], from_value(out), iter);
        }
    };
    auto failed = [&](const runtime::BuiltinResult& r) {
        using S = runtime::BuiltinResult::Status;
        if (r.status == S::Conflict) halt("eval_conflict_error", r.message, e.expr().loc);
        if (r.status == S::Cancelled) halt("eval_cancel_error", "caller cancelled query execution");
        if (r.status == S::TypeError || r.status == S::BuiltinError) {
            EvalError err = make_error(r.status == S::TypeError ? "eval_type_error" : "eval_builtin_error",
                                       decl.name + ": " + r.message, e.expr().loc);
            if (options_.strict_builtin_errors) throw Halt{err};
            builtin_errors_.push_back(std::move(err));
        }
    };
    if (bi.relation) {
        std::vector<runtime::Value> outputs;
        auto r = bi.relation(args, builtin_context_, [&](const runtime::Value& out) {
            outputs.push_back(out);
            return true;
        });
        for (const auto& out : outputs) on_output(out);
        failed(r);
        return;
    }
    runtime::BuiltinResult r = bi.impl(args, builtin_context_);
    if (r.status == runtime::BuiltinResult::Status::Value) {
        on_output(r.value);
        return;
    }
    failed(r);
}

void Evaluator::eval_every(Frame& e, const lang::Expr& expr, Iter iter) {
    const lang::Every& every = expr.every;
    if (unknown(every.domain, e.bindings) || unknown_body(*every.body, e.bindings)) {
        // Saved with its operands and body plugged (OPA's evalEvery.plug).
        std::function<lang::Expr(const lang::Expr&)> plug_every = [&](const lang::Expr& x) {
            lang::Expr cpy = x;
            auto body = std::make_shared<Body>();
            for (const auto& b : *x.every.body) {
                lang::Expr c = b;
                if (b.kind == lang::ExprKind::Every) {
                    c = plug_every(b);
                } else if (is_call(b)) {
                    std::vector<TermPtr> terms = b.term->elems;
                    for (std::size_t j = 1; j < terms.size(); ++j)
                        terms[j] = e.bindings->plug_namespaced(terms[j], caller_);
                    c.term = with_elems(*b.term, std::move(terms));
                } else if (b.term) {
                    c.term = e.bindings->plug_namespaced(b.term, caller_);
                }
                body->push_back(std::move(c));
            }
            cpy.every.body = body;
            if (x.every.key) cpy.every.key = e.bindings->plug_namespaced(x.every.key, caller_);
            cpy.every.value = e.bindings->plug_namespaced(x.every.value, caller_);
            cpy.every.domain = e.bindings->plug_namespaced(x.every.domain, caller_);
            return cpy;
        };
        save_expr(e, plug_every(expr), e.bindings, iter);
        return;
    }
    TermPtr pd = e.bindings->plug(every.domain);
    if (pd->kind != TermKind::Array && pd->kind != TermKind::Object && pd->kind != TermKind::Set) return;

    TermPtr key = every.key ? every.key : make_var("$every_key");
    Body generator{make_equality(make_ref({every.domain, key}), every.value)};
    Frame domain = closure(e, generator);
    bool all = true;
    eval(domain, [&](Frame& c) {
        if (!all) return;
        Frame body = closure(c, *every.body);
        bool done = false;
        eval(body, [&](Frame&) { done = true; });
        if (!done) all = false;
    });
    if (all) iter();
}

// ---------------------------------------------------------------------------
// Unification.

void Evaluator::biunify(Frame& e, TermPtr a, TermPtr b, Bindings* b1, Bindings* b2, Iter iter) {
    std::tie(a, b1) = b1->apply(a);
    std::tie(b, b2) = b2->apply(b);
    auto is_kind = [](const TermPtr& t, std::initializer_list<TermKind> kinds) {
        for (auto k : kinds)
            if (t->kind == k) return true;
        return false;
    };
    switch (a->kind) {
        case TermKind::Var:
        case TermKind::Ref:
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension:
        case TermKind::Set: biunify_values(e, a, b, b1, b2, iter); return;
        case TermKind::Null:
        case TermKind::Boolean:
        case TermKind::Number:
        case TermKind::String:
            if (b->kind == a->kind || is_kind(b, {TermKind::Var, TermKind::Ref})) biunify_values(e, a, b, b1, b2, iter);
            return;
        case TermKind::Array:
            if (is_kind(b, {TermKind::Var, TermKind::Ref, TermKind::ArrayComprehension})) {
                biunify_values(e, a, b, b1, b2, iter);
            } else if (b->kind == TermKind::Array) {
                if (a->elems.size() == b->elems.size()) biunify_arrays(e, *a, *b, b1, b2, iter, 0);
            }
            return;
        case TermKind::Object:
            if (is_kind(b, {TermKind::Var, TermKind::Ref, TermKind::ObjectComprehension})) {
                biunify_values(e, a, b, b1, b2, iter);
            } else if (b->kind == TermKind::Object) {
                biunify_objects(e, a, b, b1, b2, iter);
            }
            return;
        default: return;
    }
}

void Evaluator::biunify_arrays(Frame& e, const Term& a, const Term& b, Bindings* b1, Bindings* b2, Iter iter,
                               std::size_t i) {
    if (i == a.elems.size()) {
        iter();
        return;
    }
    biunify(e, a.elems[i], b.elems[i], b1, b2, [&] { biunify_arrays(e, a, b, b1, b2, iter, i + 1); });
}

void Evaluator::biunify_terms(Frame& e, const std::vector<TermPtr>& a, const std::vector<TermPtr>& b, Bindings* b1,
                              Bindings* b2, Iter iter, std::size_t i) {
    if (a.size() != b.size()) return;
    if (i == a.size()) {
        iter();
        return;
    }
    biunify(e, a[i], b[i], b1, b2, [&] { biunify_terms(e, a, b, b1, b2, iter, i + 1); });
}

void Evaluator::biunify_objects(Frame& e, TermPtr a, TermPtr b, Bindings* b1, Bindings* b2, Iter iter) {
    auto plug_keys = [](const TermPtr& o, Bindings* b) {
        bool ground = true;
        for (const auto& [k, v] : o->items) ground = ground && is_ground(*k);
        if (ground) return o;
        std::vector<Item> items;
        for (const auto& [k, v] : sorted_items(*o)) items.emplace_back(b->plug(k), v);
        return make_object(std::move(items));
    };
    a = plug_keys(a, b1);
    b = plug_keys(b, b2);
    auto ia = sorted_items(*a);
    auto ib = sorted_items(*b);
    if (ia.size() != ib.size()) return;
    std::function<void(std::size_t)> rec = [&](std::size_t i) {
        if (i == ia.size()) {
            iter();
            return;
        }
        TermPtr v2 = object_get(*b, *ia[i].first);
        if (!v2) return;
        biunify(e, ia[i].second, v2, b1, b2, [&] { rec(i + 1); });
    };
    rec(0);
}

void Evaluator::biunify_values(Frame& e, TermPtr a, TermPtr b, Bindings* b1, Bindings* b2, Iter iter) {
    bool save_a, save_b;
    if (a->kind == TermKind::Set) {
        save_a = save_set_.contains_recursive(a, b1);
    } else {
        save_a = save_set_.contains(*a, b1);
        if (!save_a && a->kind == TermKind::Ref) {
            biunify_ref(e, a, b, b1, b2, iter);
            return;
        }
    }
    if (b->kind == TermKind::Set) {
        save_b = save_set_.contains_recursive(b, b2);
    } else {
        save_b = save_set_.contains(*b, b2);
        if (!save_b && b->kind == TermKind::Ref) {
            biunify_ref(e, b, a, b2, b1, iter);
            return;
        }
    }
    if (save_a || save_b) {
        save_unify(e, a, b, b1, b2, iter);
        return;
    }
    if (is_comprehension(*a)) {
        biunify_comprehension(e, a, b, b1, b2, false, iter);
        return;
    }
    if (is_comprehension(*b)) {
        biunify_comprehension(e, b, a, b2, b1, true, iter);
        return;
    }
    bool var_a = a->kind == TermKind::Var, var_b = b->kind == TermKind::Var;
    if (var_a && var_b) {
        if (b1 == b2 && a->text == b->text) {
            iter();
            return;
        }
        b1->bind(a, b, b2);
        iter();
        b1->unbind(a->text);
        return;
    }
    if (var_a) {
        b1->bind(a, b, b2);
        iter();
        b1->unbind(a->text);
        return;
    }
    if (var_b) {
        b2->bind(b, a, b1);
        iter();
        b2->unbind(b->text);
        return;
    }
    if (a->kind == TermKind::Set) {
        a = b1->plug(a);
        b = b2->plug(b);
    }
    if (equal(*a, *b)) iter();
}

void Evaluator::biunify_comprehension(Frame& e, const TermPtr& a, const TermPtr& b, Bindings* b1, Bindings* b2,
                                      bool swap, Iter iter) {
    if (unknown(a, b1)) {
        biunify_comprehension_partial(e, a, b, b1, b2, swap, iter);
        return;
    }
    Frame c = closure(e, *a->body);
    TermPtr result;
    if (a->kind == TermKind::ArrayComprehension) {
        std::vector<TermPtr> elems;
        eval(c, [&](Frame& f) { elems.push_back(f.bindings->plug(a->value)); });
        result = make_array(std::move(elems));
    } else if (a->kind == TermKind::SetComprehension) {
        std::vector<TermPtr> elems;
        eval(c, [&](Frame& f) { elems.push_back(f.bindings->plug(a->value)); });
        result = make_set(std::move(elems));
    } else {
        std::vector<Item> items;
        eval(c, [&](Frame& f) {
            TermPtr k = f.bindings->plug(a->key);
            TermPtr v = f.bindings->plug(a->value);
            for (const auto& [ek, ev] : items)
                if (equal(*ek, *k)) {
                    if (!equal(*ev, *v)) halt("eval_conflict_error", "object keys must be unique", a->key->loc);
                    return;
                }
            items.emplace_back(k, v);
        });
        result = make_object(std::move(items));
    }
    biunify(e, result, b, b1, b2, iter);
}

void Evaluator::biunify_comprehension_partial(Frame& e, const TermPtr& a, TermPtr b, Bindings* b1, Bindings* b2,
                                              bool swap, Iter iter) {
    TermPtr cpy = amend_comprehension(e, a, b1);
    if (is_comprehension(*b)) b = amend_comprehension(e, b, b2);
    if (!swap) save_unify(e, cpy, b, b1, b2, iter);
    else save_unify(e, b, cpy, b2, b1, iter);
}

TermPtr Evaluator::amend_comprehension(Frame&, const TermPtr& a, Bindings* b1) {
    compiler::VarSet vars = compiler::vars_of(*a);
    auto cpy = std::make_shared<Term>(*a);
    auto body = std::make_shared<Body>(*a->body);
    b1->iter(caller_, [&](const TermPtr& k, const TermPtr& v) {
        if (vars.count(k->text)) body->push_back(make_equality(k, v));
    });
    cpy->body = body;
    return b1->namespace_comprehension(cpy, caller_);
}

void Evaluator::biunify_rule_head(Frame& e, std::size_t pos, const Term& ref, const Rule& rule, Bindings* ref_bindings,
                                  Bindings* rule_bindings, eval::FunctionRef<void(std::size_t)> iter) {
    const std::vector<TermPtr>& rule_ref = rule.full_ref->elems;
    biunify_dynamic_ref(e, pos, ref.elems, rule_ref, ref_bindings, rule_bindings, [&](std::size_t p) {
        if (rule.multi_value() && p < ref.elems.size() && rule_ref.size() <= ref.elems.size()) {
            TermPtr head_key = rule.key ? rule.key : rule.reference.back();
            biunify(e, ref.elems[p], head_key, ref_bindings, rule_bindings, [&] { iter(p + 1); });
            return;
        }
        iter(p);
    });
}

void Evaluator::biunify_dynamic_ref(Frame& e, std::size_t pos, const std::vector<TermPtr>& a,
                                    const std::vector<TermPtr>& b, Bindings* b1, Bindings* b2,
                                    eval::FunctionRef<void(std::size_t)> iter) {
    if (pos >= a.size() || pos >= b.size()) {
        iter(pos);
        return;
    }
    biunify(e, a[pos], b[pos], b1, b2, [&] { biunify_dynamic_ref(e, pos + 1, a, b, b1, b2, iter); });
}

// ---------------------------------------------------------------------------
// Saving.

std::vector<lang::With> Evaluator::update_saved_mocks(const std::vector<lang::With>& withs) const {
    std::vector<lang::With> out;
    for (const auto& w : withs) {
        if (is_other_ref(*w.target) || is_function(*w.target)) continue;
        out.push_back(w);
    }
    return out;
}

void Evaluator::update_from_query(const Frame& e, lang::Expr& expr) {
    const lang::Expr& current = e.expr();
    expr.withs = update_saved_mocks(current.withs);
    expr.loc = current.loc;
}

void Evaluator::save_expr(Frame& e, lang::Expr expr, Bindings* b, Iter iter) {
    update_from_query(e, expr);
    save_stack_.push(std::move(expr), b, b);
    iter();
    save_stack_.pop();
}

int Evaluator::decl_args_len(Frame& e, const lang::Expr& x) {
    if (!is_call(x)) return -1;
    const Term& op = *operator_term(x);
    if (const auto* decl = program_.builtin_decl(ref_text(op))) return static_cast<int>(decl->arity);
    IndexResult ir = get_rules(e, op);
    if (ir.empty()) return -1;
    if (!ir.rules.empty()) return static_cast<int>(ir.rules[0]->args.size());
    return -1;
}

void Evaluator::save_expr_mark_unknowns(Frame& e, lang::Expr expr, Bindings* b, Iter iter) {
    update_from_query(e, expr);
    int decl_args = decl_args_len(e, expr);
    std::vector<SavePair> pairs;
    save_pairs_from_expr(decl_args, expr, b, pairs);
    for (const auto& p : pairs) save_set_.push({p.term}, p.b);
    save_stack_.push(std::move(expr), b, b);
    iter();
    save_stack_.pop();
    for (std::size_t i = 0; i < pairs.size(); ++i) save_set_.pop();
}

void Evaluator::save_unify(Frame& e, const TermPtr& a, const TermPtr& b, Bindings* b1, Bindings* b2, Iter iter) {
    lang::Expr expr = make_equality(a, b);
    update_from_query(e, expr);
    std::vector<SavePair> pairs;
    save_pairs_from_term(a, b1, pairs);
    save_pairs_from_term(b, b2, pairs);
    for (const auto& p : pairs) save_set_.push({p.term}, p.b);
    save_stack_.push(std::move(expr), b1, b2);
    iter();
    save_stack_.pop();
    for (std::size_t i = 0; i < pairs.size(); ++i) save_set_.pop();
}

void Evaluator::save_call(Frame& e, int decl_args, std::vector<TermPtr> terms, Iter iter) {
    std::vector<SavePair> pairs;
    if (decl_args == static_cast<int>(terms.size()) - 2) save_pairs_from_term(terms.back(), e.bindings, pairs);
    lang::Expr expr = make_call_expr(std::move(terms));
    update_from_query(e, expr);
    for (const auto& p : pairs) save_set_.push({p.term}, p.b);
    save_stack_.push(std::move(expr), e.bindings, nullptr);
    iter();
    save_stack_.pop();
    for (std::size_t i = 0; i < pairs.size(); ++i) save_set_.pop();
}

void Evaluator::save_inlined_negated_exprs(Frame& e, std::vector<lang::Expr> exprs, Iter iter) {
    std::vector<lang::With> withs = e.expr().withs;
    for (auto& w : withs) w.value = e.bindings->plug_namespaced(w.value, caller_);
    for (auto& x : exprs) {
        x.withs = update_saved_mocks(withs);
        save_stack_.push(x, nullptr, nullptr);
    }
    iter();
    for (std::size_t i = 0; i < exprs.size(); ++i) save_stack_.pop();
}

// ---------------------------------------------------------------------------
// What needs saving (OPA's saveRequired).

namespace {

class SaveRequired {
public:
    SaveRequired(const Program& program, const InliningControl& ic, const SaveSet& ss, Bindings* b)
        : program_(program), ic_(ic), ss_(ss), b_(b) {}

    bool term(const TermPtr& t, bool rec) {
        if (!t) return false;
        switch (t->kind) {
            case TermKind::Var:
                if (!rec && ss_.contains_recursive(t, b_)) return true;
                break;
            case TermKind::Ref:
                if (ss_.contains(*t, b_)) return true;
                if (ic_.disabled_ref(*ref_constant_prefix(t), true)) return true;
                for (const Rule* r : program_.rules_dynamic(*t, false))
                    if (rule(*r)) return true;
                break;
            default: break;
        }
        for (const auto& e : t->elems)
            if (term(e, rec)) return true;
        for (const auto& [k, v] : t->items)
            if (term(k, rec) || term(v, rec)) return true;
        if (term(t->key, rec) || term(t->value, rec)) return true;
        if (t->body && body(*t->body, rec)) return true;
        return false;
    }

    bool expr(const lang::Expr& e, bool rec) {
        if (!e.withs.empty()) return true;
        if (!ic_.nondeterministic_builtins && is_call(e)) {
            if (const auto* decl = program_.builtin_decl(operator_name(e))) {
                static const std::set<std::string> ignored{"rand.intn",
                                                           "uuid.rfc4122",
                                                           "io.jwt.decode_verify",
                                                           "io.jwt.encode_sign_raw",
                                                           "io.jwt.encode_sign",
                                                           "time.now_ns",
                                                           "http.send",
                                                           "opa.runtime",
                                                           "net.lookup_ip_addr"};
                if (decl->nondeterministic || ignored.count(decl->name)) return true;
            }
        }
        if (term(e.term, rec)) return true;
        if (e.kind == lang::ExprKind::Every) {
            if (term(e.every.key, rec) || term(e.every.value, rec) || term(e.every.domain, rec)) return true;
            if (body(*e.every.body, rec)) return true;
        }
        for (const auto& w : e.withs)
            if (term(w.target, rec) || term(w.value, rec)) return true;
        return false;
    }

    bool body(const Body& b, bool rec) {
        for (const auto& e : b)
            if (expr(e, rec)) return true;
        return false;
    }

    bool rule(const Rule& r) {
        // Each rule is looked at once per question: what it reaches does not change meanwhile.
        if (!seen_.insert(&r).second) return false;
        for (const auto& p : r.reference)
            if (term(p, true)) return true;
        for (const auto& a : r.args)
            if (term(a, true)) return true;
        if (term(r.key, true) || term(r.value, true)) return true;
        if (body(r.body, true)) return true;
        if (r.else_rule && rule(*r.else_rule)) return true;
        return false;
    }

private:
    const Program& program_;
    const InliningControl& ic_;
    const SaveSet& ss_;
    Bindings* b_;
    std::set<const Rule*> seen_;
};

}  // namespace

bool Evaluator::unknown(const TermPtr& t, Bindings* b) {
    return SaveRequired(program_, inlining_, save_set_, b).term(t, false);
}

bool Evaluator::unknown_expr(const lang::Expr& x, Bindings* b) {
    return SaveRequired(program_, inlining_, save_set_, b).expr(x, false);
}

bool Evaluator::unknown_body(const Body& x, Bindings* b) {
    return SaveRequired(program_, inlining_, save_set_, b).body(x, false);
}

// ---------------------------------------------------------------------------

bool Evaluator::passes_type_check(const Body& body) const {
    const auto& env = program_.compiled().type_env;
    if (!env) return true;
    compiler::types::Checker checker([](const std::string& v) { return v; });
    auto [checked, errors] = checker.check_body(env, body);
    return errors.empty();
}

Result Evaluator::run(const Body& query) {
    Result result;
    uint64_t id = next_query_id();
    caller_ = new_bindings(id);
    Frame e;
    e.bindings = caller_;
    e.query = &query;
    e.query_id = id;
    e.input = options_.input;

    const std::vector<TermPtr>& unknowns = options_.unknowns;
    save_set_.push(unknowns, caller_);
    inlining_.shallow = options_.shallow_inlining;
    inlining_.nondeterministic_builtins = options_.nondeterministic_builtins;
    if (!options_.disable_inlining.empty()) inlining_.push_disable_refs(options_.disable_inlining, false);

    compiler::VarSet live;
    for (const auto& t : unknowns) {
        if (t->kind == TermKind::Var) live.insert(t->text);
        else if (t->kind == TermKind::Ref && !t->elems.empty() && t->elems[0]->kind == TermKind::Var)
            live.insert(t->elems[0]->text);
    }
    compiler::VarSet query_vars = compiler::vars_of(query);
    for (const auto& v : query_vars)
        if (v.rfind("__local", 0) != 0) live.insert(v);

    CopyPropagator cp(live, program_);
    try {
        eval(e, [&](Frame& f) {
            Body body;
            for (const auto& elem : save_stack_.peek()) body.push_back(elem.plug(f.bindings));
            std::vector<lang::Expr> bindings;
            f.bindings->iter(f.bindings,
                             [&](const TermPtr& a, const TermPtr& b) { bindings.push_back(make_equality(a, b)); });
            std::stable_sort(bindings.begin(), bindings.end(),
                             [](const lang::Expr& x, const lang::Expr& y) { return compare_exprs(x, y) < 0; });
            for (auto& x : bindings) body.push_back(std::move(x));
            if (!passes_type_check(body)) return;
            if (!options_.shallow_inlining) body = cp.apply(body);
            result.queries.push_back(std::move(body));
        });
    } catch (Halt& h) {
        result.error = std::move(h.error);
        return result;
    }
    if (!builtin_errors_.empty() && options_.strict_builtin_errors) result.error = builtin_errors_.front();
    result.support = save_support_.list();
    result.read_base_data = read_base_data_;
    // As OPA's PartialRun, each module's rules in the order of rules (ast.Rule.Compare).
    for (auto& m : result.support)
        std::stable_sort(m.rules.begin(), m.rules.end(),
                         [](const SupportRule& a, const SupportRule& b) { return compare_support_rules(a, b) < 0; });
    return result;
}

int compare_support_rules(const SupportRule& a, const SupportRule& b) {
    auto slices = [](const std::vector<TermPtr>& x, const std::vector<TermPtr>& y) {
        std::size_t n = std::min(x.size(), y.size());
        for (std::size_t i = 0; i < n; ++i)
            if (int c = compare(*x[i], *y[i])) return c;
        return x.size() == y.size() ? 0 : (x.size() < y.size() ? -1 : 1);
    };
    auto terms = [](const TermPtr& x, const TermPtr& y) {
        if (!x || !y) return x ? 1 : (y ? -1 : 0);
        return compare(*x, *y);
    };
    if (int c = slices(a.args, b.args)) return c;
    if (int c = slices(a.ref, b.ref)) return c;
    if (a.name != b.name) return a.name < b.name ? -1 : 1;
    if (int c = terms(a.key, b.key)) return c;
    if (int c = terms(a.value, b.value)) return c;
    if (a.is_default != b.is_default) return a.is_default ? 1 : -1;
    return compare_bodies(a.body, b.body);
}

Result partial_run(const Program& program, const Body& query, const Options& options) {
    Evaluator ev(program, options);
    return ev.run(query);
}

}  // namespace gavel::partial
