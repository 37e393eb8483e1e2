#include "engine/testing.hpp"

#include <algorithm>
#include <utility>

#include "lang/ast.hpp"
#include "lang/parse.hpp"
#include "lang/test_names.hpp"
#include "runtime/value_format.hpp"

namespace gavel::testing {

using runtime::Value;

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

uint64_t since_ns(std::chrono::steady_clock::time_point start) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

std::string case_name(const Value& key) { return key.is_string() ? std::string(key.as_string()) : format_value(key); }

// The members of a multi-value test's value as cases (nested objects: keys joined by '/').
void collect_cases(const Value& v, const std::string& prefix, std::vector<SubResult>& out) {
    if (v.is_set()) {
        for (const auto& e : v.set_elements()) out.push_back({prefix + case_name(e), false});
        return;
    }
    for (const auto& entry : v.object_entries()) {
        std::string name = prefix + case_name(entry.key);
        if (entry.value.is_object() && entry.value.size() > 0) {
            collect_cases(entry.value, name + "/", out);
            continue;
        }
        bool ok = entry.value.is_bool() && entry.value.as_bool();
        out.push_back({std::move(name), !ok});
    }
}

// Cases the test's body went through that are not in its value failed (their
// body did not succeed); they are listed with the others, in value order.
void add_missing_cases(const Value& v, const std::set<Value>& seen, std::vector<SubResult>& cases) {
    std::vector<std::pair<Value, SubResult>> all;
    for (const Value& key : seen) {
        bool produced = v.is_set() ? v.contains(key) : v.find(key) != nullptr;
        if (!produced) all.emplace_back(key, SubResult{case_name(key), true});
    }
    if (all.empty()) return;
    std::vector<Value> keys;
    if (v.is_set())
        for (const auto& e : v.set_elements()) keys.push_back(e);
    else
        for (const auto& e : v.object_entries()) keys.push_back(e.key);
    // collect_cases listed one case per key (nested objects aside): pair them up when it did.
    if (keys.size() != cases.size()) {
        for (auto& [key, sub] : all) cases.push_back(std::move(sub));
        return;
    }
    for (std::size_t k = 0; k < keys.size(); ++k) all.emplace_back(keys[k], std::move(cases[k]));
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    cases.clear();
    for (auto& [key, sub] : all) cases.push_back(std::move(sub));
}

// Every line a trace can reach: rule heads and the first line of each body expression.
void body_lines(const lang::Body& body, std::set<uint32_t>& out);

void term_lines(const lang::TermPtr& t, std::set<uint32_t>& out) {
    if (!t) return;
    if (t->body && t->kind != lang::TermKind::Template) body_lines(*t->body, out);
    for (const auto& e : t->elems) term_lines(e, out);
    for (const auto& [k, v] : t->items) {
        term_lines(k, out);
        term_lines(v, out);
    }
    term_lines(t->key, out);
    term_lines(t->value, out);
}

void expr_lines(const lang::Expr& e, std::set<uint32_t>& out) {
    out.insert(e.loc.line);
    term_lines(e.term, out);
    if (e.body) body_lines(*e.body, out);
    if (e.every.body) body_lines(*e.every.body, out);
    for (const auto& c : e.children) expr_lines(c, out);
}

void body_lines(const lang::Body& body, std::set<uint32_t>& out) {
    for (const auto& e : body) expr_lines(e, out);
}

void rule_lines(const lang::Rule& rule, std::set<uint32_t>& out) {
    out.insert(rule.loc.line);
    body_lines(rule.body, out);
    for (const auto& b : rule.extra_bodies) body_lines(b, out);
    if (rule.else_rule) rule_lines(*rule.else_rule, out);
}

// Watches one test's evaluation: lines reached, and the furthest top-level body
// expression of the test that failed.
class TestTracer : public Tracer {
public:
    TestTracer(const RunOptions& options, const TestCase& test, const std::set<std::pair<uint32_t, uint32_t>>& top_level,
               const std::string& case_variable)
        : options_(options), test_(test), top_level_(top_level), case_variable_(case_variable) {}

