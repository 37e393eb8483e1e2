// gavel run [--server] [PATH...]: OPA's `opa run`, flags and meaning. Without
// --server it is the REPL (cli/cmd_repl.cpp); with --server it is OPA's server:
// every --addr serves OPA's whole REST API, every --diagnostic-addr health and
// metrics. This file only turns flags into the server assembly's options
// (webhook/server_assembly.hpp). Flags of OPA's that make no sense for gavel
// are accepted and say so in --help: an OPA deployment's arguments never fail.

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/bundle_flags.hpp"
#include "cli/byte_size.hpp"
#include "cli/commands.hpp"
#include "stdlib/go_time.hpp"
#include "cli/repl_command.hpp"
#include "cli/version.hpp"
#include "webhook/listen_address.hpp"
#include "webhook/log.hpp"
#include "webhook/server_assembly.hpp"

namespace gavel::cli {

namespace {

struct RunCliOptions {
    bool server = false;
    std::vector<std::string> paths;
    std::vector<std::string> addrs;
    std::vector<std::string> diagnostic_addrs;
    std::string tls_cert, tls_key, tls_ca_cert, tls_refresh = "0";
    std::string authentication = "off", authorization = "off";
    std::string config_file;
    std::vector<std::string> set, set_file;
    bool bundle = false, watch = false, v0_compatible = false, v1_compatible = false;
    std::vector<std::string> ignore;
    int max_errors = 10;
    std::string log_level = "info", log_format = "json";
    std::string shutdown_grace = "10", shutdown_wait = "0";
    BundleVerifyFlags verify;
    // gavel's own limits (OPA has none): an evaluation's time and memory.
    std::string eval_timeout = "0", eval_memory_limit = "0";
    unsigned eval_workers = 0;
    // Accepted for OPA's deployments; nothing in gavel to set (see --help).
    int ready_timeout = 0;
    bool h2c = false, pprof = false, disable_telemetry = false, skip_version_check = false,
         skip_known_schema_check = false, optimize_store = false;
    std::string unix_socket_perm = "755", min_tls_version = "1.2", log_timestamp_format, history, format = "pretty";
    std::vector<std::string> cipher_suites;
    // The REPL's own (gavel repl's -d and -i).
    std::vector<std::string> data;
    std::string input;
};

// OPA takes seconds as a bare number for its shutdown periods; gavel also takes a Go duration.
std::optional<std::chrono::milliseconds> seconds_or_duration(const std::string& text) {
    if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
        try {
            return std::chrono::seconds(std::stoll(text));
        } catch (...) {
            return std::nullopt;
        }
    }
    auto d = stdlib::go_time::parse_flag_duration(text);
    if (!d || d->count() < 0) return std::nullopt;
    return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

int run_server_command(const RunCliOptions& o, bool addr_given) {
    if (!webhook::set_log_level(o.log_level) || !webhook::set_log_format(o.log_format))
        return 1;  // checked by the flags
    webhook::ServerAssemblyOptions a;
    a.command = "gavel run";
    a.version = gavel_version();
    a.build_commit = gavel_build_commit();
    a.self_signed = false;  // as OPA: an https listener needs --tls-cert-file
    a.opa_runtime = true;
    a.tls.cert_file = o.tls_cert;
    a.tls.key_file = o.tls_key;
    // OPA asks clients for certificates only with --authentication=tls.
    if (o.authentication == "tls") a.tls.client_ca_file = o.tls_ca_cert;
    if (o.tls_cert.empty() != o.tls_key.empty())
        return usage_error("--tls-cert-file and --tls-private-key-file go together");

    // OPA's default: localhost:8181 (every interface with --v0-compatible).
    std::vector<std::string> addrs = o.addrs;
    if (!addr_given) addrs = {o.v0_compatible ? ":8181" : "localhost:8181"};
    bool https_default = !o.tls_cert.empty();
    for (const auto& text : addrs) {
        webhook::ListenerConfig l;
        l.role = webhook::Listener::Api;
        l.name = "api";
        l.flag = "--addr";
        l.threads = 0;
        l.body_limit = std::size_t(256) << 20;  // OPA's server.decoding.max_length
        std::string error;
        if (!webhook::parse_listen_address(text, https_default, l.address, error)) return usage_error(error);
        a.listeners.push_back(std::move(l));
    }
    for (const auto& text : o.diagnostic_addrs) {
        webhook::ListenerConfig l;
        l.role = webhook::Listener::Diagnostic;
        l.name = "diagnostic";
        l.flag = "--diagnostic-addr";
        l.body_limit = 64u << 10;
        std::string error;
        if (!webhook::parse_listen_address(text, https_default, l.address, error)) return usage_error(error);
        a.listeners.push_back(std::move(l));
    }
    // OPA's --unix-socket-perm: octal permissions of unix:// socket files.
    try {
        std::size_t used = 0;
        unsigned long mode = std::stoul(o.unix_socket_perm, &used, 8);
        if (used != o.unix_socket_perm.size() || mode > 07777) throw std::invalid_argument("mode");
        a.unix_socket_mode = static_cast<unsigned>(mode);
    } catch (const std::exception&) {
        return usage_error("invalid --unix-socket-perm: " + o.unix_socket_perm + " (octal, e.g. 755)");
    }

    auto grace = seconds_or_duration(o.shutdown_grace);
    auto wait = seconds_or_duration(o.shutdown_wait);
    auto timeout = seconds_or_duration(o.eval_timeout);
    auto refresh = seconds_or_duration(o.tls_refresh);
    if (!grace) return usage_error("invalid --shutdown-grace-period: " + o.shutdown_grace);
    if (!wait) return usage_error("invalid --shutdown-wait-period: " + o.shutdown_wait);
    if (!timeout) return usage_error("invalid --eval-timeout: " + o.eval_timeout);
    if (!refresh) return usage_error("invalid --tls-cert-refresh-period: " + o.tls_refresh);
    a.shutdown_grace = *grace;
    a.shutdown_wait = *wait;
    a.service.eval_timeout = *timeout;
    if (refresh->count() > 0) a.tls_refresh = *refresh;
    auto memory = parse_byte_size(o.eval_memory_limit);
    if (!memory) return usage_error("invalid --eval-memory-limit: " + o.eval_memory_limit);
    a.service.eval_memory_limit = *memory;
    using Authentication = webhook::opa_api::Authentication;
    a.service.api.authentication = o.authentication == "token" ? Authentication::Token
                                   : o.authentication == "tls" ? Authentication::Tls
                                                               : Authentication::Off;
    a.service.api.authorization = o.authorization == "basic";
    a.eval_workers = o.eval_workers;

    a.engine.v0_compatible = o.v0_compatible;
    a.engine.max_errors = o.max_errors < 0 ? 0 : static_cast<std::size_t>(o.max_errors);
    a.config_file = o.config_file;
    a.config_set = o.set;
    a.config_set_file = o.set_file;
    a.watch = o.watch;
    a.ignore = o.ignore;
    if (o.bundle) {
        a.bundles = o.paths;
        BundleVerifyFlags verify = o.verify;
        verify.v0_compatible = o.v0_compatible;
        std::string error;
        if (!verify.options(a.bundle_read, error)) return usage_error(error);
        a.bundle_verification = verify.verification;
    } else {
        if (!o.verify.verification_key.empty())
            return usage_error("enable bundle mode (ie. --bundle) to verify bundle files or directories");
        a.policy_paths = o.paths;
    }
    return webhook::run_server(a);
}

}  // namespace

void add_run_command(CLI::App& app) {
    auto o = std::make_shared<RunCliOptions>();
    auto* cmd = app.add_subcommand("run", "Start gavel in interactive (REPL) or server mode, as `opa run`");
    cmd->footer(
        "With --server, gavel serves OPA's REST API on every --addr ([http://|https://]host:port; https\n"
        "when --tls-cert-file is given) and health and metrics on every --diagnostic-addr. PATHs are\n"
        "policy and data files or directories ([prefix:]path), or bundles with -b.");
    cmd->add_flag("-s,--server", o->server, "Start the runtime in server mode");
    cmd->add_option("paths", o->paths, "Policy and data files or directories ([prefix:]path); bundles with -b");
    auto* addr =
        cmd->add_option("-a,--addr", o->addrs,
                        "Listening address of the server ([scheme://]host:port; default localhost:8181, :8181 with "
                        "--v0-compatible); repeatable")
            ->delimiter(',')
            ->allow_extra_args(false);
    (void)addr;
    cmd->add_option("--diagnostic-addr", o->diagnostic_addrs,
                    "Read-only listening address for /health and /metrics; repeatable")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd->add_option("--tls-cert-file", o->tls_cert, "Path of the TLS certificate file; re-read when it changes");
    cmd->add_option("--tls-private-key-file", o->tls_key, "Path of the TLS private key file");
    cmd->add_option("--tls-ca-cert-file", o->tls_ca_cert,
                    "Path of the CA certificates client certificates are verified with (--authentication=tls)");
    cmd->add_option("--tls-cert-refresh-period", o->tls_refresh,
                    "How often the certificate files are checked for changes (0: gavel checks every second)")
        ->capture_default_str();
    cmd->add_option("--authentication", o->authentication, "Authentication scheme: token, tls or off")
        ->check(CLI::IsMember({"token", "tls", "off"}))
        ->capture_default_str();
    cmd->add_option("--authorization", o->authorization, "Authorization scheme: basic (the system.authz policy) or off")
        ->check(CLI::IsMember({"basic", "off"}))
        ->capture_default_str();
    cmd->add_option("-c,--config-file", o->config_file, "Path of OPA's configuration file");
    cmd->add_option("--set", o->set, "Override config values (a.b=v, commas for several); repeatable")
        ->allow_extra_args(false);
    cmd->add_option("--set-file", o->set_file, "Override config values with files' content (a.b=PATH); repeatable")
        ->allow_extra_args(false);
    cmd->add_flag("-b,--bundle", o->bundle, "Load paths as bundle files or root directories");
    cmd->add_flag("-w,--watch", o->watch, "Watch the command line's files for changes and reload them");
    cmd->add_option("--ignore", o->ignore,
                    "File and directory names to ignore while loading (e.g. '.*' excludes hidden files)")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd->add_flag("--v0-compatible", o->v0_compatible, "Pre-1.0 Rego syntax, and :8181 as the default address");
    cmd->add_flag("--v1-compatible", o->v1_compatible, "Rego v1 (the default; accepted for OPA compatibility)");
    cmd->add_option("-m,--max-errors", o->max_errors, "Compile errors allowed before compilation fails early")
        ->capture_default_str();
    cmd->add_option("-l,--log-level", o->log_level, "Log level: debug, info, warn or error")
        ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
        ->capture_default_str();
    cmd->add_option("--log-format", o->log_format, "Log format: json, json-pretty or text")
        ->check(CLI::IsMember({"json", "json-pretty", "text"}))
        ->capture_default_str();
    cmd->add_option("--shutdown-grace-period", o->shutdown_grace,
                    "Seconds requests in flight may take to finish at shutdown")
        ->capture_default_str();
    cmd->add_option("--shutdown-wait-period", o->shutdown_wait,
                    "Seconds to wait (not ready) before the shutdown begins")
        ->capture_default_str();
    o->verify.add_to(*cmd);
    cmd->add_option("--eval-timeout", o->eval_timeout, "gavel: time limit of one evaluation (0: none, as OPA)")
        ->capture_default_str();
    cmd->add_option("--eval-memory-limit", o->eval_memory_limit,
                    "gavel: memory one evaluation may take (512Mi, 1G; 0: none, as OPA)")
        ->capture_default_str();
    cmd->add_option("--eval-workers", o->eval_workers, "gavel: threads evaluating requests (0: one per core)")
        ->capture_default_str();
    // Accepted so that OPA's deployments start unchanged; they change nothing in gavel.
    cmd->add_option("--ready-timeout", o->ready_timeout,
                    "Accepted; gavel reports not ready until configured bundles are active");
    cmd->add_flag("--h2c", o->h2c, "Accepted; gavel's listeners speak HTTP/1.1 (TLS or plain), not HTTP/2");
    cmd->add_flag("--pprof", o->pprof, "Accepted; gavel has no pprof endpoints (Go's profiler)");
    cmd->add_flag("--disable-telemetry", o->disable_telemetry, "Accepted; gavel sends no telemetry");
    cmd->add_flag("--skip-version-check", o->skip_version_check, "Accepted; gavel sends no telemetry");
    cmd->add_flag("--skip-known-schema-check", o->skip_known_schema_check,
                  "Accepted; gavel does not type-check system.authz against a known schema");
    cmd->add_flag("--optimize-store-for-read-speed", o->optimize_store,
                  "Accepted; gavel's store is always read-optimised");
    cmd->add_option("--unix-socket-perm", o->unix_socket_perm, "Permissions of unix:// listeners' socket files (octal)")
        ->capture_default_str();
    cmd->add_option("--min-tls-version", o->min_tls_version, "Accepted; gavel's TLS is 1.2 or newer")
        ->check(CLI::IsMember({"1.0", "1.1", "1.2", "1.3"}));
    cmd->add_option("--tls-cipher-suites", o->cipher_suites, "Accepted; gavel uses OpenSSL's default TLS 1.2 suites")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd->add_option("--log-timestamp-format", o->log_timestamp_format,
                    "Accepted; gavel writes RFC 3339 UTC timestamps");
    cmd->add_option("-H,--history", o->history, "Accepted; the REPL keeps its history in ~/.gavel_history");
    cmd->add_option("-f,--format", o->format, "Accepted; the REPL prints pretty output");
    // The REPL's own, as gavel repl.
    cmd->add_option("-d,--data", o->data, "REPL: policy or data file or directory (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("-i,--input", o->input, "REPL: input document file (JSON or YAML)");
    cmd->callback([o, cmd] {
        if (o->server) {
            exit_status() = run_server_command(*o, cmd->count("--addr") > 0);
            return;
        }
        ReplCliOptions r;
        r.data = o->data;
        r.paths = o->paths;
        r.input = o->input;
        r.v0_compatible = o->v0_compatible;
        r.bundle = o->bundle;
        r.verify = o->verify;
        exit_status() = run_repl(r);
    });
}

}  // namespace gavel::cli
