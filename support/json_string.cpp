#include "support/json_string.hpp"

#include <algorithm>

namespace gavel::support {

namespace {

// write_json_string's sink over a std::string.
struct StringSink {
    std::string& s;
    void reserve(std::size_t n) {
        if (s.capacity() - s.size() < n) s.reserve(std::max(s.size() + n, 2 * s.capacity()));
    }
    void put(char c) { s.push_back(c); }
    void put(const char* d, std::size_t n) { s.append(d, n); }
};

}  // namespace

void append_json_string(std::string& out, std::string_view s, JsonStringOptions options) {
    StringSink sink{out};
    write_json_string(sink, s, options);
}

std::string escape_html_in_json(std::string_view json_text) {
    std::string out;
    out.reserve(json_text.size());
    for (char c : json_text) {
        if (c == '<') out += "\\u003c";
        else if (c == '>') out += "\\u003e";
        else if (c == '&') out += "\\u0026";
        else out.push_back(c);
    }
    return out;
}

}  // namespace gavel::support
