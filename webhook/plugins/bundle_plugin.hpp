#pragma once
// The bundle service client (OPA's bundle plugin): one thread per configured
// bundle polls `<service url>/<resource>` with If-None-Match (a 304 costs
// nothing), waits a random time between the polling delays after a success
// and backs off exponentially (OPA's DefaultBackoff) after an error. A new
// bundle is read with the archive limits, verified as OPA does (with its
// `signing` section, else with the configured `keys` when it is signed), and
// activated through PolicyStore::activate_bundle:
// compiled, then swapped; a broken or wrongly signed bundle leaves the last
// good one serving. With `persist`, every activated bundle is written to
// <persistence_directory>/bundles/<name>/bundle.tar.gz (atomically) and read
// back at start, so that a restart serves before the service answers.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "webhook/metrics.hpp"
#include "webhook/plugins/config.hpp"
#include "webhook/policy_store.hpp"

namespace gavel::webhook::plugins {

struct BundleStatus {
    std::string name;
    std::string active_revision;
    std::string last_successful_activation, last_successful_download, last_request,
        last_successful_request;  // RFC 3339
    std::string code;             // "bundle_error" when the last attempt failed
    std::string message;          // what failed
    std::vector<std::string> errors;
    int http_code = 0;
    bool activated = false;  // at least once (from the service or the persisted copy)
    // The last poll's timers, in OPA's names: timer_bundle_request_ns (the download),
    // timer_rego_load_bundles_ns (reading, verifying and compiling what came).
    std::map<std::string, std::int64_t> timers_ns;
};

class BundlePlugin {
public:
    BundlePlugin(Config config, std::shared_ptr<PolicyStore> store, std::shared_ptr<Metrics> metrics);
    ~BundlePlugin();

    // Activates persisted copies, then starts polling.
    void start();
    // At SIGTERM: no new download or activation starts, and one under way stops at its
    // next step (between files read, before compiling). Returns at once.
    void request_stop();
    // Stops and joins the polling threads. With `wait`: waits at most that long, and
    // false when a thread is still busy then (a download or a compile, which do not
    // stop half-way); the caller should then exit without waiting for it.
    bool stop(std::optional<std::chrono::milliseconds> wait = std::nullopt);

    bool all_activated() const;
    std::vector<BundleStatus> statuses() const;
    // Called (from a polling thread) whenever a bundle's status changes.
    void on_change(std::function<void()> callback) { on_change_ = std::move(callback); }

private:
    struct State;
    void poll_loop(std::size_t index);
    // One download and activation; true when it went well (a 304 included).
    bool poll_once(std::size_t index);
    bool activate(std::size_t index, const std::string& bytes, std::string& error);
    std::string persist_path(const BundleConfig& b) const;
    void changed();
    void set_timer(std::size_t index, const char* name, std::chrono::nanoseconds elapsed);

    Config config_;
    std::shared_ptr<PolicyStore> store_;
    std::shared_ptr<Metrics> metrics_;
    std::function<void()> on_change_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;       // the polling threads' waits between polls
    std::condition_variable finished_;   // a polling thread ended
    std::atomic<bool> stopping_{false};  // set under mutex_
    std::size_t running_ = 0;            // polling threads not yet ended
    std::vector<BundleStatus> status_;
    std::vector<std::string> etags_;
    std::vector<engine::bundle::VerificationConfig> verification_;
    std::vector<std::thread> threads_;
};

}  // namespace gavel::webhook::plugins
