#include "cli/repl/result_printer.hpp"

#include <algorithm>

#include "support/json_string.hpp"
#include "cli/repl/table.hpp"
#include "runtime/json.hpp"

namespace gavel::cli::repl {

using runtime::Value;

namespace {

void indent(std::string& out, int level) {
    out.push_back('\n');
    out.append(static_cast<std::size_t>(level) * 2, ' ');
}

// A pretty value nested `level` deep in the surrounding document.
void append_nested(std::string& out, const Value& v, int level) {
    for (char c : pretty_json(v)) {
        if (c == '\n') indent(out, level);
        else out.push_back(c);
    }
}

std::string render_json(const ResultRows& rows) {
    if (rows.empty()) return "{}\n";
    std::string out = "{";
    indent(out, 1);
    out += "\"result\": [";
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const auto& row = rows[r];
        if (r) out += ",";
        indent(out, 2);
        out += "{";
        indent(out, 3);
        out += "\"expressions\": [";
        for (std::size_t e = 0; e < row.expressions.size(); ++e) {
            const auto& x = row.expressions[e];
            if (e) out += ",";
            indent(out, 4);
            out += "{";
            indent(out, 5);
            out += "\"value\": ";
            append_nested(out, x.value, 5);
            out += ",";
            indent(out, 5);
            out += "\"text\": ";
            support::append_json_string(out, x.text, {.escape_html = true});
            out += ",";
            indent(out, 5);
            out += "\"location\": {";
            indent(out, 6);
            out += "\"row\": " + std::to_string(x.line) + ",";
            indent(out, 6);
            out += "\"col\": " + std::to_string(x.col);
            indent(out, 5);
            out += "}";
            indent(out, 4);
            out += "}";
        }
        indent(out, 3);
        out += "]";
        if (!row.bindings.empty()) {
            out += ",";
            indent(out, 3);
            out += "\"bindings\": {";
            for (std::size_t b = 0; b < row.bindings.size(); ++b) {
                if (b) out += ",";
                indent(out, 4);
                std::string key;
                runtime::append_json_string(key, row.bindings[b].first);
                out += key + ": ";
                append_nested(out, row.bindings[b].second, 4);
            }
            indent(out, 3);
            out += "}";
        }
        indent(out, 2);
        out += "}";
    }
    indent(out, 1);
    out += "]";
    indent(out, 0);
    out += "}\n";
    return out;
}

std::string cut(std::string s, std::size_t limit) {
    if (limit > 0 && s.size() > limit) {
        s.resize(limit);
        s += "...";
    }
    return s;
}

}  // namespace

std::string pretty_json(const Value& v) {
    std::string out;
    runtime::append_json(out, v, runtime::JsonWriteOptions{runtime::JsonStyle::Pretty, true, 0});
    return out;
}

std::string compact_json(const Value& v) {
    std::string out;
    runtime::append_json(out, v, runtime::JsonWriteOptions{runtime::JsonStyle::Compact, true, 0});
    return out;
}

std::string render_results(const ResultRows& rows, OutputMode mode, std::size_t pretty_limit) {
    if (mode == OutputMode::Json) return render_json(rows);
    if (rows.empty()) return "undefined\n";
    const ResultRow& first = rows.front();
    auto all_boolean = [](const ResultRow& row) {
        return std::all_of(row.expressions.begin(), row.expressions.end(),
                           [](const ExpressionResult& e) { return e.value.is_bool(); });
    };
    if (rows.size() == 1 && first.bindings.empty() && !first.expressions.empty() &&
        (first.expressions.size() == 1 || all_boolean(first)))
        return pretty_json(first.expressions.front().value) + "\n";

    // Columns: the variables (already sorted by name), then each non-boolean expression.
    std::vector<std::string> header;
    std::vector<std::size_t> expression_columns;
    for (const auto& b : first.bindings) header.push_back(b.first);
    for (std::size_t i = 0; i < first.expressions.size(); ++i)
        if (!first.expressions[i].value.is_bool()) {
            header.emplace_back(first.expressions[i].text);
            expression_columns.push_back(i);
        }
    if (header.empty()) return "";
    std::vector<std::vector<std::string>> cells;
    for (const auto& row : rows) {
        std::vector<std::string> line;
        for (std::size_t c = 0; c < first.bindings.size(); ++c) {
            const Value* v = nullptr;
            for (const auto& b : row.bindings)
                if (b.first == first.bindings[c].first) v = &b.second;
            if (v) line.push_back(cut(compact_json(*v), pretty_limit));
        }
        for (auto i : expression_columns)
            if (i < row.expressions.size()) line.push_back(cut(compact_json(row.expressions[i].value), pretty_limit));
        cells.push_back(std::move(line));
    }
    return render_table(header, cells);
}

}  // namespace gavel::cli::repl
