#include "lang/source_scan.hpp"

namespace gavel::lang {

namespace {

// What the scanner is inside of. Template strings nest expressions, which can
// hold strings and further templates, so modes form a stack.
enum class Mode : uint8_t { Code, TemplateQuoted, TemplateRaw };

}  // namespace

SourceScan scan_source(const ParseState& st, std::size_t max_nesting) {
    SourceScan out;
    const char* p = st.begin;
    const char* end = st.end;
    std::vector<Mode> modes{Mode::Code};
    std::vector<std::size_t> depth_at_template;  // bracket depth where each template expression began
    std::size_t depth = 0;

    auto open = [&](const char* at) {
        if (++depth > max_nesting && !out.too_deep) out.too_deep = at;
    };

    while (p < end) {
        Mode mode = modes.back();
        char c = *p;
        if (mode != Mode::Code) {
            const char quote = mode == Mode::TemplateQuoted ? '"' : '`';
            if (c == '\\' && p + 1 < end) {
                p += 2;
            } else if (c == quote) {
                modes.pop_back();
                ++p;
            } else if (c == '{') {
                open(p);
                depth_at_template.push_back(depth);
                modes.push_back(Mode::Code);
                ++p;
            } else {
                ++p;
            }
            continue;
        }
        switch (c) {
            case '#': {
                const char* start = p;
                while (p < end && *p != '\n') ++p;
                Comment comment;
                comment.loc = st.location(start, p);
                comment.text.assign(start + 1, p);
                if (!comment.text.empty() && comment.text.back() == '\r') comment.text.pop_back();
                out.comments.push_back(std::move(comment));
                break;
            }
            case '"':
                for (++p; p < end && *p != '"' && *p != '\n'; ++p)
                    if (*p == '\\') ++p;
                if (p < end) ++p;
                break;
            case '`':
                for (++p; p < end && *p != '`'; ++p) {
                }
                if (p < end) ++p;
                break;
            case '$':
                if (p + 1 < end && (p[1] == '"' || p[1] == '`')) {
                    modes.push_back(p[1] == '"' ? Mode::TemplateQuoted : Mode::TemplateRaw);
                    p += 2;
                } else {
                    ++p;
                }
                break;
            case '[':
            case '(':
            case '{':
                open(p);
                ++p;
                break;
            case ']':
            case ')':
            case '}':
                if (depth > 0) --depth;
                if (c == '}' && modes.size() > 1 && !depth_at_template.empty() && depth + 1 == depth_at_template.back()) {
                    depth_at_template.pop_back();
                    modes.pop_back();
                }
                ++p;
                break;
            default:
                ++p;
        }
    }
    return out;
}

}  // namespace gavel::lang
