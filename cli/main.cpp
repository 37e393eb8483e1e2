#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/version.hpp"
#include "runtime/large_stack.hpp"

int& gavel::cli::exit_status() {
    static int status = 0;
    return status;
}

int gavel::cli::usage_error(const std::string& message) {
    std::cerr << "Error: " << message << "\n";
    return 1;
}

namespace {

// The command named `name`, or null (the `help` pseudo-command included).
CLI::App* find_command(CLI::App& app, const std::string& name) {
    try {
        CLI::App* cmd = app.get_subcommand(name);
        return cmd->get_name() == "help" ? nullptr : cmd;
    } catch (const CLI::OptionNotFound&) {
        return nullptr;
    }
}

// cobra's words for a command that does not exist, as `opa frob` prints them.
int unknown_command(const std::string& name) {
    std::cerr << "Error: unknown command \"" << name << "\" for \"gavel\"\nRun 'gavel --help' for usage.\n";
    return 1;
}

}  // namespace

namespace {

int run_command(int argc, char** argv) {
    CLI::App app{"gavel: a fast engine for the Rego policy language"};
    app.require_subcommand(1);
    app.set_help_all_flag("--help-all", "Show help for every command");
    gavel::cli::add_bench_command(app);
    gavel::cli::add_build_command(app);
    gavel::cli::add_inspect_command(app);
    gavel::cli::add_check_command(app);
    gavel::cli::add_eval_command(app);
    gavel::cli::add_fmt_command(app);
    gavel::cli::add_parse_command(app);
    gavel::cli::add_test_command(app);
    gavel::cli::add_serve_command(app);
    gavel::cli::add_webhook_config_command(app);
    gavel::cli::add_repl_command(app);
    gavel::cli::add_run_command(app);
    gavel::cli::add_capabilities_command(app);
    gavel::cli::add_version_command(app);
    gavel::cli::add_verify_command(app);
    gavel::cli::add_audit_command(app);
    app.set_version_flag("--version", std::string("gavel ") + gavel::cli::gavel_version() + " (" +
                                          gavel::cli::gavel_build_commit() + ")");
    // `gavel help CMD`, as `opa help CMD`.
    auto help_for = std::make_shared<std::string>();
    auto* help = app.add_subcommand("help", "Help about a command");
    help->add_option("command", *help_for, "The command");
    help->callback([&app, help_for] {
        if (help_for->empty()) {
            // (app.help() would show the selected subcommand: this one.)
            std::cout << app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
            return;
        }
        CLI::App* cmd = find_command(app, *help_for);
        if (!cmd) {
            gavel::cli::exit_status() = unknown_command(*help_for);
            return;
        }
        std::cout << cmd->help(app.get_name());
    });
    // CLI11 would say "A subcommand is required" for a misspelt command.
    if (argc > 1 && argv[1][0] != '-' && std::string(argv[1]) != "help" && !find_command(app, argv[1]))
        return unknown_command(argv[1]);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // Help and --version exit 0; a usage error prints what was wrong (naming
        // the flag) and exits 1, as OPA's commands do, not CLI11's own codes.
        return app.exit(e) == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        // Commands report their own errors; this is the last line of defence.
        std::cerr << "gavel: internal error: " << e.what() << "\n";
        return 1;
    }
    return gavel::cli::exit_status();
}

}  // namespace

// Every command runs on a thread with a large stack, and so does every thread
// it starts (server workers included): deeply nested programs recurse deeply.
int main(int argc, char** argv) {
    gavel::runtime::use_large_thread_stacks();
    return gavel::runtime::run_on_large_stack([&] { return run_command(argc, argv); });
}
