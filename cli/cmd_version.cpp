// gavel version [--format json]: the version and the commit it was built from, as `opa version`.

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/output_json.hpp"
#include "cli/version.hpp"

namespace gavel::cli {

void add_version_command(CLI::App& app) {
    auto format = std::make_shared<std::string>("pretty");
    auto* cmd = app.add_subcommand("version", "Print the version of gavel");
    cmd->add_option("-f,--format", *format, "Output format: pretty or json")
        ->check(CLI::IsMember({"pretty", "json"}))
        ->capture_default_str();
    cmd->callback([format] {
        if (*format == "json") {
            Json doc = Json::object();
            doc.add("version", Json::str(gavel_version()))
                .add("build_commit", Json::str(gavel_build_commit()))
                .add("rego_version", Json::str("v1"));
            std::cout << encode(doc);
            return;
        }
        std::cout << "Version: " << gavel_version() << "\n"
                  << "Build Commit: " << gavel_build_commit() << "\n"
                  << "Rego Version: v1 (v0 with --v0-compatible)\n";
    });
}

}  // namespace gavel::cli
