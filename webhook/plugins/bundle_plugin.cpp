#include "webhook/plugins/bundle_plugin.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/bundle/bundle.hpp"
#include "runtime/file_read.hpp"
#include "webhook/log.hpp"
#include "webhook/plugins/backoff.hpp"
#include "webhook/plugins/service_client.hpp"

namespace gavel::webhook::plugins {

namespace fs = std::filesystem;
using runtime::Value;

namespace {

std::string label(const std::string& name) { return "{name=\"" + name + "\"}"; }

}  // namespace

BundlePlugin::BundlePlugin(Config config, std::shared_ptr<PolicyStore> store, std::shared_ptr<Metrics> metrics)
    : config_(std::move(config)), store_(std::move(store)), metrics_(std::move(metrics)) {
    for (const auto& b : config_.bundles) {
        BundleStatus s;
        s.name = b.name;
        status_.push_back(s);
        etags_.emplace_back();
        engine::bundle::VerificationConfig vc;
        vc.public_keys = config_.keys;
        vc.key_id = b.signing_keyid;
        vc.scope = b.signing_scope;
        vc.exclude_files = b.exclude_files;
        verification_.push_back(std::move(vc));
    }
}

BundlePlugin::~BundlePlugin() { stop(); }

std::string BundlePlugin::persist_path(const BundleConfig& b) const {
    return (fs::path(config_.persistence_directory) / "bundles" / b.name / "bundle.tar.gz").string();
}

void BundlePlugin::set_timer(std::size_t index, const char* name, std::chrono::nanoseconds elapsed) {
    std::lock_guard lock(mutex_);
    status_[index].timers_ns[name] = elapsed.count();
}

void BundlePlugin::changed() {
    if (on_change_) on_change_();
}

bool BundlePlugin::all_activated() const {
    std::lock_guard lock(mutex_);
    for (const auto& s : status_)
        if (!s.activated) return false;
    return true;
}

std::vector<BundleStatus> BundlePlugin::statuses() const {
    std::lock_guard lock(mutex_);
    return status_;
}

bool BundlePlugin::activate(std::size_t index, const std::string& bytes, std::string& error) {
    const BundleConfig& bc = config_.bundles[index];
    engine::bundle::BundleReadOptions ro;
    // size_limit_bytes is OPA's per-file limit; the whole archive is bounded too, at least by as much.
    ro.limits.max_file_bytes = static_cast<std::uint64_t>(bc.size_limit_bytes);
    ro.limits.max_total_bytes = std::max(ro.limits.max_total_bytes, ro.limits.max_file_bytes);
    // As OPA: a signing section verifies with it; without one, configured keys still verify
    // a signed bundle (chosen by its kid); with neither, a signed bundle is refused.
    if (bc.signed_bundle || !config_.keys.empty()) ro.verification = &verification_[index];
    ro.stop = &stopping_;
    auto start = std::chrono::steady_clock::now();
    auto read = engine::bundle::read_bundle_archive(bytes, bc.name, ro);
    if (!read.ok()) {
        error = read.error_text();
        return false;
    }
    if (stopping_) return error = engine::bundle::kReadStopped, false;  // not compiled: shutting down
    PolicyStore::BundleContent content;
    for (const auto& m : read.bundle->modules)
        content.modules.emplace_back(bc.name + "/" + m.path, m.text, m.v0_compatible);
    content.data = read.bundle->data;
    content.roots = read.bundle->manifest.effective_roots();
    content.revision = read.bundle->manifest.revision;
    auto result = store_->activate_bundle(bc.name, content);
    if (!result.ok()) {
        error = result.message;
        for (const auto& d : result.errors) error += "\n" + (d.code.empty() ? d.message : d.headline());
        return false;
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    metrics_->plugin_add("gavel_bundle_activation_seconds_total", label(bc.name), seconds, "counter",
                         "Time spent reading, verifying and compiling bundles.");
    std::lock_guard lock(mutex_);
    auto& s = status_[index];
    s.active_revision = content.revision;
    s.last_successful_activation = utc_timestamp();
    s.activated = true;
    return true;
}

void BundlePlugin::start() {
    for (std::size_t i = 0; i < config_.bundles.size(); ++i) {
        const auto& bc = config_.bundles[i];
        if (!bc.persist) continue;
        // As large as a downloaded archive may be (engine/bundle: what it unpacks to, plus framing).
        const std::uint64_t most = std::max<std::uint64_t>(engine::bundle::ArchiveLimits{}.max_total_bytes,
                                                           static_cast<std::uint64_t>(bc.size_limit_bytes)) +
                                   (1u << 20);
        runtime::FileRead read = runtime::read_whole_file(persist_path(bc), most, runtime::NonRegular::Refuse);
        if (!read.ok) {
            if (read.error != ENOENT)
                log_line("error", "the persisted bundle cannot be read",
                         {{"name", Value::string(bc.name)}, {"error", Value::string(read.message)}});
            continue;
        }
        std::string error;
        if (activate(i, read.text, error)) {
            log_line("info", "bundle loaded from disk",
                     {{"name", Value::string(bc.name)}, {"revision", Value::string(status_[i].active_revision)}});
            metrics_->plugin_set("gavel_bundle_active", label(bc.name), 1, "1 once the bundle was activated.");
        } else {
            log_line("error", "the persisted bundle does not load",
                     {{"name", Value::string(bc.name)}, {"error", Value::string(error)}});
        }
    }
    changed();
    {
        std::lock_guard lock(mutex_);
        running_ = config_.bundles.size();
    }
    for (std::size_t i = 0; i < config_.bundles.size(); ++i) threads_.emplace_back([this, i] { poll_loop(i); });
}

void BundlePlugin::request_stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
}

bool BundlePlugin::stop(std::optional<std::chrono::milliseconds> wait) {
    request_stop();
    {
        std::unique_lock lock(mutex_);
        auto done = [this] { return running_ == 0; };
        if (!wait) finished_.wait(lock, done);
        else if (!finished_.wait_for(lock, *wait, done)) {
            log_line("warn", "shutdown: a bundle download or compile is still running; not waiting for it");
            return false;  // the threads stay joinable: the caller exits without them
        }
    }
    for (auto& t : threads_)
        if (t.joinable()) t.join();
    threads_.clear();
    return true;
}

void BundlePlugin::poll_loop(std::size_t index) {
    struct Ended {
        BundlePlugin* self;
        ~Ended() {
            std::lock_guard lock(self->mutex_);
            --self->running_;
            self->finished_.notify_all();
        }
    } ended{this};
    const auto& bc = config_.bundles[index];
    int retry = 0;
    while (!stopping_) {
        bool ok = poll_once(index);
        std::chrono::nanoseconds delay;
        if (ok) {
            retry = 0;
            delay = random_delay(static_cast<double>(bc.min_delay_seconds), static_cast<double>(bc.max_delay_seconds));
        } else {
            delay = default_backoff(1e8, static_cast<double>(bc.max_delay_seconds) * 1e9, ++retry);
        }
        std::unique_lock lock(mutex_);
        if (wake_.wait_for(lock, delay, [this] { return stopping_.load(); })) return;
    }
}

bool BundlePlugin::poll_once(std::size_t index) {
    const auto& bc = config_.bundles[index];
    const auto& service = config_.services.at(bc.service);
    std::vector<std::pair<std::string, std::string>> headers;
    {
        std::lock_guard lock(mutex_);
        if (!etags_[index].empty()) headers.emplace_back("If-None-Match", etags_[index]);
        status_[index].last_request = utc_timestamp();
        status_[index].timers_ns.clear();
    }
    headers.emplace_back("Accept", "application/gzip, application/octet-stream");
    auto start = std::chrono::steady_clock::now();
    auto response = call_service(service, "GET", bc.resource, headers, {}, std::chrono::seconds(30));
    if (stopping_) return false;  // shutting down: what came is not activated
    auto elapsed = std::chrono::steady_clock::now() - start;
    double seconds = std::chrono::duration<double>(elapsed).count();
    set_timer(index, "timer_bundle_request_ns", elapsed);
    std::string code = response.status ? std::to_string(response.status) : "error";
    metrics_->plugin_add("gavel_bundle_downloads_total", "{name=\"" + bc.name + "\",code=\"" + code + "\"}", 1,
                         "counter", "Bundle download attempts by HTTP status (error: no answer).");
    metrics_->plugin_add("gavel_bundle_download_seconds_total", label(bc.name), seconds, "counter",
                         "Time spent downloading bundles.");
    std::string error;
    bool activated = false;
    if (response.status == 304) {
        std::lock_guard lock(mutex_);
        status_[index].last_successful_request = utc_timestamp();
        status_[index].http_code = 304;
        return true;
    }
    if (response.status == 200) {
        {
            std::lock_guard lock(mutex_);
            status_[index].last_successful_request = status_[index].last_successful_download = utc_timestamp();
            status_[index].http_code = 200;
        }
        auto activation_start = std::chrono::steady_clock::now();
        bool ok = activate(index, response.body, error);
        set_timer(index, "timer_rego_load_bundles_ns", std::chrono::steady_clock::now() - activation_start);
        if (ok) {
            activated = true;
            {
                std::lock_guard lock(mutex_);
                etags_[index] = response.header("ETag");
                status_[index].code.clear();
                status_[index].message.clear();
                status_[index].errors.clear();
            }
            metrics_->plugin_add("gavel_bundle_activations_total", "{name=\"" + bc.name + "\",status=\"success\"}", 1,
                                 "counter", "Bundle activations by outcome.");
            metrics_->plugin_set("gavel_bundle_active", label(bc.name), 1, "1 once the bundle was activated.");
            log_line("info", "bundle activated",
                     {{"name", Value::string(bc.name)}, {"revision", Value::string(status_[index].active_revision)}});
            if (bc.persist) {
                std::error_code ec;
                fs::path target = persist_path(bc);
                fs::create_directories(target.parent_path(), ec);
                fs::path tmp = target;
                tmp += ".tmp";
                std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
                out.write(response.body.data(), static_cast<std::streamsize>(response.body.size()));
                out.close();
                if (out) fs::rename(tmp, target, ec);
                if (!out || ec)
                    log_line("warn", "cannot persist the bundle",
                             {{"name", Value::string(bc.name)}, {"path", Value::string(target.string())}});
            }
        } else {
            // The same broken bundle is not downloaded again and again: its ETag is kept.
            std::lock_guard lock(mutex_);
            etags_[index] = response.header("ETag");
        }
    } else if (response.status) {
        error = "server replied with HTTP " + std::to_string(response.status);
    } else {
        error = response.error;
    }
    if (!activated && stopping_) return false;  // stopped on the way, not failed
    if (!activated) {
        if (response.status == 200)
            metrics_->plugin_add("gavel_bundle_activations_total", "{name=\"" + bc.name + "\",status=\"failure\"}", 1,
                                 "counter", "Bundle activations by outcome.");
        log_line("error",
                 response.status == 200 ? "bundle activation failed; the last good bundle keeps serving"
                                        : "bundle download failed",
                 {{"name", Value::string(bc.name)}, {"error", Value::string(error)}});
        {
            std::lock_guard lock(mutex_);
            status_[index].code = "bundle_error";
            status_[index].message = error.substr(0, error.find('\n'));
            status_[index].errors = {error};
            status_[index].http_code = static_cast<int>(response.status);
        }
    }
    changed();
    return activated;
}

}  // namespace gavel::webhook::plugins
