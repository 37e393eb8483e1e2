#include "engine/testing.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lang/ast.hpp"
#include "runtime/json.hpp"
#include "engine/coverage.hpp"
#include "engine/loader.hpp"

namespace gavel::testing {

using runtime::Value;

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

uint64_t since_ns(std::chrono::steady_clock::time_point start) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

// OPA's termToString: a string as is, anything else as compact JSON written by
// Go's json.Encoder, which escapes <, > and & (they occur only inside strings).
std::string case_key(const Value& key) {
    if (key.is_string()) return std::string(key.as_string());
    std::string out;
    runtime::append_json(out, key, runtime::JsonWriteOptions{runtime::JsonStyle::Compact, true, 0});
    return out;
}

// The sub-results of a partial-object test's value (OPA's subResults/subResult):
// true passes, an object passes when all its keys do, null passes unnamed,
// anything else fails. Returns whether one failed.
bool value_sub_results(const Value& v, std::vector<SubResult>& out) {
    if (!v.is_object()) return false;
    bool fail = false;
    for (const auto& entry : v.object_entries()) {
        SubResult sub;
        sub.key = case_key(entry.key);
        if (entry.value.is_null()) {
            // OPA makes an empty SubResult here: no name, not failed.
        } else if (entry.value.is_object()) {
            sub.name = sub.key;
            sub.fail = value_sub_results(entry.value, sub.cases);
        } else {
            sub.name = sub.key;
            sub.fail = !(entry.value.is_bool() && entry.value.as_bool());
        }
        fail |= sub.fail;
        out.push_back(std::move(sub));
    }
    std::sort(out.begin(), out.end(), [](const SubResult& a, const SubResult& b) { return a.key < b.key; });
    return fail;
}

// A case the body started (OPA's SubResultMap.update): the keys along `path` are
// added as failing unless present; returns whether the case failed.
bool started_case(std::vector<SubResult>& level, const std::vector<std::string>& path, std::size_t i) {
    if (i >= path.size()) return true;
    auto it = std::lower_bound(level.begin(), level.end(), path[i],
                               [](const SubResult& s, const std::string& key) { return s.key < key; });
    if (it == level.end() || it->key != path[i]) it = level.insert(it, SubResult{path[i], path[i], true, {}});
    if (i + 1 == path.size()) return it->fail;
    bool fail = started_case(it->cases, path, i + 1);
    if (fail) it->fail = true;
    return fail;
}

// Whether a partial-object test failed, with its sub-results.
bool partial_object_outcome(const Value& v, const std::set<std::vector<Value>>& started, std::vector<SubResult>& out) {
    if (v.is_null()) return true;
    bool fail = value_sub_results(v, out);
    for (const auto& path : started) {
        std::vector<std::string> keys;
        for (const auto& part : path) keys.push_back(case_key(part));
        fail |= started_case(out, keys, 0);
    }
    return fail;
}

bool is_ground(const lang::Term& t) {
    switch (t.kind) {
        case lang::TermKind::Null:
        case lang::TermKind::Boolean:
        case lang::TermKind::Number:
        case lang::TermKind::String: return true;
        case lang::TermKind::Array:
        case lang::TermKind::Set:
            return std::all_of(t.elems.begin(), t.elems.end(),
                               [](const lang::TermPtr& e) { return e && is_ground(*e); });
        case lang::TermKind::Object:
            return std::all_of(t.items.begin(), t.items.end(), [](const auto& kv) {
                return kv.first && kv.second && is_ground(*kv.first) && is_ground(*kv.second);
            });
        default: return false;
    }
}

// OPA's Head.DocKind() == PartialObjectDoc: a key with a value (v0 `p[k] = v`),
// or a head ref with a non-ground part after the name (`p[x] if`, `p.q[x] := v`).
// `contains` and v0 `p[x] { }` have a key and no value: a partial set.
bool is_partial_object(const lang::RuleHead& head) {
    if (head.has_args) return false;
    if (head.key) return head.value != nullptr;
    if (!head.ref || head.ref->kind != lang::TermKind::Ref) return false;
    for (std::size_t i = 1; i < head.ref->elems.size(); ++i)
        if (!head.ref->elems[i] || !is_ground(*head.ref->elems[i])) return true;
    return false;
}

// One part of a partial-object test's key path, as the body binds it: a constant,
// a variable, or a variable's member (`tc.note`).
struct CasePart {
    std::optional<Value> constant;
    std::string variable;
    std::vector<Value> member;  // constant path below the variable
};

std::optional<Value> constant_value(const lang::Term& t) {
    switch (t.kind) {
        case lang::TermKind::Null: return Value::null();
        case lang::TermKind::Boolean: return Value::boolean(t.boolean);
        case lang::TermKind::String: return Value::string(t.text);
        case lang::TermKind::Number: {
            auto parsed = runtime::parse_json(t.text);
            if (parsed.ok) return parsed.value;
            return std::nullopt;
        }
        default: return std::nullopt;
    }
}

// The head's parts after the rule's name, when each is one the tracer can follow.
std::vector<CasePart> case_parts(const lang::RuleHead& head) {
    std::vector<CasePart> parts;
    if (!head.ref || head.ref->kind != lang::TermKind::Ref) return parts;
    for (std::size_t i = 1; i < head.ref->elems.size(); ++i) {
        const lang::Term& t = *head.ref->elems[i];
        CasePart part;
        if (auto c = constant_value(t)) {
            part.constant = std::move(c);
        } else if (t.kind == lang::TermKind::Var && t.text != "_") {
            part.variable = t.text;
        } else if (t.kind == lang::TermKind::Ref && !t.elems.empty() && t.elems[0]->kind == lang::TermKind::Var) {
            part.variable = t.elems[0]->text;
            for (std::size_t k = 1; k < t.elems.size(); ++k) {
                auto c = constant_value(*t.elems[k]);
                if (!c) return {};
                part.member.push_back(std::move(*c));
            }
        } else {
            return {};
        }
        parts.push_back(std::move(part));
    }
    return parts;
}

const Value* member_of(const Value& v, const Value& key) {
    if (v.is_object()) return v.find(key);
    if (v.is_array()) {
        int64_t i;
        if (key.is_number() && key.as_int64(i) && i >= 0 && static_cast<std::size_t>(i) < v.size())
            return &v.array_elements()[static_cast<std::size_t>(i)];
    }
    return nullptr;
}

// The key path of the case an expression's bindings name, when all its variables are bound there.
std::optional<std::vector<Value>> case_path(const std::vector<CasePart>& parts,
                                            const std::vector<std::pair<std::string, Value>>& bindings) {
    std::vector<Value> path;
    for (const auto& part : parts) {
        if (part.constant) {
            path.push_back(*part.constant);
            continue;
        }
        const Value* v = nullptr;
        for (const auto& [name, value] : bindings)
            if (name == part.variable) v = &value;
        for (std::size_t k = 0; v && k < part.member.size(); ++k) v = member_of(*v, part.member[k]);
        if (!v) return std::nullopt;
        path.push_back(*v);
    }
    return path;
}

// Watches one test's evaluation: lines reached, and the furthest top-level body
// expression of the test that failed.
class TestTracer : public Tracer {
public:
    TestTracer(const RunOptions& options, const TestCase& test,
               const std::set<std::pair<uint32_t, uint32_t>>& top_level, const std::vector<CasePart>& case_parts)
        : options_(options), test_(test), top_level_(top_level), case_parts_(case_parts) {}

