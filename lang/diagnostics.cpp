#include "lang/diagnostics.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gavel::lang {

Diagnostic Diagnostic::at(const Location& loc, std::string_view code, std::string message) {
    Diagnostic d;
    d.code = std::string(code);
    d.message = std::move(message);
    d.file = std::string(loc.file());
    d.line = loc.line;
    d.col = loc.col;
    if (loc.source) d.source_line = std::string(loc.source->line_text(loc.line));
    return d;
}

std::string Diagnostic::headline() const {
    // The hint follows the message's first line: detail lines (type errors) come after it.
    std::string shown = message;
    if (!hint.empty()) shown.insert(std::min(shown.find('\n'), shown.size()), " (" + hint + ")");
    if (file.empty() && line == 0) return fmt::format("{}: {}", code, shown);
    if (file.empty()) return fmt::format("{}:{}: {}: {}", line, col, code, shown);
    return fmt::format("{}:{}:{}: {}: {}", file, line, col, code, shown);
}

namespace {

bool utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

LineExcerpt excerpt_line(std::string_view line, uint32_t col, std::size_t width) {
    std::size_t at = col > 0 ? std::min<std::size_t>(col - 1, line.size()) : 0;
    if (line.size() <= width) return {std::string(line), at};
    // Cut on character boundaries, a third of the width before the column.
    std::size_t begin = at > width / 3 ? at - width / 3 : 0;
    while (begin > 0 && utf8_continuation(line[begin])) --begin;
    std::size_t end = std::min(line.size(), begin + width);
    while (end < line.size() && utf8_continuation(line[end])) ++end;
    LineExcerpt out;
    if (begin > 0) out.text = "...";
    out.caret = out.text.size() + (at - begin);
    out.text.append(line.substr(begin, end - begin));
    if (end < line.size()) out.text += "...";
    return out;
}

std::string_view Diagnostic::summary() const {
    std::string_view m = message;
    return m.substr(0, m.find('\n'));
}

std::string Diagnostic::pretty() const {
    std::string out = headline();
    if (source_line.empty()) return out;
    // As OPA's ParserErrorDetail: the line without its leading tabs, the caret
    // under the column with spaces.
    std::string_view line = source_line;
    uint32_t at = col;
    while (!line.empty() && line.front() == '\t') {
        line.remove_prefix(1);
        if (at > 1) --at;
    }
    LineExcerpt shown = excerpt_line(line, at);
    fmt::format_to(std::back_inserter(out), "\n\t{}\n\t{}^", shown.text, std::string(shown.caret, ' '));
    return out;
}

std::string Diagnostics::format() const {
    std::string out;
    if (items_.size() > 1) out = fmt::format("{} errors occurred:\n", items_.size());
    for (const auto& d : items_) {
        out += d.pretty();
        out += '\n';
    }
    return out;
}

std::string Diagnostics::opa_text() const {
    auto line = [](const Diagnostic& d) {
        if (!d.file.empty()) return fmt::format("{}:{}: {}: {}", d.file, d.line, d.code, d.message);
        if (d.line > 0) return fmt::format("{}:{}: {}: {}", d.line, d.col, d.code, d.message);
        return fmt::format("{}: {}", d.code, d.message);
    };
    if (items_.size() == 1) return "1 error occurred: " + line(items_[0]);
    std::string out = fmt::format("{} errors occurred:", items_.size());
    for (const auto& d : items_) out += '\n' + line(d);
    return out;
}

}  // namespace gavel::lang
