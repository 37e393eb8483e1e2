#pragma once
// Decision logs in OPA's schema (plugins/logs EventV1):
//
//   {"decision_id": "<uuid v4>", "labels": {"id": "<instance uuid>", "version": "...", ...},
//    "bundles": {"name": {"revision": "..."}}, "path": "kubernetes/admission", "input": ...,
//    "result": ..., "requested_by": "ip:port", "timestamp": "RFC 3339 (ns)",
//    "metrics": {"timer_rego_query_eval_ns": ...}, "req_id": n, "erased"/"masked": [...]}
//
// Masking as OPA: `data.system.log.mask` (decision_logs.mask_decision) is
// evaluated with the event as input; its rules ("/input/x", or {"op": "upsert",
// "path": ..., "value": ...}) remove or replace parts of input and result.
// Events go to stdout (console: one JSON line each, OPA's "Decision Log"
// message) and/or are buffered for upload: every min..max delay the buffer is
// sent to the service as gzip-compressed JSON arrays of at most
// upload_size_limit_bytes each (POST <resource>, Content-Encoding: gzip). The
// buffer holds at most buffer_size_limit_bytes of encoded events; beyond, the
// oldest are dropped and counted. A failed upload puts its events back
// (within the same bound) and retries with backoff.

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "runtime/value.hpp"
#include "webhook/metrics.hpp"
#include "webhook/plugins/config.hpp"
#include "webhook/policy_store.hpp"

namespace gavel::webhook::plugins {

struct DecisionEvent {
    std::string decision_id;  // the id print() lines carried; a new UUID when empty
    std::string path;         // "kubernetes/admission/deny" (no "data.")
    std::string query;        // ad-hoc queries (/v1/query)
    std::optional<runtime::Value> input;
    std::optional<runtime::Value> result;
    std::string error;  // evaluation error text, if any
    std::string requested_by;
    gavel::Metrics metrics;
    std::map<std::string, std::string> bundles;  // name -> revision
};

// Applies OPA's mask rules (the value of data.system.log.mask) to an event
// object; returns the masked event. Exposed for tests.
runtime::Value apply_mask_rules(const runtime::Value& event, const runtime::Value& rules,
                                std::vector<std::string>& errors);

// Splits encoded events into JSON arrays of at most `limit` bytes (an event
// larger than the limit goes alone), gzip-compressed. Exposed for tests.
std::vector<std::string> encode_chunks(const std::vector<std::string>& events, std::size_t limit);

class DecisionLogger {
public:
    DecisionLogger(DecisionLogConfig config, const Config& full, std::shared_ptr<PolicyStore> store,
                   std::shared_ptr<Metrics> metrics, std::map<std::string, std::string> labels);
    ~DecisionLogger();

    void log(DecisionEvent event);
    void start();
    void stop();  // uploads what is buffered (one attempt), then ends the thread

    // For tests and status: events buffered now, dropped so far, uploaded so far.
    std::size_t buffered() const;
    std::uint64_t dropped() const { return dropped_; }
    std::uint64_t uploaded() const { return uploaded_; }
    // One upload round now (tests); false when the service failed.
    bool flush();

private:
    void push(std::string encoded);
    // Drops the oldest events (counted) while the buffer is over its byte limit; mutex_ held.
    void drop_over_limit();
    void loop();

    DecisionLogConfig config_;
    std::optional<ServiceConfig> service_;
    std::shared_ptr<PolicyStore> store_;
    std::shared_ptr<Metrics> metrics_;
    runtime::Value labels_;
    std::string mask_query_;
    std::atomic<std::uint64_t> req_ids_{0}, dropped_{0}, uploaded_{0};
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::string> buffer_;
    std::size_t buffer_bytes_ = 0;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace gavel::webhook::plugins
