#include "webhook/opa_api/eval_call.hpp"

#include "support/random_uuid.hpp"
#include "webhook/eval_limits.hpp"

namespace gavel::webhook::opa_api {

void ResponseMetrics::add(const gavel::Metrics& m) {
    for (const auto& [name, value] : m) values_[std::string(name)] = static_cast<std::int64_t>(value);
}

std::string ResponseMetrics::json() const {
    std::string out = "{";
    bool first = true;
    for (const auto& [name, value] : values_) {
        if (!first) out += ',';
        first = false;
        out += '"' + name + "\":" + std::to_string(value);
    }
    out += '}';
    return out;
}

EvalOutcome evaluate(Call& c, const EvalCall& e, ResponseMetrics& metrics) {
    EvalOutcome out;
    if (c.settings.decision_ids) out.decision_id = support::random_uuid();
    out.cache_hit = !e.cache_key.empty() && c.cache_hit && c.cache_hit(e.cache_key);
    Engine::QueryOptions qo;
    if (e.adhoc) qo.unsafe_builtins = {"http.send"};
    auto q = c.store.query(e.query_text, e.cache_query && !e.adhoc, qo);
    if (!q.query) {
        out.compile_errors = std::move(q.errors);
        return out;
    }
    out.prepared = true;
    EvalLimits limits;
    limits.timeout = c.timeout;
    limits.cancel = c.cancel;
    limits.max_memory = c.settings.eval_memory_limit;
    std::string decision_id = out.decision_id;
    if (c.hooks.print) limits.print = [&c, &decision_id](std::string_view line) { c.hooks.print(line, decision_id); };
    EvalOptions eo = limits.eval_options(e.input);
    eo.strict_builtin_errors = e.strict_builtin_errors;
    out.result = q.query->eval(eo);
    metrics.add(out.result.metrics);
    if (c.hooks.decision_logger && (!e.decision_path.empty() || !e.adhoc_query.empty())) {
        plugins::DecisionEvent event;
        event.decision_id = out.decision_id;
        event.path = e.decision_path;
        event.query = e.adhoc_query;
        if (e.input) event.input = *e.input;
        if (!out.result.error && !out.result.rows.empty() && !out.result.rows[0].expressions.empty())
            event.result = out.result.rows[0].expressions[0].value;
        if (out.result.error) event.error = out.result.error->to_string();
        event.requested_by = c.req.remote_addr;
        event.metrics = out.result.metrics;
        event.bundles = q.snapshot->bundle_revisions;
        c.hooks.decision_logger->log(std::move(event));
    }
    return out;
}

}  // namespace gavel::webhook::opa_api
