#include "lang/source_scan.hpp"

#include "support/utf8.hpp"

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
    // Steps over the byte at q, which belongs to the token starting at `token`.
    auto step = [&](const char*& q, const char* token) {
        if (*q == '\0' && !out.illegal) {
            out.illegal = token;
            out.illegal_reason = "illegal null character";
        }
        if (static_cast<unsigned char>(*q) < 0x80) {
            ++q;
            return;
        }
        char32_t cp = 0;
        std::size_t n = support::utf8::decode(std::string_view(q, static_cast<std::size_t>(end - q)), 0, cp);
        if (n == 0 && !out.illegal) {
            out.illegal = token;
            out.illegal_reason = "illegal utf-8 character";
        }
        q += n == 0 ? 1 : n;
    };
    std::vector<const char*> template_starts;  // where each open template string began

    while (p < end) {
        Mode mode = modes.back();
        char c = *p;
        if (mode != Mode::Code) {
            const char quote = mode == Mode::TemplateQuoted ? '"' : '`';
            if (c == '\\' && p + 1 < end) {
                p += 2;
            } else if (c == quote) {
                modes.pop_back();
                template_starts.pop_back();
                ++p;
            } else if (c == '{') {
                open(p);
                depth_at_template.push_back(depth);
                modes.push_back(Mode::Code);
                ++p;
            } else {
                step(p, template_starts.back());
            }
            continue;
        }
        switch (c) {
            case '#': {
                const char* start = p;
                while (p < end && *p != '\n') step(p, start);
                Comment comment;
                comment.loc = st.location(start, p);
                comment.text.assign(start + 1, p);
                if (!comment.text.empty() && comment.text.back() == '\r') comment.text.pop_back();
                out.comments.push_back(std::move(comment));
                break;
            }
            case '"': {
                const char* start = p++;
                while (p < end && *p != '"' && *p != '\n') {
                    if (*p == '\\' && p + 1 < end) ++p;
                    step(p, start);
                }
                if (p < end) ++p;
                break;
            }
            case '`': {
                const char* start = p++;
                while (p < end && *p != '`') step(p, start);
                if (p < end) ++p;
                break;
            }
            case '$':
                if (p + 1 < end && (p[1] == '"' || p[1] == '`')) {
                    modes.push_back(p[1] == '"' ? Mode::TemplateQuoted : Mode::TemplateRaw);
                    template_starts.push_back(p);
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
                if (c == '}' && modes.size() > 1 && !depth_at_template.empty() &&
                    depth + 1 == depth_at_template.back()) {
                    depth_at_template.pop_back();
                    modes.pop_back();
                }
                ++p;
                break;
            default: step(p, p);
        }
    }
    return out;
}

}  // namespace gavel::lang
