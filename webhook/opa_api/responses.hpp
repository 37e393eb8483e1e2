#pragma once
// OPA's response shapes: ErrorV1 bodies (json.MarshalIndent plus a newline),
// JSON results as json.Encoder writes them, and the bare answers Go's
// net/http gives (404 page, 405 with Allow, 301 redirect page, 204).

#include <string>
#include <string_view>

#include "lang/diagnostics.hpp"
#include "runtime/eval/eval_error.hpp"
#include "webhook/http_message.hpp"

namespace gavel::webhook::opa_api {

// {"code": ..., "message": ...} (and "errors": the compile errors as ast.Error objects).
HttpResponse error_response(int status, std::string_view code, std::string_view message);
HttpResponse error_response(int status, std::string_view code, std::string_view message,
                            const lang::Diagnostics& errors);
// An evaluation error as OPA's ErrorAuto answers a topdown error: 500, internal_error,
// "error(s) occurred while evaluating query" and the error in "errors".
HttpResponse evaluation_error(const EvalError& error);

// 200 with a compact JSON document, indented when `pretty`, and json.Encoder's newline.
HttpResponse json_ok(std::string_view compact, bool pretty);
HttpResponse json_status(int status, std::string_view compact, bool pretty);

// Go's http.NotFound: "404 page not found\n", text/plain.
HttpResponse go_not_found();
// Go's ServeMux answer for a path served with other methods: 405, Allow, "Method Not Allowed\n".
HttpResponse go_method_not_allowed(std::string_view allow);
// A status and nothing else (OPA's methodNotAllowedHandler, 204, 304).
HttpResponse bare_status(int status);
// http.Redirect(..., 301): Location, and for GET and HEAD Go's small HTML page.
HttpResponse go_redirect(std::string_view location, std::string_view method);

// One ast.Error as JSON (compact): code, message, location, details.
void append_ast_error(std::string& out, const lang::Diagnostic& d);

}  // namespace gavel::webhook::opa_api

namespace gavel::webhook::opa_api {

// OPA's ParserErrorDetail for the parse errors of `text`: {"line": the source line,
// "idx": the error's byte in it}, found from the error's position as OPA's parser
// does (stepping back over white space, so an error at the end points at the last token).
void add_parse_details(lang::Diagnostics& errors, std::string_view text);

}  // namespace gavel::webhook::opa_api
