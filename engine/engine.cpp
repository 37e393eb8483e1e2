#include "engine/engine.hpp"
#include "lang/ast_json.hpp"
#include "engine/coverage.hpp"

#include "lang/test_names.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <algorithm>

#include "lang/parse.hpp"
#include "engine/loader.hpp"
#include "runtime/eval/evaluator.hpp"
#include "runtime/eval/planner.hpp"
#include "runtime/eval/term_values.hpp"
#include "compiler/compiler.hpp"
#include "lang/builtins.hpp"
#include "stdlib/capabilities.hpp"
#include "engine/loader.hpp"
#include "engine/partial/evaluator.hpp"
#include "engine/partial/program.hpp"
#include "engine/partial/residual.hpp"

namespace gavel {

using runtime::Value;

namespace {

uint64_t elapsed_ns(std::chrono::steady_clock::time_point since) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - since).count());
}

// Merges `add` into `base`; a different value at the same path is a conflict.
std::optional<Value> merge(const Value& base, const Value& add, std::string& conflict, std::string& where) {
    if (!base.is_object() || !add.is_object()) {
        if (base == add) return base;
        conflict = "conflicting values";
        return std::nullopt;
    }
    runtime::ObjectBuilder b;
    for (const auto& entry : base.object_entries()) {
        const Value* other = add.find(entry.key);
        if (!other) {
            b.insert(entry.key, entry.value);
            continue;
        }
        auto merged = merge(entry.value, *other, conflict, where);
        if (!merged) {
            where =
                std::string(entry.key.is_string() ? entry.key.as_string() : "?") + (where.empty() ? "" : "." + where);
            return std::nullopt;
        }
        b.insert(entry.key, std::move(*merged));
    }
    for (const auto& entry : add.object_entries())
        if (!base.find(entry.key)) b.insert(entry.key, entry.value);
    return b.build();
}

// Whether base data is at `path`, or a prefix of it holds a value that is no
// object (a rule below it would conflict too): OPA's storage.NonEmpty.
bool data_at(const Value& data, const std::vector<std::string>& path) {
    const Value* at = &data;
    for (const auto& key : path) {
        if (!at->is_object()) return true;
        at = at->find(key);
        if (!at) return false;
    }
    return true;
}

}  // namespace

struct PreparedQuery::State {
    std::shared_ptr<const eval::Program> program;
    eval::PlannedQuery query;
    std::vector<std::string> variables;
    lang::SourcePtr source;          // keeps the query's locations valid
    lang::SourcePtr context_source;  // and those of its package and imports
};

struct Engine::Impl {
    EngineOptions options;
    std::map<std::string, lang::Module> modules;
    Value data = Value::empty_object();
    std::map<std::string, runtime::Builtin> custom;
    std::shared_ptr<const eval::Program> program;             // null when modules or data changed
    std::shared_ptr<const partial::Program> partial_program;  // built on first use, with `program`
    lang::Diagnostics program_errors;
    uint64_t compile_ns = 0;
    // Compiled once without keep_parsed_modules: the modules went to the compiler and
    // the rules' bodies on into the plan (what reads compiled bodies must refuse).
    bool parsed_released = false;

    void invalidate() {
        program.reset();
        partial_program.reset();
    }

    // Test rules sharing a name are numbered over all modules at once, when the modules are
    // next read (OPA's compiler stage does it on the sorted modules): numbering at every
    // add_policy went over all modules each time, quadratic in a test run's files.
    bool tests_unnumbered = false;
    void number_tests() {
        if (!tests_unnumbered) return;
        tests_unnumbered = false;
        std::vector<lang::Module*> all;
        all.reserve(modules.size());
        for (auto& [name, m] : modules) all.push_back(&m);
        lang::number_duplicate_tests(all);
    }

