#pragma once
// A minimal client for the Kubernetes API from inside a Pod: HTTPS to
// KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, trusting the service
// account's ca.crt, authenticating with its token (re-read for every request:
// bound tokens rotate). Synchronous, one connection per request; for the few
// calls webhook registration makes.
//
// GAVEL_KUBE_TOKEN_FILE and GAVEL_KUBE_CA_FILE override the standard paths
// (/var/run/secrets/kubernetes.io/serviceaccount/{token,ca.crt}), for tests and
// for running outside a cluster. The host must be an IP address (it is, in a
// Pod): a static gavel has no NSS to resolve names with.

#include <chrono>
#include <string>

namespace gavel::webhook {

struct KubeClientConfig {
    std::string host;  // IPv4 or IPv6 address
    std::string port = "443";
    std::string token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
    std::string ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
    std::chrono::seconds timeout{10};
};

// From the environment; false with `error` when KUBERNETES_SERVICE_HOST is unset.
bool kube_config_from_environment(KubeClientConfig& out, std::string& error);

struct KubeResponse {
    int status = 0;  // 0: no answer (`error` says why)
    std::string body;
    std::string error;
};

// METHOD path (with query) -> the answer. `content_type` empty: no body.
KubeResponse kube_request(const KubeClientConfig& config, const std::string& method, const std::string& path,
                          const std::string& content_type, const std::string& body);

}  // namespace gavel::webhook
