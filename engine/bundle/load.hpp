#pragma once
// Bundles for the command line (`-b` in eval, test, check, repl): each path
// is read as a bundle (directory or .tar.gz), their roots must not overlap
// (OPA's activation check), and what they hold comes back as a LoadResult the
// engine takes like any other load (engine/loader.hpp).

#include <string>
#include <vector>

#include "engine/bundle/bundle.hpp"
#include "engine/loader.hpp"

namespace gavel::engine::bundle {

LoadResult load_bundles(const std::vector<std::string>& paths, const BundleReadOptions& options = {},
                        std::vector<Bundle>* bundles = nullptr);

// Adds `more` to `into`: policies appended, data merged (a conflict is an error in `into`).
void merge_load_results(LoadResult& into, LoadResult more);

}  // namespace gavel::engine::bundle

namespace gavel::engine::bundle {

// `-d` paths (engine/loader.hpp) and `-b` bundles together, as one LoadResult.
LoadResult load_paths_and_bundles(const std::vector<std::string>& data_paths,
                                  const std::vector<std::string>& bundle_paths, const LoadOptions& load_options,
                                  const BundleReadOptions& bundle_options);

}  // namespace gavel::engine::bundle
