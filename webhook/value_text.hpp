#pragma once
// Two shorthands the server's files share: a JSON string value, and parts joined
// with a separator (admission messages, package paths).

#include <string>
#include <string_view>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::webhook {

inline runtime::Value str(std::string_view s) { return runtime::Value::string(s); }

inline std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) out += sep;
        out += parts[i];
    }
    return out;
}

}  // namespace gavel::webhook
