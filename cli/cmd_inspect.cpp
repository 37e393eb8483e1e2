// gavel inspect PATH : the manifest, namespaces and annotations of a bundle
// (directory or .tar.gz), as `opa inspect` shows them.

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "engine/bundle/inspect.hpp"
#include "runtime/json.hpp"

namespace gavel::cli {

namespace {

namespace bundle = engine::bundle;
using runtime::Value;

struct InspectOptions {
    std::string path;
    std::string format = "pretty";
    bool annotations = false;
    bool v0_compatible = false;
};

std::string text_of(const Value& v) { return v.is_string() ? std::string(v.as_string()) : runtime::to_json(v); }

// A two-column table in OPA's style (tablewriter, left aligned).
void print_table(const std::string& title, const std::vector<std::pair<std::string, std::string>>& rows,
                 const std::string& left, const std::string& right) {
    std::size_t a = left.size(), b = right.size();
    for (const auto& [k, v] : rows) {
        a = std::max(a, k.size());
        b = std::max(b, v.size());
    }
    std::string rule = "+" + std::string(a + 2, '-') + "+" + std::string(b + 2, '-') + "+\n";
    auto row = [&](const std::string& k, const std::string& v) {
        return "| " + k + std::string(a - k.size(), ' ') + " | " + v + std::string(b - v.size(), ' ') + " |\n";
    };
    std::cout << title << ":\n" << rule << row(left, right) << rule;
    for (const auto& [k, v] : rows) std::cout << row(k, v);
    std::cout << rule;
}

int run_inspect(const InspectOptions& o) {
    bundle::BundleReadOptions ro;
    ro.skip_verify = true;  // as OPA: inspect shows, it does not verify
    ro.v0_compatible = o.v0_compatible;
    auto read = bundle::read_bundle(o.path, ro);
    if (!read.ok()) {
        std::cerr << "error: " << read.error_text() << "\n";
        return 1;
    }
    Value info = bundle::inspect_bundle(*read.bundle, o.annotations);
    if (o.format == "json") {
        std::cout << runtime::to_json(info, runtime::JsonStyle::Pretty) << "\n";
        return 0;
    }
    const auto& m = read.bundle->manifest;
    std::vector<std::pair<std::string, std::string>> manifest;
    if (!m.revision.empty()) manifest.emplace_back("Revision", m.revision);
    for (const auto& r : m.effective_roots()) manifest.emplace_back("Roots", r.empty() ? "\"\"" : r);
    if (m.rego_version) manifest.emplace_back("Rego Version", std::to_string(*m.rego_version));
    if (m.metadata.is_object())
        for (const auto& e : m.metadata.object_entries())
            manifest.emplace_back("Metadata " + text_of(e.key), text_of(e.value));
    if (!manifest.empty()) print_table("MANIFEST", manifest, "FIELD", "VALUE");
    std::vector<std::pair<std::string, std::string>> namespaces;
    if (const Value* ns = info.find("namespaces"))
        for (const auto& e : ns->object_entries())
            for (const auto& f : e.value.array_elements()) namespaces.emplace_back(text_of(e.key), text_of(f));
    if (!namespaces.empty()) {
        if (!manifest.empty()) std::cout << "\n";
        print_table("NAMESPACES", namespaces, "NAMESPACE", "FILE");
    }
    if (const Value* list = info.find("annotations")) {
        std::cout << "\nANNOTATIONS:\n";
        for (const auto& a : list->array_elements()) {
            std::string path = "data";
            if (const Value* p = a.find("path"))
                for (std::size_t i = 1; i < p->size(); ++i)
                    path += "." + text_of(*p->array_elements()[i].find("value"));
            std::cout << path << "\n";
            if (const Value* an = a.find("annotations"))
                for (const auto& e : an->object_entries())
                    std::cout << "  " << text_of(e.key) << ": " << text_of(e.value) << "\n";
        }
    }
    return 0;
}

}  // namespace

void add_inspect_command(CLI::App& app) {
    auto opts = std::make_shared<InspectOptions>();
    auto* cmd = app.add_subcommand("inspect", "Inspect OPA bundle(s)");
    cmd->add_option("path", opts->path, "Bundle directory or .tar.gz file")->required();
    cmd->add_option("-f,--format", opts->format, "Output format: pretty or json")
        ->check(CLI::IsMember({"pretty", "json"}))
        ->capture_default_str();
    cmd->add_flag("-a,--annotations", opts->annotations, "List annotations");
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse the pre-1.0 Rego dialect");
    cmd->callback([opts] { exit_status() = run_inspect(*opts); });
}

}  // namespace gavel::cli
