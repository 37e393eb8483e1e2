#include "support/html_escape.hpp"

namespace gavel::support {

std::string html_escape(std::string_view s, HtmlNul nul) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            case '\'': out += "&#39;"; break;
            case '"': out += "&#34;"; break;
            case '\0':
                if (nul == HtmlNul::Replace) {
                    out += "\uFFFD";
                    break;
                }
                [[fallthrough]];
            default: out += c;
        }
    }
    return out;
}

}  // namespace gavel::support