    void trace(const TraceEvent& e) override {
        if (options_.tracer) options_.tracer->trace(e);
        if (options_.coverage) coverage.trace(e);
        // A partial-object test's cases: every key its body binds (OPA injects
        // internal.test_case where the head's variables are bound).
        if (!case_parts_.empty() && (e.op == TraceOp::Eval || e.op == TraceOp::Redo) && e.depth == 1 &&
            e.file == test_.file && top_level_.count({e.line, e.col})) {
            if (auto path = case_path(case_parts_, e.bindings())) cases_started.insert(std::move(*path));
        }
        if (options_.explain && e.op == TraceOp::Fail && e.depth == 1 && e.file == test_.file &&
            top_level_.count({e.line, e.col})) {
            if (failed_at && std::make_pair(e.line, e.col) < std::make_pair(failed_at->line, failed_at->col)) return;
            FailedExpression f;
            f.file = std::string(e.file);
            f.line = e.line;
            f.col = e.col;
            f.text = std::string(e.text);
            f.bindings = e.bindings();
            f.operands = e.operands();
            failed_at = std::move(f);
        }
    }

    coverage::CoverageTracer coverage;
    std::optional<FailedExpression> failed_at;
    std::set<std::vector<Value>> cases_started;

private:
    const RunOptions& options_;
    const TestCase& test_;
    const std::set<std::pair<uint32_t, uint32_t>>& top_level_;
    const std::vector<CasePart>& case_parts_;
};

}  // namespace

