#include "webhook/policy_store.hpp"

#include <algorithm>
#include <set>

#include "engine/bundle/data_placement.hpp"
#include "engine/bundle/file_hash.hpp"
#include "engine/bundle/roots.hpp"
#include "runtime/json.hpp"
#include "webhook/json_patch.hpp"
#include "webhook/log.hpp"

namespace gavel::webhook {

using runtime::Value;

namespace {

WriteResult failure_of(int status, std::string code, std::string message) {
    WriteResult r;
    r.status = status;
    r.code = std::move(code);
    r.message = std::move(message);
    return r;
}

}  // namespace

PolicyStore::PolicyStore(EngineOptions options, std::vector<std::string> warm_queries)
    : engine_(options), warm_queries_(std::move(warm_queries)) {
    std::lock_guard lock(mutex_);
    publish();
}

PolicyStore::Query PolicyStore::query(const std::string& text, bool cache, const Engine::QueryOptions& options) {
    Query out;
    out.snapshot = current();
    {
        std::lock_guard lock(out.snapshot->cache_mutex);
        auto it = out.snapshot->queries.find(text);
        if (it != out.snapshot->queries.end()) {
            out.query = it->second;
            return out;
        }
    }
    // Prepare against the engine, which always holds the newest published world.
    std::lock_guard lock(mutex_);
    out.snapshot = current();
    auto prepared = engine_.prepare(text, options);
    if (!prepared.ok()) {
        out.errors = std::move(prepared.diagnostics);
        return out;
    }
    out.query = *prepared.value;
    std::lock_guard cache_lock(out.snapshot->cache_mutex);
    if (cache && out.snapshot->queries.size() < kMaxCached) out.snapshot->queries.emplace(text, *prepared.value);
    return out;
}

PolicyStore::PartialQuery PolicyStore::prepare_partial(const std::string& text, const PartialQueryOptions& options) {
    PartialQuery out;
    std::lock_guard lock(mutex_);
    out.snapshot = current();
    auto prepared = engine_.prepare_partial(text, options);
    if (!prepared.ok()) {
        out.errors = std::move(prepared.diagnostics);
        return out;
    }
    out.query = std::move(*prepared.value);
    return out;
}

partial::FilterAnnotations PolicyStore::filter_annotations(const std::vector<std::string>& path) {
    std::lock_guard lock(mutex_);
    return engine_.filter_annotations(path);
}

void PolicyStore::log_admission_warnings() {
    std::lock_guard lock(mutex_);
    log_admission_warnings_ = true;
    logged_warnings_.clear();
    warn_about_admission_rules(*current_);
}

void PolicyStore::warn_about_admission_rules(const Snapshot& snap) {
    if (!log_admission_warnings_) return;
    std::set<std::string> now;
    for (const auto& m : snap.misspelt_rules) {
        std::string location = m.file + ":" + std::to_string(m.line) + ":" + std::to_string(m.col);
        std::string text = m.package + ": " + location + ": " + misspelling_text(m);
        if (now.insert(text).second && !logged_warnings_.count(text))
            log_line("warn", "a rule looks like a misspelt admission rule",
                     {{"package", Value::string(m.package)},
                      {"rule", Value::string(m.name)},
                      {"resembles", Value::string(m.resembles)},
                      {"location", Value::string(location)}});
    }
    for (const auto& [package, rules] : snap.conventional_rules) {
        if (!validates(rules) || can_deny(rules)) continue;
        std::string text = package + ": warns but never denies";
        if (now.insert(text).second && !logged_warnings_.count(text))
            log_line("warn", "a package warns but never denies: it defines warn and no deny or violation rule",
                     {{"package", Value::string(package)}});
    }
    logged_warnings_ = std::move(now);
}

void PolicyStore::publish() {
    auto snap = std::make_shared<Snapshot>();
    snap->generation = ++generation_;
    snap->policies = policies_;
    snap->data = engine_.data();
    for (const auto& [name, b] : bundles_) {
        snap->bundle_revisions[name] = b.revision;
        snap->bundle_roots[name] = b.roots;
    }
    const std::vector<RuleInfo> all_rules = engine_.rules();
    for (const auto& rule : all_rules) {
        snap->rule_paths.insert(rule.path);
        auto& list = snap->conventional_rules[rule.package];
        const auto& names = conventional_rule_names();
        if (rule.function || std::find(names.begin(), names.end(), rule.name) == names.end()) continue;
        bool seen = false;
        for (auto& r : list)
            if (r.name == rule.name) {
                r.multi_value = r.multi_value && rule.multi_value;
                seen = true;
            }
        if (!seen) list.push_back({rule.name, rule.multi_value && rule.path == rule.package + "." + rule.name});
    }
    std::string material;
    for (const auto& [id, text] : policies_) {
        material += id;
        material.push_back('\0');
        material += text;
        material.push_back('\0');
    }
    material += directory_hash_;
    std::string error;  // none: SHA-256 is always known
    snap->config_hash = engine::bundle::hash_bytes(material, engine::bundle::kDefaultHashAlgorithm, error).value_or("");
    std::vector<std::string> warm = warm_queries_;
    // The admission queries of every package with conventional rules, so that the first
    // request after a reload does not wait for the writers' mutex.
    for (const auto& [package, rules] : snap->conventional_rules)
        if (!rules.empty() && warm.size() < kMaxCached) warm.push_back(conventional_rules_query(package, rules));
    for (const auto& q : warm) {
        auto prepared = engine_.prepare(q);
        if (prepared.ok()) snap->queries.emplace(q, *prepared.value);
    }
    snap->misspelt_rules = misspelt_rules(all_rules);
    warn_about_admission_rules(*snap);
    std::atomic_store(&current_, std::shared_ptr<const Snapshot>(std::move(snap)));
}

Engine::PolicyOptions PolicyStore::policy_options(const std::string& id) const {
    auto it = v0_policies_.find(id);
    return Engine::PolicyOptions{it == v0_policies_.end() ? std::nullopt : std::optional<bool>(it->second)};
}

WriteResult PolicyStore::commit_or_rollback(const std::map<std::string, std::string>& old_policies,
                                            const Value& old_data, Write write,
                                            const std::map<std::string, bool>* old_v0) {
    lang::Diagnostics errors = engine_.check();
    if (errors.empty()) {
        publish();
        return {};
    }
    if (old_v0) v0_policies_ = *old_v0;
    for (const auto& [id, text] : policies_)
        if (!old_policies.count(id)) engine_.remove_policy(id);
    for (const auto& [id, text] : old_policies) {
        auto it = policies_.find(id);
        if (it == policies_.end() || it->second != text) engine_.add_policy(id, text, policy_options(id));
    }
    policies_ = old_policies;
    if (!old_data.identical(engine_.data())) engine_.set_data(old_data);
    // As OPA's server: a policy write lists the compile errors; a data write names them in its message.
    if (write == Write::Data) return failure_of(400, "invalid_parameter", errors.opa_text());
    WriteResult r = failure_of(400, "invalid_parameter", "error(s) occurred while compiling module(s)");
    r.errors = std::move(errors);
    return r;
}

WriteResult PolicyStore::put_policy(const std::string& id, std::string text) {
    std::lock_guard lock(mutex_);
    auto old = policies_;
    lang::Diagnostics parse_errors = engine_.add_policy(id, text);
    if (!parse_errors.empty()) {
        WriteResult r = failure_of(400, "invalid_parameter", "error(s) occurred while parsing module(s)");
        r.errors = std::move(parse_errors);
        return r;
    }
    policies_[id] = std::move(text);
    return commit_or_rollback(old, engine_.data());
}

WriteResult PolicyStore::delete_policy(const std::string& id) {
    std::lock_guard lock(mutex_);
    if (!policies_.count(id))
        return failure_of(404, "resource_not_found", "storage_not_found_error: policy id \"" + id + "\"");
    auto old = policies_;
    engine_.remove_policy(id);
    policies_.erase(id);
    return commit_or_rollback(old, engine_.data());
}

WriteResult PolicyStore::replace_directory_content(std::map<std::string, std::string> policies, Value data,
                                                   const std::string& content_hash,
                                                   const std::map<std::string, bool>& v0) {
    std::lock_guard lock(mutex_);
    auto old_policies = policies_;
    Value old_data = engine_.data();
    auto old_hash = directory_hash_;
    lang::Diagnostics parse_errors;
    for (const auto& id : directory_ids_)
        if (!policies.count(id)) {
            engine_.remove_policy(id);
            policies_.erase(id);
        }
    auto old_v0 = v0_policies_;
    for (const auto& id : directory_ids_) v0_policies_.erase(id);
    for (const auto& [id, dialect] : v0) v0_policies_[id] = dialect;
    for (auto& [id, text] : policies) {
        auto errs = engine_.add_policy(id, text, policy_options(id));
        if (!errs.empty()) parse_errors.append(errs);
        else policies_[id] = text;
    }
    // The directory owns its top-level keys; everything else (REST writes) stays.
    std::set<std::string> keys;
    for (const auto& e : directory_data_.object_entries()) keys.insert(std::string(e.key.as_string()));
    for (const auto& e : data.object_entries()) keys.insert(std::string(e.key.as_string()));
    std::optional<std::string> data_error;
    for (const auto& key : keys) {
        if (const Value* v = data.find(key)) data_error = engine_.set_data(*v, {key});
        else engine_.remove_data({key});
        if (data_error) break;
    }
    if (!parse_errors.empty() || data_error) {
        // Undo: commit_or_rollback restores policies and data when it sees errors.
        for (const auto& [id, text] : policies_)
            if (!old_policies.count(id)) engine_.remove_policy(id);
        v0_policies_ = old_v0;
        for (const auto& [id, text] : old_policies) engine_.add_policy(id, text, policy_options(id));
        policies_ = old_policies;
        engine_.set_data(old_data);
        WriteResult r = failure_of(400, "invalid_parameter",
                                   data_error ? *data_error : "error(s) occurred while parsing module(s)");
        r.errors = std::move(parse_errors);
        return r;
    }
    directory_hash_ = content_hash;
    WriteResult r = commit_or_rollback(old_policies, old_data, Write::Policy, &old_v0);
    if (!r.ok()) {
        directory_hash_ = old_hash;
        return r;
    }
    directory_ids_.clear();
    for (const auto& [id, text] : policies) directory_ids_.push_back(id);
    directory_data_ = std::move(data);
    return r;
}

WriteResult PolicyStore::activate_bundle(const std::string& name, const BundleContent& content) {
    return activate_bundles({{name, content}});
}

WriteResult PolicyStore::activate_bundles(const std::vector<std::pair<std::string, BundleContent>>& batch) {
    std::lock_guard lock(mutex_);
    auto overlap = [](const std::string& a, const std::string& b) {
        return failure_of(409, "bundle_error",
                          "detected overlapping roots in manifests for these bundles: [" + std::min(a, b) + ", " +
                              std::max(a, b) + "]");
    };
    std::set<std::string> names;
    for (const auto& [name, content] : batch) names.insert(name);
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const auto& [name, content] = batch[i];
        const engine::bundle::RootTrie mine(content.roots);
        for (const auto& [other, b] : bundles_) {
            if (names.count(other)) continue;  // replaced in this step
            for (const auto& r : b.roots)
                if (mine.overlaps(r)) return overlap(name, other);
        }
        for (std::size_t j = 0; j < i; ++j)
            for (const auto& r : batch[j].second.roots)
                if (mine.overlaps(r)) return overlap(name, batch[j].first);
    }
    auto old_policies = policies_;
    auto old_v0 = v0_policies_;
    Value old_data = engine_.data();
    auto restore = [&] {
        for (const auto& [id, text] : policies_)
            if (!old_policies.count(id)) engine_.remove_policy(id);
        v0_policies_ = old_v0;
        for (const auto& [id, text] : old_policies) engine_.add_policy(id, text, policy_options(id));
        policies_ = old_policies;
        engine_.set_data(old_data);
    };
    lang::Diagnostics parse_errors;
    std::vector<ActiveBundle> next;
    for (const auto& [name, content] : batch) {
        auto previous = bundles_.find(name);
        if (previous != bundles_.end())
            for (const auto& id : previous->second.ids) {
                engine_.remove_policy(id);
                policies_.erase(id);
                v0_policies_.erase(id);
            }
        ActiveBundle& active = next.emplace_back(ActiveBundle{{}, content.roots, content.revision});
        for (const auto& [id, text, v0] : content.modules) {
            v0_policies_[id] = v0;
            auto errs = engine_.add_policy(id, text, policy_options(id));
            if (!errs.empty()) parse_errors.append(errs);
            policies_[id] = text;
            active.ids.push_back(id);
        }
    }
    if (!parse_errors.empty()) {
        restore();
        WriteResult r = failure_of(400, "invalid_parameter", "error(s) occurred while parsing module(s)");
        r.errors = std::move(parse_errors);
        return r;
    }
    // Each bundle owns the data below its roots, those it had and those it has now.
    for (const auto& [name, content] : batch) {
        std::vector<std::string> owned = bundles_.count(name) ? bundles_[name].roots : std::vector<std::string>{};
        owned.insert(owned.end(), content.roots.begin(), content.roots.end());
        std::string placement_error;
        auto placed =
            engine::bundle::place_bundle_data(engine_.data(), owned, content.roots, content.data, placement_error);
        std::optional<std::string> data_error = placed ? engine_.set_data(*placed) : placement_error;
        if (data_error) {
            restore();
            return failure_of(400, "invalid_parameter", *data_error);
        }
    }
    auto old_bundles = bundles_;
    for (std::size_t i = 0; i < batch.size(); ++i) bundles_[batch[i].first] = std::move(next[i]);
    WriteResult r = commit_or_rollback(old_policies, old_data);
    if (!r.ok()) {
        bundles_ = old_bundles;
        v0_policies_ = old_v0;
    }
    return r;
}

