// /v1/query (GET ?q=, POST {query, input}) and /v1/compile, as OPA's server.go answers them.

#include <chrono>

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
    e.adhoc = true;
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

HttpResponse v1_compile_post(Call& c) {
    std::string bytes, error;
    if (!read_body(c.req, c.settings.max_inflated_bytes, bytes, error)) return error_response(400, "invalid_parameter", "could not decompress the body");
    GoDecoded d = go_decode(bytes);
    if (!d.ok) return error_response(400, "invalid_parameter", "error(s) occurred while decoding request: " + d.error);
    if (!d.value.is_null() && !d.value.is_object())
        return error_response(400, "invalid_parameter",
                              "error(s) occurred while decoding request: " + go_type_error(d.value, "types.CompileRequestV1"));
    std::string text;
    if (const Value* q = go_field(d.value, "query"); q && q->is_string()) text = std::string(q->as_string());
    lang::ParseOptions po;
    po.v0_compatible = c.settings.v0_compatible;
    if (!has_statement(text)) return error_response(400, "invalid_parameter", "missing required 'query' value");
    auto parsed = lang::parse_query(text, po, "");  // OPA names no file for a query
    if (!parsed.ok()) {
        lang::Diagnostics errors = parsed.diagnostics;
        add_parse_details(errors, text);
        return error_response(400, "invalid_parameter", "error(s) occurred while parsing query", errors);
    }
    // Partial evaluation is not in gavel yet: say so rather than answer wrongly.
    return error_response(501, "internal_error", "partial evaluation (POST /v1/compile) is not supported by gavel yet");
}

}  // namespace gavel::webhook::opa_api