std::vector<TestCase> discover(const std::vector<RuleInfo>& rules) {
    std::vector<TestCase> out;
    std::set<std::string> seen;
    for (const auto& r : rules) {
        if (r.function) continue;
        bool skip = starts_with(r.name, "todo_test_");
        if (!skip && !starts_with(r.name, "test_")) continue;
        // OPA queries the rule's name alone (ruleName stops at the test_ part):
        // `test_x.y[z]` is tested as data.pkg.test_x.
        std::string query = r.package + engine::data_path_text({r.name}).substr(std::string_view("data").size());
        if (!seen.insert(query).second) continue;
        TestCase t;
        t.package = r.package;
        t.name = r.name;
        t.query = std::move(query);
        t.file = r.file;
        t.line = r.line;
        t.col = r.col;
        t.skip = skip;
        out.push_back(std::move(t));
    }
    return out;
}

struct TestRunner::Impl {
    Engine& engine;
    std::vector<TestCase> tests;
    std::vector<std::optional<PreparedQuery>> queries;
    std::vector<std::set<std::pair<uint32_t, uint32_t>>> top_level;  // per test: its body's literals
    std::vector<std::vector<CasePart>> case_parts;  // per partial-object test: its head's parts after the name

    explicit Impl(Engine& e) : engine(e) {}
};

// The engine's parsed modules are the tests' syntax: a second parse of every
// source doubled the memory of a large test run.
TestRunner::TestRunner(Engine& engine) : impl_(std::make_unique<Impl>(engine)) {}

TestRunner::~TestRunner() = default;

const std::vector<TestCase>& TestRunner::tests() const { return impl_->tests; }

lang::Diagnostics TestRunner::prepare(std::vector<TestCase> tests) {
    impl_->tests = std::move(tests);
    const std::size_t n = impl_->tests.size();
    impl_->queries.assign(n, std::nullopt);
    impl_->top_level.assign(n, {});
    impl_->case_parts.assign(n, {});
    // The tests' syntax is read before compiling: an engine that does not keep its
    // parsed modules (EngineOptions::keep_parsed_modules) hands them to the compiler.
    std::vector<std::set<std::pair<uint32_t, uint32_t>>> top_level(n);
    std::vector<std::optional<std::vector<CasePart>>> partial_parts(n);  // set for partial-object tests
    {
        // Each module's rules by the first part of their head, looked up once per test
        // (scanning every rule for every test is quadratic in a module of many tests).
        std::map<std::string, std::unordered_map<std::string, std::vector<const lang::Rule*>>> rules_by_name;
        for (const auto& [file, module] : impl_->engine.parsed_modules()) {
            auto& by_name = rules_by_name[std::string(file)];
            for (const auto& rule : module->rules) {
                if (!rule.head.ref || rule.head.ref->elems.empty()) continue;
                const auto& head =
                    rule.head.ref->kind == lang::TermKind::Ref ? *rule.head.ref->elems[0] : *rule.head.ref;
                by_name[head.text].push_back(&rule);
            }
        }
        for (std::size_t i = 0; i < n; ++i) {
            const TestCase& t = impl_->tests[i];
            if (t.skip) continue;
            auto m = rules_by_name.find(t.file);
            if (m == rules_by_name.end()) continue;
            auto named = m->second.find(t.name);
            if (named == m->second.end()) continue;
            const lang::Rule* defining = nullptr;  // the rule the test was discovered at
            for (const lang::Rule* rule : named->second) {
                for (const auto& e : rule->body) top_level[i].insert({e.loc.line, e.loc.col});
                if (!defining || (rule->loc.line == t.line && rule->loc.col == t.col)) defining = rule;
            }
            if (defining && is_partial_object(defining->head)) partial_parts[i] = case_parts(defining->head);
        }
    }
    lang::Diagnostics errors = impl_->engine.check();
    if (!errors.empty()) return errors;
    for (std::size_t i = 0; i < n; ++i) {
        TestCase& t = impl_->tests[i];
        if (t.skip) continue;
        auto prepared = impl_->engine.prepare(t.query.empty() ? t.full_name() : t.query);
        if (!prepared.ok()) {
            errors.append(prepared.diagnostics);
            continue;
        }
        impl_->queries[i] = std::move(*prepared.value);
        impl_->top_level[i] = std::move(top_level[i]);
        if (partial_parts[i]) {
            t.partial_object = true;
            impl_->case_parts[i] = std::move(*partial_parts[i]);
        }
    }
    return errors;
}

