// gavel version

#include <iostream>

#include "cli/commands.hpp"

#ifndef GAVEL_VERSION
#define GAVEL_VERSION "dev"
#endif

namespace gavel::cli {

void add_version_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("version", "Print the version of gavel");
    cmd->callback([] {
        std::cout << "Version: " << GAVEL_VERSION << "\n"
                  << "Rego Version: v1 (v0 with --v0-compatible)\n";
    });
}

}  // namespace gavel::cli
