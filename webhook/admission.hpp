#pragma once
// Kubernetes AdmissionReview in and out (admission.k8s.io/v1 and v1beta1).
//
// In: the whole review is bound to `input`, as OPA does. Out: either the value
// of a decision that returns the whole review (data.system.main, OPA's
// convention), or a response gavel builds from a package's conventional rules:
//   deny / violation  strings, or objects with `msg` (and optionally `code`,
//                     `reason`) -> allowed false, status {code 403, message, reason}
//   warn              strings -> warnings
//   audit_annotations object -> auditAnnotations (values as strings)
//   patch             RFC 6902 operations (a set or an array); a `path` may be a
//                     pointer string or an array of segments (escaped here)
//                     -> patchType JSONPatch, patch base64
// The response echoes the request's uid and answers in the request's apiVersion.

#include <string>
#include <string_view>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::webhook {

struct ReviewRequest {
    std::string api_version;  // admission.k8s.io/v1 or admission.k8s.io/v1beta1
    runtime::Value uid;
    runtime::Value review;  // the whole AdmissionReview
};

// Parses and checks an AdmissionReview body; false with a message for HTTP 400.
bool parse_review(std::string_view body, ReviewRequest& out, std::string& error);

// The conventional rule names: deny, violation, warn, patch, audit_annotations.
const std::vector<std::string>& conventional_rule_names();

// A conventional rule a package defines; multi-value rules (partial sets/objects)
// are always defined, so they are referenced directly; others through a comprehension.
struct ConventionalRule {
    std::string name;
    bool multi_value = false;
};

// Whether a package with these conventional rules can answer a validating review: it
// defines deny, violation or warn (the packages `gavel webhook-config` registers at
// /validate/). Without them a review could only ever be allowed, without a word: a
// /validate/ request for such a package gets the failure decision instead.
bool validates(const std::vector<ConventionalRule>& rules);
bool can_deny(const std::vector<ConventionalRule>& rules);  // deny or violation

// The query evaluating a package's conventional rules to one object with a key per
// rule in `rules` (only those: rules a package does not define cost nothing).
std::string conventional_rules_query(const std::vector<std::string>& package,
                                     const std::vector<ConventionalRule>& rules);
// The same for a package given as its data path text ("data.a.b", as engine::data_path_text writes it).
std::string conventional_rules_query(const std::string& package_path, const std::vector<ConventionalRule>& rules);

struct AdmissionDecision {
    runtime::Value review;  // the AdmissionReview to send back
    enum class Outcome { Allowed, Denied, Error } outcome = Outcome::Allowed;
    int code = 200;       // status.code when denied
    std::string message;  // status.message (denied or error)
};

// From the conventional rules' object. A malformed rule value (a patch op without op/path ...)
// gives an error decision (see error_decision).
AdmissionDecision decision_from_rules(const ReviewRequest& req, const runtime::Value& rules, bool fail_open);
// From a decision returning the whole review; `defined` false when it was undefined.
AdmissionDecision decision_from_main(const ReviewRequest& req, const runtime::Value& result, bool defined,
                                     const std::string& decision_name, bool fail_open);
// An evaluation error or timeout: allowed false with status.code 500, or with
// --fail-open allowed with a warning naming the error.
AdmissionDecision error_decision(const ReviewRequest& req, const std::string& message, bool fail_open);

}  // namespace gavel::webhook
