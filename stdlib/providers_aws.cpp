// providers.aws.sign_req: AWS Signature Version 4 for an http.send request
// object, as OPA signs it (headers of the request are signed too; the x-amz-*
// headers it adds win in the returned request).

#include <fmt/format.h>

#include <map>
#include <set>

#include "runtime/json.hpp"
#include "stdlib/builtin_helpers.hpp"
#include "stdlib/civil_time.hpp"
#include "stdlib/crypto_support.hpp"
#include "stdlib/go_url.hpp"

namespace gavel::stdlib {

namespace {

// OPA lists missing or bad keys as a set of quoted names: {"method", "url"}.
std::string name_set(const std::set<std::string>& names) {
    std::string out = "{";
    bool first = true;
    for (const auto& n : names) {
        out += fmt::format("{}\"{}\"", first ? "" : ", ", n);
        first = false;
    }
    return out + "}";
}

// Go's url.EscapedPath for a path that has no raw form: '?' and bytes outside
// the unreserved and sub-delimiter sets become %XX.
std::string escaped_path(const go_url::Url& u) {
    if (!u.raw_path.empty()) return u.raw_path;
    std::string out;
    for (unsigned char c : u.path) {
        bool keep =
            std::isalnum(c) || std::string_view("-_.~$&+,/:;=@").find(static_cast<char>(c)) != std::string_view::npos;
        if (keep) out.push_back(static_cast<char>(c));
        else out += fmt::format("%{:02X}", c);
    }
    return out;
}

std::string sha256_hex(std::string_view data) { return crypto::hex(crypto::digest("SHA256", data).value_or("")); }
std::string hmac256(std::string_view key, std::string_view data) {
    return crypto::hmac("SHA256", key, data).value_or("");
}

// nullopt: the evaluation must stop (the JSON text of a value shared many times over).
std::optional<std::string> header_text(const Value& v, BuiltinContext& ctx) {
    if (v.is_string()) return std::string(v.as_string());
    return json_text(v, ctx);
}

BuiltinResult sign_req(Args a, BuiltinContext& ctx) {
    const Value& req = a[0];
    const Value& config = a[1];
    if (!req.is_object()) return type_error(1, "object", req);
    if (!config.is_object()) return type_error(2, "object", config);
    if (!a[2].is_number()) return type_error(3, "number", a[2]);

    std::set<std::string> missing, invalid;
    for (const char* k : {"method", "url"}) {
        const Value* v = req.find(Value::string(k));
        if (!v) missing.insert(k);
        else if (!v->is_string()) invalid.insert(k);
    }
    if (!missing.empty())
        return BuiltinResult::type_error("operand 1 missing required request parameters(s): " + name_set(missing));
    if (!invalid.empty())
        return BuiltinResult::type_error("operand 1 invalid values for required request parameters(s): " +
                                         name_set(invalid));
    for (const char* k : {"aws_access_key", "aws_secret_access_key", "aws_service", "aws_region"}) {
        const Value* v = config.find(Value::string(k));
        if (!v) missing.insert(k);
        else if (!v->is_string()) invalid.insert(k);
    }
    if (!missing.empty())
        return BuiltinResult::type_error("operand 2 missing required AWS config parameters(s): " + name_set(missing));
    if (!invalid.empty())
        return BuiltinResult::type_error("operand 2 invalid values for required AWS config parameters(s): " +
                                         name_set(invalid));
    auto config_string = [&](const char* k) {
        const Value* v = config.find(Value::string(k));
        return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    bool unsigned_payload = false;
    if (const Value* d = config.find(Value::string("disable_payload_signing"))) {
        if (!d->is_bool())
            return BuiltinResult::type_error("operand 2 invalid value for 'disable_payload_signing' in AWS config");
        unsigned_payload = d->as_bool();
    }
    int64_t time_ns = 0;
    if (!a[2].as_int64(time_ns) || time_ns < 0)
        return BuiltinResult::type_error("operand 3 could not convert time_ns value into a unix timestamp");

    const std::string method(req.find(Value::string("method"))->as_string());
    std::string url_error;
    auto url = go_url::parse(req.find(Value::string("url"))->as_string(), url_error);
    if (!url) return BuiltinResult::error(url_error);

    std::string body;
    if (const Value* raw = req.find(Value::string("raw_body")); raw && raw->is_string()) body = raw->as_string();
    else if (const Value* b = req.find(Value::string("body"))) {
        auto text = json_text(*b, ctx);
        if (!text) return BuiltinResult::cancelled();
        body = std::move(*text);
    }

    const std::string service = config_string("aws_service");
    const std::string region = config_string("aws_region");
    const std::string session_token = config_string("aws_session_token");
    const std::string content_sha = unsigned_payload ? "UNSIGNED-PAYLOAD" : sha256_hex(body);

    const int64_t seconds = time_ns / 1000000000;
    const auto day = civil::civil_from_days(civil::floor_div(seconds, 86400));
    const int64_t of_day = civil::floor_mod(seconds, 86400);
    const std::string date = fmt::format("{:04}{:02}{:02}", day.year, day.month, day.day);
    const std::string stamp = fmt::format("{}T{:02}{:02}{:02}Z", date, of_day / 3600, of_day / 60 % 60, of_day % 60);

    std::map<std::string, std::string> aws_headers{{"host", url->host}, {"x-amz-date", stamp}};
    if (service == "s3" || service == "glacier") aws_headers["x-amz-content-sha256"] = content_sha;
    if (!session_token.empty()) aws_headers["x-amz-security-token"] = session_token;

    std::map<std::string, std::string> signed_headers = aws_headers;  // sorted: canonical order
    const Value* req_headers = req.find(Value::string("headers"));
    if (req_headers && req_headers->is_object())
        for (const auto& e : req_headers->object_entries()) {
            if (!e.key.is_string()) continue;
            std::string name(e.key.as_string());
            for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            if (name == "authorization" || name == "user-agent" || name == "x-amzn-trace-id") continue;
            auto text = header_text(e.value, ctx);
            if (!text) return BuiltinResult::cancelled();
            signed_headers[name] = std::move(*text);
        }

    std::string canonical = method + "\n" + escaped_path(*url) + "\n" + url->raw_query + "\n";
    std::string header_list;
    for (const auto& [k, v] : signed_headers) {
        canonical += k + ":" + v + "\n";
        header_list += (header_list.empty() ? "" : ";") + k;
    }
    canonical += "\n" + header_list + "\n" + content_sha;

    const std::string scope = date + "/" + region + "/" + service + "/aws4_request";
    const std::string to_sign = "AWS4-HMAC-SHA256\n" + stamp + "\n" + scope + "\n" + sha256_hex(canonical);
    std::string key = hmac256("AWS4" + config_string("aws_secret_access_key"), date);
    key = hmac256(key, region);
    key = hmac256(key, service);
    key = hmac256(key, "aws4_request");
    const std::string signature = crypto::hex(hmac256(key, to_sign));
    const std::string authorization = "AWS4-HMAC-SHA256 Credential=" + config_string("aws_access_key") + "/" + scope +
                                      ",SignedHeaders=" + header_list + ",Signature=" + signature;

    runtime::ObjectBuilder headers;
    if (req_headers && req_headers->is_object())
        for (const auto& e : req_headers->object_entries()) headers.insert(e.key, e.value);
    for (const auto& [k, v] : aws_headers) headers.insert(Value::string(k), Value::string(v));
    headers.insert(Value::string("Authorization"), Value::string(authorization));

    runtime::ObjectBuilder out;
    for (const auto& e : req.object_entries())
        if (!(e.key.is_string() && e.key.as_string() == "headers")) out.insert(e.key, e.value);
    out.insert(Value::string("headers"), headers.build());
    return BuiltinResult::of(out.build());
}

}  // namespace

void register_providers(Registry& r) { declare(r, "providers.aws.sign_req", 3, sign_req); }

}  // namespace gavel::stdlib
