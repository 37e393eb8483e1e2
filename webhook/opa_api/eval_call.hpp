#pragma once
// One evaluation for the REST API: the query prepared in the store's newest
// world, the request's limits and cancellation, print() lines and the
// decision log, and the timers OPA reports under ?metrics.

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "engine/engine.hpp"
#include "runtime/value.hpp"
#include "webhook/opa_api/endpoints.hpp"

namespace gavel::webhook::opa_api {

// OPA's metrics object: names sorted (a Go map), values as numbers.
class ResponseMetrics {
public:
    void set(const std::string& name, std::int64_t value) { values_[name] = value; }
    void timer(const std::string& name, std::chrono::steady_clock::duration d) {
        values_[name] = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    }
    // Timers of an evaluation or a compile under their OPA names.
    void add(const gavel::Metrics& m);
    bool has(const std::string& name) const { return values_.count(name) > 0; }
    void erase(const std::string& name) { values_.erase(name); }
    // {"name":value,...}
    std::string json() const;

private:
    std::map<std::string, std::int64_t> values_;
};

struct EvalCall {
    std::string query_text;  // a Rego query
    std::string cache_key;   // OPA's prepared-query cache key ("" : never cached)
    const runtime::Value* input = nullptr;
    bool strict_builtin_errors = false;
    bool cache_query = true;    // keep the prepared query in the store's cache
    std::string decision_path;  // decision log: "a/b" (data queries) ...
    std::string adhoc_query;    // ... or the query (ad-hoc queries)
    bool adhoc = false;         // an ad-hoc query: http.send is unsafe in it (OPA's server)
};

struct EvalOutcome {
    bool prepared = false;  // false: `compile_errors` say why
    lang::Diagnostics compile_errors;
    EvalResult result;
    bool cache_hit = false;
    std::string decision_id;  // set when decision logs are on
};

EvalOutcome evaluate(Call& c, const EvalCall& e, ResponseMetrics& metrics);

}  // namespace gavel::webhook::opa_api
