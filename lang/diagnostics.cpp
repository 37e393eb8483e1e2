#include "lang/diagnostics.hpp"

#include <fmt/format.h>

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
    if (file.empty() && line == 0) return fmt::format("{}: {}", code, message);
    if (file.empty()) return fmt::format("{}:{}: {}: {}", line, col, code, message);
    return fmt::format("{}:{}:{}: {}: {}", file, line, col, code, message);
}

std::string Diagnostic::pretty() const {
    std::string out = headline();
    if (source_line.empty()) return out;
    // Tabs are kept in the padding so the caret lines up in any tab width.
    std::string pad;
    for (uint32_t i = 1; i < col && i - 1 < source_line.size(); ++i)
        pad.push_back(source_line[i - 1] == '\t' ? '\t' : ' ');
    fmt::format_to(std::back_inserter(out), "\n\t{}\n\t{}^", source_line, pad);
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
    for (const auto& d : items_) out += "\n" + line(d);
    return out;
}

}  // namespace gavel::lang
