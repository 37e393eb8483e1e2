#pragma once
// What a template sees as input.review: the AdmissionRequest as Gatekeeper
// marshals its Go struct (uid, kind, resource, operation and userInfo always
// present; object, oldObject and options null when absent), with
// namespaceObject added (null when the Namespace is unknown). On DELETE the
// object is the oldObject. An object reviewed by itself (gator, audit) becomes
// a request with its kind, name, namespace and object, and no operation.

#include <optional>
#include <string>

#include "runtime/value.hpp"

namespace gavel::gatekeeper {

struct Review {
    runtime::Value request;           // input.review
    runtime::Value object;            // the object matched (null when none)
    runtime::Value old_object;        // matched too when present
    runtime::Value namespace_object;  // for namespaceSelector (null when unknown)
    std::string namespace_name;       // request.namespace
    std::string operation;            // CREATE, UPDATE, DELETE, CONNECT or ""
    std::string source = "Original";
};

// An object as gator and audit review it.
Review review_of_object(const runtime::Value& object, const runtime::Value& namespace_object,
                        bool namespace_object_in_input);

// An AdmissionRequest (the `request` of an AdmissionReview); nullopt with `error` when it
// cannot be reviewed (no object nor oldObject; DELETE without oldObject).
std::optional<Review> review_of_request(const runtime::Value& request, const runtime::Value& namespace_object,
                                        bool namespace_object_in_input, std::string& error);

}  // namespace gavel::gatekeeper
