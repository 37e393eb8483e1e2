#include "webhook/opa_api/responses.hpp"

#include "runtime/go_json_writer.hpp"
#include "support/html_escape.hpp"

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
    runtime::append_go_string(out, code);
    out += ",\"message\":";
    runtime::append_go_string(out, message);
}

}  // namespace

void append_ast_error(std::string& out, const lang::Diagnostic& d) {
    append_error_head(out, d.code, d.summary());
    if (!d.file.empty() || d.line) {
        out += ",\"location\":{\"file\":";
        runtime::append_go_string(out, d.file);
        out += ",\"row\":" + std::to_string(d.line) + ",\"col\":" + std::to_string(d.col) + "}";
    }
    if (d.details) {
        out += ",\"details\":";
        runtime::append_go_tree(out, *d.details);
    }
    out += '}';
}

HttpResponse error_response(int status, std::string_view code, std::string_view message) {
    std::string body;
    append_error_head(body, code, message);
    body += '}';
    return with_body(status, runtime::go_encoded(body, true));
}

HttpResponse error_response(int status, std::string_view code, std::string_view message,
                            const lang::Diagnostics& errors) {
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
    return with_body(status, runtime::go_encoded(body, true));
}

HttpResponse evaluation_error(const EvalError& error) {
    std::string body;
    append_error_head(body, "internal_error", "error(s) occurred while evaluating query");
    body += ",\"errors\":[";
    append_error_head(body, error.code, error.message);
    if (!error.file.empty() || error.line) {
        body += ",\"location\":{\"file\":";
        runtime::append_go_string(body, error.file);
        body += ",\"row\":" + std::to_string(error.line) + ",\"col\":" + std::to_string(error.col) + "}";
    }
    body += "}]}";
    return with_body(500, runtime::go_encoded(body, true));
}

HttpResponse json_ok(std::string_view compact, bool pretty) {
    return with_body(200, runtime::go_encoded(compact, pretty));
}

HttpResponse json_status(int status, std::string_view compact, bool pretty) {
    return with_body(status, runtime::go_encoded(compact, pretty));
}

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
        const std::string escaped = support::html_escape(location);
        if (method == "GET") r.body = "<a href=\"" + escaped + "\">Moved Permanently</a>.\n\n";
    }
    return r;
}

}  // namespace gavel::webhook::opa_api

namespace gavel::webhook::opa_api {

void add_parse_details(lang::Diagnostics& errors, std::string_view text) {
    lang::Diagnostics out;
    for (auto d : errors) {
        // OPA's parser details its token errors; its module-level checks ("package expected",
        // "`if` keyword is required ...") come without.
        std::string_view m = d.message;
        bool token_error = m.starts_with("unexpected ") || m.starts_with("illegal ") ||
                           m.find("unterminated") != std::string_view::npos ||
                           m.find("non-terminated") != std::string_view::npos;
        if (d.code == "rego_parse_error" && token_error && !d.details && d.line > 0 && !text.empty()) {
            // The error's byte offset from its line and column.
            std::size_t offset = 0;
            for (uint32_t line = 1; line < d.line && offset < text.size(); ++offset)
                if (text[offset] == '\n') ++line;
            offset += d.col > 0 ? d.col - 1 : 0;
            if (offset >= text.size()) offset = text.size() - 1;
            auto space = [](char ch) {
                return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f';
            };
            auto newline = [](char ch) { return ch == '\n' || ch == '\r'; };
            while (offset > 0 && space(text[offset])) --offset;
            std::size_t begin = offset;
            while (begin > 0 && !newline(text[begin])) --begin;
            if (newline(text[begin])) ++begin;
            std::size_t end = offset;
            while (end < text.size() && !newline(text[end])) ++end;
            if (begin > end) begin = end;
            auto details = std::make_shared<lang::JsonTree>(lang::JsonTree::object());
            details->add("line", lang::JsonTree::string(std::string(text.substr(begin, end - begin))));
            details->add("idx", lang::JsonTree::number(std::to_string(offset - begin)));
            d.details = std::move(details);
        }
        out.add(std::move(d));
    }
    errors = std::move(out);
}

}  // namespace gavel::webhook::opa_api
