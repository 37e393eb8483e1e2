#include "cli/repl/query_rewrite.hpp"

#include <set>

#include "cli/repl/lexer.hpp"

namespace gavel::cli::repl {

std::size_t offset_of(std::string_view text, uint32_t line, uint32_t col) {
    if (line == 0 || col == 0) return std::string_view::npos;
    std::size_t offset = 0;
    for (uint32_t l = 1; l < line; ++l) {
        offset = text.find('\n', offset);
        if (offset == std::string_view::npos) return offset;
        ++offset;
    }
    offset += col - 1;
    return offset <= text.size() ? offset : std::string_view::npos;
}

namespace {

void position_of(std::string_view text, std::size_t offset, uint32_t& line, uint32_t& col) {
    line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i)
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    col = static_cast<uint32_t>(offset - line_start + 1);
}

}  // namespace

std::size_t RewrittenQuery::to_original(std::size_t new_offset) const {
    long shift = 0;
    for (const auto& e : edits) {
        if (new_offset < e.new_offset) break;
        if (new_offset < e.new_offset + e.new_length) return e.original_offset;  // inside a replacement
        shift =
            static_cast<long>(e.original_offset + e.original_length) - static_cast<long>(e.new_offset + e.new_length);
    }
    return static_cast<std::size_t>(static_cast<long>(new_offset) + shift);
}

std::string RewrittenQuery::original_span(std::string_view original, uint32_t line, uint32_t col, std::size_t length,
                                          const std::string& fallback) const {
    if (edits.empty()) return fallback;
    std::size_t start = offset_of(text, line, col);
    if (start == std::string_view::npos || start + length > text.size()) return fallback;
    std::size_t end = start + length;
    std::size_t o_start = to_original(start);
    // The end maps through the last byte so a span ending in a replacement keeps all of the name.
    std::size_t o_end = length == 0 ? o_start : to_original(end - 1) + 1;
    for (const auto& e : edits)
        if (end - 1 >= e.new_offset && end - 1 < e.new_offset + e.new_length)
            o_end = e.original_offset + e.original_length;
    if (o_start > original.size() || o_end > original.size() || o_end < o_start) return fallback;
    return std::string(original.substr(o_start, o_end - o_start));
}

void RewrittenQuery::map_position(std::string_view original, uint32_t& line, uint32_t& col) const {
    if (edits.empty()) return;
    std::size_t at = offset_of(text, line, col);
    if (at == std::string_view::npos) return;
    position_of(original, to_original(at), line, col);
}

RewrittenQuery rewrite_query(std::string_view query, const std::map<std::string, std::string>& names) {
    RewrittenQuery out;
    if (names.empty()) {
        out.text = std::string(query);
        return out;
    }
    Scan s = scan(query);
    const auto& t = s.tokens;
    // Names the query declares are its own variables.
    std::set<std::string_view> locals;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i].kind == TokenKind::Keyword && (t[i].text == "some" || t[i].text == "every")) {
            for (std::size_t j = i + 1; j < t.size(); ++j) {
                if (t[j].kind == TokenKind::Name) locals.insert(t[j].text);
                else if (t[j].kind != TokenKind::Comma) break;
            }
        }
        if (t[i].kind == TokenKind::Name && i + 1 < t.size() && t[i + 1].kind == TokenKind::Operator &&
            t[i + 1].text == ":=" && (i == 0 || t[i - 1].kind != TokenKind::Dot))
            locals.insert(t[i].text);
    }
    std::size_t copied = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i].kind != TokenKind::Name || locals.count(t[i].text)) continue;
        if (i > 0 && t[i - 1].kind == TokenKind::Dot) continue;  // a field: x.name
        auto it = names.find(std::string(t[i].text));
        if (it == names.end()) continue;
        out.text.append(query.substr(copied, t[i].offset - copied));
        RewrittenQuery::Edit e{t[i].offset, t[i].text.size(), out.text.size(), it->second.size()};
        out.text.append(it->second);
        out.edits.push_back(e);
        copied = t[i].offset + t[i].text.size();
    }
    out.text.append(query.substr(copied));
    return out;
}

}  // namespace gavel::cli::repl
