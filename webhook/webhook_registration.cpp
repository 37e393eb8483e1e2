#include "webhook/webhook_registration.hpp"

#include "runtime/json.hpp"
#include "runtime/yaml.hpp"

namespace gavel::webhook {

namespace {

std::string resource_of(const std::string& kind) {
    return kind == "MutatingWebhookConfiguration" ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
}

std::string describe(const KubeResponse& r) {
    if (r.status == 0) return r.error;
    std::string body = r.body.substr(0, 300);
    return "HTTP " + std::to_string(r.status) + ": " + body;
}

}  // namespace

WebhookRegistration::WebhookRegistration(KubeClientConfig client, std::string field_manager)
    : client_(std::move(client)), field_manager_(std::move(field_manager)) {}

std::string WebhookRegistration::api_path(const std::string& kind, const std::string& name) {
    return "/apis/admissionregistration.k8s.io/v1/" + resource_of(kind) + "/" + name;
}

bool WebhookRegistration::apply(const std::vector<WebhookConfiguration>& configurations, std::string& error) {
    std::map<std::string, std::string> wanted;
    for (const auto& c : configurations) {
        // The apply body as JSON (which is YAML too): what the API server decodes either way.
        auto parsed = runtime::parse_yaml(c.yaml);
        if (!parsed) {
            error = c.name + ": " + parsed.error.message;
            return false;
        }
        std::string key = c.kind + "/" + c.name;
        std::string body = runtime::to_json(parsed.value);
        wanted[key] = body;
        if (auto it = applied_.find(key); it != applied_.end() && it->second == body) continue;
        std::string path = api_path(c.kind, c.name) + "?fieldManager=" + field_manager_ + "&force=true";
        auto r = kube_request(client_, "PATCH", path, "application/apply-patch+yaml", body);
        if (r.status != 200 && r.status != 201) {
            applied_.erase(key);
            error = "apply " + c.kind + " " + c.name + ": " + describe(r);
            return false;
        }
        applied_[key] = body;
    }
    for (auto it = applied_.begin(); it != applied_.end();) {
        if (wanted.count(it->first)) {
            ++it;
            continue;
        }
        std::string key = (it++)->first;
        if (!remove_one(key, error)) return false;
    }
    return true;
}

bool WebhookRegistration::remove_one(const std::string& key, std::string& error) {
    auto slash = key.find('/');
    auto r = kube_request(client_, "DELETE", api_path(key.substr(0, slash), key.substr(slash + 1)), "", "");
    if (r.status != 200 && r.status != 202 && r.status != 404) {
        error = "delete " + key + ": " + describe(r);
        return false;
    }
    applied_.erase(key);
    return true;
}

bool WebhookRegistration::remove(std::string& error) {
    bool ok = true;
    std::vector<std::string> keys;
    for (const auto& [key, body] : applied_) keys.push_back(key);
    for (const auto& key : keys) {
        std::string e;
        if (!remove_one(key, e)) {
            ok = false;
            error += (error.empty() ? "" : "; ") + e;
        }
    }
    return ok;
}

}  // namespace gavel::webhook
