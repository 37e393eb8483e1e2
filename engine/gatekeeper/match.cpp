#include "engine/gatekeeper/match.hpp"

#include <algorithm>

#include "engine/gatekeeper/kube_object.hpp"

namespace gavel::gatekeeper {

using runtime::Value;

bool wildcard_matches(std::string_view w, std::string_view candidate) {
    bool front = !w.empty() && w.front() == '*';
    bool back = w.size() > 1 && w.back() == '*';
    if (w == "*") return true;
    if (front && back) return candidate.find(w.substr(1, w.size() - 2)) != std::string_view::npos;
    if (front) return candidate.ends_with(w.substr(1));
    if (back) return candidate.starts_with(w.substr(0, w.size() - 1));
    return w == candidate;
}

bool wildcard_matches_generate_name(std::string_view w, std::string_view candidate) {
    bool front = !w.empty() && w.front() == '*';
    bool back = !w.empty() && w.back() == '*';
    if (front && back && w.size() >= 2) return candidate.find(w.substr(1, w.size() - 2)) != std::string_view::npos;
    if (back) return candidate.starts_with(w.substr(0, w.size() - 1));
    return false;
}

bool LabelSelector::matches(const Value* labels) const {
    for (const auto& r : requirements) {
        const Value* v = labels && labels->is_object() ? labels->find(r.key) : nullptr;
        std::string_view value = v && v->is_string() ? v->as_string() : std::string_view{};
        bool present = v != nullptr;
        auto in_values = [&] { return std::find(r.values.begin(), r.values.end(), value) != r.values.end(); };
        switch (r.op) {
            case LabelRequirement::Op::Equals:
            case LabelRequirement::Op::In:
                if (!present || !in_values()) return false;
                break;
            case LabelRequirement::Op::NotIn:
                if (present && in_values()) return false;
                break;
            case LabelRequirement::Op::Exists:
                if (!present) return false;
                break;
            case LabelRequirement::Op::DoesNotExist:
                if (present) return false;
                break;
        }
    }
    return true;
}

namespace {

bool string_list(const Value* v, std::vector<std::string>& out, std::string_view what, std::string& error) {
    if (!v || v->is_null()) return true;
    if (!v->is_array()) {
        error = std::string(what) + " must be a list of strings";
        return false;
    }
    for (const auto& item : v->array_elements()) {
        if (!item.is_string()) {
            error = std::string(what) + " must be a list of strings";
            return false;
        }
        out.emplace_back(item.as_string());
    }
    return true;
}

}  // namespace

std::optional<LabelSelector> parse_label_selector(const Value& selector, std::string& error) {
    if (!selector.is_object()) {
        error = "a label selector must be an object";
        return std::nullopt;
    }
    LabelSelector out;
    if (const Value* labels = selector.find("matchLabels"); labels && !labels->is_null()) {
        if (!labels->is_object()) {
            error = "matchLabels must be an object of strings";
            return std::nullopt;
        }
        for (const auto& e : labels->object_entries()) {
            if (!e.value.is_string()) {
                error = "matchLabels must be an object of strings";
                return std::nullopt;
            }
            out.requirements.push_back(
                {std::string(e.key.as_string()), LabelRequirement::Op::Equals, {std::string(e.value.as_string())}});
        }
    }
    if (const Value* exprs = selector.find("matchExpressions"); exprs && !exprs->is_null()) {
        if (!exprs->is_array()) {
            error = "matchExpressions must be a list";
            return std::nullopt;
        }
        for (const auto& e : exprs->array_elements()) {
            LabelRequirement r;
            r.key = std::string(string_at(e, {"key"}));
            std::string_view op = string_at(e, {"operator"});
            if (op == "In") r.op = LabelRequirement::Op::In;
            else if (op == "NotIn") r.op = LabelRequirement::Op::NotIn;
            else if (op == "Exists") r.op = LabelRequirement::Op::Exists;
            else if (op == "DoesNotExist") r.op = LabelRequirement::Op::DoesNotExist;
            else {
                error = '"' + std::string(op) + "\" is not a valid label selector operator";
                return std::nullopt;
            }
            if (!string_list(e.is_object() ? e.find("values") : nullptr, r.values, "values", error))
                return std::nullopt;
            bool set_op = r.op == LabelRequirement::Op::In || r.op == LabelRequirement::Op::NotIn;
            if (r.key.empty()) {
                error = "matchExpressions: key: Invalid value: \"\": name part must be non-empty";
                return std::nullopt;
            }
            if (set_op && r.values.empty()) {
                error =
                    "matchExpressions: values: Required value: must be specified when `operator` is 'In' or 'NotIn'";
                return std::nullopt;
            }
            if (!set_op && !r.values.empty()) {
                error =
                    "matchExpressions: values: Forbidden: may not be specified when `operator` is 'Exists' or "
                    "'DoesNotExist'";
                return std::nullopt;
            }
            out.requirements.push_back(std::move(r));
        }
    }
    return out;
}

bool parse_match(const Value& match, Match& out, std::string& error) {
    if (match.is_null()) return true;
    if (!match.is_object()) {
        error = "spec.match must be an object";
        return false;
    }
    if (const Value* kinds = match.find("kinds"); kinds && !kinds->is_null()) {
        if (!kinds->is_array()) {
            error = "spec.match.kinds must be a list";
            return false;
        }
        for (const auto& k : kinds->array_elements()) {
            KindsEntry entry;
            if (!k.is_object()) {
                error = "spec.match.kinds entries must be objects";
                return false;
            }
            if (!string_list(k.find("apiGroups"), entry.api_groups, "spec.match.kinds.apiGroups", error)) return false;
            if (!string_list(k.find("kinds"), entry.kinds, "spec.match.kinds.kinds", error)) return false;
            out.kinds.push_back(std::move(entry));
        }
    }
    if (!string_list(match.find("namespaces"), out.namespaces, "spec.match.namespaces", error)) return false;
    if (!string_list(match.find("excludedNamespaces"), out.excluded_namespaces, "spec.match.excludedNamespaces", error))
        return false;
    out.scope = std::string(string_at(match, {"scope"}));
    out.name = std::string(string_at(match, {"name"}));
    out.source = std::string(string_at(match, {"source"}));
    for (auto [field, target] :
         {std::pair{"labelSelector", &out.label_selector}, std::pair{"namespaceSelector", &out.namespace_selector}}) {
        const Value* selector = match.find(field);
        if (!selector || selector->is_null()) continue;
        std::string why;
        *target = parse_label_selector(*selector, why);
        if (!*target) {
            error = "spec.match." + std::string(field) + ": " + why;
            return false;
        }
    }
    if (!out.source.empty() && out.source != "All" && out.source != "Original" && out.source != "Generated") {
        error = "invalid source field \"" + out.source + "\"";
        return false;
    }
    return true;
}

namespace {

bool contains(const std::vector<std::string>& set, std::string_view s) {
    return std::find(set.begin(), set.end(), s) != set.end();
}

bool kinds_match(const Match& m, const Value& object) {
    if (m.kinds.empty()) return true;
    auto gvk = gvk_of(object);
    for (const auto& k : m.kinds) {
        bool kind = k.kinds.empty() || contains(k.kinds, "*") || contains(k.kinds, gvk.kind);
        if (!kind) continue;
        if (k.api_groups.empty() || contains(k.api_groups, "*") || contains(k.api_groups, gvk.group)) return true;
    }
    return false;
}

}  // namespace

std::optional<std::string_view> namespace_for(const Matchable& t) {
    if (is_namespace_object(*t.object)) return object_name(*t.object);
    if (t.namespace_object) return object_name(*t.namespace_object);
    if (auto ns = object_namespace(*t.object); !ns.empty()) return ns;
    return std::nullopt;
}

MatchOutcome matches(const Match& m, const Matchable& t) {
    const Value& obj = *t.object;
    if (!kinds_match(m, obj)) return {};

    bool has_namespace = !object_namespace(obj).empty() || t.namespace_object;
    bool is_ns = is_namespace_object(obj);
    if (m.scope == "Cluster" && !(is_ns || !has_namespace)) return {};
    if (m.scope == "Namespaced" && !(!is_ns && has_namespace)) return {};

    if (!m.namespaces.empty()) {
        if (auto ns = namespace_for(t)) {
            bool any = std::any_of(m.namespaces.begin(), m.namespaces.end(),
                                   [&](const std::string& w) { return wildcard_matches(w, *ns); });
            if (!any) return {};
        }
    }
    if (!m.excluded_namespaces.empty()) {
        if (auto ns = namespace_for(t))
            for (const auto& w : m.excluded_namespaces)
                if (wildcard_matches(w, *ns)) return {};
    }
    if (m.label_selector && !m.label_selector->matches(value_at(obj, {"metadata", "labels"}))) return {};
    if (m.namespace_selector) {
        if (is_ns) {
            if (!m.namespace_selector->matches(value_at(obj, {"metadata", "labels"}))) return {};
        } else if (t.namespace_object) {
            if (!m.namespace_selector->matches(value_at(*t.namespace_object, {"metadata", "labels"}))) return {};
        } else if (!object_namespace(obj).empty()) {
            return {false, "namespace selector for namespace-scoped object but missing Namespace"};
        }
    }
    if (!m.name.empty() && !wildcard_matches(m.name, object_name(obj)) &&
        !wildcard_matches_generate_name(m.name, string_at(obj, {"metadata", "generateName"})))
        return {};
    if (!m.source.empty() && m.source != "All" && m.source != t.source) return {};
    return {true, {}};
}

}  // namespace gavel::gatekeeper
