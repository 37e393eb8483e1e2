#pragma once
// Gatekeeper's policies without Gatekeeper: ConstraintTemplates (Rego) and
// their Constraints, matched and evaluated as Gatekeeper's validating webhook,
// audit and gator do. The front ends use only this header.
//
//   auto files = gatekeeper::read_object_paths({"policies/"});
//   gatekeeper::PolicySetBuilder b;
//   b.add_objects(files.objects, errors, &unsupported, /*others_are_inventory=*/false);
//   auto set = b.build(errors);
//   auto review = gatekeeper::review_of_object(pod, ns, true);
//   auto outcome = set->review(review, {.enforcement_point = gatekeeper::kAuditEnforcementPoint});
//
// One concept per file: kube_object (reading objects), constraint_template,
// template_rules (Gatekeeper's compile rules), compiled_template (evaluation and
// de-duplication), constraint (parameters, enforcement actions), match,
// constraint_index (constraints by kind and namespace), review (input.review),
// policy_set, object_files, verify (gator suites), audit.

#include "engine/gatekeeper/audit.hpp"
#include "engine/gatekeeper/compiled_template.hpp"
#include "engine/gatekeeper/constraint.hpp"
#include "engine/gatekeeper/constraint_index.hpp"
#include "engine/gatekeeper/constraint_template.hpp"
#include "engine/gatekeeper/kube_object.hpp"
#include "engine/gatekeeper/match.hpp"
#include "engine/gatekeeper/object_files.hpp"
#include "engine/gatekeeper/policy_set.hpp"
#include "engine/gatekeeper/review.hpp"
#include "engine/gatekeeper/verify.hpp"
