// OPA's coverage report (cover.Report) for `opa test --coverage`:
//
//   {"files": {"<file>": {"covered": [{"start": {"row": 3}, "end": {"row": 5}}],
//                         "not_covered": [...], "covered_lines": 3,
//                         "not_covered_lines": 1, "coverage": 75}},
//    "covered_lines": ..., "not_covered_lines": ..., "coverage": ...}
//
// Consecutive rows merge into one range; empty lists, zero counts and zero
// percentages of a file are left out (Go's omitempty); percentages are rounded
// to two decimals. A line counts when it is a rule head or starts a body
// expression; it is covered when evaluation reached it.

#include <cmath>

#include <fmt/format.h>

#include "cli/test_runner/json_writer.hpp"
#include "cli/test_runner/report.hpp"

namespace gavel::cli::test_runner {

namespace {

JsonNode ranges(const std::vector<uint32_t>& rows) {
    JsonNode out = JsonNode::array();
    for (std::size_t i = 0; i < rows.size();) {
        std::size_t j = i;
        while (j + 1 < rows.size() && rows[j + 1] == rows[j] + 1) ++j;
        out.push(std::move(JsonNode::object()
                               .add("start", std::move(JsonNode::object().add("row", JsonNode::integer(rows[i]))))
                               .add("end", std::move(JsonNode::object().add("row", JsonNode::integer(rows[j]))))));
        i = j + 1;
    }
    return out;
}

double percentage(std::size_t covered, std::size_t total) {
    if (total == 0) return 0;
    return std::round(static_cast<double>(covered) * 100.0 / static_cast<double>(total) * 100.0) / 100.0;
}

std::string number(double v) { return fmt::format("{}", v); }

}  // namespace

CoverageReport coverage_report(const std::map<std::string, std::set<uint32_t>>& coverable,
                               const std::map<std::string, std::set<uint32_t>>& covered) {
    JsonNode files = JsonNode::object();
    std::size_t all_covered = 0, all_not_covered = 0;
    for (const auto& [file, lines] : coverable) {
        std::vector<uint32_t> yes, no;
        auto reached = covered.find(file);
        for (uint32_t line : lines) {
            bool hit = reached != covered.end() && reached->second.count(line);
            (hit ? yes : no).push_back(line);
        }
        all_covered += yes.size();
        all_not_covered += no.size();
        JsonNode f = JsonNode::object();
        if (!yes.empty()) f.add("covered", ranges(yes));
        if (!no.empty()) f.add("not_covered", ranges(no));
        if (!yes.empty()) f.add("covered_lines", JsonNode::integer(static_cast<long long>(yes.size())));
        if (!no.empty()) f.add("not_covered_lines", JsonNode::integer(static_cast<long long>(no.size())));
        double p = percentage(yes.size(), yes.size() + no.size());
        if (p != 0) f.add("coverage", JsonNode::raw(number(p)));
        files.add(file, std::move(f));
    }
    CoverageReport out;
    out.coverage = percentage(all_covered, all_covered + all_not_covered);
    JsonNode doc = JsonNode::object();
    doc.add("files", std::move(files));
    doc.add("covered_lines", JsonNode::integer(static_cast<long long>(all_covered)));
    doc.add("not_covered_lines", JsonNode::integer(static_cast<long long>(all_not_covered)));
    doc.add("coverage", JsonNode::raw(number(out.coverage)));
    out.json = doc.text();
    return out;
}

}  // namespace gavel::cli::test_runner
