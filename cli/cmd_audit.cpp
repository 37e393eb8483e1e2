// gavel audit: Gatekeeper's audit over existing objects (engine/gatekeeper/audit.hpp).
// Loads the templates and constraints of --gatekeeper, reviews each object of
// OBJECTS (files or directories of YAML/JSON; without any, the --inventory
// objects) and prints per constraint its total violations and the first
// --limit, as a constraint's status holds them; --format json prints them as JSON.
// Exit 0 when the audit ran (violations or not), 1 when the inputs did not load.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "engine/gatekeeper/gatekeeper.hpp"
#include "runtime/json.hpp"

namespace gavel::cli {

namespace {

struct AuditCliOptions {
    std::vector<std::string> gatekeeper;
    std::vector<std::string> inventory;
    std::vector<std::string> objects;
    std::string format = "pretty";
    std::size_t limit = 20;
};

bool print_errors(const lang::Diagnostics& errors) {
    for (const auto& d : errors) std::cerr << "  " << (d.code.empty() ? d.message : d.headline()) << "\n";
    return !errors.empty();
}

int run_audit(const AuditCliOptions& o) {
    if (o.format != "pretty" && o.format != "json") {
        std::cerr << "gavel audit: --format must be pretty or json\n";
        return 1;
    }
    auto policies = gatekeeper::read_object_paths(o.gatekeeper);
    gatekeeper::PolicySetBuilder builder;
    lang::Diagnostics errors = policies.errors;
    std::vector<std::string> unsupported;
    builder.add_objects(policies.objects, errors, &unsupported, false);
    for (const auto& u : unsupported) std::cerr << "gavel audit: skipped " << u << "\n";
    gatekeeper::ObjectFiles inventory;
    if (!o.inventory.empty()) {
        inventory = gatekeeper::read_object_paths(o.inventory);
        errors.append(inventory.errors);
        for (const auto& obj : inventory.objects) {
            std::string error;
            if (!builder.add_inventory_object(obj.value, error))
                errors.add(gatekeeper::file_error(obj.file, obj.line, error));
        }
    }
    auto set = builder.build(errors);
    gatekeeper::ObjectFiles objects;
    if (!o.objects.empty()) {
        objects = gatekeeper::read_object_paths(o.objects);
        errors.append(objects.errors);
    }
    if (!errors.empty()) {
        std::cerr << "gavel audit: the inputs do not load:\n";
        print_errors(errors);
        return 1;
    }
    const auto& audited = o.objects.empty() ? inventory.objects : objects.objects;
    auto report = gatekeeper::audit(*set, audited, o.limit);
    for (const auto& e : report.errors) std::cerr << "gavel audit: " << e << "\n";
    if (o.format == "json") {
        std::cout << runtime::to_json(gatekeeper::audit_report_value(report), runtime::JsonStyle::Pretty) << "\n";
        return 0;
    }
    std::int64_t total = 0;
    for (const auto& ca : report.constraints) {
        total += ca.total_violations;
        std::cout << ca.constraint->kind << "/" << ca.constraint->name << " (" << ca.constraint->enforcement_action
                  << "): " << ca.total_violations << (ca.total_violations == 1 ? " violation" : " violations") << "\n";
        for (const auto& v : ca.violations) {
            std::cout << "  " << v.kind << " " << (v.namespace_name.empty() ? "" : v.namespace_name + "/") << v.name
                      << ": " << v.message << "\n";
        }
    }
    std::cout << "audited " << report.objects << (report.objects == 1 ? " object" : " objects") << " against "
              << set->constraint_count() << (set->constraint_count() == 1 ? " constraint" : " constraints") << ": "
              << total << (total == 1 ? " violation" : " violations") << "\n";
    return 0;
}

}  // namespace

void add_audit_command(CLI::App& app) {
    auto opts = std::make_shared<AuditCliOptions>();
    auto* cmd = app.add_subcommand("audit", "Audit existing objects against Gatekeeper templates and constraints");
    // One value per flag (repeat it): a list would swallow the OBJECTS after it.
    cmd->add_option("--gatekeeper", opts->gatekeeper,
                    "File or directory of ConstraintTemplates and Constraints (repeatable)")
        ->required()
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd->add_option("--inventory", opts->inventory,
                    "File or directory of objects for data.inventory (repeatable; audited when no OBJECTS)")
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    cmd->add_option("objects", opts->objects, "Files or directories of objects (YAML or JSON) to audit");
    cmd->add_option("-f,--format", opts->format, "pretty or json")->capture_default_str();
    cmd->add_option("--limit", opts->limit,
                    "Violations listed per constraint (Gatekeeper's --constraint-violations-limit)")
        ->capture_default_str();
    cmd->callback([opts] { exit_status() = run_audit(*opts); });
}

}  // namespace gavel::cli
