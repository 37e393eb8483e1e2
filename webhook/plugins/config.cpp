#include "webhook/plugins/config.hpp"

#include <functional>
#include <set>
#include <sstream>

#include "runtime/file_read.hpp"
#include "runtime/json.hpp"
#include "runtime/yaml.hpp"
#include "webhook/prometheus_text.hpp"

namespace gavel::webhook::plugins {

using runtime::Value;

namespace {

std::string key_text(const Value& k) { return k.is_string() ? std::string(k.as_string()) : runtime::to_json(k); }

// Collects problems instead of stopping at the first.
struct Reader {
    std::vector<std::string> errors;

    void problem(std::string text) { errors.push_back(std::move(text)); }

    bool object(const Value& v, const std::string& where) {
        if (v.is_object()) return true;
        problem(where + ": must be an object");
        return false;
    }
    // Reports keys outside `known`.
    void known(const Value& v, const std::string& where, std::initializer_list<const char*> keys,
               bool top_level = false) {
        if (top_level) return;  // OPA keeps unknown top-level keys (Config.Extra)
        std::set<std::string> allowed(keys.begin(), keys.end());
        for (const auto& e : v.object_entries()) {
            std::string k = key_text(e.key);
            if (!allowed.count(k)) problem("unknown configuration key " + (where.empty() ? k : where + "." + k));
        }
    }
    std::string string(const Value& obj, const char* key, const std::string& where, std::string fallback = {}) {
        const Value* v = obj.find(key);
        if (!v || v->is_null()) return fallback;
        if (!v->is_string()) {
            problem(where + "." + key + ": must be a string");
            return fallback;
        }
        return std::string(v->as_string());
    }
    bool boolean(const Value& obj, const char* key, const std::string& where, bool fallback = false) {
        const Value* v = obj.find(key);
        if (!v || v->is_null()) return fallback;
        if (v->is_string() && (v->as_string() == "true" || v->as_string() == "false")) return v->as_string() == "true";
        if (!v->is_bool()) {
            problem(where + "." + key + ": must be a boolean");
            return fallback;
        }
        return v->as_bool();
    }
    std::int64_t integer(const Value& obj, const char* key, const std::string& where, std::int64_t fallback) {
        const Value* v = obj.find(key);
        if (!v || v->is_null()) return fallback;
        std::int64_t n = 0;
        if (!v->is_number() || !v->as_int64(n)) {
            problem(where + "." + key + ": must be an integer");
            return fallback;
        }
        return n;
    }
};

void read_service(Reader& r, const std::string& name, const Value& v, Config& out) {
    std::string where = "services." + name;
    if (!r.object(v, where)) return;
    r.known(v, where,
            {"name", "url", "headers", "credentials", "tls", "allow_insecure_tls", "response_header_timeout_seconds"});
    ServiceConfig s;
    s.name = name;
    s.url = r.string(v, "url", where);
    if (s.url.empty()) r.problem(where + ": missing url");
    while (!s.url.empty() && s.url.back() == '/') s.url.pop_back();
    if (!s.url.empty() && !s.url.starts_with("http://") && !s.url.starts_with("https://"))
        r.problem(where + ".url: must start with http:// or https://");
    s.allow_insecure_tls = r.boolean(v, "allow_insecure_tls", where);
    s.response_header_timeout = std::chrono::seconds(r.integer(v, "response_header_timeout_seconds", where, 10));
    if (const Value* h = v.find("headers"); h && r.object(*h, where + ".headers"))
        for (const auto& e : h->object_entries())
            s.headers.emplace_back(key_text(e.key),
                                   e.value.is_string() ? std::string(e.value.as_string()) : runtime::to_json(e.value));
    if (const Value* c = v.find("credentials"); c && r.object(*c, where + ".credentials")) {
        r.known(*c, where + ".credentials", {"bearer", "client_tls"});
        if (const Value* b = c->find("bearer"); b && r.object(*b, where + ".credentials.bearer")) {
            r.known(*b, where + ".credentials.bearer", {"token", "token_path", "scheme"});
            s.bearer_token = r.string(*b, "token", where + ".credentials.bearer");
            s.bearer_token_path = r.string(*b, "token_path", where + ".credentials.bearer");
            s.bearer_scheme = r.string(*b, "scheme", where + ".credentials.bearer", "Bearer");
        }
        if (const Value* t = c->find("client_tls"); t && r.object(*t, where + ".credentials.client_tls")) {
            r.known(*t, where + ".credentials.client_tls", {"cert", "private_key"});
            s.client_cert_file = r.string(*t, "cert", where + ".credentials.client_tls");
            s.client_key_file = r.string(*t, "private_key", where + ".credentials.client_tls");
        }
    }
    if (const Value* t = v.find("tls"); t && r.object(*t, where + ".tls")) {
        r.known(*t, where + ".tls", {"ca_cert", "system_ca_required"});
        s.ca_cert_file = r.string(*t, "ca_cert", where + ".tls");
        s.system_ca_required = r.boolean(*t, "system_ca_required", where + ".tls");
    }
    if (out.services.count(name)) r.problem("services: duplicate service " + name);
    out.services[name] = s;
    out.service_order.push_back(name);
}

std::pair<std::int64_t, std::int64_t> delays(Reader& r, const Value& v, const std::string& where, std::int64_t min,
                                             std::int64_t max) {
    const Value* has_min = v.find("min_delay_seconds");
    const Value* has_max = v.find("max_delay_seconds");
    if (has_min && !has_max) r.problem(where + ": missing 'max_delay_seconds'");
    if (has_max && !has_min) r.problem(where + ": missing 'min_delay_seconds'");
    min = r.integer(v, "min_delay_seconds", where, min);
    max = r.integer(v, "max_delay_seconds", where, max);
    if (max < min) r.problem(where + ": max delay must be >= min delay");
    if (min < 0) r.problem(where + ": delays must not be negative");
    return {min, max};
}

}  // namespace

std::optional<runtime::Value> read_config_file(const std::string& path, std::string& error) {
    runtime::FileRead read = runtime::read_whole_file(path);
    if (!read.ok) {
        error = read.message;
        return std::nullopt;
    }
    auto parsed = runtime::load_yaml_data(read.text);
    if (!parsed) {
        error = path + ": " + parsed.error.message;
        return std::nullopt;
    }
    if (parsed.value.is_null()) return Value::empty_object();
    if (!parsed.value.is_object()) {
        error = path + ": the configuration must be an object";
        return std::nullopt;
    }
    return parsed.value;
}

namespace {

// Sets `doc.a.b.c` (key "a.b.c") to `value`, making objects along the path.
void set_at_key(Value& doc, const std::string& key, const Value& value) {
    std::vector<std::string> path;
    for (std::size_t p = 0;;) {
        auto dot = key.find('.', p);
        path.push_back(key.substr(p, dot == std::string::npos ? std::string::npos : dot - p));
        if (dot == std::string::npos) break;
        p = dot + 1;
    }
    // Rebuild the objects along the path with the new leaf.
    std::function<Value(const Value&, std::size_t)> set = [&](const Value& node, std::size_t i) -> Value {
        if (i == path.size()) return value;
        runtime::ObjectBuilder b;
        const Value* child = nullptr;
        if (node.is_object())
            for (const auto& e : node.object_entries()) {
                if (e.key.is_string() && e.key.as_string() == path[i]) child = &e.value;
                else b.insert(e.key, e.value);
            }
        b.insert(Value::string(path[i]), set(child ? *child : Value::empty_object(), i + 1));
        return b.build();
    };
    doc = set(doc, 0);
}

// "k1=v1,k2=v2": calls `each(key, text)`; false with `error` for a part without '='.
bool for_each_assignment(const std::string& flag, const std::string& assignments, std::string& error,
                         const std::function<bool(const std::string&, const std::string&)>& each) {
    std::size_t start = 0;
    while (start <= assignments.size()) {
        auto comma = assignments.find(',', start);
        std::string one = assignments.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        start = comma == std::string::npos ? assignments.size() + 1 : comma + 1;
        if (one.empty()) continue;
        auto eq = one.find('=');
        if (eq == std::string::npos || eq == 0) return error = flag + " " + one + ": want key=value", false;
        if (!each(one.substr(0, eq), one.substr(eq + 1))) return false;
    }
    return true;
}

}  // namespace

bool apply_set(Value& doc, const std::string& assignments, std::string& error) {
    return for_each_assignment("--set", assignments, error, [&doc](const std::string& key, const std::string& text) {
        Value value;
        std::int64_t n = 0;
        if (text == "true" || text == "false") value = Value::boolean(text == "true");
        else if (text == "null") value = Value();
        else if (!text.empty() && text.find_first_not_of("-0123456789") == std::string::npos &&
                 (std::istringstream(text) >> n))
            value = Value::integer(n);
        else value = Value::string(text);
        set_at_key(doc, key, value);
        return true;
    });
}

bool apply_set_file(Value& doc, const std::string& assignments, std::string& error) {
    return for_each_assignment("--set-file", assignments, error,
                               [&doc, &error](const std::string& key, const std::string& file) {
                                   runtime::FileRead read = runtime::read_whole_file(file);
                                   if (!read.ok) return error = "--set-file " + key + ": " + read.message, false;
                                   set_at_key(doc, key, Value::string(std::move(read.text)));
                                   return true;
                               });
}

std::optional<Config> parse_config(const Value& doc, std::string& error) {
    Reader r;
    Config c;
    if (!r.object(doc, "config")) {
        error = r.errors.front();
        return std::nullopt;
    }
    // OPA's own sections: those gavel has nothing to do for are accepted (caching, tracing ...),
    // and unknown top-level keys are kept as OPA keeps them (its Extra), not refused.
    r.known(doc, "",
            {"services", "bundles", "decision_logs", "status", "labels", "keys", "persistence_directory",
             "default_decision", "default_authorization_decision", "discovery", "bundle", "plugins", "caching",
             "nd_builtin_cache", "distributed_tracing", "server", "storage"},
            /*top_level=*/true);
    if (const Value* s = doc.find("services")) {
        if (s->is_array()) {
            for (const auto& item : s->array_elements()) {
                std::string name = item.is_object() ? r.string(item, "name", "services") : "";
                if (name.empty()) r.problem("services: every service in a list needs a name");
                else read_service(r, name, item, c);
            }
        } else if (r.object(*s, "services")) {
            for (const auto& e : s->object_entries()) read_service(r, key_text(e.key), e.value, c);
        }
    }
    if (const Value* k = doc.find("keys"); k && r.object(*k, "keys")) {
        for (const auto& e : k->object_entries()) {
            std::string id = key_text(e.key), where = "keys." + id;
            if (!r.object(e.value, where)) continue;
            r.known(e.value, where, {"key", "algorithm", "scope", "private_key"});
            engine::bundle::KeyConfig kc;
            kc.key = r.string(e.value, "key", where);
            kc.algorithm = r.string(e.value, "algorithm", where, "RS256");
            kc.scope = r.string(e.value, "scope", where);
            if (kc.key.empty() && r.string(e.value, "private_key", where).empty())
                r.problem("invalid keys configuration: no keys provided for key ID " + id);
            if (!engine::bundle::is_supported_algorithm(kc.algorithm))
                r.problem("unsupported algorithm '" + kc.algorithm + "'");
            c.keys[id] = kc;
        }
    }
    if (const Value* b = doc.find("bundles"); b && r.object(*b, "bundles")) {
        for (const auto& e : b->object_entries()) {
            BundleConfig bc;
            bc.name = key_text(e.key);
            std::string where = "bundles." + bc.name;
            if (!r.object(e.value, where)) continue;
            r.known(e.value, where, {"service", "resource", "persist", "polling", "signing", "size_limit_bytes"});
            bc.service = r.string(e.value, "service", where);
            if (bc.service.empty() && c.service_order.size() == 1) bc.service = c.service_order[0];
            if (!c.services.count(bc.service)) r.problem(where + ": invalid service name \"" + bc.service + "\"");
            bc.resource = r.string(e.value, "resource", where, "bundles/" + bc.name);
            bc.persist = r.boolean(e.value, "persist", where);
            bc.size_limit_bytes = r.integer(e.value, "size_limit_bytes", where, bc.size_limit_bytes);
            if (const Value* p = e.value.find("polling"); p && r.object(*p, where + ".polling")) {
                r.known(*p, where + ".polling", {"min_delay_seconds", "max_delay_seconds"});
                std::tie(bc.min_delay_seconds, bc.max_delay_seconds) = delays(r, *p, where + ".polling", 60, 120);
            }
            if (const Value* s = e.value.find("signing"); s && r.object(*s, where + ".signing")) {
                r.known(*s, where + ".signing", {"keyid", "scope", "exclude_files"});
                bc.signed_bundle = true;
                bc.signing_keyid = r.string(*s, "keyid", where + ".signing");
                bc.signing_scope = r.string(*s, "scope", where + ".signing");
                if (const Value* x = s->find("exclude_files"); x && x->is_array())
                    for (const auto& f : x->array_elements())
                        if (f.is_string()) bc.exclude_files.emplace_back(f.as_string());
                if (!bc.signing_keyid.empty() && !c.keys.count(bc.signing_keyid))
                    r.problem(where + ".signing: key id " + bc.signing_keyid + " not found");
            }
            c.bundles.push_back(std::move(bc));
        }
    }
    if (const Value* d = doc.find("decision_logs"); d && r.object(*d, "decision_logs")) {
        auto& dl = c.decision_logs;
        dl.enabled = true;
        r.known(*d, "decision_logs",
                {"console", "service", "resource", "partition_name", "mask_decision", "reporting"});
        dl.console = r.boolean(*d, "console", "decision_logs");
        dl.service = r.string(*d, "service", "decision_logs");
        // As OPA: without console logging, the first service is the default.
        if (dl.service.empty() && !dl.console && !c.service_order.empty()) dl.service = c.service_order[0];
        if (!dl.service.empty() && !c.services.count(dl.service))
            r.problem("invalid service name \"" + dl.service + "\" in decision_logs");
        dl.resource = r.string(*d, "resource", "decision_logs", "/logs");
        if (auto partition = r.string(*d, "partition_name", "decision_logs"); !partition.empty())
            dl.resource = "/logs/" + partition;
        dl.mask_decision = r.string(*d, "mask_decision", "decision_logs", dl.mask_decision);
        if (const Value* rep = d->find("reporting"); rep && r.object(*rep, "decision_logs.reporting")) {
            r.known(*rep, "decision_logs.reporting",
                    {"min_delay_seconds", "max_delay_seconds", "upload_size_limit_bytes", "buffer_size_limit_bytes"});
            std::tie(dl.min_delay_seconds, dl.max_delay_seconds) = delays(r, *rep, "decision_logs.reporting", 300, 600);
            dl.upload_size_limit_bytes =
                r.integer(*rep, "upload_size_limit_bytes", "decision_logs.reporting", dl.upload_size_limit_bytes);
            dl.buffer_size_limit_bytes =
                r.integer(*rep, "buffer_size_limit_bytes", "decision_logs.reporting", dl.buffer_size_limit_bytes);
            if (dl.buffer_size_limit_bytes <= 0)
                r.problem("invalid decision_log config, 'buffer_size_limit_bytes' must be higher than 0");
            if (dl.upload_size_limit_bytes <= 0)
                r.problem("decision_logs.reporting.upload_size_limit_bytes must be higher than 0");
        }
    }
    if (const Value* s = doc.find("status"); s && r.object(*s, "status")) {
        c.status.enabled = true;
        r.known(*s, "status", {"service", "console", "partition_name", "prometheus", "prometheus_config"});
        c.status.service = r.string(*s, "service", "status");
        c.status.console = r.boolean(*s, "console", "status");
        c.status.partition_name = r.string(*s, "partition_name", "status");
        c.status.prometheus = r.boolean(*s, "prometheus", "status");
        const Value* buckets = s->find("prometheus_config");
        for (std::string_view key : {"collectors", "bundle_loading_duration_ns", "buckets"})
            buckets = buckets && buckets->is_object() ? buckets->find(key) : nullptr;
        if (std::string error;
            buckets && !buckets->is_null() &&
            !histogram_bounds(*buckets, "status.prometheus_config.collectors.bundle_loading_duration_ns.buckets",
                              c.status.bundle_loading_buckets, error))
            r.problem(error);
        // As OPA: the first service is the default only when neither console nor Prometheus reporting is on.
        if (c.status.service.empty() && !c.status.console && !c.status.prometheus && !c.service_order.empty())
            c.status.service = c.service_order[0];
        if (!c.status.service.empty() && !c.services.count(c.status.service))
            r.problem("invalid service name \"" + c.status.service + "\" in status");
    }
    if (const Value* l = doc.find("labels"); l && r.object(*l, "labels"))
        for (const auto& e : l->object_entries())
            c.labels[key_text(e.key)] =
                e.value.is_string() ? std::string(e.value.as_string()) : runtime::to_json(e.value);
    c.persistence_directory = r.string(doc, "persistence_directory", "config", c.persistence_directory);
    c.default_decision = r.string(doc, "default_decision", "config", c.default_decision);
    c.default_authorization_decision =
        r.string(doc, "default_authorization_decision", "config", c.default_authorization_decision);
    c.document = doc;
    if (!r.errors.empty()) {
        for (const auto& e : r.errors) error += (error.empty() ? "" : "; ") + e;
        return std::nullopt;
    }
    return c;
}

Value active_config(const Value& doc, const std::map<std::string, std::string>& labels,
                    const std::string& default_decision, const std::string& default_authorization_decision) {
    // Drops `keys` from each member object of `section` (an object of objects, or a list of them).
    auto without = [](const Value& section, std::initializer_list<std::string_view> drop) {
        auto strip = [&drop](const Value& item) {
            if (!item.is_object()) return item;
            runtime::ObjectBuilder b;
            for (const auto& e : item.object_entries()) {
                bool dropped = false;
                for (auto k : drop)
                    if (e.key.is_string() && e.key.as_string() == k) dropped = true;
                if (!dropped) b.insert(e.key, e.value);
            }
            return b.build();
        };
        if (section.is_array()) {
            runtime::ArrayBuilder a;
            for (const auto& item : section.array_elements()) a.push_back(strip(item));
            return a.build();
        }
        if (!section.is_object()) return section;
        runtime::ObjectBuilder b;
        for (const auto& e : section.object_entries()) b.insert(e.key, strip(e.value));
        return b.build();
    };
    runtime::ObjectBuilder out;
    for (const auto& e : doc.object_entries()) {
        std::string k = e.key.is_string() ? std::string(e.key.as_string()) : "";
        if (k == "labels" || k == "default_decision" || k == "default_authorization_decision") continue;
        if (k == "nd_builtin_cache" && !(e.value.is_bool() && e.value.as_bool())) continue;
        if (k == "services") out.insert(e.key, without(e.value, {"credentials"}));
        else if (k == "keys") out.insert(e.key, without(e.value, {"key", "private_key"}));
        else out.insert(e.key, e.value);
    }
    runtime::ObjectBuilder l;
    for (const auto& [k, v] : labels) l.insert(Value::string(k), Value::string(v));
    out.insert(Value::string("labels"), l.build());
    out.insert(Value::string("default_decision"), Value::string(default_decision));
    out.insert(Value::string("default_authorization_decision"), Value::string(default_authorization_decision));
    return out.build();
}

}  // namespace gavel::webhook::plugins