    // What preparing a query for evaluation and for partial evaluation share: the program
    // compiled (timer_rego_module_compile_ns), the query parsed (timer_rego_query_parse_ns)
    // and compiled in its package and imports (timer_rego_query_compile_ns, closed by the
    // caller after its own steps). False with `diagnostics` set when a step fails.
    struct QueryText {
        const eval::Program* program = nullptr;
        lang::SourcePtr source, context_source;
        compiler::CompiledQuery compiled;
        std::chrono::steady_clock::time_point compile_start;
    };
    bool compile_query_text(std::string_view query, const std::string& package, const std::vector<std::string>& imports,
                            const compiler::QueryContext& base_context, QueryText& out, lang::Diagnostics& diagnostics,
                            Metrics& metrics);

    static lang::Diagnostics released_error(std::string_view what) {
        lang::Diagnostics errors;
        lang::Diagnostic d;
        d.code = std::string(lang::codes::compile_error);
        d.message = fmt::format("{} after the engine released its parsed modules (keep_parsed_modules off)", what);
        errors.add(std::move(d));
        return errors;
    }

    const eval::Program* compile() {
        if (program) return program.get();
        if (parsed_released) {
            program_errors = released_error("policies or data changed");
            return nullptr;
        }
        number_tests();
        auto start = std::chrono::steady_clock::now();
        auto p = std::make_shared<eval::Program>();
        p->builtins = &stdlib::standard_registry();
        p->custom_builtins = custom;
        p->v0_compatible = options.v0_compatible;
        p->allow_net = options.allow_net;
        p->base_data = data;
        compiler::CompileOptions co;
        co.strict = options.strict;
        co.allowed_builtins = options.allowed_builtins;
        co.max_errors = options.max_errors;
        co.schemas = options.schemas;
        for (const auto& [name, b] : custom) co.custom_builtins[name] = b.decl;
        if (options.check_data_conflicts)
            co.path_exists = [base = data](const std::vector<std::string>& path) { return data_at(base, path); };
        if (options.keep_parsed_modules) {
            std::vector<const lang::Module*> list;
            for (const auto& [name, m] : modules) list.push_back(&m);
            auto compiled = std::make_shared<const compiler::CompiledModules>(compiler::compile_modules(list, co));
            program_errors = compiled->diagnostics;
            if (program_errors.empty()) program_errors = eval::plan_modules(compiled, *p);
        } else {
            std::vector<lang::Module> taken;
            taken.reserve(modules.size());
            for (auto& [name, m] : modules) taken.push_back(std::move(m));
            modules.clear();
            parsed_released = true;
            auto compiled =
                std::make_shared<compiler::CompiledModules>(compiler::compile_modules_in_place(std::move(taken), co));
            program_errors = compiled->diagnostics;
            if (program_errors.empty()) program_errors = eval::plan_modules_taking_bodies(compiled, *p);
        }
        compile_ns = elapsed_ns(start);
        if (!program_errors.empty()) return nullptr;
        program = std::move(p);
        return program.get();
    }
};

Engine::Engine(EngineOptions options) : impl_(std::make_unique<Impl>()) { impl_->options = options; }
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

const EngineOptions& Engine::options() const { return impl_->options; }

