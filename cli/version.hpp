#pragma once
// What gavel is: meson's project version, and the git revision it was built
// from (meson's vcs_tag reads it at build time; "unknown" outside a checkout).

namespace gavel::cli {

const char* gavel_version();
const char* gavel_build_commit();

}  // namespace gavel::cli
