#pragma once
// `gavel serve --gatekeeper DIR`: Gatekeeper's templates and constraints as a
// validating webhook.
//
// GatekeeperPolicies holds the compiled set (engine/gatekeeper) and swaps it
// as a whole: the directories are re-read when their content changes (the
// same polling and inotify as --policies; a broken file keeps the last good
// set and is reported), and when data.inventory changes (--data files or the
// REST data API) the templates are compiled again with the new inventory.
//
// gatekeeper_decision() answers an AdmissionReview as Gatekeeper's webhook:
// each violation of a `deny` constraint is a line "[constraint-name] message"
// of status.message (403, joined by "\n"), of a `warn` one a warning; `dryrun`
// violations are only logged and counted. Allowed answers carry status.code
// 200, or 299 with warnings.

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/gatekeeper/gatekeeper.hpp"
#include "lang/diagnostics.hpp"
#include "webhook/admission.hpp"
#include "webhook/metrics.hpp"
#include "webhook/cycle_warnings.hpp"
#include "webhook/settled_read.hpp"

namespace gavel::webhook {

class GatekeeperPolicies {
public:
    // `metrics`, when given, counts each reload's outcome with the directory reloads'.
    explicit GatekeeperPolicies(std::vector<std::string> dirs, std::shared_ptr<Metrics> metrics = nullptr,
                                SettleTiming settle = {})
        : dirs_(std::move(dirs)), metrics_(std::move(metrics)), settle_(settle) {}

    enum class Poll { Unchanged, Reloaded, Failed };
    // Reads the directories; rebuilds when their content changed (or when forced), once
    // it holds still (webhook/settled_read.hpp). Failed, with `errors`, when a directory
    // cannot be listed or a file read (the last good set stays), as for a broken file.
    // Link cycles are skipped and logged once.
    Poll poll(lang::Diagnostics& errors, bool force = false);
    // data.inventory as the policy store holds it (null: none); rebuilds when it changed.
    bool set_inventory(const runtime::Value& inventory, lang::Diagnostics& errors);

    std::shared_ptr<const gatekeeper::PolicySet> current() const { return std::atomic_load(&current_); }
    const std::vector<std::string>& dirs() const { return dirs_; }
    // Templates skipped because gavel cannot run them (CEL only), as "file:line: name: why".
    std::vector<std::string> unsupported() const;

    // Violations by enforcement action, for /metrics.
    void count(std::string_view action);
    std::string render_metrics() const;

private:
    bool rebuild(lang::Diagnostics& errors);

    std::vector<std::string> dirs_;
    std::shared_ptr<Metrics> metrics_;
    SettleTiming settle_;
    CycleWarnings cycle_warnings_;
    mutable std::mutex mutex_;                        // writers
    std::vector<gatekeeper::SourcedObject> objects_;  // of the last good load
    std::vector<std::string> unsupported_;
    runtime::Value inventory_ = runtime::Value::empty_object();
    std::string loaded_hash_, failed_hash_;
    std::shared_ptr<const gatekeeper::PolicySet> current_ = std::make_shared<gatekeeper::PolicySet>();
    std::atomic<std::uint64_t> deny_{0}, warn_{0}, dryrun_{0}, reloads_ok_{0}, reloads_failed_{0};
};

struct GatekeeperDecisionOptions {
    bool fail_open = false;
    gatekeeper::EvalControl control;
};

AdmissionDecision gatekeeper_decision(const ReviewRequest& req, GatekeeperPolicies& policies,
                                      const GatekeeperDecisionOptions& options);

}  // namespace gavel::webhook
