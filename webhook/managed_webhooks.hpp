#pragma once
// The glue of `gavel serve --manage-webhooks NAME`: keeps the cluster's webhook
// configurations (WebhookRegistration) in line with what serves now, checked by
// sync() once a second on a thread of its own (an unreachable API server must
// not hold up reloads or signals): the policies' packages, kinds and operations
// (re-read when the config hash changes) and the caBundle (the serving
// certificate, or a CA file, re-read so that a rotation is applied). A failed
// apply is retried every 3 s. remove() at shutdown, unless persistent.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "engine/engine.hpp"
#include "webhook/policy_store.hpp"
#include "webhook/webhook_config.hpp"
#include "webhook/webhook_registration.hpp"

namespace gavel::webhook {

struct ManagedWebhooksOptions {
    WebhookConfigOptions config;                       // name, url or service, failure policies ...
    std::string ca_bundle_file;                        // empty: the serving certificate
    std::function<std::string()> serving_certificate;  // PEM of the certificate in use
    EngineOptions engine;                              // the policies' dialect
};

class ManagedWebhooks {
public:
    ManagedWebhooks(ManagedWebhooksOptions options, KubeClientConfig client, std::shared_ptr<PolicyStore> store);
    ~ManagedWebhooks();
    // Starts the thread that calls sync() at once and then every second.
    void start();
    // Stops that thread; then deletes the configurations unless `keep`.
    void stop(bool keep);
    // Applies what changed; logs the outcome.
    void sync();

private:
    ManagedWebhooksOptions options_;
    WebhookRegistration registration_;
    std::shared_ptr<PolicyStore> store_;
    std::string applied_hash_, applied_ca_;
    bool failed_ = false;
    std::chrono::steady_clock::time_point last_attempt_{};
    std::string last_error_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace gavel::webhook
