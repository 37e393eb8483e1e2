#pragma once
// The REPL's entry point, shared by `gavel repl` and `gavel run` (without --server).

#include <string>
#include <vector>

#include "cli/bundle_flags.hpp"

namespace gavel::cli {

struct ReplCliOptions {
    std::vector<std::string> data;
    std::vector<std::string> paths;  // positional, as `opa run FILE...`
    std::string input;
    bool v0_compatible = false;
    bool bundle = false;  // -b: the positional paths are bundles
    BundleVerifyFlags verify;
};

// Runs the prompt (or reads statements from a pipe); the exit status.
int run_repl(const ReplCliOptions& options);

}  // namespace gavel::cli
