#include "lang/location.hpp"

#include <algorithm>

namespace gavel::lang {

Source::Source(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i) {
        if (text_[i] == '\n') line_starts_.push_back(i + 1);
        else if ((static_cast<unsigned char>(text_[i]) & 0xC0) == 0x80) continuation_bytes_.push_back(i);
    }
}

std::pair<uint32_t, uint32_t> Source::line_col(std::size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    std::size_t line_index = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
    std::size_t start = line_starts_[line_index];
    // Bytes that continue a character are no columns of their own.
    auto first = std::lower_bound(continuation_bytes_.begin(), continuation_bytes_.end(), start);
    auto last = std::lower_bound(first, continuation_bytes_.end(), offset);
    std::size_t continuation = static_cast<std::size_t>(last - first);
    return {static_cast<uint32_t>(line_index + 1), static_cast<uint32_t>(offset - start - continuation + 1)};
}

std::string_view Source::line_text(uint32_t line) const {
    if (line == 0 || line > line_starts_.size()) return {};
    std::size_t start = line_starts_[line - 1];
    std::size_t end = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
    if (end > start && text_[end - 1] == '\r') --end;
    return std::string_view(text_).substr(start, end - start);
}

std::string_view Location::file() const { return source ? std::string_view(source->name()) : std::string_view(); }

std::string_view Location::text() const {
    if (!source) return {};
    return std::string_view(source->text()).substr(offset, length);
}

}  // namespace gavel::lang
