#pragma once
// OPA's configuration file for `gavel serve -c FILE [--set k=v ...]` (YAML or
// JSON), the parts gavel implements:
//
//   services:        {name: {url, headers, credentials: {bearer: {token, token_path, scheme},
//                     client_tls: {cert, private_key}}, tls: {ca_cert, system_ca_required},
//                     allow_insecure_tls, response_header_timeout_seconds}}  (a map or a list with "name")
//   bundles:         {name: {service, resource, persist, size_limit_bytes,
//                     polling: {min_delay_seconds, max_delay_seconds},
//                     signing: {keyid, scope, exclude_files}}}
//   decision_logs:   {console, service, resource, partition_name, mask_decision,
//                     reporting: {min_delay_seconds, max_delay_seconds, upload_size_limit_bytes,
//                                 buffer_size_limit_bytes}}
//   status:          {service, console, partition_name, prometheus,
//                     prometheus_config: {collectors: {bundle_loading_duration_ns: {buckets}}}}
//   labels:          {k: v}     keys: {id: {key, algorithm, scope}}
//   persistence_directory, default_decision
//
// A key gavel does not know (a typo, or an OPA feature gavel lacks: discovery,
// plugins, distributed_tracing ...) is an error naming it, not silently ignored.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/bundle/signatures.hpp"
#include "runtime/value.hpp"

namespace gavel::webhook::plugins {

struct ServiceConfig {
    std::string name;
    std::string url;  // scheme://host[:port][/prefix]
    std::vector<std::pair<std::string, std::string>> headers;
    std::string bearer_token;       // credentials.bearer.token, or read from token_path
    std::string bearer_token_path;  // re-read for every request (rotated tokens)
    std::string bearer_scheme = "Bearer";
    std::string client_cert_file, client_key_file, ca_cert_file;
    bool system_ca_required = false;
    bool allow_insecure_tls = false;
    std::chrono::seconds response_header_timeout{10};
};

struct BundleConfig {
    std::string name;
    std::string service;
    std::string resource;  // default bundles/<name>
    bool persist = false;
    std::int64_t size_limit_bytes = std::int64_t(1) << 30;
    std::int64_t min_delay_seconds = 60, max_delay_seconds = 120;
    bool signed_bundle = false;  // a signing section: verify with `keys`
    std::string signing_keyid, signing_scope;
    std::vector<std::string> exclude_files;
};

struct DecisionLogConfig {
    bool enabled = false;  // the section is present
    bool console = false;
    std::string service;  // empty: no upload
    std::string resource = "/logs";
    std::string mask_decision = "/system/log/mask";
    std::int64_t min_delay_seconds = 300, max_delay_seconds = 600;
    std::int64_t upload_size_limit_bytes = 32768;
    // OPA's default is unlimited; gavel bounds memory: events beyond are dropped (oldest first) and counted.
    std::int64_t buffer_size_limit_bytes = std::int64_t(64) << 20;
};

struct StatusConfig {
    bool enabled = false;
    std::string service;
    bool console = false;
    std::string partition_name;
    // OPA's status metrics on /metrics (bundle_loaded_counter, plugin_status_gauge ...), with
    // prometheus_config.collectors.bundle_loading_duration_ns.buckets (empty: OPA's default).
    bool prometheus = false;
    std::vector<double> bundle_loading_buckets;
};

struct Config {
    std::map<std::string, ServiceConfig> services;
    std::vector<std::string> service_order;  // as written (OPA defaults decision_logs to the first)
    std::vector<BundleConfig> bundles;
    DecisionLogConfig decision_logs;
    StatusConfig status;
    std::map<std::string, std::string> labels;
    std::map<std::string, engine::bundle::KeyConfig> keys;
    std::string persistence_directory = ".opa";
    std::string default_decision = "/system/main";
    std::string default_authorization_decision = "/system/authz/allow";
    runtime::Value document = runtime::Value::empty_object();  // as read, with the overrides
};

// Reads a YAML or JSON config file into a document.
std::optional<runtime::Value> read_config_file(const std::string& path, std::string& error);
// Applies one `--set a.b.c=value` (values: true/false, integers, null, else strings;
// several assignments separated by ',').
bool apply_set(runtime::Value& doc, const std::string& assignment, std::string& error);
// --set-file key=FILE: the file's content, as a string, at the key (OPA's --set-file).
bool apply_set_file(runtime::Value& doc, const std::string& assignment, std::string& error);
// The document as a Config; every problem (unknown keys below OPA's sections included) in `error`.
std::optional<Config> parse_config(const runtime::Value& doc, std::string& error);

// OPA's active configuration (GET /v1/config): the document with its defaults and the
// labels, without service credentials and key material.
runtime::Value active_config(const runtime::Value& doc, const std::map<std::string, std::string>& labels,
                             const std::string& default_decision, const std::string& default_authorization_decision);

}  // namespace gavel::webhook::plugins
