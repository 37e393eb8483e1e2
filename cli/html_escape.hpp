#pragma once
// Go's JSON encoder (and so OPA's output) escapes <, > and & as \u003c,
// \u003e, \u0026. In JSON text they occur only inside strings, so escaping
// the whole text is safe.

#include <string>
#include <string_view>

namespace gavel::cli {

inline std::string html_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '<') out += "\\u003c";
        else if (c == '>') out += "\\u003e";
        else if (c == '&') out += "\\u0026";
        else out.push_back(c);
    }
    return out;
}

}  // namespace gavel::cli
