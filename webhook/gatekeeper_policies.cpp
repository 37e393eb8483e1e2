#include "webhook/gatekeeper_policies.hpp"

#include "runtime/json.hpp"
#include "webhook/log.hpp"
#include "webhook/value_text.hpp"

namespace gavel::webhook {

using runtime::Value;

namespace {}  // namespace

bool GatekeeperPolicies::rebuild(lang::Diagnostics& errors) {
    gatekeeper::PolicySetBuilder builder;
    std::vector<std::string> unsupported;
    builder.add_objects(objects_, errors, &unsupported, false);
    if (inventory_.is_object()) builder.set_inventory(inventory_);
    auto previous = current();
    auto set = builder.build(errors, previous.get());
    if (!errors.empty()) return false;
    unsupported_ = std::move(unsupported);
    std::atomic_store(&current_, std::move(set));
    return true;
}

GatekeeperPolicies::Poll GatekeeperPolicies::poll(lang::Diagnostics& errors, bool force) {
    std::lock_guard lock(mutex_);
    auto files = gatekeeper::read_object_paths(dirs_, runtime::NonRegular::Refuse);
    if (!force && (files.content_hash == loaded_hash_ || files.content_hash == failed_hash_)) {
        cycle_warnings_.report(files.skipped_cycles);
        return Poll::Unchanged;
    }
    // Something changed: take it only once it holds still (webhook/settled_read.hpp).
    bool settled = wait_until_settled(
        {files.content_hash, files.newest_change_ns},
        [&] {
            files = gatekeeper::read_object_paths(dirs_, runtime::NonRegular::Refuse);
            return ReadingStamp{files.content_hash, files.newest_change_ns};
        },
        settle_);
    cycle_warnings_.report(files.skipped_cycles);
    if (!settled && loaded_hash_.empty()) {  // the first load: nothing to keep serving, so say why nothing loads
        lang::Diagnostic d;
        d.message = still_changing_message(settle_);
        errors.add(std::move(d));
        ++reloads_failed_;
        if (metrics_) metrics_->record_reload(false);
        return Poll::Failed;
    }
    if (!settled || (!force && (files.content_hash == loaded_hash_ || files.content_hash == failed_hash_)))
        return Poll::Unchanged;
    auto previous_objects = std::move(objects_);
    objects_ = std::move(files.objects);
    errors.append(files.errors);
    if (!errors.empty() || !rebuild(errors)) {
        objects_ = std::move(previous_objects);
        failed_hash_ = files.content_hash;
        ++reloads_failed_;
        if (metrics_) metrics_->record_reload(false);
        return Poll::Failed;
    }
    loaded_hash_ = files.content_hash;
    failed_hash_.clear();
    ++reloads_ok_;
    if (metrics_) metrics_->record_reload(true);
    return Poll::Reloaded;
}

bool GatekeeperPolicies::set_inventory(const Value& inventory, lang::Diagnostics& errors) {
    std::lock_guard lock(mutex_);
    Value next = inventory.is_object() ? inventory : Value::empty_object();
    if (next == inventory_) return true;
    Value previous = inventory_;
    inventory_ = next;
    if (!rebuild(errors)) {
        inventory_ = previous;
        return false;
    }
    return true;
}

std::vector<std::string> GatekeeperPolicies::unsupported() const {
    std::lock_guard lock(mutex_);
    return unsupported_;
}

void GatekeeperPolicies::count(std::string_view action) {
    if (action == "deny") ++deny_;
    else if (action == "warn") ++warn_;
    else if (action == "dryrun") ++dryrun_;
}

std::string GatekeeperPolicies::render_metrics() const {
    auto set = current();
    std::string out;
    out +=
        "# HELP gavel_gatekeeper_violations_total Gatekeeper constraint violations at admission, by enforcement "
        "action.\n";
    out += "# TYPE gavel_gatekeeper_violations_total counter\n";
    out += "gavel_gatekeeper_violations_total{enforcement_action=\"deny\"} " + std::to_string(deny_.load()) + "\n";
    out += "gavel_gatekeeper_violations_total{enforcement_action=\"warn\"} " + std::to_string(warn_.load()) + "\n";
    out += "gavel_gatekeeper_violations_total{enforcement_action=\"dryrun\"} " + std::to_string(dryrun_.load()) + "\n";
    out += "# HELP gavel_gatekeeper_constraints Constraints loaded.\n# TYPE gavel_gatekeeper_constraints gauge\n";
    out += "gavel_gatekeeper_constraints " + std::to_string(set->constraint_count()) + "\n";
    out += "# HELP gavel_gatekeeper_templates ConstraintTemplates loaded.\n# TYPE gavel_gatekeeper_templates gauge\n";
    out += "gavel_gatekeeper_templates " + std::to_string(set->entries().size()) + "\n";
    return out;
}

AdmissionDecision gatekeeper_decision(const ReviewRequest& req, GatekeeperPolicies& policies,
                                      const GatekeeperDecisionOptions& options) {
    auto set = policies.current();
    const Value* request = req.review.find("request");
    if (!request || !request->is_object())
        return error_decision(req, "the AdmissionReview has no request", options.fail_open);
    // As Gatekeeper: a Namespace's own request is not "in" a namespace (server-side apply sets one).
    Value normalized = *request;
    if (gatekeeper::string_at(*request, {"kind", "kind"}) == "Namespace" &&
        gatekeeper::string_at(*request, {"kind", "group"}).empty() && request->find("namespace")) {
        runtime::ObjectBuilder b;
        for (const auto& e : request->object_entries())
            if (!(e.key.is_string() && e.key.as_string() == "namespace")) b.insert(e.key, e.value);
        normalized = b.build();
    }
    std::string_view ns = gatekeeper::string_at(normalized, {"namespace"});
    const Value* ns_object = set->namespace_object(ns);
    std::string error;
    auto review = gatekeeper::review_of_request(normalized, ns_object ? *ns_object : Value(), true, error);
    if (!review) return error_decision(req, "failed to create augmentedReview: " + error, options.fail_open);
    gatekeeper::ReviewOptions ro;
    ro.enforcement_point = gatekeeper::kWebhookEnforcementPoint;
    ro.filter_operations = true;
    ro.control = options.control;
    auto outcome = set->review(*review, ro);
    if (outcome.error) return error_decision(req, *outcome.error, options.fail_open);

    std::vector<std::string> denials, warnings;
    for (const auto& v : outcome.violations) {
        std::string line = "[" + v.constraint->name + "] " + v.message;
        for (const auto& action : v.actions) {
            policies.count(action);
            if (action == "deny") {
                denials.push_back(line);
            } else if (action == "warn") {
                warnings.push_back(line);
            } else if (action == "dryrun") {
                log_line("info", "dryrun violation",
                         {{"uid", req.uid},
                          {"constraint_kind", str(v.constraint->kind)},
                          {"constraint_name", str(v.constraint->name)},
                          {"resource_kind", str(gatekeeper::string_at(normalized, {"kind", "kind"}))},
                          {"resource_namespace", str(ns)},
                          {"resource_name", str(gatekeeper::string_at(normalized, {"name"}).empty()
                                                    ? gatekeeper::object_name(review->object)
                                                    : gatekeeper::string_at(normalized, {"name"}))},
                          {"message", str(v.message)}});
            } else {
                log_line("error", "unknown enforcement action; the violation is skipped",
                         {{"constraint_name", str(v.constraint->name)}, {"action", str(action)}});
            }
        }
    }
    AdmissionDecision d;
    runtime::ObjectBuilder response;
    response.insert(str("uid"), req.uid);
    if (!warnings.empty()) {
        runtime::ArrayBuilder w;
        for (const auto& m : warnings) w.push_back(str(m));
        response.insert(str("warnings"), w.build());
    }
    if (!denials.empty()) {
        std::string message;
        for (const auto& m : denials) message += (message.empty() ? "" : "\n") + m;
        d.outcome = AdmissionDecision::Outcome::Denied;
        d.code = 403;
        d.message = message;
        response.insert(str("allowed"), Value::boolean(false));
        response.insert(str("status"), Value::object({{str("code"), Value::integer(403)},
                                                      {str("message"), str(message)},
                                                      {str("reason"), str("Forbidden")}}));
    } else {
        response.insert(str("allowed"), Value::boolean(true));
        response.insert(str("status"), Value::object({{str("code"), Value::integer(warnings.empty() ? 200 : 299)}}));
    }
    d.review = Value::object({{str("apiVersion"), str(req.api_version)},
                              {str("kind"), str("AdmissionReview")},
                              {str("response"), response.build()}});
    return d;
}

}  // namespace gavel::webhook