std::vector<std::string> Engine::builtin_names() const {
    std::vector<std::string> names;
    for (const auto* b : stdlib::standard_registry().all()) names.push_back(b->name);
    for (const auto& [name, b] : impl_->custom) names.push_back(name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

lang::Diagnostics Engine::add_policy(std::string file, std::string text) {
    return add_policy(std::move(file), std::move(text), PolicyOptions{});
}

lang::Diagnostics Engine::add_policy(std::string file, std::string text, const PolicyOptions& options) {
    lang::ParseOptions po;
    po.v0_compatible = options.v0_compatible.value_or(impl_->options.v0_compatible);
    po.experimental_keywords = impl_->options.experimental_keywords;
    auto r = lang::parse_module(file, std::move(text), po);
    if (!r.ok()) return r.diagnostics;
    impl_->modules.insert_or_assign(file, std::move(*r.module));
    impl_->tests_unnumbered = impl_->options.number_duplicate_tests;
    impl_->invalidate();
    return {};
}

void Engine::remove_policy(const std::string& file) {
    impl_->modules.erase(file);
    impl_->invalidate();
}

std::optional<std::string> Engine::add_data(const Value& data, const std::vector<std::string>& path) {
    Value placed = data;
    for (auto it = path.rbegin(); it != path.rend(); ++it) placed = Value::object({{Value::string(*it), placed}});
    std::string conflict, where;
    auto merged = merge(impl_->data, placed, conflict, where);
    if (!merged) return fmt::format("{} at data.{}", conflict, where);
    impl_->data = std::move(*merged);
    impl_->invalidate();
    return std::nullopt;
}

namespace {

// `doc` with the value at path[i..] replaced (or removed when `value` is null).
std::optional<Value> replaced_at(const Value& doc, const std::vector<std::string>& path, std::size_t i,
                                 const Value* value, std::string& error) {
    if (i == path.size()) return value ? *value : Value();
    if (!doc.is_object()) {
        error = fmt::format("{} is not an object", engine::data_path_text(std::vector<std::string>(
                                                       path.begin(), path.begin() + static_cast<long>(i))));
        return std::nullopt;
    }
    Value key = Value::string(path[i]);
    const Value* child = doc.find(key);
    runtime::ObjectBuilder b(doc.size() + 1);
    for (const auto& e : doc.object_entries())
        if (e.key != key) b.insert(e.key, e.value);
    if (!child && !value) return doc;  // nothing to remove
    auto inner = replaced_at(child ? *child : Value::empty_object(), path, i + 1, value, error);
    if (!inner) return std::nullopt;
    if (value || i + 1 < path.size()) b.insert(key, std::move(*inner));
    return b.build();
}

const Value* lookup(const Value& doc, const std::vector<std::string>& path) {
    const Value* at = &doc;
    for (const auto& key : path) {
        at = at->find(key);
        if (!at) return nullptr;
    }
    return at;
}

}  // namespace

std::optional<std::string> Engine::set_data(const Value& data, const std::vector<std::string>& path) {
    if (path.empty() && !data.is_object()) return std::string("data must be an object");
    std::string error;
    auto updated = replaced_at(impl_->data, path, 0, &data, error);
    if (!updated) return error;
    impl_->data = std::move(*updated);
    impl_->invalidate();
    return std::nullopt;
}

bool Engine::remove_data(const std::vector<std::string>& path) {
    if (path.empty()) {
        impl_->data = Value::empty_object();
        impl_->invalidate();
        return true;
    }
    if (!lookup(impl_->data, path)) return false;
    std::string error;
    auto updated = replaced_at(impl_->data, path, 0, nullptr, error);
    if (!updated) return false;
    impl_->data = std::move(*updated);
    impl_->invalidate();
    return true;
}

const Value& Engine::data() const { return impl_->data; }

namespace {

// The embedder's function behind the builtin interface.
runtime::BuiltinImpl wrap(BuiltinFunction fn) {
    return [fn = std::move(fn)](std::span<const Value> args, runtime::BuiltinContext&) -> runtime::BuiltinResult {
        BuiltinCall call;
        call.args.assign(args.begin(), args.end());
        std::optional<Value> v = fn(call);
        if (!call.error.empty()) return runtime::BuiltinResult::error(call.error);
        if (!v) return runtime::BuiltinResult::undefined();
        return runtime::BuiltinResult::of(std::move(*v));
    };
}

}  // namespace

std::optional<std::string> Engine::register_builtin(const BuiltinDeclaration& declaration, BuiltinFunction fn) {
    std::string categories;
    for (const auto& c : declaration.categories) categories += (categories.empty() ? "" : ",") + c;
    std::string error;
    auto decl = lang::make_builtin_decl(declaration.name, declaration.signature, categories,
                                        declaration.nondeterministic ? "nondeterministic" : "", error);
    if (!decl) return error;
    if (decl->variadic()) return declaration.name + ": variadic builtins cannot be registered";
    runtime::Builtin b;
    b.name = declaration.name;
    b.arity = decl->arity;
    b.impl = wrap(std::move(fn));
    b.decl = std::make_shared<const lang::BuiltinDecl>(std::move(*decl));
    impl_->custom[declaration.name] = std::move(b);
    impl_->invalidate();
    return std::nullopt;
}

void Engine::register_builtin(std::string name, std::size_t arity, BuiltinFunction fn) {
    // Declared with its arity only: every operand and the result are `any`.
    std::string signature = "(";
    for (std::size_t i = 0; i < arity; ++i) signature += i ? ", any" : "any";
    signature += ") => any";
    std::string error;
    auto decl = lang::make_builtin_decl(name, signature, "", "", error);
    runtime::Builtin b;
    b.name = name;
    b.arity = arity;
    b.impl = wrap(std::move(fn));
    b.decl = std::make_shared<const lang::BuiltinDecl>(std::move(*decl));  // this signature always parses
    impl_->custom[name] = std::move(b);
    impl_->invalidate();
}

runtime::Value Engine::capabilities() const {
    std::vector<const lang::BuiltinDecl*> custom;
    for (const auto& [name, b] : impl_->custom) custom.push_back(b.decl.get());
    return stdlib::capabilities_document(stdlib::standard_registry(), custom);
}

std::vector<std::pair<std::string_view, const lang::Module*>> Engine::parsed_modules() const {
    impl_->number_tests();
    std::vector<std::pair<std::string_view, const lang::Module*>> out;
    out.reserve(impl_->modules.size());
    for (const auto& [file, module] : impl_->modules) out.emplace_back(file, &module);
    return out;
}

std::map<std::string, std::set<uint32_t>> Engine::coverable_lines() const {
    impl_->number_tests();
    std::map<std::string, std::set<uint32_t>> out;
    for (const auto& [file, module] : impl_->modules) coverage::add_coverable_lines(module, out[file]);
    return out;
}

std::vector<RuleInfo> Engine::rules() const {
    impl_->number_tests();
    std::vector<RuleInfo> out;
    for (const auto& [file, module] : impl_->modules) {
        // `package a.b` is data.a.b: the parser keeps the parts after `package`.
        std::vector<std::string> package;
        if (const auto& p = module.package.path) {
            if (p->kind == lang::TermKind::Ref)
                for (const auto& part : p->elems) package.push_back(part->text);
            else package.push_back(p->text);
        }
        for (const auto& rule : module.rules) {
            const lang::RuleHead& head = rule.head;
            if (!head.ref || head.ref->elems.empty()) continue;
            RuleInfo info;
            info.package = engine::data_path_text(package);
            info.name = head.ref->kind == lang::TermKind::Ref ? head.ref->elems[0]->text : head.ref->text;
            std::vector<std::string> path = package;
            bool variable_part = false;
            if (head.ref->kind == lang::TermKind::Ref) {
                path.push_back(info.name);
                for (std::size_t i = 1; i < head.ref->elems.size(); ++i) {
                    if (head.ref->elems[i]->kind != lang::TermKind::String) {
                        variable_part = true;
                        break;
                    }
                    path.push_back(head.ref->elems[i]->text);
                }
            } else {
                path.push_back(info.name);
            }
            info.path = engine::data_path_text(path);
            info.file = file;
            info.line = rule.loc.line;
            info.col = rule.loc.col;
            info.function = head.has_args;
            info.multi_value = !head.has_args && (head.key != nullptr || head.contains || variable_part);
            info.is_default = rule.is_default;
            out.push_back(std::move(info));
        }
    }
    return out;
}

lang::Diagnostics Engine::check() {
    impl_->compile();
    return impl_->program_errors;
}

std::optional<std::string> Engine::compiled_module_json(const std::string& file) {
    const eval::Program* program = impl_->compile();
    if (!program || !program->compiled) return std::nullopt;
    // The compiled modules are in the order of the modules map (by file name).
    std::size_t index = 0;
    for (const auto& [name, m] : impl_->modules) {
        if (name == file) {
            if (index >= program->compiled->modules.size()) return std::nullopt;
            lang::AstJsonOptions options;
            options.imports = false;  // OPA's compiler removes them (refs are resolved)
            options.generated = true;
            options.root_documents_as_refs = true;
            return lang::module_to_json(*program->compiled->modules[index], options);
        }
        ++index;
    }
    return std::nullopt;
}

std::vector<ComparedConstants> Engine::compared_constants(const std::vector<std::string>& refs,
                                                          lang::Diagnostics& errors) {
    const eval::Program* program = impl_->compile();
    if (!program) {
        errors = impl_->program_errors;
        return {};
    }
    if (impl_->parsed_released) {  // the compiled rules have no bodies left to read
        errors = Impl::released_error("compared constants asked for");
        return {};
    }
    return find_compared_constants(*program->compiled, refs);
}

namespace {

// The package and imports a query is written in, read as a module's would be.
bool read_query_context(const std::string& package, const std::vector<std::string>& imports,
                        const lang::ParseOptions& po, compiler::QueryContext& context, lang::SourcePtr& source,
                        lang::Diagnostics& errors) {
    if (package.empty() && imports.empty()) return true;
    std::string text = "package " + (package.empty() ? std::string("__query__") : package) + "\n";
    for (const auto& imp : imports) text += "import " + imp + "\n";
    auto written = lang::parse_module("query context", std::move(text), po);
    if (!written.ok()) {
        errors = written.diagnostics;
        return false;
    }
    source = written.module->source;
    if (!package.empty()) context.package = written.module->package.path;
    context.imports = written.module->imports;
    return true;
}

}  // namespace

bool Engine::Impl::compile_query_text(std::string_view query, const std::string& package,
                                      const std::vector<std::string>& imports,
                                      const compiler::QueryContext& base_context, QueryText& out,
                                      lang::Diagnostics& diagnostics, Metrics& metrics) {
    out.program = compile();
    metrics.emplace_back("timer_rego_module_compile_ns", compile_ns);
    if (!out.program) {
        diagnostics = program_errors;
        return false;
    }
    auto start = std::chrono::steady_clock::now();
    lang::ParseOptions po;
    po.v0_compatible = options.v0_compatible;
    po.experimental_keywords = options.experimental_keywords;
    // The rego package's parse (`opa eval`), not the REPL's: a query is not also read as a rule.
    po.skip_rules = base_context.capture_values;
    auto parsed = lang::parse_query(std::string(query), po, "");  // OPA names no file for the query
    metrics.emplace_back("timer_rego_query_parse_ns", elapsed_ns(start));
    if (!parsed.ok()) {
        diagnostics = parsed.diagnostics;
        return false;
    }
    out.compile_start = std::chrono::steady_clock::now();
    out.source = parsed.source;
    compiler::QueryContext context = base_context;
    if (!read_query_context(package, imports, po, context, out.context_source, diagnostics)) return false;
    out.compiled = compiler::compile_query(parsed.body, *out.program->compiled, context);
    return true;
}

Prepared<PreparedQuery> Engine::prepare(std::string_view query, const QueryOptions& options) {
    Prepared<PreparedQuery> out;
    compiler::QueryContext context;
    context.capture_values = options.capture_values;
    context.unsafe_builtins = options.unsafe_builtins;
    Impl::QueryText text;
    if (!impl_->compile_query_text(query, options.package, options.imports, context, text, out.diagnostics,
                                   out.metrics))
        return out;
    auto state = std::make_shared<PreparedQuery::State>();
    state->program = impl_->program;
    state->source = text.source;
    state->context_source = text.context_source;
    out.diagnostics = text.compiled.diagnostics;
    if (out.diagnostics.empty()) out.diagnostics = eval::plan_query(text.compiled, *text.program, state->query);
    out.metrics.emplace_back("timer_rego_query_compile_ns", elapsed_ns(text.compile_start));
    if (!out.diagnostics.empty()) return out;
    for (const auto& [name, slot] : state->query.variables) state->variables.push_back(name);
    PreparedQuery q;
    q.state_ = std::move(state);
    out.value = std::move(q);
    return out;
}

const std::vector<std::string>& PreparedQuery::variables() const { return state_->variables; }

EvalResult PreparedQuery::eval(const EvalOptions& options) const {
    EvalResult result;
    const bool timed = options.metrics || options.timeout.count() > 0;
    const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    eval::EvalSettings settings;
    settings.input = options.input;
    settings.strict_builtin_errors = options.strict_builtin_errors;
    settings.cancel = options.cancel;
    settings.print = options.print;
    settings.runtime_info = options.runtime_info;
    settings.tracer = options.tracer;
    settings.max_memory = options.max_memory;
    if (options.timeout.count() > 0) settings.deadline = start + options.timeout;
    eval::Evaluator evaluator(*state_->program, settings);
    const auto& q = state_->query;
    result.error = evaluator.run(q, [&](std::span<const Value* const> slots) {
        auto value_of = [&](std::size_t slot) { return slots[slot] ? *slots[slot] : Value(); };
        ResultRow row;
        row.text_owner = state_;
        for (const auto& [name, slot] : q.variables)
            if (name.rfind("$", 0) != 0) row.bindings.emplace_back(name, value_of(slot));
        row.expressions.reserve(q.expressions.size());
        for (const auto& e : q.expressions) {
            ExpressionResult er;
            er.text = e.text;
            er.line = e.loc.line;
            er.col = e.loc.col;
            er.value = e.slot >= 0 ? value_of(static_cast<std::size_t>(e.slot)) : Value::boolean(true);
            row.expressions.push_back(std::move(er));
        }
        // Every solution is reported, identical ones too, as OPA's rego package does
        // (`x = [1, 1][_]` has two results).
        result.rows.push_back(std::move(row));
    });
    if (!options.metrics) return result;
    result.metrics.emplace_back("timer_rego_query_eval_ns", elapsed_ns(start));
    // OPA times its reads of base documents from storage; the timer exists when there were some.
    if (evaluator.read_base_data()) result.metrics.emplace_back("timer_rego_external_resolve_ns", 0);
    return result;
}

// ---------------------------------------------------------------------------
// Partial evaluation.

struct PreparedPartial::State {
    std::shared_ptr<const eval::Program> program;
    std::shared_ptr<const partial::Program> partial_program;
    lang::Body query;  // compiled, bare data/input as refs
    std::vector<lang::TermPtr> unknowns;
    std::vector<lang::TermPtr> disable_inlining;
    bool shallow_inlining = false;
    bool nondeterministic_builtins = false;
    bool rule_indexing = true;
    lang::SourcePtr source, context_source;
    std::vector<lang::SourcePtr> term_sources;  // of the unknowns and refs
};

namespace {

// A ref as given on the command line or in a request ("input.x", "data.a.b"): parsed as OPA's ParseTerm.
std::optional<lang::TermPtr> parse_ref_text(const std::string& text, std::vector<lang::SourcePtr>& sources,
                                            std::string& error) {
    auto parsed = lang::parse_term(text);
    if (!parsed.ok()) {
        error = parsed.diagnostics.opa_text();
        return std::nullopt;
    }
    sources.push_back(parsed.source);
    return partial::normalize_term(parsed.term);
}

}  // namespace

Prepared<PreparedPartial> Engine::prepare_partial(std::string_view query, const PartialQueryOptions& options) {
    Prepared<PreparedPartial> out;
    if (impl_->parsed_released) {  // partial evaluation reads the compiled rules' bodies, given to the plan
        out.diagnostics = Impl::released_error("partial evaluation asked for");
        return out;
    }
    compiler::QueryContext context;
    context.rewrite_equals = true;
    Impl::QueryText text;
    if (!impl_->compile_query_text(query, options.package, options.imports, context, text, out.diagnostics,
                                   out.metrics))
        return out;
    auto state = std::make_shared<PreparedPartial::State>();
    state->program = impl_->program;
    state->source = text.source;
    state->context_source = text.context_source;
    out.metrics.emplace_back("timer_rego_query_compile_ns", elapsed_ns(text.compile_start));
    if (!text.compiled.ok()) {
        out.diagnostics = text.compiled.diagnostics;
        return out;
    }
    state->query = partial::normalize_body(text.compiled.body);
    std::string error;
    std::vector<std::string> unknowns = options.unknowns ? *options.unknowns : std::vector<std::string>{"input"};
    for (const auto& u : unknowns) {
        auto t = parse_ref_text(u, state->term_sources, error);
        if (!t) {
            out.diagnostics.add(lang::Location{}, lang::codes::parse_error, "unknowns: " + error);
            return out;
        }
        state->unknowns.push_back(*t);
    }
    for (const auto& d : options.disable_inlining) {
        auto t = parse_ref_text(d, state->term_sources, error);
        if (!t || (*t)->kind != lang::TermKind::Ref) {
            out.diagnostics.add(lang::Location{}, lang::codes::parse_error,
                                "disable inlining: " + (t ? "expected ref but got " + d : error));
            return out;
        }
        state->disable_inlining.push_back(*t);
    }
    state->shallow_inlining = options.shallow_inlining;
    state->nondeterministic_builtins = options.nondeterministic_builtins;
    state->rule_indexing = options.rule_indexing;
    if (!impl_->partial_program)
        impl_->partial_program = std::make_shared<const partial::Program>(
            text.program->compiled, text.program->builtins, &text.program->custom_builtins);
    state->partial_program = impl_->partial_program;
    PreparedPartial p;
    p.state_ = std::move(state);
    out.value = std::move(p);
    return out;
}

PartialResult PreparedPartial::run(const PartialOptions& options) const {
    PartialResult result;
    auto start = std::chrono::steady_clock::now();
    partial::Options o;
    o.unknowns = state_->unknowns;
    o.disable_inlining = state_->disable_inlining;
    o.shallow_inlining = state_->shallow_inlining;
    o.nondeterministic_builtins = state_->nondeterministic_builtins;
    o.rule_indexing = state_->rule_indexing;
    if (options.input) o.input = partial::from_value(*options.input);
    o.data = &state_->program->base_data;
    if (options.timeout.count() > 0) o.deadline = start + options.timeout;
    o.cancel = options.cancel;
    o.print = options.print;
    o.strict_builtin_errors = options.strict_builtin_errors;
    partial::Result r = partial::partial_run(*state_->partial_program, state_->query, o);
    result.queries = std::move(r.queries);
    result.support = std::move(r.support);
    result.error = std::move(r.error);
    result.metrics.emplace_back("timer_rego_partial_eval_ns", elapsed_ns(start));
    // OPA times its reads of base documents from storage; the timer exists when there were some.
    if (r.read_base_data) result.metrics.emplace_back("timer_rego_external_resolve_ns", 0);
    return result;
}

std::string PartialResult::json() const { return partial::partial_json(queries, support); }

Prepared<PartialResult> Engine::partial(std::string_view query, const PartialQueryOptions& query_options,
                                        const PartialOptions& options) {
    Prepared<PartialResult> out;
    auto prepared = prepare_partial(query, query_options);
    out.diagnostics = std::move(prepared.diagnostics);
    out.metrics = std::move(prepared.metrics);
    if (!prepared.value) return out;
    out.value = prepared.value->run(options);
    for (const auto& m : out.value->metrics) out.metrics.push_back(m);
    return out;
}

partial::FilterAnnotations Engine::filter_annotations(const std::vector<std::string>& path) {
    partial::FilterAnnotations out;
    const eval::Program* program = impl_->compile();
    if (!program) {
        for (const auto& d : impl_->program_errors) out.errors.push_back(d);
        return out;
    }
    return partial::filter_annotations(*program->compiled, path);
}

Prepared<Value> Engine::parse_term(std::string_view text) {
    Prepared<Value> out;
    auto parsed = lang::parse_term(std::string(text));
    if (!parsed.ok()) {
        out.diagnostics = parsed.diagnostics;
        return out;
    }
    auto v = eval::constant_value(*parsed.term);
    if (!v.ok) {
        out.diagnostics.add(parsed.term->loc, lang::codes::parse_error, v.error);
        return out;
    }
    out.value = std::move(v.value);
    return out;
}

}  // namespace gavel
