// /v1/data (GET, POST, PUT, PATCH, DELETE), /v0/data and POST /, as OPA's
// server.go answers them.

#include <chrono>

#include "lang/go_quote.hpp"
#include "webhook/opa_api/bundle_scope.hpp"
#include "webhook/opa_api/endpoints.hpp"
#include "webhook/opa_api/eval_call.hpp"
#include "runtime/go_json_decode.hpp"
#include "webhook/large_json.hpp"
#include "runtime/go_json_writer.hpp"
#include "webhook/opa_api/request_body.hpp"
#include "webhook/opa_api/responses.hpp"
#include "webhook/opa_api/store_path.hpp"
#include "webhook/path_limits.hpp"

namespace gavel::webhook::opa_api {

namespace {

using runtime::Value;
using Clock = std::chrono::steady_clock;

bool go_atoi(std::string_view s) {
    if (s.empty()) return false;
    std::size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
    if (i == s.size() || s.size() - i > 18) return false;
    for (; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

// OPA's Ref.String(): a string that is a variable name (ASCII) and no keyword is written `.x`.
bool identifier(std::string_view s) {
    static constexpr std::string_view kKeywords[] = {"not",  "package", "import",   "as",   "default",
                                                     "else", "with",    "null",     "true", "false",
                                                     "some", "if",      "contains", "in",   "every"};
    for (auto k : kKeywords)
        if (s == k) return false;
    if (s.empty()) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (i > 0 && c >= '0' && c <= '9');
        if (!ok) return false;
    }
    return true;
}

// OPA's provenance object (version and build information, bundle revisions).
std::string provenance_json(const Call& c, const std::map<std::string, std::string>& bundles) {
    std::string out = "{\"version\":";
    runtime::append_go_string(out, c.settings.version);
    out += ",\"build_commit\":\"\",\"build_timestamp\":\"\",\"build_hostname\":\"\"";
    if (!bundles.empty()) {
        out += ",\"bundles\":{";
        bool first = true;
        for (const auto& [name, revision] : bundles) {
            if (!first) out += ',';
            first = false;
            runtime::append_go_string(out, name);
            out += ":{\"revision\":";
            runtime::append_go_string(out, revision);
            out += '}';
        }
        out += '}';
    }
    out += '}';
    return out;
}

// OPA's checkPathScope: a write below (or above) an active bundle's root is refused.
std::optional<std::string> path_scope_error(const Call& c, const StorePath& path) {
    auto snap = c.store.current();
    if (snap->bundle_roots.empty()) return std::nullopt;
    std::string spath = trim_slashes(store_path_text(path));
    if (spath.empty()) return std::string("can't write to document root with bundle roots configured");
    return bundle_owner_error(*snap, parse_store_path("/" + spath), spath);
}

// ErrorAuto for a storage error.
HttpResponse storage_error(const StoreError& e) {
    switch (e.code) {
        case StoreError::Code::NotFound: return error_response(404, "resource_not_found", e.text());
        case StoreError::Code::WriteConflict: return error_response(404, "resource_conflict", e.text());
        case StoreError::Code::InvalidPatch: return error_response(400, "invalid_parameter", e.text());
    }
    return error_response(500, "internal_error", e.text());
}

HttpResponse write_outcome(const WriteResult& r) {
    if (r.ok()) return bare_status(204);
    if (r.status == 304) return bare_status(304);
    if (r.errors.empty()) return error_response(r.status, r.code, r.message);
    return error_response(r.status, r.code, r.message, r.errors);
}

// The response of a data read: {decision_id, provenance, explanation, metrics, result, warning}.
struct DataResponse {
    std::string decision_id, provenance, metrics;
    std::optional<Value> result;
    bool input_missing = false;

    std::string json() const {
        std::string out = "{";
        auto sep = [&out] {
            if (out.size() > 1) out += ',';
        };
        if (!decision_id.empty()) {
            sep();
            out += "\"decision_id\":";
            runtime::append_go_string(out, decision_id);
        }
        if (!provenance.empty()) {
            sep();
            out += "\"provenance\":" + provenance;
        }
        if (!metrics.empty()) {
            sep();
            out += "\"metrics\":" + metrics;
        }
        if (result) {
            sep();
            out += "\"result\":";
            runtime::append_go_value(out, *result);
        }
        if (input_missing) {
            sep();
            out += "\"warning\":{\"code\":\"api_usage_warning\",\"message\":\"'input' key missing from the request\"}";
        }
        out += '}';
        return out;
    }
};

// The read shared by GET and POST /v1/data.
HttpResponse data_read(Call& c, const Value* input, bool post, Clock::time_point start, Clock::duration input_parse) {
    bool strict = c.query.flag("strict-builtin-errors");
    bool instrument = c.query.flag("instrument");
    bool provenance = c.query.flag("provenance");
    bool with_metrics = c.query.flag("metrics") || instrument;
    std::string ref;
    std::string error;
    ResponseMetrics metrics;
    metrics.timer("timer_rego_input_parse_ns", input_parse);
    EvalCall e;
    e.cache_key =
        std::string(post ? "v1DataPost::" : "v1DataGet::") + (strict ? "strict-builtin-errors::" : "") + c.path_value;
    bool hit = c.cache_hit && c.cache_hit(e.cache_key);
    if (!data_ref_text(c.path_value, ref, error))
        return error_response(500, "internal_error", "invalid_parameter: invalid path: " + error);
    e.query_text = ref;
    e.input = input;
    e.strict_builtin_errors = strict;
    for (const auto& seg : parse_store_path("/" + c.path_value))
        if (!seg.empty()) e.decision_path += (e.decision_path.empty() ? "" : "/") + seg;
    EvalOutcome out = evaluate(c, e, metrics);
    if (!out.prepared) return error_response(500, "internal_error", out.compile_errors.opa_text());
    if (out.result.error) return evaluation_error(*out.result.error);
    DataResponse resp;
    resp.decision_id = out.decision_id;
    if (provenance) resp.provenance = provenance_json(c, c.store.current()->bundle_revisions);
    if (with_metrics) {
        metrics.set("counter_server_query_cache_hit", hit ? 1 : 0);
        if (hit) metrics.erase("timer_rego_query_compile_ns");
        else if (!metrics.has("timer_rego_query_compile_ns")) metrics.set("timer_rego_query_compile_ns", 0);
        metrics.erase("timer_rego_query_parse_ns");
        metrics.erase("timer_rego_module_compile_ns");
        metrics.timer("timer_server_handler_ns", Clock::now() - start);
        resp.metrics = metrics.json();
    }
    if (!out.result.rows.empty() && !out.result.rows[0].expressions.empty())
        resp.result = out.result.rows[0].expressions[0].value;
    resp.input_missing = post && !input;
    return json_ok(resp.json(), c.pretty());
}

// A written document: Go's decoder on the raw body (PUT and PATCH read no gzip or YAML).
bool decode_write_body(const Call& c, Value& out, std::string& error) {
    runtime::GoDecoded d = runtime::go_decode(c.req.body, parse_json_document);
    if (!d.ok) {
        error = d.error;
        return false;
    }
    out = std::move(d.value);
    return true;
}

HttpResponse write_metrics_or_204(const Call& c, ResponseMetrics& metrics, Clock::time_point start) {
    if (!c.query.flag("metrics")) return bare_status(204);
    metrics.timer("timer_server_handler_ns", Clock::now() - start);
    return json_ok("{\"metrics\":" + metrics.json() + "}", false);
}

// One write of a data request (PUT, PATCH, DELETE): `edit(data, refuse)` changes the
// document, or calls `refuse(response)` and returns false to leave it as it was.
// Then OPA's answer: the refusal, the store's own failure, or 204 (with metrics).
template <class Edit>
HttpResponse write_data(Call& c, ResponseMetrics& metrics, Clock::time_point start, Edit edit) {
    std::optional<HttpResponse> refusal;
    WriteResult r = c.store.modify_data([&](Value& data, WriteResult& failure) {
        auto refuse = [&](HttpResponse response, const char* code) {
            refusal = std::move(response);
            failure.code = code;
        };
        return edit(data, refuse);
    });
    if (refusal) return *refusal;
    if (!r.ok()) return write_outcome(r);
    if (c.hooks.after_data_write) c.hooks.after_data_write();
    return write_metrics_or_204(c, metrics, start);
}

// `data` with one store write applied; false (the write refused with OPA's storage error) when it fails.
template <class Refuse>
bool apply_write(Value& data, PatchOp op, const StorePath& path, const Value& value, Refuse& refuse) {
    StoreError se;
    auto written = store_write(data, op, path, value, se);
    if (!written) {
        refuse(storage_error(se), "storage");
        return false;
    }
    data = std::move(*written);
    return true;
}

}  // namespace

bool data_ref_text(std::string_view escaped, std::string& ref, std::string& error) {
    ref = "data";
    while (!escaped.empty()) {
        auto slash = escaped.find('/');
        std::string_view raw = escaped.substr(0, slash);
        escaped = slash == std::string_view::npos ? std::string_view{} : escaped.substr(slash + 1);
        if (raw.empty()) continue;
        std::string seg;
        if (!percent_decode(raw, seg, false)) seg = std::string(raw);
        if (seg.find('"') != std::string::npos) {
            error = "invalid ref term '" + seg + "'";
            return false;
        }
        if (go_atoi(seg)) {
            // strconv.Atoi then a number term: "+1" and "007" are 1 and 7.
            long long n = std::stoll(seg);
            ref += '[' + std::to_string(n) + "]";
        } else if (identifier(seg)) {
            ref += "." + seg;
        } else {
            bool control = false;
            for (unsigned char ch : seg)
                if (ch < 0x20 || ch == 0x7f || ch == '\\') control = true;
            ref += '[' + (control ? lang::go_quote(seg) : "\"" + seg + "\"") + "]";
        }
    }
    return true;
}

HttpResponse v1_data_get(Call& c) {
    auto start = Clock::now();
    std::optional<Value> input;
    auto inputs = c.query.values("input");
    auto parse_start = Clock::now();
    if (!inputs.empty()) {
        runtime::GoDecoded d = runtime::go_unmarshal(inputs.back(), parse_json_document);
        if (!d.ok)
            return error_response(400, "invalid_parameter", "parameter contains malformed input document: " + d.error);
        input = std::move(d.value);
    }
    return data_read(c, input ? &*input : nullptr, false, start, Clock::now() - parse_start);
}

HttpResponse v1_data_post(Call& c) {
    auto start = Clock::now();
    auto parse_start = Clock::now();
    std::optional<Value> input;
    if (c.authorized_body_read) {
        if (c.authorized_body && c.authorized_body->is_object())
            if (const Value* in = c.authorized_body->find("input")) input = *in;
    } else {
        DecodedBody body = decode_body(c.req, c.settings.max_inflated_bytes);
        if (!body.ok) {
            std::string message = body.error.rfind("could not decompress", 0) == 0
                                      ? body.error
                                      : "body contains malformed input document: " + body.error;
            return error_response(400, "invalid_parameter", message);
        }
        if (body.present && !body.value.is_null()) {
            if (!body.value.is_object())
                return error_response(400, "invalid_parameter",
                                      "body contains malformed input document: " +
                                          runtime::go_type_error(body.value, "types.DataRequestV1"));
            if (const Value* in = runtime::go_field(body.value, "input"); in && !in->is_null()) input = *in;
        }
    }
    return data_read(c, input ? &*input : nullptr, true, start, Clock::now() - parse_start);
}

HttpResponse v0_data_post(Call& c, bool default_decision) {
    Value input;
    if (c.authorized_body_read) {
        if (c.authorized_body) input = *c.authorized_body;
    } else {
        DecodedBody body = decode_body(c.req, c.settings.max_inflated_bytes);
        if (!body.ok) {
            std::string message = body.error.rfind("could not decompress", 0) == 0
                                      ? body.error
                                      : "body contains malformed input document: " + body.error;
            return error_response(400, "invalid_parameter", "unexpected parse error for input: " + message);
        }
        if (body.present) input = std::move(body.value);  // an empty body is null input, as OPA's
    }
    std::string path = c.path_value;
    if (default_decision) {
        path = c.settings.default_decision;
        while (!path.empty() && path.front() == '/') path.erase(0, 1);
    }
    std::string ref, error;
    if (!data_ref_text(path, ref, error))
        return error_response(500, "internal_error", "invalid_parameter: invalid path: " + error);
    ResponseMetrics metrics;
    EvalCall e;
    e.cache_key = "v0QueryPath::" + path;
    e.query_text = ref;
    e.input = &input;
    for (const auto& seg : parse_store_path("/" + path))
        if (!seg.empty()) e.decision_path += (e.decision_path.empty() ? "" : "/") + seg;
    EvalOutcome out = evaluate(c, e, metrics);
    if (!out.prepared) return error_response(500, "internal_error", out.compile_errors.opa_text());
    if (out.result.error) return evaluation_error(*out.result.error);
    if (out.result.rows.empty() || out.result.rows[0].expressions.empty()) {
        auto snap = c.store.current();
        bool rules = snap->rule_paths.count(ref) > 0;
        return error_response(404, "undefined_document",
                              std::string(rules ? "document undefined" : "document missing") + ": " + ref);
    }
    std::string body;
    runtime::append_go_value(body, out.result.rows[0].expressions[0].value);
    return json_ok(body, c.pretty());
}

HttpResponse v1_data_put(Call& c) {
    auto start = Clock::now();
    ResponseMetrics metrics;
    Value value;
    std::string error;
    auto parse_start = Clock::now();
    if (!decode_write_body(c, value, error)) return error_response(400, "invalid_parameter", error);
    metrics.timer("timer_rego_input_parse_ns", Clock::now() - parse_start);
    StorePath path = parse_store_path("/" + trim_slashes(c.path_value));
    if (auto scope = path_scope_error(c, path)) return error_response(400, "invalid_parameter", *scope);
    bool if_none_match = c.req.header("If-None-Match") == "*";
    return write_data(c, metrics, start, [&](Value& data, auto& refuse) {
        StoreError se;
        if (store_read(data, path, se)) {
            if (if_none_match) {
                refuse(bare_status(304), "not_modified");
                return false;
            }
        } else if (!path.empty()) {
            StorePath parent(path.begin(), path.end() - 1);
            if (!store_make_dir(data, parent, se)) {
                refuse(storage_error(se), "storage");
                return false;
            }
        }
        return apply_write(data, PatchOp::Add, path, value, refuse);
    });
}

HttpResponse v1_data_patch(Call& c) {
    auto start = Clock::now();
    ResponseMetrics metrics;
    Value ops;
    std::string error;
    auto parse_start = Clock::now();
    if (!decode_write_body(c, ops, error)) return error_response(400, "invalid_parameter", error);
    if (!ops.is_null() && !ops.is_array())
        return error_response(400, "invalid_parameter", runtime::go_type_error(ops, "[]types.PatchV1"));
    struct Patch {
        PatchOp op;
        StorePath path;
        Value value;
    };
    std::vector<Patch> patches;
    std::string root = "/" + trim_slashes(c.path_value);
    for (const auto& item : ops.array_elements()) {
        if (!item.is_null() && !item.is_object())
            return error_response(400, "invalid_parameter", runtime::go_type_error(item, "types.PatchV1"));
        const Value* op = runtime::go_field(item, "op");
        const Value* p = runtime::go_field(item, "path");
        if (op && !op->is_null() && !op->is_string())
            return error_response(400, "invalid_parameter", runtime::go_field_type_error(*op, "PatchV1.op", "string"));
        if (p && !p->is_null() && !p->is_string())
            return error_response(400, "invalid_parameter", runtime::go_field_type_error(*p, "PatchV1.path", "string"));
    }
    metrics.timer("timer_rego_input_parse_ns", Clock::now() - parse_start);
    for (const auto& item : ops.array_elements()) {
        const Value* op = runtime::go_field(item, "op");
        const Value* p = runtime::go_field(item, "path");
        const Value* v = runtime::go_field(item, "value");
        std::string op_name = op && op->is_string() ? std::string(op->as_string()) : "";
        Patch patch;
        if (op_name == "add") patch.op = PatchOp::Add;
        else if (op_name == "remove") patch.op = PatchOp::Remove;
        else if (op_name == "replace") patch.op = PatchOp::Replace;
        else return error_response(400, "invalid_parameter", "bad patch operation: " + op_name);
        std::string rel = trim_slashes(p && p->is_string() ? p->as_string() : std::string_view());
        std::string full = rel.empty() ? root : (root == "/" ? root + rel : root + "/" + rel);
        patch.path = parse_store_path(full);
        unescape_pointer_segments(patch.path);
        if (patch.path.size() > kMaxPathSegments)
            return error_response(400, "invalid_parameter",
                                  "path too deep: " + std::to_string(patch.path.size()) + " segments (the limit is " +
                                      std::to_string(kMaxPathSegments) + ")");
        if (v) patch.value = *v;
        patches.push_back(std::move(patch));
    }
    return write_data(c, metrics, start, [&](Value& data, auto& refuse) {
        for (const auto& patch : patches) {
            if (auto scope = path_scope_error(c, patch.path)) {
                refuse(error_response(400, "invalid_parameter", *scope), "scope");
                return false;
            }
            if (!apply_write(data, patch.op, patch.path, patch.value, refuse)) return false;
        }
        return true;
    });
}

HttpResponse v1_data_delete(Call& c) {
    auto start = Clock::now();
    ResponseMetrics metrics;
    StorePath path = parse_store_path("/" + trim_slashes(c.path_value));
    if (auto scope = path_scope_error(c, path)) return error_response(400, "invalid_parameter", *scope);
    return write_data(c, metrics, start, [&](Value& data, auto& refuse) {
        StoreError se;
        if (!store_read(data, path, se)) {
            refuse(storage_error(se), "storage");
            return false;
        }
        return apply_write(data, PatchOp::Remove, path, Value(), refuse);
    });
}

}  // namespace gavel::webhook::opa_api