    void trace(const TraceEvent& e) override {
        if (options_.tracer) options_.tracer->trace(e);
        if (options_.coverage && (e.op == TraceOp::Eval || e.op == TraceOp::Exit)) {
            if (!current_ || e.file != current_file_) {
                current_file_ = std::string(e.file);
                current_ = &covered[current_file_];
            }
            current_->insert(e.line);
        }
        // A parameterized test's cases: every value its case variable takes in the test's body.
        if (!case_variable_.empty() && (e.op == TraceOp::Eval || e.op == TraceOp::Redo) && e.depth == 1 &&
            e.file == test_.file && top_level_.count({e.line, e.col})) {
            for (auto& [name, value] : e.bindings())
                if (name == case_variable_) cases_seen.insert(std::move(value));
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

    std::map<std::string, std::set<uint32_t>> covered;
    std::optional<FailedExpression> failed_at;
    std::set<Value> cases_seen;

private:
    const RunOptions& options_;
    const TestCase& test_;
    const std::set<std::pair<uint32_t, uint32_t>>& top_level_;
    const std::string& case_variable_;
    std::string current_file_;
    std::set<uint32_t>* current_ = nullptr;
};

}  // namespace

std::vector<TestCase> discover(const std::vector<RuleInfo>& rules) {
    std::vector<TestCase> out;
    std::set<std::string> seen;
    for (const auto& r : rules) {
        if (r.function) continue;
        bool skip = starts_with(r.name, "todo_test_");
        if (!skip && !starts_with(r.name, "test_")) continue;
        if (!seen.insert(r.path).second) continue;
        TestCase t;
        t.package = r.package;
        t.name = starts_with(r.path, r.package + ".") ? r.path.substr(r.package.size() + 1) : r.name;
        t.query = r.path;
        t.file = r.file;
        t.line = r.line;
        t.col = r.col;
        t.skip = skip;
        t.multi_value = r.multi_value;
        out.push_back(std::move(t));
    }
    return out;
}

struct TestRunner::Impl {
    Engine& engine;
    std::map<std::string, lang::Module> modules;  // parsed again for their syntax
    std::vector<TestCase> tests;
    std::vector<std::optional<PreparedQuery>> queries;
    std::vector<std::set<std::pair<uint32_t, uint32_t>>> top_level;  // per test: its body's literals
    std::vector<std::string> case_variable;  // per multi-value test: the variable naming its cases

