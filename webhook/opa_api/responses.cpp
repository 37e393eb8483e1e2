#include "webhook/opa_api/responses.hpp"

#include "webhook/opa_api/go_json_writer.hpp"

namespace gavel::webhook::opa_api {

namespace {

HttpResponse with_body(int status, std::string body) {
    HttpResponse r;
    r.status = status;
    r.content_type = "application/json";
    r.body = std::move(body);
    return r;
}

void append_error_head(std::string& out, std::string_view code, std::string_view message) {
    out += "{\"code\":";
    append_go_string(out, code);
    out += ",\"message\":";
    append_go_string(out, message);
}

}  // namespace

void append_ast_error(std::string& out, const lang::Diagnostic& d) {
    append_error_head(out, d.code, d.summary());
    if (!d.file.empty() || d.line) {
        out += ",\"location\":{\"file\":";
        append_go_string(out, d.file);
        out += ",\"row\":" + std::to_string(d.line) + ",\"col\":" + std::to_string(d.col) + "}";
    }
    if (d.details) {
        out += ",\"details\":";
        append_go_tree(out, *d.details);
    }
    out += '}';
}

HttpResponse error_response(int status, std::string_view code, std::string_view message) {
    std::string body;
    append_error_head(body, code, message);
    body += '}';
    return with_body(status, go_encoded(body, true));
}

HttpResponse error_response(int status, std::string_view code, std::string_view message, const lang::Diagnostics& errors) {
    if (errors.empty()) return error_response(status, code, message);
    std::string body;
    append_error_head(body, code, message);
    body += ",\"errors\":[";
    bool first = true;
    for (const auto& d : errors) {
        if (!first) body += ',';
        first = false;
        append_ast_error(body, d);
    }
    body += "]}";
    return with_body(status, go_encoded(body, true));
}

HttpResponse evaluation_error(const EvalError& error) {
    std::string body;
    append_error_head(body, "internal_error", "error(s) occurred while evaluating query");
    body += ",\"errors\":[";
    append_error_head(body, error.code, error.message);
    if (!error.file.empty() || error.line) {
        body += ",\"location\":{\"file\":";
        append_go_string(body, error.file);
        body += ",\"row\":" + std::to_string(error.line) + ",\"col\":" + std::to_string(error.col) + "}";
    }
    body += "}]}";
    return with_body(500, go_encoded(body, true));
}

HttpResponse json_ok(std::string_view compact, bool pretty) { return with_body(200, go_encoded(compact, pretty)); }

HttpResponse json_status(int status, std::string_view compact, bool pretty) { return with_body(status, go_encoded(compact, pretty)); }

HttpResponse go_not_found() {
    HttpResponse r;
    r.status = 404;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "404 page not found\n";
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    return r;
}

HttpResponse go_method_not_allowed(std::string_view allow) {
    HttpResponse r;
    r.status = 405;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "Method Not Allowed\n";
    r.headers.emplace_back("Allow", std::string(allow));
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    return r;
}

HttpResponse bare_status(int status) {
    HttpResponse r;
    r.status = status;
    r.content_type.clear();
    return r;
}

HttpResponse go_redirect(std::string_view location, std::string_view method) {
    HttpResponse r;
    r.status = 301;
    r.content_type.clear();
    r.headers.emplace_back("Location", std::string(location));
    if (method == "GET" || method == "HEAD") {
        r.content_type = "text/html; charset=utf-8";
        // Go escapes the link with html.EscapeString.
        std::string escaped;
        for (char c : location) {
            switch (c) {
            case '<': escaped += "&lt;"; break;
            case '>': escaped += "&gt;"; break;
            case '&': escaped += "&amp;"; break;
            case '\'': escaped += "&#39;"; break;
            case '"': escaped += "&#34;"; break;
            default: escaped += c;
            }
        }
        if (method == "GET") r.body = "<a href=\"" + escaped + "\">Moved Permanently</a>.\n\n";
    }
    return r;
}

}  // namespace gavel::webhook::opa_api
