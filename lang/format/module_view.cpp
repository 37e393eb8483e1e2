#include "lang/ground.hpp"
#include "lang/format/module_view.hpp"

#include <algorithm>

namespace gavel::lang::format {

namespace {

TermPtr generated_true(const Location& at) {
    auto t = make_term(TermKind::Boolean, at);
    t->boolean = true;
    return t;
}

std::vector<TermPtr> parts_of(const TermPtr& ref) {
    if (!ref) return {};
    return ref->kind == TermKind::Ref ? ref->elems : std::vector<TermPtr>{ref};
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Where a braced body `{ ... }` starts and ends, found around its literals.
Span brace_span(const Body& body, const SourceSpans& spans) {
    Span first = spans.of(body.front());
    std::string_view src = spans.source();
    uint32_t begin = first.begin;
    while (begin > 0 && is_blank(src[begin - 1])) --begin;
    if (begin > 0 && src[begin - 1] == '{') --begin;
    uint32_t end = spans.of(body.back()).end;
    while (end < src.size() && src[end] != '}') ++end;
    if (end < src.size()) ++end;
    Span s = first;
    if (begin < first.begin && body.front().loc.source) {
        auto [line, col] = body.front().loc.source->line_col(begin);
        s.row = static_cast<int>(line);
        s.col = static_cast<int>(col);
    }
    s.begin = begin;
    s.end = end;
    return s;
}

std::string dotted(const std::vector<TermPtr>& path) {
    std::string out;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (i > 0) out += '.';
        out += path[i]->text;
    }
    return out;
}

// OPA's future.WhichFutureKeyword.
std::string future_keyword(const ImportView& imp) {
    if (imp.path.size() == 3 && imp.path[0]->kind == TermKind::Var && imp.path[0]->text == "future" &&
        imp.path[1]->kind == TermKind::String && imp.path[1]->text == "keywords" &&
        imp.path[2]->kind == TermKind::String)
        return imp.path[2]->text;
    return {};
}

bool is_future_root(const ImportView& imp) {
    return !imp.path.empty() && imp.path[0]->kind == TermKind::Var && imp.path[0]->text == "future";
}
bool is_all_future_keywords(const ImportView& imp) {
    return imp.path.size() == 2 && dotted(imp.path) == "future.keywords";
}
bool is_rego_v1(const ImportView& imp) { return imp.path.size() == 2 && dotted(imp.path) == "rego.v1"; }

ImportView make_import(const std::vector<std::string>& names, const std::vector<ImportView>& existing) {
    ImportView imp;
    imp.generated = true;
    Location none;
    imp.path.push_back(make_var(names[0], none));
    for (std::size_t i = 1; i < names.size(); ++i) imp.path.push_back(make_string(names[i], none));
    // OPA's nextImportLoc: the row after the last future/rego import, else its default location (row 1).
    int max_row = 0;
    for (const auto& e : existing)
        if (!e.generated && (is_future_root(e) || is_rego_v1(e))) max_row = std::max(max_row, e.row);
    imp.row = max_row == 0 ? 1 : max_row + 1;
    imp.col = 1;
    return imp;
}

void ensure_future_import(std::vector<ImportView>& imports, const std::string& kw) {
    for (const auto& imp : imports)
        if (is_all_future_keywords(imp) || future_keyword(imp) == kw || (future_keyword(imp) == "every" && kw == "in"))
            return;
    ImportView imp = make_import({"future", "keywords", kw}, imports);
    imports.push_back(std::move(imp));
}

void ensure_rego_v1(std::vector<ImportView>& imports) {
    for (const auto& imp : imports)
        if (dotted(imp.path) == "rego.v1" && imp.path.size() == 2) return;
    ImportView imp = make_import({"rego", "v1"}, imports);
    imports.push_back(std::move(imp));
}

// Expressions that make OPA's formatter want a future import: `x in xs` as a
// literal, `every`. Walked with an explicit stack.
void scan_keyword_uses(const Module& m, bool& uses_in, bool& uses_every) {
    std::vector<const Body*> bodies;
    std::vector<const Term*> terms;
    for (const auto& r : m.rules) {
        for (const Rule* c = &r; c; c = c->else_rule.get()) {
            bodies.push_back(&c->body);
            for (const auto& b : c->extra_bodies) bodies.push_back(&b);
            if (c->head.value) terms.push_back(c->head.value.get());
            if (c->head.key) terms.push_back(c->head.key.get());
        }
    }
    while (!bodies.empty() || !terms.empty()) {
        if (!bodies.empty()) {
            const Body* b = bodies.back();
            bodies.pop_back();
            for (const auto& e : *b) {
                if (e.kind == ExprKind::Every) {
                    uses_every = true;
                    if (e.every.body) bodies.push_back(e.every.body.get());
                    if (e.every.domain) terms.push_back(e.every.domain.get());
                }
                if (e.kind == ExprKind::Term && e.term) {
                    std::string name = e.term->call_name();
                    if (name == "internal.member_2" || name == "internal.member_3") uses_in = true;
                    terms.push_back(e.term.get());
                }
                if (e.kind == ExprKind::Some && e.some.in_call) terms.push_back(e.some.in_call.get());
                if (e.body) bodies.push_back(e.body.get());
                for (const auto& w : e.withs)
                    if (w.value) terms.push_back(w.value.get());
            }
            continue;
        }
        const Term* t = terms.back();
        terms.pop_back();
        for (const auto& e : t->elems) terms.push_back(e.get());
        for (const auto& [k, v] : t->items) {
            terms.push_back(k.get());
            terms.push_back(v.get());
        }
        if (t->key) terms.push_back(t->key.get());
        if (t->value) terms.push_back(t->value.get());
        if (t->body) bodies.push_back(t->body.get());
    }
}

}  // namespace

HeadView head_view(const Rule& rule, const SourceSpans& spans) {
    const RuleHead& h = rule.head;
    HeadView v;
    const Location& name = h.ref ? h.ref->loc : rule.loc;
    v.loc = spans.head(h, name);
    v.ref = parts_of(h.ref);
    v.args = h.args;
    v.key = h.key;
    v.value = h.value;
    v.assign = h.assign == AssignOp::Assign;
    v.contains = h.contains;
    const bool bodiless = rule.body.empty() && !rule.has_if;
    if (!h.contains && !h.key && !rule.is_default && v.ref.size() == 2 && v.args.empty()) {
        if (rule.has_if) {
            // `p[x] if ...` is a single-value rule p[x]; a non-ground x is also its key.
            const TermPtr& k = v.ref[1];
            if (!is_ground(*k) || k->kind == TermKind::Ref) v.key = k;
            if (!v.value) {
                v.value = generated_true(name);
                v.value_at_head = true;
            }
        } else if (v.value) {
            // `p[k] = v { ... }`, and a bodiless `p.k := v` (OPA's ParsePartialObjectDocRuleFromEqExpr).
            v.key = v.ref[1];
        }
    }
    if (!v.value && !v.key) {
        v.value = generated_true(name);
        // OPA's ParseCompleteDocRuleWithDotsFromTerm and ParseRuleFromCallExpr give a
        // bodiless `a.b.c` or `f(x)` the head's own location.
        v.value_at_head = bodiless && !rule.is_default;
    }
    return v;
}

ModuleView build_view(const Module& m, const SourceSpans& spans, const ViewOptions& options, WriterOptions& o) {
    ModuleView view;
    view.module = &m;
    view.package_loc = spans.of(m.package.loc);
    std::vector<TermPtr> pkg = parts_of(m.package.path);
    if (!pkg.empty() && pkg[0]->kind == TermKind::Var && pkg[0]->text == "data") pkg.erase(pkg.begin());
    if (!pkg.empty() && pkg[0]->kind == TermKind::String) pkg[0] = make_var(pkg[0]->text, pkg[0]->loc);
    view.package_path = std::move(pkg);

    for (const auto& imp : m.imports) {
        ImportView iv;
        iv.row = static_cast<int>(imp.loc.line);
        iv.col = static_cast<int>(imp.loc.col);
        iv.path = parts_of(imp.path);
        iv.alias = imp.alias;
        view.imports.push_back(std::move(iv));
    }

    for (const auto& c : m.comments) {
        CommentView cv;
        cv.row = static_cast<int>(c.loc.line);
        cv.col = static_cast<int>(c.loc.col);
        cv.text = c.text;
        while (!cv.text.empty() && (is_blank(cv.text.back()) || cv.text.back() == '\v' || cv.text.back() == '\f'))
            cv.text.pop_back();
        cv.raw = c.loc.text();
        view.comments.push_back(std::move(cv));
    }
    std::stable_sort(view.comments.begin(), view.comments.end(), [](const CommentView& a, const CommentView& b) {
        return a.row != b.row ? a.row < b.row : a.col < b.col;
    });

    for (const auto& r : m.rules) {
        RuleView rv;
        rv.loc = spans.of(r.loc);
        rv.is_default = r.is_default;
        rv.head = head_view(r, spans);
        rv.body = r.body.empty() ? nullptr : &r.body;
        rv.else_rule = r.else_rule.get();
        rv.top = &r;
        if (!r.extra_bodies.empty() && !r.body.empty()) rv.loc.end = brace_span(r.body, spans).end;
        view.rules.push_back(rv);
        for (const auto& extra : r.extra_bodies) {
            // OPA makes a rule of each chained body, its head copied to the body's location.
            RuleView cv = view.rules.back();
            Span at = brace_span(extra, spans);
            cv.loc = at;
            cv.head.loc = at;
            cv.head.value_at_head = true;
            cv.body = &extra;
            cv.else_rule = nullptr;
            view.rules.push_back(cv);
        }
    }

    // OPA's fmtOpts.
    const bool v1_target = options.target != TargetVersion::V0;
    o.rego_v1 = v1_target;
    o.ifs = o.contains = v1_target;
    bool rego_v1_imported = false;
    for (const auto& imp : view.imports) {
        std::string kw = future_keyword(imp);
        if (!kw.empty()) o.future_keywords.push_back(kw);
        if (is_rego_v1(imp)) {
            rego_v1_imported = true;
            o.contains = o.ifs = true;
        } else if (is_all_future_keywords(imp)) {
            o.contains = o.ifs = true;
        } else if (kw == "contains") {
            o.contains = true;
        } else if (kw == "if") {
            o.ifs = true;
        }
    }
    for (const auto& r : view.rules) {
        std::size_t len = r.head.ref.size();
        if (len > 2 || (len == 2 && r.head.key && !r.head.value)) o.ref_heads = true;
    }

    // The imports the target dialect adds or drops (OPA's AstWithOpts).
    auto& imps = view.imports;
    if (options.target == TargetVersion::V1 && options.drop_v0_imports) {
        imps.erase(std::remove_if(imps.begin(), imps.end(), [](const ImportView& i) { return is_rego_v1(i); }),
                   imps.end());
    } else if (options.target == TargetVersion::V0CompatV1) {
        ensure_rego_v1(imps);
    }
    rego_v1_imported = std::any_of(imps.begin(), imps.end(), [](const ImportView& i) { return is_rego_v1(i); });
    bool uses_in = false, uses_every = false;
    scan_keyword_uses(m, uses_in, uses_every);
    if (v1_target || rego_v1_imported) {
        if (!options.drop_v0_imports && !rego_v1_imported) {
            for (const auto& kw : o.future_keywords) ensure_future_import(imps, kw);
        } else {
            imps.erase(std::remove_if(imps.begin(), imps.end(), [](const ImportView& i) { return is_future_root(i); }),
                       imps.end());
        }
    } else {
        if (uses_in) ensure_future_import(imps, "in");
        if (uses_every) ensure_future_import(imps, "every");
    }
    return view;
}

}  // namespace gavel::lang::format