TestResult TestRunner::run(std::size_t i, const RunOptions& options) const {
    TestResult r;
    r.test = impl_->tests[i];
    if (r.test.skip) {
        r.skip = true;
        return r;
    }
    if (!impl_->queries[i]) {
        r.fail = true;
        return r;
    }
    TestTracer tracer(options, r.test, impl_->top_level[i], impl_->case_parts[i]);
    EvalOptions eval;
    eval.timeout = options.timeout;
    eval.print = [&r](std::string_view line) {
        r.output += line;
        r.output += '\n';
    };
    // Partial-object tests are traced to see the cases that produced nothing (they failed).
    if (options.explain || options.coverage || options.tracer || !impl_->case_parts[i].empty()) eval.tracer = &tracer;
    auto start = std::chrono::steady_clock::now();
    EvalResult result = impl_->queries[i]->eval(eval);
    r.duration = std::chrono::nanoseconds(since_ns(start));
    r.covered = tracer.coverage.take();
    if (result.error) {
        r.error = std::move(result.error);
        // The test's own deadline, worded as OPA words an expired context.
        if (r.error->code == "eval_cancel_error" && options.timeout.count() > 0 && r.duration >= options.timeout)
            r.error->message = "context deadline exceeded";
        return r;
    }
    if (result.rows.empty() || result.rows[0].expressions.empty()) {
        r.fail = true;
    } else {
        const Value& v = result.rows[0].expressions[0].value;
        if (r.test.partial_object) r.fail = partial_object_outcome(v, tracer.cases_started, r.cases);
        else r.fail = !(v.is_bool() && v.as_bool());
        if (r.fail && !r.test.partial_object && !v.is_bool()) r.not_boolean = v;
    }
    if (r.fail) r.failed_at = std::move(tracer.failed_at);
    return r;
}

bool TestRunner::run_quietly(std::size_t i, uint64_t* eval_ns) const {
    if (!impl_->queries[i]) return false;
    EvalOptions eval;
    eval.print = [](std::string_view) {};
    eval.metrics = eval_ns != nullptr;
    EvalResult result = impl_->queries[i]->eval(eval);
    if (eval_ns)
        for (const auto& [name, ns] : result.metrics)
            if (name == "timer_rego_query_eval_ns") *eval_ns += ns;
    if (result.error || result.rows.empty() || result.rows[0].expressions.empty()) return false;
    const Value& v = result.rows[0].expressions[0].value;
    if (!impl_->tests[i].partial_object) return v.is_bool() && v.as_bool();
    std::vector<SubResult> cases;
    return !partial_object_outcome(v, {}, cases);
}

std::map<std::string, std::set<uint32_t>> TestRunner::coverable_lines() const {
    return impl_->engine.coverable_lines();
}

}  // namespace gavel::testing
