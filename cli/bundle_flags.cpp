#include "cli/bundle_flags.hpp"

namespace gavel::cli {

void BundleVerifyFlags::add_to(CLI::App& cmd, bool with_signing_alg, bool with_skip) {
    cmd.add_option("--verification-key", verification_key,
                   "Public key (PEM file or text) or HMAC secret to verify signed bundles with");
    cmd.add_option("--verification-key-id", verification_key_id, "Name of the verification key")->capture_default_str();
    if (with_signing_alg)
        cmd.add_option("--signing-alg", signing_alg, "Signing algorithm (RS256, ES256, HS256 ...)")
            ->capture_default_str();
    cmd.add_option("--scope", scope, "Scope to use for bundle signature verification");
    cmd.add_option("--exclude-files-verify", exclude_files,
                   "Files in the bundle to exclude from verification (patterns)")
        ->allow_extra_args(false);
    if (with_skip) cmd.add_flag("--skip-verify", skip_verify, "Do not verify bundle signatures");
}

bool BundleVerifyFlags::options(engine::bundle::BundleReadOptions& out, std::string& error) {
    out.skip_verify = skip_verify;
    out.v0_compatible = v0_compatible;
    if (verification_key.empty()) return true;
    if (!engine::bundle::is_supported_algorithm(signing_alg)) {
        error = "unsupported signing algorithm: " + signing_alg;
        return false;
    }
    engine::bundle::VerificationConfig vc;
    auto key = engine::bundle::key_config_from_flag(verification_key, signing_alg, scope, error);
    if (!key) return false;
    vc.public_keys[verification_key_id] = std::move(*key);
    vc.key_id = verification_key_id;
    vc.scope = scope;
    vc.exclude_files = exclude_files;
    verification = std::move(vc);
    out.verification = &*verification;
    return true;
}

}  // namespace gavel::cli
