// /v1/query (GET ?q=, POST {query, input}) and /v1/compile, as OPA's server.go answers them.

#include <chrono>

#include <map>
#include <set>

#include "engine/partial/filters.hpp"
#include "engine/partial/residual.hpp"
#include "lang/parse.hpp"
#include "webhook/opa_api/endpoints.hpp"
#include "webhook/opa_api/eval_call.hpp"
#include "runtime/go_json_decode.hpp"
#include "webhook/large_json.hpp"
#include "runtime/go_json_writer.hpp"
#include "webhook/opa_api/request_body.hpp"
#include "webhook/opa_api/responses.hpp"
#include "webhook/opa_api/store_path.hpp"

namespace gavel::webhook::opa_api {

namespace {

using runtime::Value;
using Clock = std::chrono::steady_clock;

// Parses, compiles and runs an ad-hoc query; OPA's QueryResponseV1.
HttpResponse run_query(Call& c, const std::string& text, const Value* input, bool post, Clock::time_point start) {
    lang::ParseOptions po;
    po.v0_compatible = c.settings.v0_compatible;
    if (!has_statement(text)) return error_response(500, "internal_error", "cannot evaluate empty query");
    auto parsed = lang::parse_query(text, po, "");  // OPA names no file for a query
    if (!parsed.ok()) {
        lang::Diagnostics errors = parsed.diagnostics;
        add_parse_details(errors, text);
        return error_response(400, "invalid_parameter", "error(s) occurred while parsing query", errors);
    }
    bool with_metrics = c.query.flag("metrics");
    bool instrument = c.query.flag("instrument");
    ResponseMetrics metrics;
    EvalCall e;
    e.query_text = text;
    e.input = input;
    e.cache_query = false;  // ad-hoc queries would crowd out the admission queries
    e.adhoc_query = text;
    e.adhoc = true;
    EvalOutcome out = evaluate(c, e, metrics);
    if (!out.prepared)
        return error_response(400, "invalid_parameter", "error(s) occurred while compiling query", out.compile_errors);
    if (out.result.error) return evaluation_error(*out.result.error);
    std::string body = "{";
    if (with_metrics || instrument) {
        metrics.erase("timer_rego_query_parse_ns");
        metrics.erase("timer_rego_module_compile_ns");
        if (!metrics.has("timer_rego_query_compile_ns")) metrics.set("timer_rego_query_compile_ns", 0);
        if (post) metrics.timer("timer_server_handler_ns", Clock::now() - start);
        body += "\"metrics\":" + metrics.json();
    }
    if (!out.result.rows.empty()) {
        if (body.size() > 1) body += ',';
        body += "\"result\":[";
        bool first_row = true;
        for (const auto& row : out.result.rows) {
            if (!first_row) body += ',';
            first_row = false;
            runtime::ObjectBuilder b;
            for (const auto& [name, value] : row.bindings)
                if (!name.empty() && name[0] != '$') b.insert(Value::string(name), value);
            runtime::append_go_value(body, b.build());
        }
        body += ']';
    }
    body += '}';
    return json_ok(body, c.pretty());
}

}  // namespace

HttpResponse v1_query_get(Call& c) {
    auto start = Clock::now();
    auto q = c.query.values("q");
    if (q.empty()) return error_response(400, "invalid_parameter", "missing parameter 'q'");
    return run_query(c, q.back(), nullptr, false, start);
}

HttpResponse v1_query_post(Call& c) {
    auto start = Clock::now();
    runtime::GoDecoded d = runtime::go_decode(c.req.body, parse_json_document);
    if (!d.ok) return error_response(400, "invalid_parameter", "error(s) occurred while decoding request: " + d.error);
    std::string text;
    std::optional<Value> input;
    if (!d.value.is_null()) {
        if (!d.value.is_object())
            return error_response(
                400, "invalid_parameter",
                "error(s) occurred while decoding request: " + runtime::go_type_error(d.value, "types.QueryRequestV1"));
        if (const Value* q = runtime::go_field(d.value, "query"); q && !q->is_null()) {
            if (!q->is_string())
                return error_response(400, "invalid_parameter",
                                      "error(s) occurred while decoding request: " +
                                          runtime::go_field_type_error(*q, "QueryRequestV1.query", "string"));
            text = std::string(q->as_string());
        }
        if (const Value* in = runtime::go_field(d.value, "input"); in && !in->is_null()) input = *in;
    }
    return run_query(c, text, input ? &*input : nullptr, true, start);
}

namespace {

// "failed to parse term: 1 error occurred: 1:2: rego_parse_error: ..." with the
// parser's detail lines, as OPA's ast.ParseTerm error reads.
std::string term_parse_error(const std::string& text, lang::Diagnostics errors) {
    add_parse_details(errors, text);
    std::string out = "failed to parse term: " + errors.opa_text();
    if (errors.size() == 1) {
        const lang::Diagnostic& d = *errors.begin();
        if (d.details) {
            const lang::JsonTree* line = d.details->find("line");
            const lang::JsonTree* idx = d.details->find("idx");
            if (line && idx) out += "\n\t" + line->text + "\n\t" + std::string(std::stoul(idx->text), ' ') + "^";
        }
    }
    return out;
}

// A []string field of a request (Go's decoding errors for anything else).
bool string_list(const Value& v, std::string_view field, std::vector<std::string>& out, std::string& error) {
    if (v.is_null()) return true;
    if (!v.is_array()) {
        error = runtime::go_field_type_error(v, field, "[]string");
        return false;
    }
    for (const auto& e : v.array_elements()) {
        if (!e.is_string()) {
            if (e.is_null()) {
                out.emplace_back();
                continue;
            }
            error = runtime::go_field_type_error(e, field, "string");
            return false;
        }
        out.emplace_back(e.as_string());
    }
    return true;
}

}  // namespace

HttpResponse v1_compile_post(Call& c) {
    auto start = Clock::now();
    std::string bytes, error;
    if (!read_body(c.req, c.settings.max_inflated_bytes, bytes, error))
        return error_response(400, "invalid_parameter", "could not decompress the body");
    runtime::GoDecoded d = runtime::go_decode(bytes, parse_json_document);
    if (!d.ok) return error_response(400, "invalid_parameter", "error(s) occurred while decoding request: " + d.error);
    if (!d.value.is_null() && !d.value.is_object())
        return error_response(
            400, "invalid_parameter",
            "error(s) occurred while decoding request: " + runtime::go_type_error(d.value, "types.CompileRequestV1"));
    auto decode_error = [](const std::string& e) {
        return error_response(400, "invalid_parameter", "error(s) occurred while decoding request: " + e);
    };
    std::string text;
    std::optional<Value> input;
    std::optional<std::vector<std::string>> unknowns;
    PartialQueryOptions options;
    if (d.value.is_object()) {
        if (const Value* q = runtime::go_field(d.value, "query"); q && !q->is_null()) {
            if (!q->is_string())
                return decode_error(runtime::go_field_type_error(*q, "CompileRequestV1.query", "string"));
            text = std::string(q->as_string());
        }
        if (const Value* in = runtime::go_field(d.value, "input"); in && !in->is_null()) input = *in;
        if (const Value* u = runtime::go_field(d.value, "unknowns"); u && !u->is_null()) {
            unknowns.emplace();
            if (!string_list(*u, "CompileRequestV1.unknowns", *unknowns, error)) return decode_error(error);
        }
        if (const Value* o = runtime::go_field(d.value, "options"); o && !o->is_null()) {
            if (!o->is_object())
                return decode_error(runtime::go_field_type_error(
                    *o, "CompileRequestV1.options",
                    "struct { DisableInlining []string \"json:\\\"disableInlining,omitempty\\\"\"; "
                    "NondeterministicBuiltins bool \"json:\\\"nondeterministicBuiltins\\\"\" }"));
            if (const Value* di = runtime::go_field(*o, "disableInlining"))
                if (!string_list(*di, "CompileRequestV1.options.disableInlining", options.disable_inlining, error))
                    return decode_error(error);
            if (const Value* nd = runtime::go_field(*o, "nondeterministicBuiltins"); nd && !nd->is_null()) {
                if (!nd->is_bool())
                    return decode_error(
                        runtime::go_field_type_error(*nd, "CompileRequestV1.options.nondeterministicBuiltins", "bool"));
                options.nondeterministic_builtins = nd->as_bool();
            }
        }
    }
    lang::ParseOptions po;
    po.v0_compatible = c.settings.v0_compatible;
    auto parse_start = Clock::now();
    if (!has_statement(text)) return error_response(400, "invalid_parameter", "missing required 'query' value");
    auto parsed = lang::parse_query(text, po, "");  // OPA names no file for a query
    if (!parsed.ok()) {
        lang::Diagnostics errors = parsed.diagnostics;
        add_parse_details(errors, text);
        return error_response(400, "invalid_parameter", "error(s) occurred while parsing query", errors);
    }
    if (unknowns) {
        for (const auto& u : *unknowns) {
            auto t = lang::parse_term(u, po, "");
            if (!t.ok())
                return error_response(
                    400, "invalid_parameter",
                    "error(s) occurred while parsing unknowns: " + term_parse_error(u, t.diagnostics));
        }
        options.unknowns = std::move(unknowns);
    }
    auto parse_ns = Clock::now() - parse_start;

    auto prepared = c.store.prepare_partial(text, options);
    if (!prepared.query)
        return error_response(400, "invalid_parameter", "error(s) occurred while compiling module(s)", prepared.errors);
    PartialOptions run;
    run.input = input ? &*input : nullptr;
    run.timeout = c.timeout;
    run.cancel = c.cancel;
    if (c.hooks.print) run.print = [&c](std::string_view line) { c.hooks.print(line, ""); };
    PartialResult result = prepared.query->run(run);
    if (result.error) return evaluation_error(*result.error);

    std::string body = "{\"result\":" + partial::partial_json(result.queries, result.support);
    std::string explain = c.query.values("explain").empty() ? "" : c.query.values("explain").back();
    if (!explain.empty() && explain != "off") body += ",\"explanation\":[]";  // gavel traces no partial evaluation
    if (c.query.flag("metrics") || c.query.flag("instrument")) {
        ResponseMetrics metrics;
        for (const auto& [name, value] : result.metrics)
            metrics.set(std::string(name), static_cast<std::int64_t>(value));
        metrics.timer("timer_rego_query_parse_ns", parse_ns);
        metrics.set("timer_rego_query_compile_ns", 0);
        metrics.timer("timer_server_handler_ns", Clock::now() - start);
        body += ",\"metrics\":" + metrics.json();
    }
    body += '}';
    return json_ok(body, c.pretty());
}

}  // namespace gavel::webhook::opa_api

