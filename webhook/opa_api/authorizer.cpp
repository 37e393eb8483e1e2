// system.authz (--authorization=basic): every request of the API is first
// decided by the authorization policy, with OPA's input document
// {path, method, params, headers, body, identity}, as OPA's authorizer.Basic.

#include "runtime/yaml.hpp"
#include "webhook/opa_api/endpoints.hpp"
#include "webhook/opa_api/eval_call.hpp"
#include "runtime/go_json_decode.hpp"
#include "webhook/large_json.hpp"
#include "webhook/opa_api/request_body.hpp"
#include "webhook/opa_api/responses.hpp"

namespace gavel::webhook::opa_api {

namespace {

using runtime::Value;

// Go's textproto.CanonicalMIMEHeaderKey: "content-type" -> "Content-Type".
std::string canonical_header(std::string_view key) {
    for (char ch : key) {
        bool token = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                     std::string_view("!#$%&'*+-.^_`|~").find(ch) != std::string_view::npos;
        if (!token) return std::string(key);
    }
    std::string out(key);
    bool upper = true;
    for (auto& ch : out) {
        if (upper && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 32);
        else if (!upper && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch + 32);
        upper = ch == '-';
    }
    return out;
}

// {name: [values...]}, names and values in order.
Value multimap(const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::map<std::string, std::vector<std::string>> grouped;
    for (const auto& [k, v] : pairs) grouped[k].push_back(v);
    runtime::ObjectBuilder b;
    for (const auto& [k, values] : grouped) {
        runtime::ArrayBuilder list;
        for (const auto& v : values) list.push_back(Value::string(v));
        b.insert(Value::string(k), list.build());
    }
    return b.build();
}

// OPA reads the body of POST /, POST /v0/data... and POST /v1/data... for the policy.
bool expects_body(const std::string& method, const std::vector<std::string>& path) {
    if (method != "POST") return false;
    if (path.size() == 1) return path[0].empty();
    return path.size() >= 2 && (path[0] == "v0" || path[0] == "v1") && path[1] == "data";
}

}  // namespace

std::optional<HttpResponse> authorize(Call& c) {
    // The path: split after the leading '/', each part unescaped (a bad escape is a 400).
    std::vector<std::string> path;
    std::string_view raw = c.req.path();
    if (!raw.empty()) raw.remove_prefix(1);
    for (;;) {
        auto slash = raw.find('/');
        std::string part;
        std::string_view piece = raw.substr(0, slash);
        if (!percent_decode(piece, part, false)) {
            auto bad = piece.find('%');
            std::string escape(piece.substr(bad, 3));
            return error_response(400, "invalid_parameter", "invalid URL escape \"" + escape + "\"");
        }
        path.push_back(std::move(part));
        if (slash == std::string_view::npos) break;
        raw.remove_prefix(slash + 1);
    }
    runtime::ObjectBuilder input;
    runtime::ArrayBuilder path_list;
    for (const auto& p : path) path_list.push_back(Value::string(p));
    input.insert(Value::string("path"), path_list.build());
    input.insert(Value::string("method"), Value::string(c.req.method));
    std::vector<std::pair<std::string, std::string>> params;
    {
        UrlQuery q(c.req.query());
        std::string_view rq = c.req.query();
        while (!rq.empty()) {
            auto amp = rq.find('&');
            std::string_view part = rq.substr(0, amp);
            rq = amp == std::string_view::npos ? std::string_view{} : rq.substr(amp + 1);
            if (part.empty() || part.find(';') != std::string_view::npos) continue;
            auto eq = part.find('=');
            std::string k, v;
            if (!percent_decode(part.substr(0, eq), k, true)) continue;
            if (eq != std::string_view::npos && !percent_decode(part.substr(eq + 1), v, true)) continue;
            params.emplace_back(std::move(k), std::move(v));
        }
    }
    input.insert(Value::string("params"), multimap(params));
    std::vector<std::pair<std::string, std::string>> headers;
    for (const auto& [k, v] : c.req.headers) {
        std::string key = canonical_header(k);
        if (key == "Host" || key == "Transfer-Encoding") continue;  // Go keeps these out of r.Header
        headers.emplace_back(std::move(key), v);
    }
    input.insert(Value::string("headers"), multimap(headers));
    if (expects_body(c.req.method, path)) {
        std::string bytes, error;
        if (!read_body(c.req, c.settings.max_inflated_bytes, bytes, error))
            return error_response(400, "invalid_parameter", error);
        c.authorized_body_read = true;
        if (!bytes.empty()) {
            Value body;
            if (is_yaml(c.req)) {
                auto parsed = runtime::parse_json_or_yaml(bytes);
                if (!parsed.ok) return error_response(400, "invalid_parameter", parsed.error.message);
                body = std::move(parsed.value);
            } else {
                runtime::GoDecoded d = runtime::go_unmarshal(bytes, parse_json_document);
                if (!d.ok) return error_response(400, "invalid_parameter", d.error);
                body = std::move(d.value);
            }
            input.insert(Value::string("body"), body);
            c.authorized_body = std::move(body);
        }
    }
    if (c.settings.authentication == Authentication::Token) {
        // ^Bearer\s+(\S+)$
        std::string_view auth = c.req.header("Authorization");
        if (auth.substr(0, 6) == "Bearer") {
            std::string_view rest = auth.substr(6);
            std::size_t spaces = 0;
            while (spaces < rest.size() && (rest[spaces] == ' ' || rest[spaces] == '\t')) ++spaces;
            std::string_view token = rest.substr(spaces);
            bool ok = spaces > 0 && !token.empty() && token.find_first_of(" \t\r\n\v\f") == std::string_view::npos;
            if (ok) input.insert(Value::string("identity"), Value::string(token));
        }
    } else if (c.settings.authentication == Authentication::Tls && !c.req.client_subject.empty()) {
        input.insert(Value::string("identity"), Value::string(c.req.client_subject));
    }
    Value document = input.build();
    std::string ref, error;
    std::string decision = c.settings.authorization_decision;
    while (!decision.empty() && decision.front() == '/') decision.erase(0, 1);
    if (!data_ref_text(decision, ref, error)) return error_response(500, "internal_error", error);
    ResponseMetrics metrics;
    EvalCall e;
    e.query_text = ref;
    e.input = &document;
    EvalOutcome out = evaluate(c, e, metrics);
    if (!out.prepared) return error_response(500, "internal_error", out.compile_errors.opa_text());
    if (out.result.error) return evaluation_error(*out.result.error);
    if (out.result.rows.empty() || out.result.rows[0].expressions.empty())
        return error_response(500, "internal_error", "authorization policy missing or undefined");
    const Value& v = out.result.rows[0].expressions[0].value;
    if (v.is_bool() && v.as_bool()) return std::nullopt;
    if (v.is_object()) {
        const Value* allowed = v.find("allowed");
        if (!allowed) return error_response(500, "internal_error", "document missing or undefined");
        if (allowed->is_bool() && allowed->as_bool()) return std::nullopt;
        if (const Value* reason = v.find("reason"); reason && reason->is_string())
            return error_response(401, "unauthorized", reason->as_string());
    }
    return error_response(401, "unauthorized", "request rejected by administrative policy");
}

}  // namespace gavel::webhook::opa_api
