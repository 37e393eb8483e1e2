// gavel parse FILE [--format pretty|json] [--v0-compatible] [--json-include locations,-comments]
// prints a module's AST as `opa parse` does: an indented tree (pretty, the default)
// or JSON in OPA's shape. Parse errors go to stderr with exit status 1.

#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.hpp"
#include "runtime/file_read.hpp"
#include "lang/ast_json.hpp"
#include "lang/parse.hpp"

namespace gavel::cli {

namespace {

struct ParseCommandOptions {
    std::string file;
    std::string format = "pretty";
    std::string json_include;
    bool v0_compatible = false;
};

// `--json-include locations,-comments`: each item switches an optional part on,
// or off with a leading '-'. As in OPA, comments are on and locations off by default.
void apply_json_include(const std::string& spec, bool& locations, bool& comments) {
    std::stringstream items(spec);
    std::string item;
    while (std::getline(items, item, ',')) {
        bool on = true;
        std::string_view name = item;
        if (!name.empty() && name.front() == '-') {
            on = false;
            name.remove_prefix(1);
        }
        if (name == "locations") locations = on;
        if (name == "comments") comments = on;
    }
}

int run_parse(const ParseCommandOptions& opts) {
    runtime::FileRead read = runtime::read_whole_file(opts.file);
    if (!read.ok) {  // OPA's words: "read F: is a directory", "open F: no such file or directory"
        std::cerr << read.message << "\n";
        return 1;
    }
    std::string text = std::move(read.text);
    lang::ParseOptions parse_options;
    parse_options.v0_compatible = opts.v0_compatible;
    auto result = lang::parse_module(opts.file, std::move(text), parse_options);
    if (!result.ok()) {
        std::cerr << result.diagnostics.format();
        return 1;
    }
    bool locations = false, comments = true;
    apply_json_include(opts.json_include, locations, comments);
    if (opts.format == "json") {
        lang::AstJsonOptions json;
        json.locations = locations;
        json.location_text = true;  // `opa parse --json-include locations` adds each node's text
        json.comments = comments;
        json.indent = true;
        std::cout << lang::module_to_json(std::move(*result.module), json) << "\n";
    } else {
        std::cout << lang::module_to_pretty(std::move(*result.module), comments);
    }
    return 0;
}

}  // namespace

void add_parse_command(CLI::App& app) {
    auto opts = std::make_shared<ParseCommandOptions>();
    auto* cmd = app.add_subcommand("parse", "Parse a Rego source file and print its AST");
    cmd->add_option("file", opts->file, "The Rego file")->required();
    cmd->add_option("-f,--format", opts->format, "Output format")
        ->check(CLI::IsMember({"pretty", "json"}))
        ->capture_default_str();
    cmd->add_option("--json-include", opts->json_include,
                    "Include or exclude optional elements: locations, comments (e.g. locations,-comments)");
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse the pre-1.0 Rego dialect");
    cmd->callback([opts] { exit_status() = run_parse(*opts); });
}

}  // namespace gavel::cli
