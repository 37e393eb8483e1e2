#pragma once
// Templates, their Constraints and the inventory, compiled: what a review runs
// against. Immutable once built, shared by all threads; a change builds a new
// set (templates are compiled again only when the inventory changed, since
// data.inventory is part of their program).
//
// A review, as Gatekeeper's client runs one: the constraints that may match
// the object come from an index by kind and namespace (constraint_index.hpp);
// per template (skipped when its operations exclude the request's, at the
// webhook), per such constraint enforced at the enforcement point, the match;
// a match error is the constraint's violation ("unable to match constraints:
// ..."); the template is evaluated once for all its matching constraints and
// each of their de-duplicated violations is a result. Results are sorted by
// constraint kind and name.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/gatekeeper/compiled_template.hpp"
#include "engine/gatekeeper/constraint.hpp"
#include "engine/gatekeeper/constraint_index.hpp"
#include "engine/gatekeeper/review.hpp"

namespace gavel::gatekeeper {

struct Violation {
    std::shared_ptr<const Constraint> constraint;
    std::string message;
    runtime::Value details;
    // What to do: the constraint's enforcementAction, or (when scoped) its actions at this point.
    std::vector<std::string> actions;
};

struct ReviewOptions {
    std::string_view enforcement_point = kWebhookEnforcementPoint;
    bool filter_operations = false;  // the webhook skips templates whose operations exclude the request's
    EvalControl control;
};

struct ReviewOutcome {
    std::vector<Violation> violations;
    std::optional<std::string> error;  // the review failed as a whole (timeout, unreadable result)
};

class PolicySet {
public:
    struct Entry {
        std::shared_ptr<const CompiledTemplate> compiled;
        std::vector<std::shared_ptr<const Constraint>> constraints;  // by name
    };

    PolicySet() = default;
    PolicySet(const PolicySet&) = delete;  // the index points into it
    PolicySet& operator=(const PolicySet&) = delete;

    ReviewOutcome review(const Review& review, const ReviewOptions& options) const;

    // The kinds' templates and constraints, by kind.
    const std::map<std::string, Entry>& entries() const { return entries_; }
    std::size_t constraint_count() const;
    // data.inventory: {cluster: {gv: {kind: {name: obj}}}, namespace: {ns: {gv: {kind: {name: obj}}}}}
    const runtime::Value& inventory() const { return inventory_; }
    // The v1 Namespace of that name in the inventory, or null.
    const runtime::Value* namespace_object(std::string_view name) const;

private:
    friend class PolicySetBuilder;
    // Files every constraint in the index, numbered in (kind, name) order: Gatekeeper's order of results.
    void index_constraints();

    std::map<std::string, Entry> entries_;
    struct Numbered {
        const Entry* entry;
        const std::shared_ptr<const Constraint>* constraint;
    };
    std::vector<Numbered> numbered_;  // by constraint number
    ConstraintIndex index_;
    runtime::Value inventory_ = runtime::Value::empty_object();
};

// Collects templates, constraints and inventory objects; build() compiles.
class PolicySetBuilder {
public:
    // Errors come back with the object's file:line.
    bool add_template(const SourcedObject& object, lang::Diagnostics& errors,
                      std::vector<std::string>* unsupported = nullptr);
    void add_template(ConstraintTemplate t);
    bool add_constraint(const SourcedObject& object, lang::Diagnostics& errors);
    // An object for data.inventory (its kind and version required).
    bool add_inventory_object(const runtime::Value& object, std::string& error);
    void set_inventory(runtime::Value inventory) { inventory_ = std::move(inventory); }
    // Adds whatever the objects are: templates, constraints (after all templates), or inventory.
    void add_objects(const std::vector<SourcedObject>& objects, lang::Diagnostics& errors,
                     std::vector<std::string>* unsupported, bool others_are_inventory);

    // Compiles each template (reusing `previous`' compilations when the inventory is unchanged).
    std::shared_ptr<const PolicySet> build(lang::Diagnostics& errors, const PolicySet* previous = nullptr) const;

private:
    std::map<std::string, ConstraintTemplate> templates_;  // by kind
    std::vector<SourcedObject> constraints_;
    runtime::Value inventory_ = runtime::Value::empty_object();
};

// Builds data.inventory's path for an object: cluster/<gv>/<kind>/<name> or namespace/<ns>/<gv>/<kind>/<name>.
bool inventory_path(const runtime::Value& object, std::vector<std::string>& path, std::string& error);

}  // namespace gavel::gatekeeper
