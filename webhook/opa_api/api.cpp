// OPA's routers (server.go's initRouters) with Go's ServeMux rules, and the
// dispatch to the handlers.

#include "webhook/opa_api/api.hpp"

#include <algorithm>

#include "webhook/opa_api/endpoints.hpp"
#include "webhook/opa_api/responses.hpp"

namespace gavel::webhook::opa_api {

namespace {

enum class Handler {
    None,         // no pattern matches the path: Go's 404
    WrongMethod,  // patterns match the path, not the method: Go's 405 with Allow
    CatchAll,     // OPA's methodNotAllowedHandler: a bare 405
    V1DataGet,
    V1DataPost,
    V1DataPut,
    V1DataPatch,
    V1DataDelete,
    V0DataPost,
    DefaultDecision,
    Index,
    PoliciesList,
    PoliciesGet,
    PoliciesPut,
    PoliciesDelete,
    QueryGet,
    QueryPost,
    Compile,
    CompileFilters,
    Config,
    Status,
    Health,
    HealthPolicy,
    Metrics,
    MetricsAlloc,
};

struct Match {
    Handler handler = Handler::None;
    std::string allow;        // WrongMethod
    std::string path_value;   // {path...}, escaped
    bool opa_wrapped = true;  // OPA's DefaultHandler (HEAD -> 405, trailing slash -> 301) applies
    std::string label;        // metrics handler label
};

// A pattern "METHOD /a/b" or "METHOD /a/b/{path...}" ("" method: any).
struct Pattern {
    std::string_view method;
    std::string_view path;
    bool rest;  // ends in {path...}
    Handler handler;
    std::string_view label;
};

constexpr Pattern kMainPatterns[] = {
    {"POST", "/v0/data", true, Handler::V0DataPost, "v0/data"},
    {"POST", "/v0/data", false, Handler::V0DataPost, "v0/data"},
    {"DELETE", "/v1/data", true, Handler::V1DataDelete, "v1/data"},
    {"PUT", "/v1/data", true, Handler::V1DataPut, "v1/data"},
    {"PUT", "/v1/data", false, Handler::V1DataPut, "v1/data"},
    {"GET", "/v1/data", true, Handler::V1DataGet, "v1/data"},
    {"GET", "/v1/data", false, Handler::V1DataGet, "v1/data"},
    {"PATCH", "/v1/data", true, Handler::V1DataPatch, "v1/data"},
    {"PATCH", "/v1/data", false, Handler::V1DataPatch, "v1/data"},
    {"POST", "/v1/data", true, Handler::V1DataPost, "v1/data"},
    {"POST", "/v1/data", false, Handler::V1DataPost, "v1/data"},
    {"GET", "/v1/policies", false, Handler::PoliciesList, "v1/policies"},
    {"DELETE", "/v1/policies", true, Handler::PoliciesDelete, "v1/policies"},
    {"GET", "/v1/policies", true, Handler::PoliciesGet, "v1/policies"},
    {"PUT", "/v1/policies", true, Handler::PoliciesPut, "v1/policies"},
    {"GET", "/v1/query", false, Handler::QueryGet, "v1/query"},
    {"POST", "/v1/query", false, Handler::QueryPost, "v1/query"},
    {"POST", "/v1/compile", false, Handler::Compile, "v1/compile"},
    {"POST", "/v1/compile", true, Handler::CompileFilters, "v1/compile"},
    {"GET", "/v1/compile", true, Handler::CompileFilters, "v1/compile"},
    {"GET", "/v1/config", false, Handler::Config, "v1/config"},
    {"GET", "/v1/status", false, Handler::Status, "v1/status"},
    {"POST", "/", false, Handler::DefaultDecision, "index"},
    {"GET", "/", false, Handler::Index, "index"},
    {"", "/v0/data", true, Handler::CatchAll, "catchall"},
    {"", "/v0/data", false, Handler::CatchAll, "catchall"},
    {"", "/v1/data", true, Handler::CatchAll, "catchall"},
    {"", "/v1/data", false, Handler::CatchAll, "catchall"},
    {"", "/v1/policies", false, Handler::CatchAll, "catchall"},
    {"", "/v1/policies", true, Handler::CatchAll, "catchall"},
    {"", "/v1/query", true, Handler::CatchAll, "catchall"},
    {"", "/v1/query", false, Handler::CatchAll, "catchall"},
};

// Both routers: health and metrics.
constexpr Pattern kCommonPatterns[] = {
    {"GET", "/metrics/alloc_bytes", false, Handler::MetricsAlloc, ""},
    {"GET", "/metrics", false, Handler::Metrics, ""},
    {"GET", "/health", false, Handler::Health, "health"},
    {"GET", "/health", true, Handler::HealthPolicy, "health"},
};

// Whether `path` matches the pattern; `rest` gets the escaped {path...} part.
bool matches(const Pattern& p, std::string_view path, std::string& rest) {
    if (!p.rest) return path == p.path;
    if (p.path == "/") return false;
    if (path.size() < p.path.size() + 1 || path.substr(0, p.path.size()) != p.path || path[p.path.size()] != '/')
        return false;
    rest = std::string(path.substr(p.path.size() + 1));
    return true;
}

// Go's ServeMux: the most specific pattern for path and method; a method-specific
// pattern beats a method-less one; GET also serves HEAD.
Match route(Router router, std::string_view method, std::string_view path) {
    Match m;
    std::vector<std::string> allowed;
    auto consider = [&](const Pattern& p) {
        std::string rest;
        if (!matches(p, path, rest)) return false;
        bool method_ok = p.method.empty() || p.method == method || (p.method == "GET" && method == "HEAD");
        if (!method_ok) {
            allowed.emplace_back(p.method);
            if (p.method == "GET") allowed.emplace_back("HEAD");
            return false;
        }
        // Exact paths beat {path...}; a method beats none: keep the first that is more specific.
        bool better = m.handler == Handler::None || m.handler == Handler::WrongMethod ||
                      (m.handler == Handler::CatchAll && !p.method.empty());
        if (better) {
            m.handler = p.handler;
            m.path_value = rest;
            m.label = std::string(p.label);
            m.opa_wrapped = p.handler != Handler::Metrics && p.handler != Handler::MetricsAlloc;
        }
        return true;
    };
    for (const auto& p : kCommonPatterns) consider(p);
    if (router == Router::Main)
        for (const auto& p : kMainPatterns) consider(p);
    if (m.handler == Handler::None && !allowed.empty()) {
        std::sort(allowed.begin(), allowed.end());
        allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
        m.handler = Handler::WrongMethod;
        for (const auto& a : allowed) m.allow += (m.allow.empty() ? "" : ", ") + a;
    }
    return m;
}

// Go's cleanPath: "", ".", "..", "//" resolved; a trailing slash kept.
std::string clean_path(std::string_view p) {
    std::vector<std::string_view> out;
    std::string_view rest = p;
    while (!rest.empty()) {
        auto slash = rest.find('/');
        std::string_view seg = rest.substr(0, slash);
        rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
        if (seg.empty() || seg == ".") continue;
        if (seg == "..") {
            if (!out.empty()) out.pop_back();
            continue;
        }
        out.push_back(seg);
    }
    std::string cleaned = "/";
    for (std::size_t i = 0; i < out.size(); ++i) cleaned += std::string(out[i]) + (i + 1 < out.size() ? "/" : "");
    bool trailing = p.size() > 1 && (p.back() == '/' || p.ends_with("/.") || p.ends_with("/.."));
    if (trailing && cleaned != "/") cleaned += '/';
    return cleaned;
}

// OPA's TrailingSlashRedirectHandler: to the decoded path (r.URL.Path) without its
// trailing slash; the query is dropped.
HttpResponse trailing_slash_redirect(const HttpRequest& req) {
    std::string_view raw = req.path();
    std::string path;
    if (!percent_decode(raw, path, false)) path = std::string(raw);
    path.pop_back();
    return go_redirect(path, req.method);
}

bool is_read(Handler h) {
    switch (h) {
        case Handler::V1DataGet:
        case Handler::V1DataPost:
        case Handler::V0DataPost:
        case Handler::DefaultDecision:
        case Handler::PoliciesList:
        case Handler::PoliciesGet:
        case Handler::QueryGet:
        case Handler::QueryPost:
        case Handler::Compile:
        case Handler::CompileFilters:
        case Handler::HealthPolicy: return true;
        default: return false;
    }
}

bool is_write(Handler h) {
    return h == Handler::V1DataPut || h == Handler::V1DataPatch || h == Handler::V1DataDelete ||
           h == Handler::PoliciesPut || h == Handler::PoliciesDelete;
}

}  // namespace

OpaApi::OpaApi(ApiSettings settings, ApiHooks hooks, std::shared_ptr<PolicyStore> store)
    : settings_(std::move(settings)), hooks_(std::move(hooks)), store_(std::move(store)) {}

OpaApi::Work OpaApi::classify(Router router, const HttpRequest& req) const {
    std::string_view path = req.path();
    if (clean_path(path) != path) return Work::Immediate;
    Match m = route(router, req.method, path);
    if (is_write(m.handler)) return Work::Write;
    if (is_read(m.handler) || settings_.authorization) return Work::Read;
    return Work::Immediate;
}

std::string OpaApi::handler_label(Router router, const HttpRequest& req) const {
    std::string_view path = req.path();
    if (clean_path(path) != path) return "";
    return route(router, req.method, path).label;
}

bool OpaApi::cache_lookup(const std::string& key, std::uint64_t generation) {
    std::lock_guard lock(cache_mutex_);
    if (generation != cache_generation_) {
        cache_generation_ = generation;
        cache_keys_.clear();
        cache_order_.clear();
        cache_next_ = 0;
    }
    if (cache_keys_.count(key)) return true;
    // OPA's cache: 100 entries, the oldest replaced first.
    constexpr std::size_t kSize = 100;
    cache_keys_.insert(key);
    if (cache_order_.size() < kSize) {
        cache_order_.push_back(key);
    } else {
        cache_keys_.erase(cache_order_[cache_next_]);
        cache_order_[cache_next_] = key;
        cache_next_ = (cache_next_ + 1) % kSize;
    }
    return false;
}

HttpResponse OpaApi::handle(Router router, HttpRequest& req, const std::atomic<bool>* cancel,
                            std::chrono::nanoseconds timeout, std::vector<std::string>* instrumented) {
    std::vector<std::string> ignored;
    if (!instrumented) instrumented = &ignored;
    instrumented->clear();
    std::string_view path = req.path();
    // Go's ServeMux redirects a path that is not clean, keeping the query.
    if (std::string cleaned = clean_path(path); cleaned != path) {
        if (settings_.authorization) instrumented->emplace_back("authz");  // the mux redirects inside the authorizer
        std::string location = cleaned;
        if (!req.query().empty()) location += '?' + std::string(req.query());
        return go_redirect(location, req.method);
    }
    // OPA's decoding limits wrap the main router, before anything else reads the request.
    if (router == Router::Main && req.body.size() > settings_.max_request_bytes)
        return error_response(400, "invalid_parameter", "request body too large");
    Call c{settings_,
           hooks_,
           *store_,
           req,
           UrlQuery(req.query()),
           cancel,
           {},
           std::nullopt,
           false,
           {},
           timeout.count() > 0 ? timeout : settings_.eval_timeout};
    std::uint64_t generation = store_->current()->generation;
    c.cache_hit = [this, generation](const std::string& key) { return cache_lookup(key, generation); };
    // The authorizer wraps the whole router: it decides before any route is known. OPA
    // instruments it as a handler of its own, so its HEAD refusal and trailing-slash
    // redirect come first, whatever the path.
    if (settings_.authorization) {
        instrumented->emplace_back("authz");
        if (req.method == "HEAD") return bare_status(405);
        if (path != "/" && path.back() == '/') return trailing_slash_redirect(req);
        if (auto refusal = authorize(c)) return *refusal;
    }
    Match m = route(router, req.method, path);
    c.path_value = m.path_value;
    if (m.handler == Handler::None) return go_not_found();
    if (m.handler == Handler::WrongMethod) return go_method_not_allowed(m.allow);
    if (!m.label.empty()) instrumented->push_back(m.label);
    if (m.opa_wrapped) {
        if (req.method == "HEAD") return bare_status(405);
        if (path != "/" && path.back() == '/') return trailing_slash_redirect(req);
    }
    switch (m.handler) {
        case Handler::CatchAll: return bare_status(405);
        case Handler::V1DataGet: return v1_data_get(c);
        case Handler::V1DataPost: return v1_data_post(c);
        case Handler::V1DataPut: return v1_data_put(c);
        case Handler::V1DataPatch: return v1_data_patch(c);
        case Handler::V1DataDelete: return v1_data_delete(c);
        case Handler::V0DataPost: return v0_data_post(c, false);
        case Handler::DefaultDecision: return v0_data_post(c, true);
        case Handler::Index: return index_get(c);
        case Handler::PoliciesList: return v1_policies_list(c);
        case Handler::PoliciesGet: return v1_policies_get(c);
        case Handler::PoliciesPut: return v1_policies_put(c);
        case Handler::PoliciesDelete: return v1_policies_delete(c);
        case Handler::QueryGet: return v1_query_get(c);
        case Handler::QueryPost: return v1_query_post(c);
        case Handler::Compile: return v1_compile_post(c);
        case Handler::CompileFilters: return v1_compile_filters(c);
        case Handler::Config: return v1_config_get(c);
        case Handler::Status: return v1_status_get(c);
        case Handler::Health: return health(c, all_plugins_ok_once_);
        case Handler::HealthPolicy: return health_policy(c, all_plugins_ok_once_);
        case Handler::Metrics: return metrics_get(c);
        case Handler::MetricsAlloc: {
            HttpResponse r = json_ok("{}", false);
            return r;
        }
        case Handler::None:
        case Handler::WrongMethod: break;
    }
    return go_not_found();
}

}  // namespace gavel::webhook::opa_api
