#pragma once
// The server's world: policies and data, compiled, as immutable snapshots.
//
// All writers (REST API, directory reload) serialise on one mutex, change the
// Engine, check that everything compiles, and either roll the change back or
// publish a new Snapshot by swapping one shared_ptr. Evaluations load the
// current snapshot and never take the writers' mutex: a request sees the old
// world or the new one, never half of a change.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <functional>
#include <optional>
#include <set>
#include <tuple>
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/diagnostics.hpp"
#include "engine/engine.hpp"
#include "runtime/value.hpp"
#include "webhook/admission.hpp"
#include "webhook/misspelt_rules.hpp"

namespace gavel::webhook {

struct Snapshot {
    std::uint64_t generation = 0;
    std::string config_hash;                                       // SHA-256 of policies and directory data, hex
    std::map<std::string, std::string> policies;                   // id -> source text
    runtime::Value data;                                           // the base data tree
    std::map<std::string, std::string> bundle_revisions;           // active bundles: name -> manifest revision
    std::map<std::string, std::vector<std::string>> bundle_roots;  // active bundles: name -> roots ("" is all of data)
    // Every rule's path ("data.a.b.p"): a document with rules is "undefined", without "missing".
    std::set<std::string> rule_paths;
    // The conventional admission rules (deny, warn ...) per package ("data.a.b"), and every
    // package that has rules at all (an unknown package in /validate/... is an error, not an allow).
    std::map<std::string, std::vector<ConventionalRule>> conventional_rules;
    // Rules whose name looks like a misspelt conventional one (webhook/misspelt_rules.hpp).
    std::vector<MisspeltRule> misspelt_rules;

    // Prepared queries of this world by query text: filled when published and on first use.
    mutable std::mutex cache_mutex;
    mutable std::unordered_map<std::string, PreparedQuery> queries;
};

// The outcome of a write, with the HTTP status the REST API answers.
struct WriteResult {
    int status = 200;
    std::string code;  // OPA's error code (invalid_parameter, resource_not_found ...); empty on success
    std::string message;
    lang::Diagnostics errors;  // compile errors with file:line:col
    bool ok() const { return code.empty(); }
};

class PolicyStore {
public:
    // `warm_queries` are prepared whenever a snapshot is published (the admission decision ...).
    PolicyStore(EngineOptions options, std::vector<std::string> warm_queries);

    std::shared_ptr<const Snapshot> current() const { return std::atomic_load(&current_); }

    // gavel serve: from now on each published world's doubtful admission packages are
    // logged as warnings, once per content (a warning that stays is not repeated at the
    // next reload): rules that look like a misspelt conventional rule, and packages that
    // warn but can never deny. (gavel run --server serves no admission reviews.)
    void log_admission_warnings();

    struct Query {
        std::shared_ptr<const Snapshot> snapshot;
        std::optional<PreparedQuery> query;
        lang::Diagnostics errors;
    };
    // The query prepared in the newest world (cached per snapshot, at most kMaxCached).
    Query query(const std::string& text, bool cache = true, const Engine::QueryOptions& options = {});

    struct PartialQuery {
        std::shared_ptr<const Snapshot> snapshot;
        std::optional<PreparedPartial> query;
        lang::Diagnostics errors;
    };
    // A query prepared for partial evaluation in the newest world (not cached:
    // each request brings its own unknowns).
    PartialQuery prepare_partial(const std::string& text, const PartialQueryOptions& options);
    // What the rule at `path` (below data) says in METADATA `compile:` blocks.
    partial::FilterAnnotations filter_annotations(const std::vector<std::string>& path);

    WriteResult put_policy(const std::string& id, std::string text);
    WriteResult delete_policy(const std::string& id);
    // Replaces every policy that came from the directories, and the directory data
    // (its top-level keys), in one step. `content_hash` identifies the directories' content.
    // `v0` gives a policy's dialect where a bundle manifest chose it.
    WriteResult replace_directory_content(std::map<std::string, std::string> policies, runtime::Value data,
                                          const std::string& content_hash, const std::map<std::string, bool>& v0 = {});

    // Activates a bundle (engine/bundle): its modules replace the bundle's previous ones
    // and its data replaces what is below its roots (old and new), compiled then swapped
    // in one step; on any error nothing changes. Roots may not overlap another active
    // bundle's (OPA's activation check).
    struct BundleContent {
        std::vector<std::tuple<std::string, std::string, bool>> modules;  // id, text, v0
        runtime::Value data = runtime::Value::empty_object();
        std::vector<std::string> roots;  // "" is the whole of data
        std::string revision;
    };
    WriteResult activate_bundle(const std::string& name, const BundleContent& content);
    // Several bundles in one step (`-b a -b b`, as OPA activates them together), so that
    // one may use another's rules or data; their roots may not overlap each other's either.
    WriteResult activate_bundles(const std::vector<std::pair<std::string, BundleContent>>& bundles);

    WriteResult put_data(const std::vector<std::string>& path, const runtime::Value& value, bool only_if_absent);
    WriteResult delete_data(const std::vector<std::string>& path);
    WriteResult patch_data(const std::vector<std::string>& path, const runtime::Value& ops);
    // Changes the data document under the writers' mutex: `change` edits a copy of it
    // (returning false, with `failure` filled, changes nothing); then the world is
    // compiled with it (rules and data must not conflict) and published, or rolled back.
    WriteResult modify_data(const std::function<bool(runtime::Value& data, WriteResult& failure)>& change);

    // The compiled module of policy `id` as OPA's AST JSON (GET /v1/policies' "ast"), or
    // nullopt when the policy is unknown or the modules do not compile.
    std::optional<std::string> module_ast_json(const std::string& id);

    static constexpr std::size_t kMaxCached = 256;

private:
    enum class Write : uint8_t { Policy, Data };  // what changed: how compile errors are reported
    // `old_v0`: the dialects to restore with the old policies (when this change set new ones).
    WriteResult commit_or_rollback(const std::map<std::string, std::string>& old_policies,
                                   const runtime::Value& old_data, Write write = Write::Policy,
                                   const std::map<std::string, bool>* old_v0 = nullptr);
    void publish();
    void warn_about_admission_rules(const Snapshot& snap);
    Engine::PolicyOptions policy_options(const std::string& id) const;

    std::mutex mutex_;  // writers only
    Engine engine_;
    std::map<std::string, std::string> policies_;  // id -> text, what the engine holds
    std::vector<std::string> directory_ids_;
    std::map<std::string, bool> v0_policies_;  // policies parsed in the v0 dialect (bundles say so per module)
    struct ActiveBundle {
        std::vector<std::string> ids, roots;
        std::string revision;
    };
    std::map<std::string, ActiveBundle> bundles_;
    runtime::Value directory_data_ = runtime::Value::empty_object();
    std::string directory_hash_;
    bool log_admission_warnings_ = false;
    std::set<std::string> logged_warnings_;  // those of the last world published
    std::vector<std::string> warm_queries_;
    std::uint64_t generation_ = 0;
    std::shared_ptr<const Snapshot> current_;
};

}  // namespace gavel::webhook
