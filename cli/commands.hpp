#pragma once
// Each subcommand lives in its own file and registers itself on the app.
// Commands only parse arguments and print; the work happens in libgavel.

#include <CLI/CLI.hpp>

namespace gavel::cli {

// The status main() returns; a command's callback sets it.
int& exit_status();

// "Error: MESSAGE" on stderr, as OPA's CLI reports a bad flag combination; returns 1.
int usage_error(const std::string& message);

void add_bench_command(CLI::App& app);
void add_build_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_capabilities_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_eval_command(CLI::App& app);
void add_fmt_command(CLI::App& app);
void add_parse_command(CLI::App& app);
void add_test_command(CLI::App& app);
void add_serve_command(CLI::App& app);
void add_webhook_config_command(CLI::App& app);
void add_repl_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_version_command(CLI::App& app);
void add_verify_command(CLI::App& app);
void add_audit_command(CLI::App& app);

}  // namespace gavel::cli
