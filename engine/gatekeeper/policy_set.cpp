#include "engine/gatekeeper/policy_set.hpp"

#include <algorithm>
#include <span>

#include "support/small_vector.hpp"

namespace gavel::gatekeeper {

using runtime::Value;

namespace {

// `doc` with `value` placed at `path` (objects created on the way; a non-object on the way is replaced).
Value placed(const Value& doc, const std::vector<std::string>& path, std::size_t i, const Value& value) {
    if (i == path.size()) return value;
    Value key = Value::string(path[i]);
    const Value* child = doc.is_object() ? doc.find(key) : nullptr;
    runtime::ObjectBuilder b(doc.size() + 1);
    if (doc.is_object())
        for (const auto& e : doc.object_entries())
            if (e.key != key) b.insert(e.key, e.value);
    b.insert(key, placed(child ? *child : Value::empty_object(), path, i + 1, value));
    return b.build();
}

bool operation_allowed(const ConstraintTemplate& t, std::string_view operation) {
    if (t.operations.empty()) return true;
    return std::any_of(t.operations.begin(), t.operations.end(),
                       [&](const std::string& op) { return op == operation || op == "*"; });
}

}  // namespace

bool inventory_path(const Value& object, std::vector<std::string>& path, std::string& error) {
    auto gvk = gvk_of(object);
    std::string name(object_name(object));
    if (gvk.version.empty()) {
        error = "invalid request object: resource " + name + " has no version";
        return false;
    }
    if (gvk.kind.empty()) {
        error = "invalid request object: resource " + name + " has no kind";
        return false;
    }
    std::string ns(object_namespace(object));
    if (ns.empty()) path = {"cluster", gvk.api_version(), gvk.kind, name};
    else path = {"namespace", ns, gvk.api_version(), gvk.kind, name};
    return true;
}

std::size_t PolicySet::constraint_count() const {
    std::size_t n = 0;
    for (const auto& [kind, e] : entries_) n += e.constraints.size();
    return n;
}

const Value* PolicySet::namespace_object(std::string_view name) const {
    if (name.empty()) return nullptr;
    const Value* v = value_at(inventory_, {"cluster", "v1", "Namespace"});
    if (!v || !v->is_object()) return nullptr;
    const Value* ns = v->find(name);
    return ns && ns->is_object() ? ns : nullptr;
}

void PolicySet::index_constraints() {
    numbered_.clear();
    index_ = ConstraintIndex();
    for (const auto& [kind, entry] : entries_)
        for (const auto& constraint : entry.constraints) {
            index_.add(static_cast<std::uint32_t>(numbered_.size()), constraint->match);
            numbered_.push_back({&entry, &constraint});
        }
}

ReviewOutcome PolicySet::review(const Review& review, const ReviewOptions& options) const {
    ReviewOutcome out;
    const Value* namespace_object = review.namespace_object.is_null() ? nullptr : &review.namespace_object;
    if (!namespace_object && !review.namespace_name.empty())
        namespace_object = this->namespace_object(review.namespace_name);
    // The constraints that may match the object or the old object (matchAny); all when there is neither.
    ConstraintIndex::Ids candidates;
    bool any_object = false;
    for (const Value* obj : {&review.object, &review.old_object}) {
        if (obj->is_null()) continue;
        any_object = true;
        std::string_view api_version = string_at(*obj, {"apiVersion"});
        std::string_view group = api_version.find('/') == std::string_view::npos
                                     ? std::string_view{}
                                     : api_version.substr(0, api_version.find('/'));
        std::optional<std::string_view> ns;
        if (index_.by_namespace()) ns = namespace_for(Matchable{obj, namespace_object, review.source});
        index_.candidates(group, string_at(*obj, {"kind"}), ns, candidates);
    }
    if (!any_object)
        for (std::uint32_t id = 0; id < numbered_.size(); ++id) candidates.push_back(id);

    // A candidate of the template being reviewed: a match error, or matched (evaluated with the others).
    struct Reviewed {
        const std::shared_ptr<const Constraint>* constraint;
        std::vector<std::string> actions;
        std::string match_error;
    };
    boost::container::small_vector<Reviewed, 8> reviewed;
    boost::container::small_vector<Value, 8> parameters;  // of the matched ones, in order
    for (std::size_t next = 0; next < candidates.size();) {
        const Entry& entry = *numbered_[candidates[next]].entry;
        std::size_t end = next;
        while (end < candidates.size() && numbered_[candidates[end]].entry == &entry) ++end;
        std::span<const std::uint32_t> ids(candidates.data() + next, end - next);
        next = end;
        if (options.filter_operations && !operation_allowed(entry.compiled->source(), review.operation)) continue;
        reviewed.clear();
        parameters.clear();
        for (std::uint32_t id : ids) {
            const auto& constraint = *numbered_[id].constraint;
            std::vector<std::string> actions;
            if (constraint->scoped()) {
                actions = constraint->actions_at(options.enforcement_point);
                if (actions.empty()) continue;
            } else {
                actions = {constraint->enforcement_action};
            }
            // Matched if the object or the old object matches (matchAny).
            MatchOutcome m;
            int objects = 0;
            for (const Value* obj : {&review.object, &review.old_object}) {
                if (obj->is_null()) continue;
                ++objects;
                m = matches(constraint->match, Matchable{obj, namespace_object, review.source});
                if (!m.error.empty()) {
                    m.error = "unable to match constraints: error matching the requested object: " +
                              std::string(object_name(*obj)) + " :failed to run Match criteria: " + m.error;
                    break;
                }
                if (m.matched) break;
            }
            if (objects == 0)
                m.error =
                    "unable to match constraints: invalid request object: neither object nor old object are defined";
            if (!m.error.empty()) {
                reviewed.push_back({numbered_[id].constraint, std::move(actions), std::move(m.error)});
                continue;
            }
            if (!m.matched) continue;
            reviewed.push_back({numbered_[id].constraint, std::move(actions), {}});
            parameters.push_back(constraint->parameters);
        }
        TemplateEval eval;
        if (!parameters.empty()) {
            eval = entry.compiled->evaluate(review.request, {parameters.data(), parameters.size()}, options.control);
            if (eval.cancelled || eval.review_error) {
                out.error = eval.cancelled ? eval.eval_error : eval.review_error;
                return out;
            }
        }
        std::size_t evaluated = 0;
        for (auto& r : reviewed) {
            if (!r.match_error.empty()) {
                out.violations.push_back(
                    {*r.constraint, std::move(r.match_error), Value::empty_object(), std::move(r.actions)});
                continue;
            }
            std::size_t c = evaluated++;
            if (eval.eval_error) {
                out.violations.push_back(
                    {*r.constraint, *eval.eval_error, Value::empty_object(), std::move(r.actions)});
                continue;
            }
            for (auto& v : eval.violations[c])
                out.violations.push_back({*r.constraint, std::move(v.msg), std::move(v.details), r.actions});
        }
    }
    // Constraints are numbered by kind and name: the results are in Gatekeeper's order already.
    return out;
}

bool PolicySetBuilder::add_template(const SourcedObject& object, lang::Diagnostics& errors,
                                    std::vector<std::string>* unsupported) {
    TemplateRead t = read_template(object);
    if (!t.value) {
        if (t.unsupported && unsupported) {
            unsupported->push_back(
                file_error(object.file, object.line, std::string(object_name(object.value)) + ": " + t.error).message);
            return false;
        }
        errors.add(file_error(object.file, object.line, t.error));
        return false;
    }
    add_template(std::move(*t.value));
    return true;
}

void PolicySetBuilder::add_template(ConstraintTemplate t) { templates_[t.kind] = std::move(t); }

bool PolicySetBuilder::add_constraint(const SourcedObject& object, lang::Diagnostics&) {
    constraints_.push_back(object);
    return true;
}

bool PolicySetBuilder::add_inventory_object(const Value& object, std::string& error) {
    std::vector<std::string> path;
    if (!inventory_path(object, path, error)) return false;
    inventory_ = placed(inventory_, path, 0, object);
    return true;
}

void PolicySetBuilder::add_objects(const std::vector<SourcedObject>& objects, lang::Diagnostics& errors,
                                   std::vector<std::string>* unsupported, bool others_are_inventory) {
    for (const auto& o : objects) {
        if (is_template_object(o.value)) add_template(o, errors, unsupported);
        else if (is_constraint_object(o.value)) add_constraint(o, errors);
        else if (others_are_inventory) {
            std::string error;
            if (!add_inventory_object(o.value, error)) errors.add(file_error(o.file, o.line, error));
        }
    }
}

std::shared_ptr<const PolicySet> PolicySetBuilder::build(lang::Diagnostics& errors, const PolicySet* previous) const {
    auto set = std::make_shared<PolicySet>();
    set->inventory_ = inventory_;
    // A template that does not read data.inventory is compiled again only when it changed.
    bool same_inventory = previous && previous->inventory_ == inventory_;
    for (const auto& [kind, t] : templates_) {
        std::shared_ptr<const CompiledTemplate> compiled;
        if (previous) {
            auto it = previous->entries_.find(kind);
            const ConstraintTemplate* old = it == previous->entries_.end() ? nullptr : &it->second.compiled->source();
            bool same_data = old && (same_inventory || !it->second.compiled->reads_inventory());
            if (same_data && old->rego == t.rego && old->libs == t.libs && old->rego_v1 == t.rego_v1 &&
                old->name == t.name && old->operations == t.operations && old->parameters_schema == t.parameters_schema)
                compiled = it->second.compiled;
        }
        if (!compiled) {
            lang::Diagnostics template_errors;
            compiled = CompiledTemplate::compile(t, inventory_, template_errors);
            if (!compiled) {
                for (auto d : template_errors) {
                    if (d.file.empty() || d.file == t.file) d = file_error(t.file, t.line, t.name + ": " + d.message);
                    errors.add(std::move(d));
                }
                continue;
            }
        }
        set->entries_[kind].compiled = std::move(compiled);
    }
    std::map<std::string, std::map<std::string, std::shared_ptr<const Constraint>>> by_kind;
    for (const auto& o : constraints_) {
        auto kind = gvk_of(o.value).kind;
        auto it = templates_.find(kind);
        ConstraintRead c = read_constraint(o, it == templates_.end() ? nullptr : &it->second);
        if (!c.value) {
            errors.add(file_error(o.file, o.line, c.error));
            continue;
        }
        if (it == templates_.end()) {
            std::string lower = kind;
            for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            errors.add(file_error(o.file, o.line,
                                  "the constraint " + c.value->name +
                                      " needs a missing ConstraintTemplate: template \"" + lower + "\" not found"));
            continue;
        }
        if (!set->entries_.count(kind)) continue;  // its template did not compile (reported above)
        std::string name = c.value->name;          // before the move below
        by_kind[kind][name] = std::make_shared<const Constraint>(std::move(*c.value));
    }
    for (auto& [kind, constraints] : by_kind)
        for (auto& [name, c] : constraints) set->entries_[kind].constraints.push_back(std::move(c));
    set->index_constraints();
    return set;
}

}  // namespace gavel::gatekeeper
