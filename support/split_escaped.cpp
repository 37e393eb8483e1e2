#include "support/split_escaped.hpp"

namespace gavel::support {

std::vector<std::string> split_escaped(std::string_view s, std::string_view delim) {
    std::vector<std::string> out;
    std::size_t last = 0;
    bool escaped = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' || escaped) {
            escaped = !escaped;
            continue;
        }
        if (delim.find(s[i]) != std::string_view::npos) {
            out.emplace_back(s.substr(last, i - last));
            last = i + 1;
        }
    }
    out.emplace_back(s.substr(last));
    return out;
}

bool has_glob_metachar(std::string_view part) {
    bool escaped = false;
    for (char c : part) {
        if (c == '\\') {
            escaped = !escaped;
            continue;
        }
        if (!escaped && (c == '[' || c == '?' || c == '{' || c == '*')) return true;
        escaped = false;
    }
    return false;
}

}  // namespace gavel::support
