#pragma once
// gavel serve --manage-webhooks: gavel keeps its own Validating- and
// MutatingWebhookConfiguration in the cluster, as Kopf's managed webhooks do.
// Each configuration is sent with server-side apply (PATCH, Content-Type
// application/apply-patch+yaml, fieldManager=gavel, force=true): one request
// that creates it or updates it to exactly what gavel wants now. A body equal
// to the last one applied is not sent again; a configuration no longer wanted
// (no mutating package left) is deleted; remove() deletes all of them.

#include <map>
#include <string>
#include <vector>

#include "webhook/kube_client.hpp"
#include "webhook/webhook_config.hpp"

namespace gavel::webhook {

class WebhookRegistration {
public:
    explicit WebhookRegistration(KubeClientConfig client, std::string field_manager = "gavel");

    // False with `error` when a request failed (the next call tries again).
    bool apply(const std::vector<WebhookConfiguration>& configurations, std::string& error);
    // Deletes every configuration applied (404 counts as deleted).
    bool remove(std::string& error);

    // The API path of a configuration: /apis/admissionregistration.k8s.io/v1/<resource>/<name>.
    static std::string api_path(const std::string& kind, const std::string& name);

private:
    bool remove_one(const std::string& key, std::string& error);

    KubeClientConfig client_;
    std::string field_manager_;
    std::map<std::string, std::string> applied_;  // "kind/name" -> the JSON body applied
};

}  // namespace gavel::webhook
