// gavel capabilities: OPA's capabilities JSON (`opa capabilities --current`)
// for the builtins and language features gavel supports.

#include <iostream>

#include "cli/commands.hpp"
#include "engine/engine.hpp"
#include "runtime/json.hpp"

namespace gavel::cli {

void add_capabilities_command(CLI::App& app) {
    auto* cmd =
        app.add_subcommand("capabilities", "Print the capabilities (builtins with their types, features) as JSON");
    cmd->add_flag("--current")->description("Print the capabilities of this gavel (the default; OPA's flag)");
    cmd->callback([] {
        gavel::Engine engine;
        std::cout << runtime::to_json(engine.capabilities(), runtime::JsonStyle::Pretty) << "\n";
    });
}

}  // namespace gavel::cli
