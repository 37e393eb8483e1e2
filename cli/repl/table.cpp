#include "cli/repl/table.hpp"

#include <algorithm>
#include <climits>

namespace gavel::cli::repl {

namespace {

constexpr std::size_t kMaxColumnWidth = 30;  // tablewriter's default before it wraps

// Display width: UTF-8 continuation bytes take no column.
std::size_t width_of(const std::string& s) {
    std::size_t w = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++w;
    return w;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        auto at = s.find(sep, start);
        out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return out;
        start = at + 1;
    }
}

// Lines of words with the least raggedness (the sum of squared trailing gaps), as tablewriter wraps.
std::vector<std::string> wrap_words(const std::vector<std::string>& words, std::size_t limit) {
    const std::size_t n = words.size();
    std::vector<std::vector<long>> length(n, std::vector<long>(n, 0));
    for (std::size_t i = 0; i < n; ++i) {
        length[i][i] = static_cast<long>(width_of(words[i]));
        for (std::size_t j = i + 1; j < n; ++j)
            length[i][j] = length[i][j - 1] + 1 + static_cast<long>(width_of(words[j]));
    }
    const long lim = static_cast<long>(limit);
    const long penalty = 100000;
    std::vector<std::size_t> next_break(n, n);
    std::vector<long> cost(n, INT_MAX);
    for (std::size_t ii = n; ii-- > 0;) {
        if (length[ii][n - 1] <= lim) {
            cost[ii] = 0;
            next_break[ii] = n;
            continue;
        }
        for (std::size_t j = ii + 1; j < n; ++j) {
            long gap = lim - length[ii][j - 1];
            long c = gap * gap + cost[j];
            if (length[ii][j - 1] > lim) c += penalty;
            if (c < cost[ii]) {
                cost[ii] = c;
                next_break[ii] = j;
            }
        }
    }
    std::vector<std::string> lines;
    for (std::size_t i = 0; i < n;) {
        std::string line;
        for (std::size_t k = i; k < next_break[i]; ++k) {
            if (k > i) line += ' ';
            line += words[k];
        }
        lines.push_back(std::move(line));
        i = next_break[i];
    }
    return lines;
}

// A cell's lines: each paragraph wrapped to min(its widest line, 30) columns.
std::vector<std::string> cell_lines(const std::string& text) {
    auto paragraphs = split(text, '\n');
    std::size_t widest = 0;
    for (const auto& p : paragraphs) widest = std::max(widest, width_of(p));
    std::size_t limit = std::min(widest, kMaxColumnWidth);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < paragraphs.size(); ++i) {
        auto words = split(paragraphs[i], ' ');
        std::size_t lim = limit;
        for (const auto& w : words) lim = std::max(lim, width_of(w));
        if (i > 0) out.push_back(" ");
        for (auto& line : wrap_words(words, lim)) out.push_back(std::move(line));
    }
    return out;
}

std::string pad_right(const std::string& s, std::size_t width) {
    return s + std::string(width - std::min(width, width_of(s)), ' ');
}

std::string centre(const std::string& s, std::size_t width) {
    std::size_t gap = width - std::min(width, width_of(s));
    std::size_t left = gap / 2;
    return std::string(left, ' ') + s + std::string(gap - left, ' ');
}

}  // namespace

std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    std::size_t columns = header.size();  // a table without a header takes its rows' width
    for (const auto& row : rows) columns = std::max(columns, row.size());
    std::vector<std::size_t> width(columns, 0);
    auto measure = [&](const std::vector<std::vector<std::string>>& cells) {
        for (std::size_t c = 0; c < cells.size() && c < columns; ++c)
            for (const auto& line : cells[c]) width[c] = std::max(width[c], width_of(line));
    };
    std::vector<std::vector<std::string>> head_cells;
    for (const auto& h : header) head_cells.push_back(cell_lines(h));
    measure(head_cells);
    std::vector<std::vector<std::vector<std::string>>> body;
    for (const auto& row : rows) {
        std::vector<std::vector<std::string>> cells;
        for (const auto& cell : row) cells.push_back(cell_lines(cell));
        measure(cells);
        body.push_back(std::move(cells));
    }
    std::string border = "+";
    for (auto w : width) border += std::string(w + 2, '-') + "+";
    border += "\n";

    auto draw = [&](const std::vector<std::vector<std::string>>& cells, bool centred) {
        std::size_t height = 1;
        for (const auto& c : cells) height = std::max(height, c.size());
        std::string out;
        for (std::size_t line = 0; line < height; ++line) {
            out += "|";
            for (std::size_t c = 0; c < columns; ++c) {
                std::string text = c < cells.size() && line < cells[c].size() ? cells[c][line] : "";
                out += ' ' + (centred ? centre(text, width[c]) : pad_right(text, width[c])) + " |";
            }
            out += "\n";
        }
        return out;
    };
    std::string out = header.empty() ? border : border + draw(head_cells, true) + border;
    for (const auto& cells : body) out += draw(cells, false);
    return out + border;
}

}  // namespace gavel::cli::repl
