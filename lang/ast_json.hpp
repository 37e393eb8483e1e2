#pragma once
// The AST as JSON in the shape of `opa parse --format json`, and as an
// indented tree for people (`gavel parse --format pretty`).

#include <string>

#include "lang/ast.hpp"

namespace gavel::lang {

std::string module_to_json(const Module& module, bool with_locations = false);
std::string module_to_pretty(const Module& module);

// What `module_to_json` prints, spelled out (the two-argument form is
// {locations = with_locations, location_text = false, comments = true, indent = false}).
struct AstJsonOptions {
    bool locations = false;      // "location" on every node (`--json-include locations`)
    bool location_text = false;  // with locations: "text" (base64 source text) as `opa parse` adds it
    bool comments = true;        // the module's "comments" (`--json-include -comments` drops them)
    bool indent = false;         // two-space indentation as Go's json.MarshalIndent, else compact
    bool imports = true;         // the module's imports (OPA's compiler removes them once refs are resolved)
    bool generated = false;      // "generated": true on expressions the compiler made (compiled modules)
    // A bare `input` or `data` as the one-element ref OPA's compiler resolves it to (compiled modules).
    bool root_documents_as_refs = false;
};

std::string module_to_json(const Module& module, const AstJsonOptions& options);
// `with_comments = false` leaves out the trailing `comment` nodes.
std::string module_to_pretty(const Module& module, bool with_comments);

// The same for a module the caller hands over: normalised in place (OPA's parser's
// shape, lang/normalize_module.hpp) instead of in a copy.
std::string module_to_json(Module&& module, const AstJsonOptions& options);
std::string module_to_pretty(Module&& module, bool with_comments);

}  // namespace gavel::lang
