// `opa test --format json`: the array of OPA's tester.Result, as Go's
// json.MarshalIndent writes it -- location {file,row,col}, package, name,
// fail / error / skip (left out when false or absent), duration in
// nanoseconds, output (the print() bytes, base64 as Go encodes []byte), then
// failed_at (where a failing test stopped), benchmark_result (--bench) and
// sub_results (the cases of a partial-object test, by key, nested as the test's value).

#include "cli/test_runner/json_writer.hpp"
#include "cli/test_runner/report.hpp"
#include "support/base64.hpp"

namespace gavel::cli::test_runner {

namespace {

JsonNode location(const std::string& file, uint32_t line, uint32_t col) {
    return std::move(JsonNode::object()
                         .add("file", JsonNode::string(file))
                         .add("row", JsonNode::integer(line))
                         .add("col", JsonNode::integer(col)));
}

// OPA's SubResultMap: key -> {name, fail, sub_results}, each left out when empty.
JsonNode sub_results_json(const std::vector<testing::SubResult>& cases) {
    JsonNode subs = JsonNode::object();
    for (const auto& c : cases) {
        JsonNode s = JsonNode::object();
        if (!c.name.empty()) s.add("name", JsonNode::string(c.name));
        if (c.fail) s.add("fail", JsonNode::boolean(true));
        if (!c.cases.empty()) s.add("sub_results", sub_results_json(c.cases));
        subs.add(c.key, std::move(s));
    }
    return subs;
}

JsonNode result_json(const Reported& rep) {
    const auto& r = rep.result;
    JsonNode o = JsonNode::object();
    o.add("location", location(r.test.file, r.test.line, r.test.col));
    o.add("package", JsonNode::string(r.test.package));
    o.add("name", JsonNode::string(r.test.name));
    if (r.fail && !r.error) o.add("fail", JsonNode::boolean(true));
    if (r.error) {
        JsonNode e = JsonNode::object();
        e.add("code", JsonNode::string(r.error->code));
        e.add("message", JsonNode::string(r.error->message));
        if (!r.error->file.empty()) e.add("location", location(r.error->file, r.error->line, r.error->col));
        o.add("error", std::move(e));
    }
    if (r.skip) o.add("skip", JsonNode::boolean(true));
    o.add("duration", JsonNode::integer(r.duration.count()));
    if (!r.output.empty()) o.add("output", JsonNode::string(support::base64_encode(r.output)));
    if (r.failed_at) {
        JsonNode f = JsonNode::object();
        f.add("location", location(r.failed_at->file, r.failed_at->line, r.failed_at->col));
        f.add("text", JsonNode::string(r.failed_at->text));
        o.add("failed_at", std::move(f));
    }
    if (rep.bench) {
        const auto& b = *rep.bench;
        o.add("benchmark_result", std::move(JsonNode::object()
                                                .add("N", JsonNode::integer(static_cast<long long>(b.n)))
                                                .add("T", JsonNode::integer(static_cast<long long>(b.total_ns)))
                                                .add("Bytes", JsonNode::integer(0))
                                                .add("MemAllocs", JsonNode::integer(static_cast<long long>(b.allocs)))
                                                .add("MemBytes", JsonNode::integer(static_cast<long long>(b.bytes)))
                                                .add("Extra", JsonNode::object())));
    }
    if (!r.cases.empty()) o.add("sub_results", sub_results_json(r.cases));
    return o;
}

}  // namespace

void print_json(std::ostream& out, const std::vector<Reported>& results) {
    JsonNode array = JsonNode::array();
    for (const auto& r : results) array.push(result_json(r));
    out << array.text() << "\n";
}

}  // namespace gavel::cli::test_runner
