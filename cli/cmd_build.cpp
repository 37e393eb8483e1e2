// gavel build PATH... : an OPA bundle (.tar.gz) from policy and data files, or
// (-b) from bundles, optionally signed, as `opa build` writes it.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/bundle_flags.hpp"
#include "cli/commands.hpp"
#include "cli/ignore_paths.hpp"
#include "engine/bundle/bundle_writer.hpp"
#include "engine/engine.hpp"
#include "engine/loader.hpp"

namespace gavel::cli {

namespace {

namespace fs = std::filesystem;
namespace bundle = engine::bundle;

struct BuildOptions {
    std::vector<std::string> paths;
    bool bundle_mode = false;
    std::string output = "bundle.tar.gz";
    std::string revision;
    bool revision_set = false;
    std::vector<std::string> ignore;
    std::string signing_key, claims_file;
    bool v0_compatible = false, v1_compatible = false;
    BundleVerifyFlags verify;
};

int build_error(const std::string& message) {
    std::cout << "error: " << message << "\n";
    return 1;
}

// The bundle of plain files: the loader's policies and data, a manifest with OPA's defaults.
std::optional<bundle::Bundle> bundle_from_files(const BuildOptions& o, std::string& error) {
    engine::LoadOptions lo;
    lo.v0_compatible = o.v0_compatible;
    auto loaded = engine::load_paths(without_ignored(o.paths, o.ignore), lo);
    if (!loaded.ok()) {
        for (const auto& d : loaded.errors) error += (error.empty() ? "" : "\n") + engine::describe(d);
        return std::nullopt;
    }
    bundle::Bundle b;
    b.name = "build";
    b.manifest.roots = std::vector<std::string>{""};
    b.manifest.rego_version = o.v0_compatible ? 0 : 1;
    for (auto& p : loaded.policies) {
        bundle::BundleModule m;
        m.path = fs::path(p.file).lexically_normal().generic_string();
        while (m.path.starts_with("/")) m.path.erase(0, 1);
        m.name = p.file;
        m.text = std::move(p.text);
        m.v0_compatible = p.v0_compatible.value_or(o.v0_compatible);
        b.modules.push_back(std::move(m));
    }
    b.data = loaded.data;
    return b;
}

int run_build(BuildOptions& o) {
    if (o.paths.empty()) return build_error("expected at least one path");
    bundle::BundleReadOptions read_options;
    std::string error;
    o.verify.v0_compatible = o.v0_compatible;
    if (!o.verify.options(read_options, error)) return build_error(error);
    if (o.signing_key.empty() && !o.claims_file.empty())
        return build_error(
            "specify the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)");
    bool verifying = !o.verify.verification_key.empty(), signing = !o.signing_key.empty();
    if ((verifying || signing) && !o.bundle_mode)
        return build_error("enable bundle mode (ie. --bundle) to verify or sign bundle files or directories");
    if (!o.bundle_mode)
        for (const auto& p : o.paths) {
            std::error_code ec;
            if (fs::is_directory(p, ec) && fs::exists(fs::path(p) / ".manifest", ec))
                std::cerr << "Warning: .manifest file found in \"" << p
                          << "\" but -b flag not specified. Manifest will be ignored.\n";
        }

    std::optional<bundle::Bundle> result;
    if (o.bundle_mode) {
        // A signed input without a verification key is refused, as `opa build` refuses it
        // ("verification key not provided"): a rebuild never drops a signature unchecked.
        auto patterns = o.ignore;
        read_options.ignore = [patterns](const std::string& path) {
            for (const auto& pattern : patterns) {
                std::size_t start = 0;
                while (true) {
                    auto slash = path.find('/', start);
                    auto part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
                    if (bundle::go_path_match(pattern, part)) return true;
                    if (slash == std::string::npos) break;
                    start = slash + 1;
                }
            }
            return false;
        };
        std::vector<bundle::Bundle> inputs;
        for (const auto& p : o.paths) {
            auto read = bundle::read_bundle(p, read_options);
            if (!read.ok()) return build_error("load error: " + read.error_text());
            inputs.push_back(std::move(*read.bundle));
        }
        result = bundle::merge_bundles(std::move(inputs), o.v0_compatible, error);
        if (!result) return build_error(error);
        result->signatures.clear();
    } else {
        result = bundle_from_files(o, error);
        if (!result) return build_error(error);
    }
    // Compile what goes in, so that a broken policy is found before it ships.
    EngineOptions eo;
    eo.v0_compatible = o.v0_compatible;
    Engine engine(eo);
    lang::Diagnostics errors;
    for (const auto& m : result->modules)
        errors.append(engine.add_policy(m.name, m.text, Engine::PolicyOptions{m.v0_compatible}));
    if (errors.empty())
        if (auto e = engine.add_data(result->data)) {
            lang::Diagnostic d;
            d.message = *e;
            errors.add(d);
        }
    if (errors.empty()) errors = engine.check();
    if (!errors.empty()) {
        std::cout << "error: " << errors.format();
        return 1;
    }
    if (o.revision_set) result->manifest.revision = o.revision;

    bundle::SigningConfig signing_config{o.signing_key, o.verify.signing_alg, o.claims_file};
    bundle::WriteOptions wo;
    if (signing) {
        wo.signing = &signing_config;
        wo.key_id = o.claims_file.empty() ? o.verify.verification_key_id : "";
    }
    auto bytes = bundle::write_bundle(*result, wo, error);
    if (!bytes) return build_error(error);
    std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    out.close();
    if (!out) return build_error("cannot write " + o.output);
    return 0;
}

}  // namespace

void add_build_command(CLI::App& app) {
    auto opts = std::make_shared<BuildOptions>();
    auto* cmd = app.add_subcommand("build", "Build an OPA bundle");
    cmd->add_option("paths", opts->paths, "Policy and data files or directories (bundles with -b)");
    cmd->add_flag("-b,--bundle", opts->bundle_mode, "Load paths as bundle files or root directories");
    cmd->add_option("-o,--output", opts->output, "Set the output filename")->capture_default_str();
    cmd->add_option("-r,--revision", opts->revision, "Set output bundle revision")->each([opts](const std::string&) {
        opts->revision_set = true;
    });
    cmd->add_option("--ignore", opts->ignore,
                    "Set file and directory names to ignore during loading (e.g., '.*' excludes hidden files)")
        ->allow_extra_args(false);
    cmd->add_option("--signing-key", opts->signing_key,
                    "Set the secret (HMAC) or path of the PEM file containing the private key (RSA and ECDSA)");
    cmd->add_option("--claims-file", opts->claims_file, "Set path of JSON file containing optional claims");
    cmd->add_flag("--v0-compatible", opts->v0_compatible,
                  "Opt-in to OPA features and behaviors prior to the OPA v1.0 release");
    cmd->add_flag("--v1-compatible", opts->v1_compatible,
                  "Opt-in to OPA features and behaviors in OPA v1.0 (the default)");
    opts->verify.add_to(*cmd, true, false);
    cmd->callback([opts] { exit_status() = run_build(*opts); });
}

}  // namespace gavel::cli