    explicit Impl(Engine& e) : engine(e) {}
};

TestRunner::TestRunner(Engine& engine, std::vector<PolicySource> sources) : impl_(std::make_unique<Impl>(engine)) {
    lang::ParseOptions po;
    po.v0_compatible = engine.options().v0_compatible;
    po.experimental_keywords = engine.options().experimental_keywords;
    for (auto& s : sources) {
        po.v0_compatible = s.v0_compatible.value_or(engine.options().v0_compatible);
        auto parsed = lang::parse_module(s.file, std::move(s.text), po);
        if (parsed.ok()) impl_->modules.insert_or_assign(s.file, std::move(*parsed.module));
    }
    if (engine.options().number_duplicate_tests) {  // the names the engine gives duplicate tests
        std::vector<lang::Module*> all;
        for (auto& [name, m] : impl_->modules) all.push_back(&m);
        lang::number_duplicate_tests(all);
    }
}

TestRunner::~TestRunner() = default;

const std::vector<TestCase>& TestRunner::tests() const { return impl_->tests; }

lang::Diagnostics TestRunner::prepare(std::vector<TestCase> tests) {
    impl_->tests = std::move(tests);
    impl_->queries.assign(impl_->tests.size(), std::nullopt);
    impl_->top_level.assign(impl_->tests.size(), {});
    impl_->case_variable.assign(impl_->tests.size(), {});
    lang::Diagnostics errors = impl_->engine.check();
    if (!errors.empty()) return errors;
    for (std::size_t i = 0; i < impl_->tests.size(); ++i) {
        const TestCase& t = impl_->tests[i];
        if (t.skip) continue;
        auto prepared = impl_->engine.prepare(t.query.empty() ? t.full_name() : t.query);
        if (!prepared.ok()) {
            errors.append(prepared.diagnostics);
            continue;
        }
        impl_->queries[i] = std::move(*prepared.value);
        auto m = impl_->modules.find(t.file);
        if (m == impl_->modules.end()) continue;
        for (const auto& rule : m->second.rules) {
            if (!rule.head.ref || rule.head.ref->elems.empty()) continue;
            const auto& head = rule.head.ref->kind == lang::TermKind::Ref ? *rule.head.ref->elems[0] : *rule.head.ref;
            if (t.name != head.text && !starts_with(t.name, head.text + ".")) continue;
            for (const auto& e : rule.body) impl_->top_level[i].insert({e.loc.line, e.loc.col});
            // `test_x contains name`, v0 `test_x[name]`, v1 `test_x[name] if`: the case variable.
            const lang::TermPtr* key = nullptr;
            if (rule.head.key) key = &rule.head.key;
            else if (rule.head.ref->kind == lang::TermKind::Ref && rule.head.ref->elems.size() == 2)
                key = &rule.head.ref->elems[1];
            if (t.multi_value && key && (*key)->kind == lang::TermKind::Var && impl_->case_variable[i].empty())
                impl_->case_variable[i] = (*key)->text;
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
    TestTracer tracer(options, r.test, impl_->top_level[i], impl_->case_variable[i]);
    EvalOptions eval;
    eval.timeout = options.timeout;
    eval.print = [&r](std::string_view line) {
        r.output += line;
        r.output += '\n';
    };
    // Parameterized tests are traced to see the cases that produced nothing (they failed).
    if (options.explain || options.coverage || options.tracer || !impl_->case_variable[i].empty()) eval.tracer = &tracer;
    auto start = std::chrono::steady_clock::now();
    EvalResult result = impl_->queries[i]->eval(eval);
    r.duration = std::chrono::nanoseconds(since_ns(start));
    r.covered = std::move(tracer.covered);
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
        if (r.test.multi_value && (v.is_set() || v.is_object())) {
            collect_cases(v, "", r.cases);
            add_missing_cases(v, tracer.cases_seen, r.cases);
            r.fail = r.cases.empty() || std::any_of(r.cases.begin(), r.cases.end(), [](const SubResult& c) { return c.fail; });
        } else {
            r.fail = !(v.is_bool() && v.as_bool());
        }
    }
    if (r.fail) r.failed_at = std::move(tracer.failed_at);
    return r;
}

bool TestRunner::run_quietly(std::size_t i, uint64_t* eval_ns) const {
    if (!impl_->queries[i]) return false;
    EvalOptions eval;
    eval.print = [](std::string_view) {};
    EvalResult result = impl_->queries[i]->eval(eval);
    if (eval_ns)
        for (const auto& [name, ns] : result.metrics)
            if (name == "timer_rego_query_eval_ns") *eval_ns += ns;
    if (result.error || result.rows.empty() || result.rows[0].expressions.empty()) return false;
    const Value& v = result.rows[0].expressions[0].value;
    return (v.is_bool() && v.as_bool()) || (impl_->tests[i].multi_value && v.size() > 0);
}

std::map<std::string, std::set<uint32_t>> TestRunner::coverable_lines() const {
    std::map<std::string, std::set<uint32_t>> out;
    for (const auto& [file, module] : impl_->modules) {
        auto& lines = out[file];
        for (const auto& rule : module.rules)
            if (!rule.is_default) rule_lines(rule, lines);
    }
    return out;
}

}  // namespace gavel::testing
