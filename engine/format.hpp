#pragma once
// Formatting Rego as `opa fmt` does, for front ends and embedders. The
// formatter itself lives in lang/format (it needs nothing but the parser).

#include "lang/format/format.hpp"

namespace gavel::engine {

using FormatOptions = lang::format::FormatOptions;
using FormatResult = lang::format::FormatResult;
using FormatTarget = lang::format::TargetVersion;

// Parses `text` (named `file` in errors) and returns it laid out as `opa fmt` lays it out.
inline FormatResult format_rego(std::string file, std::string text, const FormatOptions& options = {}) {
    return lang::format::format_module(std::move(file), std::move(text), options);
}

}  // namespace gavel::engine