// ---------------------------------------------------------------------------
// Data filters: POST (and GET) /v1/compile/{path}, OPA's Compile API for data
// filtering (introduced after OPA 1.7.1, whose server answers 404 here). The
// rule at the path is partially evaluated over the unknowns (from the request,
// else from its METADATA `compile:` blocks), with nondeterministic builtins
// evaluated and rule indexing off; the residue is checked against what the
// targets the Accept header names can express, then written as UCAST or SQL.

namespace gavel::webhook::opa_api {

namespace {

struct FilterRequest {
    std::optional<Value> input;
    std::optional<std::vector<std::string>> unknowns;
    std::vector<std::string> disable_inlining;
    Value mappings;
    std::vector<std::string> target_dialects;
    std::string mask_rule;
};

// An ast.Error list response with the details object OPA's fragment checks give.
HttpResponse filter_problems(const std::vector<partial::FilterProblem>& problems) {
    lang::Diagnostics errors;
    for (const auto& p : problems) {
        lang::Diagnostic d = lang::Diagnostic::at(p.loc, "pe_fragment_error", p.message);
        if (!p.details.empty()) {
            auto details = lang::JsonTree::object();
            details.add("details", lang::JsonTree::string(p.details));
            d.details = std::make_shared<const lang::JsonTree>(std::move(details));
        }
        errors.add(std::move(d));
    }
    return error_response(400, "evaluation_error", "error(s) occurred while evaluating query", errors);
}

// `{"query":...,"masks":...}` for one target; "" when the answer is "never".
std::optional<std::string> filter_result(const PartialResult& r, const partial::FilterTarget& t, const Value& mappings,
                                         const std::optional<Value>& masks, std::string& error) {
    if (r.queries.empty()) return std::string();
    Value m = partial::filter_mappings(mappings, t, error);
    if (!error.empty()) {
        error = "mappings: " + error;
        return std::nullopt;
    }
    std::string out = "{\"query\":";
    if (t.target == "ucast") {
        out += partial::filter_ucast_json(r.queries, m);
    } else {
        auto sql = partial::filter_sql(r.queries, m, t.dialect, error);
        if (!sql) {
            error = "convert to queries: " + error;
            return std::nullopt;
        }
        runtime::append_go_string(out, *sql);
    }
    if (masks && masks->is_object() && masks->size() > 0) {
        out += ",\"masks\":";
        runtime::append_go_value(out, *masks);
    }
    return out + "}";
}

}  // namespace

HttpResponse v1_compile_filters(Call& c) {
    auto start = Clock::now();
    if (c.path_value.empty()) return error_response(400, "invalid_parameter", "missing required 'path' parameter");
    ResponseMetrics metrics;
    std::string bytes, error;
    if (!read_body(c.req, c.settings.max_inflated_bytes, bytes, error))
        return error_response(400, "invalid_parameter", "could not decompress the body: " + error);
    auto parse_start = Clock::now();
    FilterRequest req;
    auto decode_error = [](const std::string& e) {
        return error_response(400, "invalid_parameter", "error(s) occurred while decoding request: " + e);
    };
    if (!bytes.empty()) {
        runtime::GoDecoded d = runtime::go_decode(bytes, parse_json_document);
        if (!d.ok) return decode_error(d.error);
        if (!d.value.is_null() && !d.value.is_object())
            return decode_error(runtime::go_type_error(d.value, "server.CompileFiltersRequestV1"));
        if (d.value.is_object()) {
            if (const Value* q = runtime::go_field(d.value, "query"); q && !q->is_null() && !q->is_string())
                return decode_error(runtime::go_field_type_error(*q, "CompileFiltersRequestV1.query", "string"));
            if (const Value* in = runtime::go_field(d.value, "input"); in && !in->is_null()) req.input = *in;
            if (const Value* u = runtime::go_field(d.value, "unknowns"); u && !u->is_null()) {
                req.unknowns.emplace();
                if (!string_list(*u, "CompileFiltersRequestV1.unknowns", *req.unknowns, error))
                    return decode_error(error);
            }
            if (const Value* o = runtime::go_field(d.value, "options"); o && !o->is_null()) {
                if (!o->is_object())
                    return decode_error(runtime::go_field_type_error(*o, "CompileFiltersRequestV1.options", "struct"));
                if (const Value* di = runtime::go_field(*o, "disableInlining"))
                    if (!string_list(*di, "CompileFiltersRequestV1.options.disableInlining", req.disable_inlining,
                                     error))
                        return decode_error(error);
                if (const Value* m = runtime::go_field(*o, "targetSQLTableMappings"); m && !m->is_null()) {
                    if (!m->is_object())
                        return decode_error(runtime::go_field_type_error(
                            *m, "CompileFiltersRequestV1.options.targetSQLTableMappings", "map[string]interface {}"));
                    req.mappings = *m;
                }
                if (const Value* td = runtime::go_field(*o, "targetDialects"))
                    if (!string_list(*td, "CompileFiltersRequestV1.options.targetDialects", req.target_dialects, error))
                        return decode_error(error);
                if (const Value* mr = runtime::go_field(*o, "maskRule"); mr && !mr->is_null()) {
                    if (!mr->is_string())
                        return decode_error(
                            runtime::go_field_type_error(*mr, "CompileFiltersRequestV1.options.maskRule", "string"));
                    req.mask_rule = std::string(mr->as_string());
                }
            }
        }
    }
    std::string query;
    if (!data_ref_text(c.path_value, query, error))
        return error_response(400, "invalid_parameter", "invalid path: " + error);
    StorePath path = parse_store_path("/" + c.path_value);
    lang::ParseOptions po;
    po.v0_compatible = c.settings.v0_compatible;
    if (req.unknowns)
        for (const auto& u : *req.unknowns) {
            auto t = lang::parse_term(u, po, "");
            if (!t.ok() || (t.term->kind != lang::TermKind::Ref && t.term->kind != lang::TermKind::Var))
                return error_response(400, "invalid_parameter",
                                      "error(s) occurred while parsing unknowns: " +
                                          (t.ok() ? "expected ref but got " + u : term_parse_error(u, t.diagnostics)));
        }
    std::string mask_rule;
    if (!req.mask_rule.empty()) {
        mask_rule = req.mask_rule;
        if (mask_rule.rfind("data.", 0) != 0) {
            std::string prefix = "data";
            for (std::size_t i = 0; i + 1 < path.size(); ++i) prefix += "." + path[i];
            mask_rule = prefix + "." + mask_rule;
        }
        auto t = lang::parse_term(mask_rule, po, "");
        if (!t.ok() || t.term->kind != lang::TermKind::Ref)
            return error_response(400, "invalid_parameter", "error(s) occurred while parsing mask_rule name: ");
    }
    metrics.timer("timer_rego_query_parse_ns", Clock::now() - parse_start);

    std::vector<std::string> unknowns = req.unknowns ? *req.unknowns : std::vector<std::string>{};
    if (unknowns.empty() || mask_rule.empty()) {
        auto annotations_start = Clock::now();
        partial::FilterAnnotations a = c.store.filter_annotations(path);
        if (!a.errors.empty()) {
            lang::Diagnostics errors;
            for (auto& d : a.errors) errors.add(std::move(d));
            return error_response(400, "evaluation_error", "error(s) occurred while evaluating query", errors);
        }
        if (unknowns.empty()) {
            unknowns = a.unknowns;
            metrics.timer("timer_compile_extract_annotations_unknowns_ns", Clock::now() - annotations_start);
        }
        if (mask_rule.empty() && !a.mask_rule.empty()) {
            mask_rule = a.mask_rule;
            metrics.timer("timer_compile_extract_annotations_mask_ns", Clock::now() - annotations_start);
        }
    }

    std::string accept(c.req.header("Accept"));
    if (accept.empty()) return error_response(400, "invalid_parameter", "Accept header: missing required header");
    if (accept.find(',') != std::string::npos)
        return error_response(400, "invalid_parameter", "Accept header: multiple headers not supported");
    auto accepted = partial::filter_target_for(accept);
    if (!accepted) return error_response(400, "invalid_parameter", "Accept header: unsupported header: " + accept);
    std::vector<partial::FilterTarget> targets;
    if (accepted->multi) {
        for (const auto& td : req.target_dialects) {
            auto plus = td.find('+');
            targets.push_back({td.substr(0, plus), plus == std::string::npos ? "" : td.substr(plus + 1)});
        }
    } else {
        targets.push_back(accepted->target);
    }

    auto prep_start = Clock::now();
    auto constraints_start = Clock::now();
    std::set<std::string> shorts = partial::short_unknowns(req.mappings);
    {
        std::string target_error;
        partial::check_filters({}, {}, targets, shorts, target_error);
        if (!target_error.empty()) return error_response(500, "internal_error", target_error);
    }
    metrics.timer("timer_compile_eval_constraints_ns", Clock::now() - constraints_start);
    PartialQueryOptions options;
    options.unknowns = unknowns;
    options.disable_inlining = req.disable_inlining;
    options.nondeterministic_builtins = true;
    options.rule_indexing = false;
    auto prepared = c.store.prepare_partial(query, options);
    if (!prepared.query)
        return error_response(400, "invalid_parameter", "error(s) occurred while compiling module(s)", prepared.errors);
    metrics.timer("timer_compile_prep_partial_ns", Clock::now() - prep_start);

    const Value* input = req.input ? &*req.input : nullptr;
    std::optional<Value> masks;
    if (!mask_rule.empty()) {
        auto mask_start = Clock::now();
        auto q = c.store.query(mask_rule, false);
        if (!q.query) return error_response(500, "internal_error", "prepare for mask eval: " + q.errors.opa_text());
        EvalOptions eo;
        eo.input = input;
        eo.timeout = c.timeout;
        eo.cancel = c.cancel;
        EvalResult r = q.query->eval(eo);
        if (r.error) return evaluation_error(*r.error);
        if (!r.rows.empty() && !r.rows[0].expressions.empty()) masks = r.rows[0].expressions[0].value;
        metrics.timer("timer_compile_eval_mask_rule_ns", Clock::now() - mask_start);
    }

    PartialOptions run;
    run.input = input;
    run.timeout = c.timeout;
    run.cancel = c.cancel;
    if (c.hooks.print) run.print = [&c](std::string_view line) { c.hooks.print(line, ""); };
    PartialResult result = prepared.query->run(run);
    if (result.error) return evaluation_error(*result.error);
    for (const auto& [name, value] : result.metrics) metrics.set(std::string(name), static_cast<std::int64_t>(value));
    {
        std::string check_error;
        auto problems = partial::check_filters(result.queries, result.support, targets, shorts, check_error);
        if (!problems.empty()) return filter_problems(problems);
    }

    auto translate_start = Clock::now();
    std::string body = "{";
    if (accepted->multi) {
        std::map<std::string, std::string> by_key;
        for (const auto& t : targets) {
            std::string key = t.target == "ucast" ? "ucast" : t.dialect;
            if (t.target == "ucast" && by_key.count(key)) continue;
            auto r = filter_result(result, t, req.mappings, masks, error);
            if (!r) return error_response(500, "internal_error", error);
            if (r->empty()) by_key.erase(key);
            else by_key[key] = *r;
        }
        body += "\"result\":{";
        bool first = true;
        for (const char* key : {"ucast", "postgresql", "mysql", "sqlserver", "sqlite"}) {
            auto it = by_key.find(key);
            if (it == by_key.end()) continue;
            if (!first) body += ',';
            first = false;
            body += "\"" + std::string(key) + "\":" + it->second;
        }
        body += '}';
    } else {
        auto r = filter_result(result, targets[0], req.mappings, masks, error);
        if (!r) return error_response(500, "internal_error", error);
        if (!r->empty()) body += "\"result\":" + *r;
    }
    metrics.timer("timer_compile_translate_queries_ns", Clock::now() - translate_start);
    std::string explain = c.query.values("explain").empty() ? "" : c.query.values("explain").back();
    if (!explain.empty() && explain != "off") body += std::string(body.size() > 1 ? "," : "") + "\"explanation\":[]";
    if (c.query.flag("metrics") || c.query.flag("instrument")) {
        metrics.timer("timer_server_handler_ns", Clock::now() - start);
        body += std::string(body.size() > 1 ? "," : "") + "\"metrics\":" + metrics.json();
    }
    body += '}';
    HttpResponse out = json_ok(body, c.pretty());
    out.content_type = accept;
    return out;
}

}  // namespace gavel::webhook::opa_api
