#pragma once
// A plain (untagged, unquoted) YAML scalar as a Value: what it resolves to is
// lang/yaml_plain_scalar.hpp's (the one place that decides it); this makes
// the value, or says why JSON cannot hold it (.inf, .nan).

#include <optional>
#include <string>
#include <string_view>

#include "lang/yaml_plain_scalar.hpp"
#include "runtime/value.hpp"

namespace gavel::runtime {

using YamlTyping = lang::yaml::Typing;

struct YamlScalar {
    Value value;
    std::optional<std::string> error;  // set when the scalar cannot become JSON
};

YamlScalar resolve_plain_yaml_scalar(std::string_view s, YamlTyping typing = YamlTyping::SigsK8sYaml);

}  // namespace gavel::runtime
