#pragma once
// The bundle verification flags OPA's commands share (--verification-key,
// --verification-key-id, --signing-alg, --scope, --exclude-files-verify,
// --skip-verify), turned into engine/bundle read options.

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/bundle/bundle.hpp"

namespace gavel::cli {

struct BundleVerifyFlags {
    std::string verification_key;
    std::string verification_key_id = "default";
    std::string signing_alg = "RS256";
    std::string scope;
    std::vector<std::string> exclude_files;
    bool skip_verify = false;
    bool v0_compatible = false;

    // The verification config when a key was given (kept alive here).
    std::optional<engine::bundle::VerificationConfig> verification;

    void add_to(CLI::App& cmd, bool with_signing_alg = true, bool with_skip = true);
    // Read options; false with `error` for an unsupported algorithm.
    bool options(engine::bundle::BundleReadOptions& out, std::string& error);
};

}  // namespace gavel::cli
