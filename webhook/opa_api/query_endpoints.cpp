// /v1/query (GET ?q=, POST {query, input}) and /v1/compile, as OPA's server.go answers them.

#include <chrono>

#include "engine/partial/residual.hpp"
#include "lang/parse.hpp"
#include "webhook/opa_api/endpoints.hpp"
#include "webhook/opa_api/eval_call.hpp"
#include "webhook/opa_api/go_json_decode.hpp"
#include "webhook/opa_api/go_json_writer.hpp"
#include "webhook/opa_api/request_body.hpp"
#include "webhook/opa_api/responses.hpp"

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
    EvalOutcome out = evaluate(c, e, metrics);
    if (!out.prepared) return error_response(400, "invalid_parameter", "error(s) occurred while compiling query", out.compile_errors);
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
            append_go_value(body, b.build());
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
    GoDecoded d = go_decode(c.req.body);
    if (!d.ok) return error_response(400, "invalid_parameter", "error(s) occurred while decoding request: " + d.error);
    std::string text;
    std::optional<Value> input;
    if (!d.value.is_null()) {
        if (!d.value.is_object())
            return error_response(400, "invalid_parameter",
                                  "error(s) occurred while decoding request: " + go_type_error(d.value, "types.QueryRequestV1"));
        if (const Value* q = go_field(d.value, "query"); q && !q->is_null()) {
            if (!q->is_string())
                return error_response(400, "invalid_parameter",
                                      "error(s) occurred while decoding request: " +
                                          go_field_type_error(*q, "QueryRequestV1.query", "string"));
            text = std::string(q->as_string());
        }
        if (const Value* in = go_field(d.value, "input"); in && !in->is_null()) input = *in;
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
            if (line && idx)
                out += "\n\t" + line->text + "\n\t" + std::string(std::stoul(idx->text), ' ') + "^";
        }
    }
    return out;
}

// A []string field of a request (Go's decoding errors for anything else).
bool string_list(const Value& v, std::string_view field, std::vector<std::string>& out, std::string& error) {
    if (v.is_null()) return true;
    if (!v.is_array()) {
        error = go_field_type_error(v, field, "[]string");
        return false;
    }
    for (const auto& e : v.array_elements()) {
        if (!e.is_string()) {
            if (e.is_null()) {
                out.emplace_back();
                continue;
            }
            error = go_field_type_error(e, field, "string");
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
    if (!read_body(c.req, c.settings.max_inflated_bytes, bytes, error)) return error_response(400, "invalid_parameter", "could not decompress the body");
    GoDecoded d = go_decode(bytes);
    if (!d.ok) return error_response(400, "invalid_parameter", "error(s) occurred while decoding request: " + d.error);
    if (!d.value.is_null() && !d.value.is_object())
        return error_response(400, "invalid_parameter",
                              "error(s) occurred while decoding request: " + go_type_error(d.value, "types.CompileRequestV1"));
    auto decode_error = [](const std::string& e) {
        return error_response(400, "invalid_parameter", "error(s) occurred while decoding request: " + e);
    };
    std::string text;
    std::optional<Value> input;
    std::optional<std::vector<std::string>> unknowns;
    PartialQueryOptions options;
    if (d.value.is_object()) {
        if (const Value* q = go_field(d.value, "query"); q && !q->is_null()) {
            if (!q->is_string()) return decode_error(go_field_type_error(*q, "CompileRequestV1.query", "string"));
            text = std::string(q->as_string());
        }
        if (const Value* in = go_field(d.value, "input"); in && !in->is_null()) input = *in;
        if (const Value* u = go_field(d.value, "unknowns"); u && !u->is_null()) {
            unknowns.emplace();
            if (!string_list(*u, "CompileRequestV1.unknowns", *unknowns, error)) return decode_error(error);
        }
        if (const Value* o = go_field(d.value, "options"); o && !o->is_null()) {
            if (!o->is_object()) return decode_error(go_field_type_error(*o, "CompileRequestV1.options", "struct { DisableInlining []string \"json:\\\"disableInlining,omitempty\\\"\"; NondeterministicBuiltins bool \"json:\\\"nondeterministicBuiltins\\\"\" }"));
            if (const Value* di = go_field(*o, "disableInlining"))
                if (!string_list(*di, "CompileRequestV1.options.disableInlining", options.disable_inlining, error))
                    return decode_error(error);
            if (const Value* nd = go_field(*o, "nondeterministicBuiltins"); nd && !nd->is_null()) {
                if (!nd->is_bool())
                    return decode_error(go_field_type_error(*nd, "CompileRequestV1.options.nondeterministicBuiltins", "bool"));
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
                return error_response(400, "invalid_parameter",
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
        for (const auto& [name, value] : result.metrics) metrics.set(std::string(name), static_cast<std::int64_t>(value));
        metrics.timer("timer_rego_query_parse_ns", parse_ns);
        metrics.set("timer_rego_query_compile_ns", 0);
        metrics.timer("timer_server_handler_ns", Clock::now() - start);
        body += ",\"metrics\":" + metrics.json();
    }
    body += '}';
    return json_ok(body, c.pretty());
}

}  // namespace gavel::webhook::opa_api
