// /v1/policies: list, get (with the compiled module's AST), put, delete, as
// OPA's server.go answers them.

#include <chrono>

#include "lang/go_quote.hpp"
#include "lang/parse.hpp"
#include "webhook/opa_api/bundle_scope.hpp"
#include "webhook/opa_api/endpoints.hpp"
#include "webhook/opa_api/eval_call.hpp"
#include "runtime/go_json_writer.hpp"
#include "webhook/opa_api/responses.hpp"
#include "webhook/opa_api/store_path.hpp"

namespace gavel::webhook::opa_api {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kCompileError = "error(s) occurred while compiling module(s)";

// {"id","raw","ast"}: the AST of the compiled module (null when there is none).
void append_policy(std::string& out, PolicyStore& store, const std::string& id, const std::string& raw) {
    out += "{\"id\":";
    runtime::append_go_string(out, id);
    out += ",\"raw\":";
    runtime::append_go_string(out, raw);
    out += ",\"ast\":";
    auto ast = store.module_ast_json(id);
    out += ast ? *ast : "null";
    out += '}';
}

// OPA's checkPolicyPackageScope: a package below an active bundle's root is the bundle's.
std::optional<std::string> package_scope_error(const Call& c, const lang::Module& module) {
    auto snap = c.store.current();
    if (snap->bundle_roots.empty() || !module.package.path) return std::nullopt;
    StorePath path;
    // The parser keeps the path as written (`package a.b`: a, b), or rooted at data.
    const lang::Term& ref = *module.package.path;
    if (ref.kind == lang::TermKind::Var) path.push_back(ref.text);
    for (std::size_t i = 0; i < ref.elems.size(); ++i)
        if (!(i == 0 && ref.elems[i]->kind == lang::TermKind::Var && ref.elems[i]->text == "data"))
            path.push_back(ref.elems[i]->text);
    return bundle_owner_error(*snap, path, store_path_text(path).substr(1));
}

lang::ParseOptions parse_options(const Call& c) {
    lang::ParseOptions po;
    po.v0_compatible = c.settings.v0_compatible;
    return po;
}

// The id is the rest of the path, unescaped as Go's r.PathValue gives it.
std::string policy_id(const Call& c) {
    std::string id;
    if (!percent_decode(c.path_value, id, false)) id = c.path_value;
    return id;
}

}  // namespace

bool has_statement(std::string_view text) {
    bool in_comment = false;
    for (char ch : text) {
        if (ch == '\n') {
            in_comment = false;
            continue;
        }
        if (in_comment) continue;
        if (ch == ' ' || ch == '\t' || ch == '\r') continue;
        if (ch == '#') {
            in_comment = true;
            continue;
        }
        return true;
    }
    return false;
}

HttpResponse v1_policies_list(Call& c) {
    auto snap = c.store.current();
    std::string out = "{\"result\":[";
    bool first = true;
    for (const auto& [id, raw] : snap->policies) {
        if (!first) out += ',';
        first = false;
        append_policy(out, c.store, id, raw);
    }
    out += "]}";
    return json_ok(out, c.pretty());
}

HttpResponse v1_policies_get(Call& c) {
    std::string id = policy_id(c);
    auto snap = c.store.current();
    auto it = snap->policies.find(id);
    if (it == snap->policies.end())
        return error_response(404, "resource_not_found", "storage_not_found_error: policy id " + lang::go_quote(id));
    std::string out = "{\"result\":";
    append_policy(out, c.store, id, it->second);
    out += '}';
    return json_ok(out, c.pretty());
}

HttpResponse v1_policies_put(Call& c) {
    std::string id = policy_id(c);
    ResponseMetrics metrics;
    auto read_start = Clock::now();
    const std::string& text = c.req.body;
    metrics.timer("timer_server_read_bytes_ns", Clock::now() - read_start);
    auto snap = c.store.current();
    // The policy now under this id may belong to a bundle.
    if (auto it = snap->policies.find(id); it != snap->policies.end()) {
        auto existing = lang::parse_module(id, it->second, parse_options(c));
        if (existing.module)
            if (auto scope = package_scope_error(c, *existing.module))
                return error_response(400, "invalid_parameter", *scope);
        if (it->second == text) {
            std::string out = c.query.flag("metrics") ? "{\"metrics\":" + metrics.json() + "}" : "{}";
            return json_ok(out, c.pretty());
        }
    }
    auto parse_start = Clock::now();
    // OPA's parser returns no module and no error: the server reports it as a parse error.
    if (!has_statement(text))
        return error_response(400, "invalid_parameter", id + ":0: rego_parse_error: empty module");
    auto parsed = lang::parse_module(id, text, parse_options(c));
    metrics.timer("timer_rego_module_parse_ns", Clock::now() - parse_start);
    if (!parsed.module) {
        lang::Diagnostics errors = parsed.diagnostics;
        add_parse_details(errors, text);
        return error_response(400, "invalid_parameter", kCompileError, errors);
    }
    if (auto scope = package_scope_error(c, *parsed.module)) return error_response(400, "invalid_parameter", *scope);
    auto compile_start = Clock::now();
    WriteResult r = c.store.put_policy(id, text);
    metrics.timer("timer_rego_module_compile_ns", Clock::now() - compile_start);
    if (!r.ok()) return error_response(400, "invalid_parameter", kCompileError, r.errors);
    std::string out = c.query.flag("metrics") ? "{\"metrics\":" + metrics.json() + "}" : "{}";
    return json_ok(out, c.pretty());
}

HttpResponse v1_policies_delete(Call& c) {
    std::string id = policy_id(c);
    ResponseMetrics metrics;
    auto snap = c.store.current();
    auto it = snap->policies.find(id);
    if (it == snap->policies.end())
        return error_response(404, "resource_not_found", "storage_not_found_error: policy id " + lang::go_quote(id));
    auto existing = lang::parse_module(id, it->second, parse_options(c));
    if (existing.module)
        if (auto scope = package_scope_error(c, *existing.module))
            return error_response(400, "invalid_parameter", *scope);
    auto compile_start = Clock::now();
    WriteResult r = c.store.delete_policy(id);
    metrics.timer("timer_rego_module_compile_ns", Clock::now() - compile_start);
    if (!r.ok()) {
        if (r.status == 404) return error_response(404, r.code, r.message);
        return error_response(400, "invalid_operation", kCompileError, r.errors);
    }
    std::string out = c.query.flag("metrics") ? "{\"metrics\":" + metrics.json() + "}" : "{}";
    return json_ok(out, c.pretty());
}

}  // namespace gavel::webhook::opa_api
