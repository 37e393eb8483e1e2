// /health (with bundles, plugins, exclude-plugin) and /health/<path> through
// the system.health policies, as OPA's server.go answers them.

#include <algorithm>

#include "webhook/opa_api/endpoints.hpp"
#include "webhook/opa_api/eval_call.hpp"
#include "runtime/go_json_writer.hpp"
#include "webhook/opa_api/responses.hpp"

namespace gavel::webhook::opa_api {

namespace {

using runtime::Value;

// HealthResponseV1: {} or {"error": ...}, compact, 200 or 500.
HttpResponse health_answer(const std::string& error) {
    if (error.empty()) return json_status(200, "{}", false);
    std::string body = "{\"error\":";
    runtime::append_go_string(body, error);
    body += '}';
    return json_status(500, body, false);
}

std::map<std::string, std::string> plugin_states(const Call& c) {
    std::map<std::string, std::string> states;
    if (c.hooks.plugin_states) states = c.hooks.plugin_states();
    // OPA's runtime always has its discovery plugin, OK unless configured.
    states.emplace("discovery", "OK");
    return states;
}

}  // namespace

HttpResponse health(Call& c, std::atomic<bool>& all_plugins_ok_once) {
    (void)all_plugins_ok_once;
    bool bundles = c.query.flag("bundle") || c.query.flag("bundles");
    bool plugins = c.query.flag("plugins");
    auto excluded = c.query.values("exclude-plugin");
    if (excluded.size() == 1 && excluded[0].empty()) excluded.clear();
    auto states = plugin_states(c);
    if (bundles) {
        auto it = states.find("bundle");
        bool ready = it == states.end() || it->second == "OK";
        if (c.hooks.ready && !c.hooks.ready()) ready = false;
        if (!ready) return health_answer("one or more bundles are not activated");
    }
    if (plugins) {
        for (const auto& [name, state] : states) {
            if (std::find(excluded.begin(), excluded.end(), name) != excluded.end()) continue;
            if (state != "OK") return health_answer("one or more plugins are not up");
        }
    }
    return health_answer("");
}

HttpResponse health_policy(Call& c, std::atomic<bool>& all_plugins_ok_once) {
    auto states = plugin_states(c);
    bool all_ok = true;
    for (const auto& [name, state] : states)
        if (state != "OK") all_ok = false;
    if (all_ok) all_plugins_ok_once = true;
    runtime::ObjectBuilder state_object;
    for (const auto& [name, state] : states) state_object.insert(Value::string(name), Value::string(state));
    Value input = Value::object({{Value::string("plugin_state"), state_object.build()},
                                 {Value::string("plugins_ready"), Value::boolean(all_plugins_ok_once.load())}});
    std::string ref, error;
    if (!data_ref_text("system/health/" + c.path_value, ref, error))
        return error_response(400, "invalid_parameter", "invalid path: " + error);
    // gavel serve: without a health policy, live and ready keep their built-in meaning.
    if (c.settings.builtin_health_paths && !c.store.current()->rule_paths.count(ref)) {
        if (c.path_value == "live") return health_answer("");
        if (c.path_value == "ready") {
            if (!c.hooks.ready || c.hooks.ready()) return health_answer("");
            return json_status(503, "{\"error\":\"not ready\"}", false);
        }
    }
    ResponseMetrics metrics;
    EvalCall e;
    e.query_text = ref;
    e.input = &input;
    EvalOutcome out = evaluate(c, e, metrics);
    if (!out.prepared) return health_answer(out.compile_errors.opa_text());
    if (out.result.error) return health_answer(out.result.error->to_string());
    if (out.result.rows.empty() || out.result.rows[0].expressions.empty())
        return health_answer("health check (" + ref + ") was undefined");
    const Value& v = out.result.rows[0].expressions[0].value;
    if (v.is_bool() && v.as_bool()) return health_answer("");
    return health_answer("health check (" + ref + ") returned unexpected value");
}

}  // namespace gavel::webhook::opa_api
