// gavel check PATH... : parse and compile every .rego file below the paths and list every error.

#include <filesystem>
#include <iostream>
#include <memory>
#include <tuple>

#include "cli/capabilities_file.hpp"
#include "cli/commands.hpp"
#include "cli/output_errors.hpp"
#include "cli/rego_files.hpp"
#include "lang/parse.hpp"
#include "engine/engine.hpp"
#include "runtime/file_read.hpp"
#include "engine/schema_loader.hpp"
#include "engine/bundle/load.hpp"
#include "webhook/misspelt_rules.hpp"

namespace gavel::cli {

namespace {

struct CheckOptions {
    std::vector<std::string> paths;
    bool v0_compatible = false;
    bool strict = false;
    std::string format = "pretty";
    std::string capabilities;          // a capabilities.json: only its builtins may be called
    bool bundle = false;               // each path is a bundle root directory
    int max_errors = 10;               // OPA's -m: 0 or less for no limit
    std::string schema;                // -s: a JSON Schema file (for input) or a directory of them
    bool admission_rule_names = true;  // report rules that look like a misspelt admission rule
};

using Modules = std::vector<std::tuple<std::string, std::string, bool>>;  // file, text, v0

// gavel's own check: a rule named like a misspelt conventional admission rule (denny,
// Deny, violaton ...; webhook/misspelt_rules.hpp) is an error at its head, since gavel
// serve would take the package for one without that rule.
lang::Diagnostics misspelt_rule_errors(const Engine& engine, const Modules& modules) {
    lang::Diagnostics out;
    for (const auto& m : webhook::misspelt_rules(engine.rules())) {
        lang::Diagnostic d;
        d.code = webhook::kMisspeltRuleCode;
        d.message = webhook::misspelling_text(m);
        d.hint = std::string(webhook::kConventionalRulesNote) + "; --no-admission-rule-names turns this check off";
        d.file = m.file;
        d.line = m.line;
        d.col = m.col;
        for (const auto& [file, text, v0] : modules) {
            if (file != m.file) continue;
            std::size_t start = 0;
            for (std::uint32_t line = 1; line < m.line && start != std::string::npos; ++line) {
                start = text.find('\n', start);
                if (start != std::string::npos) ++start;
            }
            if (start != std::string::npos) d.source_line = text.substr(start, text.find('\n', start) - start);
        }
        out.add(std::move(d));
    }
    return out;
}

int run_check(const CheckOptions& opts) {
    std::optional<std::set<std::string>> allowed_builtins;
    if (!opts.capabilities.empty()) {
        std::string error;
        allowed_builtins = read_capabilities_builtins(opts.capabilities, error);
        if (!allowed_builtins) {
            std::cerr << "invalid --capabilities: " << error << "\n";
            return 1;
        }
    }
    // -s FILE|DIR is read before the policies, as `opa check` does; an error there is the only one printed.
    std::shared_ptr<const compiler::SchemaSet> schemas;
    if (!opts.schema.empty()) {
        auto loaded = engine::load_schemas(opts.schema);
        if (!loaded.schemas) {
            if (opts.format == "json") {
                Json doc = Json::object();
                doc.add("errors", errors_json({plain_error(loaded.error)}));
                std::cerr << encode(doc);
            } else {
                std::cerr << loaded.error << "\n";
            }
            return 1;
        }
        schemas = std::move(loaded.schemas);
    }
    lang::Diagnostics all;
    Modules modules;  // what parsed, compiled together afterwards
    if (opts.bundle) {
        // As `opa check -b`: each path is a bundle (directory or .tar.gz), read with its
        // manifest (dialects, roots); signatures are not checked.
        engine::bundle::BundleReadOptions bundle_options;
        bundle_options.skip_verify = true;
        bundle_options.v0_compatible = opts.v0_compatible;
        auto loaded = engine::bundle::load_bundles(opts.paths, bundle_options);
        all.append(loaded.errors);
        for (auto& p : loaded.policies)
            modules.emplace_back(p.file, std::move(p.text), p.v0_compatible.value_or(opts.v0_compatible));
    } else {
        FileList list = find_rego_files(opts.paths);
        for (const auto& e : list.errors) {
            lang::Diagnostic d;
            d.code = "rego_parse_error";
            d.message = e;
            all.add(d);
        }
        lang::ParseOptions parse_options;
        parse_options.v0_compatible = opts.v0_compatible;
        for (const auto& file : list.files) {
            runtime::FileRead read = runtime::read_whole_file(file);
            if (!read.ok) {
                lang::Diagnostic d;
                d.code = "rego_parse_error";
                d.message = read.message;
                all.add(d);
                continue;
            }
            std::string text = std::move(read.text);
            auto manifest = list.v0_compatible.find(file);  // a bundle manifest's rego_version
            parse_options.v0_compatible = manifest != list.v0_compatible.end() ? manifest->second : opts.v0_compatible;
            auto result = lang::parse_module(file, text, parse_options);
            all.append(result.diagnostics);
            modules.emplace_back(file, std::move(text), parse_options.v0_compatible);
        }
    }
    // As `opa check`: the modules that parse are also compiled together, so
    // unsafe variables, undefined functions, recursion and type errors show too.
    if (all.empty()) {
        EngineOptions engine_options;
        engine_options.v0_compatible = opts.v0_compatible;
        engine_options.strict = opts.strict;
        engine_options.allowed_builtins = allowed_builtins;
        engine_options.max_errors = opts.max_errors > 0 ? static_cast<std::size_t>(opts.max_errors) : 0;
        engine_options.schemas = schemas;
        Engine engine(engine_options);
        for (auto& [file, text, v0] : modules) all.append(engine.add_policy(file, text, {.v0_compatible = v0}));
        if (all.empty()) all.append(engine.check());
        if (opts.admission_rule_names) all.append(misspelt_rule_errors(engine, modules));
    }
    if (all.empty()) return 0;
    if (opts.format == "json") {
        // As `opa check --format json`: {"errors": [...]} on stderr.
        std::vector<OutputError> errors;
        for (const auto& d : all) errors.push_back(from_diagnostic(d));
        Json doc = Json::object();
        doc.add("errors", errors_json(errors));
        std::cerr << encode(doc);
    } else {
        std::cerr << all.format();
    }
    return 1;
}

}  // namespace

void add_check_command(CLI::App& app) {
    auto opts = std::make_shared<CheckOptions>();
    auto* cmd = app.add_subcommand("check", "Check Rego source files for errors");
    cmd->add_option("paths", opts->paths, "Files or directories")->required();
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse the pre-1.0 Rego dialect");
    cmd->add_option("-f,--format", opts->format,
                    "Output format: pretty (file:line:col, the line and a caret) or json (OPA's)")
        ->check(CLI::IsMember({"pretty", "json"}))
        ->capture_default_str();
    cmd->add_flag("-b,--bundle", opts->bundle, "Load paths as bundle files or root directories");
    cmd->add_option("-m,--max-errors", opts->max_errors,
                    "Compile errors to report before stopping (0 or less: no limit)")
        ->capture_default_str();
    cmd->add_option("--capabilities", opts->capabilities,
                    "A capabilities JSON file (as `gavel capabilities` prints): calls of builtins it lacks are errors");
    cmd->add_flag(
        "-S,--strict", opts->strict,
        "Enable compiler strict mode (unused imports and assignments, duplicate imports, deprecated builtins ...)");
    cmd->add_option("-s,--schema", opts->schema,
                    "JSON Schema for type checking: a file types input everywhere; a directory's a/b.json is "
                    "schema.a.b for METADATA schemas: annotations");
    cmd->add_flag("!--no-admission-rule-names", opts->admission_rule_names,
                  "Do not report rules named like a misspelt admission rule (denny, Deny, violaton ...: "
                  "gavel serve answers admission reviews only from deny, violation, warn, patch, audit_annotations)");
    cmd->callback([opts] { exit_status() = run_check(*opts); });
}

}  // namespace gavel::cli
