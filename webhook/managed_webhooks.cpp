#include "webhook/managed_webhooks.hpp"

#include "runtime/file_read.hpp"
#include "webhook/log.hpp"

namespace gavel::webhook {

using runtime::Value;

ManagedWebhooks::ManagedWebhooks(ManagedWebhooksOptions options, KubeClientConfig client,
                                 std::shared_ptr<PolicyStore> store)
    : options_(std::move(options)), registration_(std::move(client)), store_(std::move(store)) {}

void ManagedWebhooks::sync() {
    auto snapshot = store_->current();
    std::string ca, ca_unreadable;
    if (options_.ca_bundle_file.empty()) {
        ca = options_.serving_certificate ? options_.serving_certificate() : "";
    } else {
        runtime::FileRead read =
            runtime::read_whole_file(options_.ca_bundle_file, runtime::kDefaultReadLimit, runtime::NonRegular::Refuse);
        ca = std::move(read.text);
        ca_unreadable = read.message;
    }
    auto now = std::chrono::steady_clock::now();
    bool changed = snapshot->config_hash != applied_hash_ || ca != applied_ca_;
    if (!changed && !(failed_ && now - last_attempt_ >= std::chrono::seconds(3))) return;
    last_attempt_ = now;

    // The packages of the policies serving now, compiled on their own.
    Engine engine(options_.engine);
    for (const auto& [id, text] : snapshot->policies) engine.add_policy(id, text);
    lang::Diagnostics errors;
    auto packages = admission_packages(engine, errors);
    WebhookConfigOptions config = options_.config;
    config.ca_bundle_pem = ca;
    std::vector<WebhookConfiguration> configurations;
    std::string error;
    if (!errors.empty()) error = "the policies do not compile: " + (*errors.begin()).message;
    else if (!ca_unreadable.empty()) error = "no caBundle: " + ca_unreadable;
    else if (ca.empty()) error = "no caBundle: the CA file is empty";
    else if (build_webhook_configurations(packages, config, configurations, error))
        registration_.apply(configurations, error);
    if (!error.empty()) {
        failed_ = true;
        if (error != last_error_)
            log_line("error", "webhook registration failed; retrying", {{"error", Value::string(error)}});
        last_error_ = error;
        return;
    }
    failed_ = false;
    last_error_.clear();
    applied_hash_ = snapshot->config_hash;
    applied_ca_ = ca;
    runtime::ArrayBuilder names;
    for (const auto& c : configurations) names.push_back(Value::string(c.kind + "/" + c.name));
    log_line("info", "webhooks applied",
             {{"configurations", names.build()}, {"config_hash", Value::string(applied_hash_)}});
}

ManagedWebhooks::~ManagedWebhooks() { stop(true); }

void ManagedWebhooks::start() {
    thread_ = std::thread([this] {
        std::unique_lock lock(mutex_);
        while (!stopping_) {
            lock.unlock();
            sync();
            lock.lock();
            wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; });
        }
    });
}

void ManagedWebhooks::stop(bool keep) {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (keep) return;
    std::string error;
    if (registration_.remove(error)) log_line("info", "webhooks removed");
    else log_line("error", "webhook removal failed", {{"error", Value::string(error)}});
}

}  // namespace gavel::webhook