WriteResult PolicyStore::put_data(const std::vector<std::string>& path, const Value& value, bool only_if_absent) {
    std::lock_guard lock(mutex_);
    Value old = engine_.data();
    if (only_if_absent && value_at(old, path)) return failure_of(304, "not_modified", "");
    if (auto err = engine_.set_data(value, path)) return failure_of(400, "invalid_parameter", *err);
    return commit_or_rollback(policies_, old, Write::Data);
}

WriteResult PolicyStore::delete_data(const std::vector<std::string>& path) {
    std::lock_guard lock(mutex_);
    Value old = engine_.data();
    if (!value_at(old, path))
        return failure_of(404, "resource_not_found",
                          "storage_not_found_error: " + json_pointer(path) + ": document does not exist");
    engine_.remove_data(path);
    return commit_or_rollback(policies_, old, Write::Data);
}

WriteResult PolicyStore::patch_data(const std::vector<std::string>& path, const Value& ops) {
    std::lock_guard lock(mutex_);
    Value old = engine_.data();
    std::string error;
    auto patched = apply_json_patch(old, ops, path, error);
    if (!patched) {
        bool missing = error.rfind("document does not exist", 0) == 0;
        return failure_of(missing ? 404 : 400, missing ? "resource_not_found" : "invalid_parameter",
                          missing ? "storage_not_found_error: " + error : error);
    }
    if (!patched->is_object()) return failure_of(400, "invalid_parameter", "data must be an object");
    engine_.set_data(*patched);
    return commit_or_rollback(policies_, old, Write::Data);
}

WriteResult PolicyStore::modify_data(const std::function<bool(Value& data, WriteResult& failure)>& change) {
    std::lock_guard lock(mutex_);
    Value old = engine_.data();
    Value data = old;
    WriteResult failure;
    if (!change(data, failure)) {
        if (failure.code.empty()) failure.code = "invalid_parameter";
        return failure;
    }
    if (auto err = engine_.set_data(data)) return failure_of(400, "invalid_parameter", *err);
    return commit_or_rollback(policies_, old, Write::Data);
}

std::optional<std::string> PolicyStore::module_ast_json(const std::string& id) {
    std::lock_guard lock(mutex_);
    if (!policies_.count(id)) return std::nullopt;
    return engine_.compiled_module_json(id);
}

}  // namespace gavel::webhook
