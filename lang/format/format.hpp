#pragma once
// `gavel fmt`: Rego source in, Rego source out, laid out exactly as OPA's
// `opa fmt` (OPA 1.x, format.SourceWithOpts) lays it out.

#include <optional>
#include <string>

#include "lang/diagnostics.hpp"
#include "lang/format/module_view.hpp"

namespace gavel::lang::format {

struct FormatOptions {
    TargetVersion target = TargetVersion::V1;  // the dialect written
    bool parse_v0 = false;                     // read the module as v0 (--v0-compatible, --v0-v1)
    bool drop_v0_imports = false;              // drop `rego.v1` / `future.keywords` imports the target makes redundant
};

struct FormatResult {
    std::optional<std::string> text;  // set when the module parsed and could be formatted
    Diagnostics diagnostics;
    bool ok() const { return text.has_value(); }
};

FormatResult format_module(std::string file, std::string text, const FormatOptions& options = {});

}  // namespace gavel::lang::format
