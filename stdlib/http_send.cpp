// http.send: OPA's HTTP client builtin. Network access is off unless the
// engine allows it (EngineOptions::allow_net, `gavel eval --allow-net`);
// identical requests within one query are sent once (OPA's intra-query cache).

#include <fmt/format.h>

#include <strings.h>

#include <cstdlib>
#include <map>
#include <set>
#include <variant>

#include "runtime/file_read.hpp"
#include "runtime/json.hpp"
#include "runtime/yaml.hpp"
#include "stdlib/builtin_helpers.hpp"
#include "stdlib/go_time.hpp"
#include "stdlib/go_url.hpp"
#include "stdlib/http_client.hpp"

namespace gavel::stdlib {

namespace {

constexpr std::string_view kAllowedKeys[] = {
    "method",
    "url",
    "body",
    "enable_redirect",
    "force_json_decode",
    "force_yaml_decode",
    "headers",
    "raw_body",
    "tls_use_system_certs",
    "tls_ca_cert",
    "tls_ca_cert_file",
    "tls_ca_cert_env_variable",
    "tls_client_cert",
    "tls_client_cert_env_variable",
    "tls_client_cert_file",
    "tls_client_key",
    "tls_client_key_env_variable",
    "tls_client_key_file",
    "tls_insecure_skip_verify",
    "tls_server_name",
    "timeout",
    "cache",
    "force_cache",
    "force_cache_duration_seconds",
    "raise_error",
    "caching_mode",
    "max_retry_attempts",
    "cache_ignored_headers",
};

std::string name_set(const std::set<std::string>& names) {
    std::string out = "{";
    for (const auto& n : names) out += fmt::format("{}\"{}\"", out.size() > 1 ? ", " : "", n);
    return out + "}";
}

// A failed send: raised as a builtin error, or (raise_error: false) returned
// as OPA's {"status_code": 0, "error": {...}} object.
struct SendError {
    std::string code;  // eval_http_send_network_error / eval_http_send_internal_error
    std::string message;
};

struct Options {
    http::Request request;
    std::string url;
    bool enable_redirect = false;
    bool force_json = false;
    bool force_yaml = false;
    bool raise_error = true;
};

const Value* field(const Value& obj, std::string_view key) { return obj.find(Value::string(key)); }

bool flag(const Value& obj, std::string_view key) {
    const Value* v = field(obj, key);
    return v && v->is_bool() && v->as_bool();
}

std::string text_field(const Value& obj, std::string_view key) {
    const Value* v = field(obj, key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// Certificate and key files: PEM text, a few kilobytes (a CA bundle a few hundred).
constexpr std::size_t kMaxPemFileBytes = 16u << 20;

// A file named by the request (a certificate or key): only a regular file, of
// bounded size, read within the evaluation's budget. The first failure is kept.
std::string file_text(const std::string& path, std::optional<SendError>& error, bool& stopped, BuiltinContext& ctx) {
    if (error || stopped) return {};
    auto read = runtime::read_whole_file(path, kMaxPemFileBytes, runtime::NonRegular::Refuse, &ctx);
    if (read.stopped) stopped = true;
    else if (!read.ok) error = SendError{"eval_http_send_internal_error", read.message};
    return read.ok ? std::move(read.text) : std::string();
}

std::string env_text(const std::string& name) {
    const char* v = name.empty() ? nullptr : std::getenv(name.c_str());
    return v ? v : "";
}

// Where the URL points: fills scheme, host, port and target.
std::optional<SendError> set_target(http::Request& r, const std::string& url) {
    std::string error;
    auto u = go_url::parse(url, error);
    if (!u) return SendError{"eval_http_send_internal_error", error};
    if (u->scheme != "http" && u->scheme != "https")
        return SendError{"eval_http_send_internal_error", fmt::format("unsupported protocol scheme \"{}\"", u->scheme)};
    if (u->hostname().empty()) return SendError{"eval_http_send_internal_error", "http: no Host in request URL"};
    r.https = u->scheme == "https";
    r.host = u->hostname();
    r.port = u->port().empty() ? (r.https ? "443" : "80") : u->port();
    std::string path = u->raw_path.empty() ? u->path : u->raw_path;
    if (path.empty()) path = '/';
    r.target = u->raw_query.empty() ? path : path + "?" + u->raw_query;
    return std::nullopt;
}

std::variant<Options, SendError, BuiltinResult> read_options(const Value& req, BuiltinContext& ctx) {
    std::set<std::string> invalid, missing;
    for (const auto& e : req.object_entries()) {
        bool known = false;
        for (auto k : kAllowedKeys) known |= e.key.is_string() && e.key.as_string() == k;
        if (!known) invalid.insert(e.key.is_string() ? std::string(e.key.as_string()) : runtime::to_json(e.key));
    }
    if (!invalid.empty()) return BuiltinResult::type_error("invalid request parameters(s): " + name_set(invalid));
    for (const char* k : {"method", "url"})
        if (!field(req, k)) missing.insert(k);
    if (!missing.empty())
        return BuiltinResult::type_error("missing required request parameters(s): " + name_set(missing));

    Options o;
    if (const Value* v = field(req, "raise_error"); v && v->is_bool()) o.raise_error = v->as_bool();
    const Value* method = field(req, "method");
    const Value* url = field(req, "url");
    if (!method->is_string()) return BuiltinResult::error("method must be a string");
    if (!url->is_string()) return BuiltinResult::error("url must be a string");
    o.url = std::string(url->as_string());
    o.request.method.clear();
    for (char c : method->as_string())
        o.request.method.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (o.request.method.empty()) o.request.method = "GET";
    o.enable_redirect = flag(req, "enable_redirect");
    o.force_json = flag(req, "force_json_decode");
    o.force_yaml = flag(req, "force_yaml_decode");

    if (const Value* h = field(req, "headers")) {
        if (!h->is_object()) return BuiltinResult::error("invalid type for headers key");
        for (const auto& e : h->object_entries()) {
            if (!e.key.is_string() || !e.value.is_string()) {
                auto text = json_text(e.value, ctx);
                if (!text) return BuiltinResult::cancelled();
                return BuiltinResult::error(fmt::format("invalid type for headers value {}", *text));
            }
            o.request.headers.emplace_back(std::string(e.key.as_string()), std::string(e.value.as_string()));
        }
    }
    if (const Value* raw = field(req, "raw_body"); raw && raw->is_string()) o.request.body = raw->as_string();
    else if (const Value* body = field(req, "body"); body && !body->is_null()) {
        auto text = json_text(*body, ctx);
        if (!text) return BuiltinResult::cancelled();
        o.request.body = std::move(*text);
    }

    if (const Value* t = field(req, "timeout")) {
        int64_t ns = 0;
        if (t->is_string()) {
            std::string error;
            auto d = go_time::parse_duration(t->as_string(), error);
            if (!d) return BuiltinResult::error(error);
            ns = *d;
        } else if (!t->is_number() || !t->as_int64(ns)) {
            return BuiltinResult::error("invalid timeout value");
        }
        if (ns > 0) o.request.timeout = std::chrono::nanoseconds(ns);
    }

    std::optional<SendError> file_error;
    bool stopped = false;
    auto& tls = o.request.tls;
    tls.insecure_skip_verify = flag(req, "tls_insecure_skip_verify");
    tls.server_name = text_field(req, "tls_server_name");
    tls.ca_pem = text_field(req, "tls_ca_cert") + env_text(text_field(req, "tls_ca_cert_env_variable"));
    tls.ca_file = text_field(req, "tls_ca_cert_file");  // read when the request is sent
    tls.use_system_certs = !field(req, "tls_use_system_certs") || flag(req, "tls_use_system_certs");
    if (!tls.ca_pem.empty() || !tls.ca_file.empty()) tls.use_system_certs = flag(req, "tls_use_system_certs");
    tls.client_cert_pem =
        text_field(req, "tls_client_cert") + env_text(text_field(req, "tls_client_cert_env_variable"));
    tls.client_key_pem = text_field(req, "tls_client_key") + env_text(text_field(req, "tls_client_key_env_variable"));
    if (auto f = text_field(req, "tls_client_cert_file"); !f.empty())
        tls.client_cert_pem = file_text(f, file_error, stopped, ctx);
    if (auto f = text_field(req, "tls_client_key_file"); !f.empty())
        tls.client_key_pem = file_text(f, file_error, stopped, ctx);
    if (stopped) return BuiltinResult::cancelled();
    if (file_error) return *file_error;
    return o;
}

// Go's Op in url.Error: the method with only its first letter upper case ("Get").
std::string go_op(const std::string& method) {
    std::string out;
    for (std::size_t i = 0; i < method.size(); ++i)
        out.push_back(static_cast<char>(i ? std::tolower(static_cast<unsigned char>(method[i])) : method[i]));
    return out;
}

bool is_redirect(unsigned s) { return s == 301 || s == 302 || s == 303 || s == 307 || s == 308; }

// nullopt: the evaluation must stop (reading the CA file met its deadline or memory limit).
std::optional<std::variant<Value, SendError>> send(Options o, BuiltinContext& ctx) {
    std::string url = o.url;
    for (int redirects = 0;; ++redirects) {
        if (auto e = set_target(o.request, url)) return *e;
        if (!ctx.allow_net) return SendError{"eval_http_send_internal_error", "unallowed host: " + o.request.host};
        if (auto& tls = o.request.tls; !tls.ca_file.empty() && tls.ca_file_pem.empty()) {
            std::optional<SendError> file_error;
            bool stopped = false;
            tls.ca_file_pem = file_text(tls.ca_file, file_error, stopped, ctx);
            if (stopped) return std::nullopt;
            if (file_error) return *file_error;
        }
        // The query's own deadline (gavel serve's request timeout, --timeout) bounds the request too.
        if (ctx.deadline != std::chrono::steady_clock::time_point::max()) {
            auto left = ctx.deadline - std::chrono::steady_clock::now();
            if (left <= std::chrono::nanoseconds(0))
                return SendError{"eval_http_send_network_error",
                                 fmt::format("{} {}: request timed out", go_op(o.request.method), url)};
            if (left < o.request.timeout)
                o.request.timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(left);
        }
        auto [response, failure] = http::perform(o.request);
        if (failure) {
            if (failure->timed_out)
                return SendError{"eval_http_send_network_error",
                                 fmt::format("{} {}: request timed out", go_op(o.request.method), url)};
            return SendError{"eval_http_send_network_error",
                             fmt::format("{} \"{}\": {}", go_op(o.request.method), url, failure->message)};
        }
        std::string location;
        for (const auto& [k, v] : response->headers)
            if (k.size() == 8 && strncasecmp(k.c_str(), "location", 8) == 0) location = v;
        if (o.enable_redirect && is_redirect(response->status) && !location.empty()) {
            if (redirects >= 10)
                return SendError{"eval_http_send_network_error",
                                 fmt::format("{} \"{}\": stopped after 10 redirects", go_op(o.request.method), url)};
            if (location.find("://") == std::string::npos) {
                // A path on the same origin.
                std::string origin = (o.request.https ? "https://" : "http://") + o.request.host;
                if (o.request.port != (o.request.https ? "443" : "80")) origin += ":" + o.request.port;
                location = origin + (location.front() == '/' ? "" : "/") + location;
            }
            if (response->status == 303 ||
                ((response->status == 301 || response->status == 302) && o.request.method == "POST")) {
                o.request.method = "GET";
                o.request.body.clear();
            }
            url = location;
            continue;
        }

        runtime::ObjectBuilder headers_out;
        std::map<std::string, std::vector<std::string>> headers;
        std::string content_type;
        for (const auto& [k, v] : response->headers) {
            std::string name = k;
            for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (name == "content-type") content_type = v;
            headers[name].push_back(v);
        }
        for (const auto& [name, values] : headers) {
            runtime::ArrayBuilder b;
            for (const auto& v : values) b.push_back(Value::string(v));
            headers_out.insert(Value::string(name), b.build());
        }
        Value body = Value::null();
        const bool json = o.force_json || content_type.rfind("application/json", 0) == 0;
        const bool yaml = o.force_yaml || content_type.rfind("application/yaml", 0) == 0 ||
                          content_type.rfind("application/x-yaml", 0) == 0;
        if (json) {
            auto parsed = runtime::parse_json(response->body);
            if (!parsed) return SendError{"eval_http_send_internal_error", parsed.error.message};
            body = parsed.value;
        } else if (yaml) {
            auto parsed = runtime::parse_yaml(response->body);
            if (!parsed) return SendError{"eval_http_send_internal_error", parsed.error.message};
            body = parsed.value;
        }
        std::string status = std::to_string(response->status);
        if (!response->reason.empty()) status += " " + response->reason;
        return Value::object({
            {Value::string("body"), body},
            {Value::string("headers"), headers_out.build()},
            {Value::string("raw_body"), Value::string(response->body)},
            {Value::string("status"), Value::string(status)},
            {Value::string("status_code"), Value::integer(response->status)},
        });
    }
}

BuiltinResult http_send(Args a, BuiltinContext& ctx) {
    if (!a[0].is_object()) return type_error(1, "object", a[0]);
    auto options = read_options(a[0], ctx);
    if (auto* r = std::get_if<BuiltinResult>(&options)) return *r;
    bool raise = true;
    if (const Value* v = field(a[0], "raise_error"); v && v->is_bool()) raise = v->as_bool();
    std::variant<Value, SendError> outcome = std::get_if<SendError>(&options)
                                                 ? std::variant<Value, SendError>(std::get<SendError>(options))
                                                 : std::variant<Value, SendError>(Value::null());
    auto request_text = json_text(a[0], ctx);  // the key of the query's cache of responses
    if (!request_text) return BuiltinResult::cancelled();
    const std::string key = "http.send " + *request_text;
    if (auto it = ctx.memo.find(key); it != ctx.memo.end()) return BuiltinResult::of(it->second);
    if (auto* o = std::get_if<Options>(&options)) {
        auto sent = send(std::move(*o), ctx);
        if (!sent) return BuiltinResult::cancelled();
        outcome = std::move(*sent);
    }
    if (auto* v = std::get_if<Value>(&outcome)) {
        ctx.memo.emplace(key, *v);
        return BuiltinResult::of(*v);
    }
    const auto& e = std::get<SendError>(outcome);
    if (raise) return BuiltinResult::error(e.message);
    return BuiltinResult::of(Value::object({
        {Value::string("status_code"), Value::integer(0)},
        {Value::string("error"), Value::object({{Value::string("code"), Value::string(e.code)},
                                                {Value::string("message"), Value::string(e.message)}})},
    }));
}

}  // namespace

void register_http(Registry& r) {
    Builtin b;
    b.name = "http.send";
    b.arity = 1;
    b.impl = http_send;
    r.add(std::move(b));
}

}  // namespace gavel::stdlib
