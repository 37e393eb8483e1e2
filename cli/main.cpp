#include <exception>
#include <iostream>

#include "cli/commands.hpp"

int& gavel::cli::exit_status() {
    static int status = 0;
    return status;
}

int main(int argc, char** argv) {
    CLI::App app{"gavel: a fast engine for the Rego policy language"};
    app.require_subcommand(1);
    app.set_help_all_flag("--help-all", "Show help for every command");
    gavel::cli::add_bench_command(app);
    gavel::cli::add_check_command(app);
    gavel::cli::add_eval_command(app);
    gavel::cli::add_parse_command(app);
    gavel::cli::add_test_command(app);
    gavel::cli::add_serve_command(app);
    gavel::cli::add_webhook_config_command(app);
    gavel::cli::add_repl_command(app);
    gavel::cli::add_capabilities_command(app);
    gavel::cli::add_version_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        // Commands report their own errors; this is the last line of defence.
        std::cerr << "gavel: internal error: " << e.what() << "\n";
        return 1;
    }
    return gavel::cli::exit_status();
}
