#pragma once
// One `# METADATA` block in OPA's JSON shape: known keys only, `authors` as
// [{name, email}], `related_resources` as [{ref, description}], `scope`
// always. The compiler's rego.metadata stage calls it through the hidden
// builtin internal.rego_annotation(yaml, scope).

#include <string_view>

#include "runtime/value.hpp"

namespace gavel::stdlib {

runtime::Value annotation_object(std::string_view yaml, std::string_view scope);

}  // namespace gavel::stdlib
