// gavel eval QUERY: evaluate a Rego query and print the result, as `opa eval` does.
//
// Output (OPA's presentation package):
//   json      {"result":[{"expressions":[{"value","text","location"}],"bindings":{..}}]}
//             pretty-printed with two spaces like Go's json.Encoder; "bindings" left out
//             when empty; undefined prints {}; errors print {"errors":[...]} instead.
//             Like Go's encoder (OPA does not turn HTML escaping off), <, > and & in
//             strings are written as \u003c, \u003e, \u0026.
//   values    one JSON array of the expression values per result
//   bindings  one JSON object of the bindings per result
//   raw       one line per result, expression values separated by spaces; strings
//             as they are, everything else as compact JSON
//   pretty    undefined prints "undefined"; one result without bindings prints the
//             (first) expression value as JSON; anything else prints a table with
//             one column per variable (or per expression when there are none) and
//             one row per result, values as compact JSON cut at 80 characters.
//             (OPA draws the same table with its table library; the borders differ.)
//   discard   as json, with the result replaced by "discarded"
// Errors: in json/discard format they are the output (stdout); in the other
// formats "1 error occurred: ..." goes to stderr. Exit status as OPA: 2 when
// there are errors, 1 for --fail on an undefined/empty result or --fail-defined
// on a defined one, 0 otherwise.

#include <algorithm>
#include <fmt/format.h>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/byte_size.hpp"
#include "cli/capabilities_file.hpp"
#include "cli/commands.hpp"
#include "stdlib/go_time.hpp"
#include "cli/ignore_paths.hpp"
#include "cli/output_errors.hpp"
#include "cli/output_json.hpp"
#include "cli/eval_profile.hpp"
#include "cli/repl/table.hpp"
#include "cli/repl/trace_printer.hpp"
#include "cli/test_runner/go_format.hpp"
#include "cli/test_runner/report.hpp"
#include "cli/version.hpp"
#include "engine/coverage.hpp"
#include "engine/engine.hpp"
#include "engine/partial/residual.hpp"
#include "lang/parse.hpp"
#include "runtime/file_read.hpp"
#include "runtime/json.hpp"
#include "runtime/go_json_writer.hpp"
#include "engine/loader.hpp"
#include "engine/bundle/load.hpp"
#include "cli/bundle_flags.hpp"
#include "engine/schema_loader.hpp"
#include "runtime/yaml.hpp"

extern char** environ;

namespace gavel::cli {

namespace {

// What opa.runtime() returns in `gavel eval`, as in `opa eval`: the environment and the version.
runtime::Value runtime_info() {
    runtime::ObjectBuilder env;
    for (char** e = environ; e && *e; ++e) {
        std::string_view entry(*e);
        auto eq = entry.find('=');
        if (eq == std::string_view::npos) continue;
        env.insert(runtime::Value::string(entry.substr(0, eq)), runtime::Value::string(entry.substr(eq + 1)));
    }
    return runtime::Value::object({{runtime::Value::string("env"), env.build()},
                                   {runtime::Value::string("version"), runtime::Value::string(gavel_version())}});
}

}  // namespace

namespace {

using runtime::Value;

struct EvalCliOptions {
    // One query. (A std::string, not a vector: CLI11 would split "[1, 2]" into two.)
    std::string query;
    std::vector<std::string> data;
    std::vector<std::string> bundles;  // -b: bundle directories or .tar.gz files
    BundleVerifyFlags verify;
    std::string input;
    bool stdin_input = false;
    bool stdin_query = false;
    std::string format = "json";
    bool v0_compatible = false;
    bool allow_net = false;
    bool strict_builtin_errors = false;
    bool strict = false;
    std::string capabilities;          // a capabilities.json: only its builtins may be called
    std::string package;               // --package: the query is written in this package
    std::vector<std::string> imports;  // --import: the query's imports
    std::vector<std::string> ignore;   // --ignore: names of files and directories not to load
    bool fail = false;
    bool fail_defined = false;
    std::string timeout;
    bool metrics = false;
    std::string schema;   // -s: a JSON Schema file (for input) or a directory of them
    std::string explain;  // --explain notes|fails|full|debug
    bool coverage = false;
    bool profile = false;
    std::vector<std::string> profile_sort;  // criteria, repeatable and comma-separated
    int profile_limit = 10;
    int count = 1;
    int pretty_limit = 80;
    bool profile_limit_set = false;
    std::string memory_limit;  // --memory-limit: a size (512Mi); none by default
    // Partial evaluation (-p): the unknowns (default input), refs not to inline,
    // shallow inlining, and whether nondeterministic builtins may be evaluated.
    bool partial = false;
    std::vector<std::string> unknowns{"input"};
    std::vector<std::string> disable_inlining;
    bool shallow_inlining = false;
    bool nondeterministic_builtins = false;
};

// Several tracers watching one evaluation (--explain, --profile, --coverage together).
class TracerList final : public Tracer {
public:
    void add(Tracer* t) { tracers_.push_back(t); }
    bool empty() const { return tracers_.empty(); }
    void trace(const TraceEvent& event) override {
        for (Tracer* t : tracers_) t->trace(event);
    }

private:
    std::vector<Tracer*> tracers_;
};

std::string encode_value(const Value& v) { return encode(Json::of(v)); }

// json.Marshal: compact, HTML-escaped.
std::string marshal_compact(const Value& v) {
    std::string out;
    runtime::append_json(out, v, runtime::JsonWriteOptions{runtime::JsonStyle::Compact, true, 0});
    return out;
}

// ---- the output -----------------------------------------------------------------------------

struct Output {
    std::vector<OutputError> errors;
    ResultRows rows;
    std::optional<std::map<std::string, uint64_t>> metrics;
    // --count N > 1: per timer, the statistics of its N values (replacing metrics).
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> aggregated_metrics;
    std::optional<repl::TracePrinter> explanation;  // --explain
    std::optional<std::vector<ExprStats>> profile;  // --profile, one run
    // --profile --count N > 1: the first run's lines, each with the statistics of its N times.
    std::vector<std::pair<ExprStats, std::vector<std::pair<std::string, std::string>>>> aggregated_profile;
    std::optional<test_runner::CoverageReport> coverage;  // --coverage
    int pretty_limit = 80;
    std::optional<PartialResult> partial;  // -p
};

Json result_json(const ResultRows& rows) {
    Json arr = Json::array();
    for (const auto& row : rows) {
        Json r = Json::object();
        Json exprs = Json::array();
        for (const auto& e : row.expressions) {
            Json loc = Json::object();
            loc.add("row", Json::integer(e.line)).add("col", Json::integer(e.col));
            Json x = Json::object();
            x.add("value", Json::of(e.value))
                .add("text", Json::str(std::string(e.text)))
                .add("location", std::move(loc));
            exprs.push(std::move(x));
        }
        r.add("expressions", std::move(exprs));
        if (!row.bindings.empty()) {
            Json b = Json::object();
            for (const auto& [name, value] : row.bindings) b.add(name, Json::of(value));
            r.add("bindings", std::move(b));
        }
        arr.push(std::move(r));
    }
    return arr;
}

Json metrics_json(const std::map<std::string, uint64_t>& metrics) {
    Json m = Json::object();
    for (const auto& [name, v] : metrics) m.add(name, Json::integer(static_cast<long long>(v)));
    return m;
}

Json location_json(const ExprStats& s) {
    Json loc = Json::object();
    loc.add("file", Json::str(s.file)).add("row", Json::integer(s.line)).add("col", Json::integer(s.col));
    return loc;
}

Json statistics_json(const std::vector<std::pair<std::string, std::string>>& stats) {
    Json j = Json::object();
    for (const auto& [k, v] : stats) j.add(k, Json::raw(v));
    return j;
}

// OPA's explanation events, as far as gavel's trace has them (README: the
// differences): Op, Location, Message for notes; gavel adds Text and Depth.
Json explanation_json(const repl::TracePrinter& trace) {
    Json events = Json::array();
    for (const auto& step : trace.steps()) {
        Json loc = Json::object();
        loc.add("file", Json::str(step.file)).add("row", Json::integer(step.line)).add("col", Json::integer(step.col));
        Json e = Json::object();
        e.add("Op", Json::str(to_string(step.op))).add("Location", std::move(loc));
        e.add("Message", Json::str(step.op == TraceOp::Note ? step.text : ""));
        e.add("Text", Json::str(step.text)).add("Depth", Json::integer(step.depth));
        events.push(std::move(e));
    }
    return events;
}

// The fields in the order OPA's presentation.Output declares them.
std::string render_json(const Output& out, bool discard) {
    Json doc = Json::object();
    if (!out.errors.empty()) doc.add("errors", errors_json(out.errors));
    if (!out.rows.empty()) doc.add("result", discard ? Json::str("discarded") : result_json(out.rows));
    if (out.metrics && !out.metrics->empty()) doc.add("metrics", metrics_json(*out.metrics));
    if (!out.aggregated_metrics.empty()) {
        Json m = Json::object();
        for (const auto& [name, stats] : out.aggregated_metrics) m.add(name, statistics_json(stats));
        doc.add("aggregated_metrics", std::move(m));
    }
    if (out.explanation && !out.explanation->steps().empty())
        doc.add("explanation", explanation_json(*out.explanation));
    if (out.profile && !out.profile->empty()) {
        Json p = Json::array();
        for (const auto& s : *out.profile) {
            Json e = Json::object();
            e.add("total_time_ns", Json::integer(s.time_ns)).add("num_eval", Json::integer(s.num_eval));
            e.add("num_redo", Json::integer(s.num_redo)).add("num_gen_expr", Json::integer(s.num_gen_expr));
            e.add("location", location_json(s));
            p.push(std::move(e));
        }
        doc.add("profile", std::move(p));
    }
    if (!out.aggregated_profile.empty()) {
        Json p = Json::array();
        for (const auto& [s, stats] : out.aggregated_profile) {
            Json e = Json::object();
            e.add("total_time_ns_stats", statistics_json(stats)).add("num_eval", Json::integer(s.num_eval));
            e.add("num_redo", Json::integer(s.num_redo)).add("num_gen_expr", Json::integer(s.num_gen_expr));
            e.add("location", location_json(s));
            p.push(std::move(e));
        }
        doc.add("aggregated_profile", std::move(p));
    }
    if (out.coverage) doc.add("coverage", Json::raw(out.coverage->json));
    return encode(doc);
}

std::string bindings_object(const ResultRow& row) {
    Json b = Json::object();
    for (const auto& [name, value] : row.bindings) b.add(name, Json::of(value));
    return encode(b);
}

std::string cut(std::string s, std::size_t limit) {
    if (limit > 0 && s.size() > limit) {
        s.resize(limit);
        s += "...";
    }
    return s;
}

// OPA's pretty table: a column per variable (sorted by name), then one per
// expression whose value is not a boolean (every expression when nothing is
// bound); values as compact JSON cut at 80 bytes; drawn as tablewriter draws
// it (cli/repl/table.hpp): headers centred, cells left-aligned and wrapped.
std::string render_table(const ResultRows& rows, std::size_t limit) {
    struct Key {
        std::string var;       // a binding's name, or empty
        std::size_t expr = 0;  // else the expression's index
        std::string text;
    };
    std::vector<Key> keys;
    const ResultRow& first = rows.front();
    for (const auto& b : first.bindings) keys.push_back({b.first, 0, b.first});  // sorted by name already
    for (std::size_t i = 0; i < first.expressions.size(); ++i)
        if (!first.expressions[i].value.is_bool() || first.bindings.empty())
            keys.push_back({"", i, std::string(first.expressions[i].text)});
    std::vector<std::string> header;
    for (const auto& k : keys) header.push_back(k.text);
    std::vector<std::vector<std::string>> cells;
    for (const auto& row : rows) {
        std::vector<std::string> line;
        for (const auto& k : keys) {
            const Value* v = nullptr;
            if (!k.var.empty()) {
                for (const auto& b : row.bindings)
                    if (b.first == k.var) v = &b.second;
            } else if (k.expr < row.expressions.size()) {
                v = &row.expressions[k.expr].value;
            }
            line.push_back(v ? cut(marshal_compact(*v), limit) : "null");
        }
        cells.push_back(std::move(line));
    }
    return repl::render_table(header, cells);
}

// OPA's metrics table: tablewriter writes its headers in capitals.
std::string render_metrics_table(const std::map<std::string, uint64_t>& metrics) {
    std::vector<std::vector<std::string>> cells;
    for (const auto& [k, v] : metrics) cells.push_back({k, std::to_string(v)});
    return repl::render_table({"METRIC", "VALUE"}, cells);
}

// OPA's tables after the result: the profile, aggregated metrics and profile, coverage.
std::string render_profile_tables(const Output& out) {
    std::string text;
    if (out.profile && !out.profile->empty()) {
        std::vector<std::vector<std::string>> cells;
        for (const auto& s : *out.profile)
            cells.push_back({test_runner::go_duration(std::chrono::nanoseconds(s.time_ns)), std::to_string(s.num_eval),
                             std::to_string(s.num_redo), std::to_string(s.num_gen_expr), s.location()});
        text += repl::render_table({"TIME", "NUM EVAL", "NUM REDO", "NUM GEN EXPR", "LOCATION"}, cells);
    }
    static const std::vector<std::string> stat_keys = {"min", "max", "mean", "90%", "99%"};
    auto stat = [](const std::vector<std::pair<std::string, std::string>>& stats, const std::string& key) {
        for (const auto& [k, v] : stats)
            if (k == key) return go_number_text(v, statistic_is_float(k));
        return std::string();
    };
    if (!out.aggregated_metrics.empty()) {
        std::vector<std::vector<std::string>> cells;
        for (const auto& [name, stats] : out.aggregated_metrics) {
            std::vector<std::string> row = {name};
            for (const auto& k : stat_keys)
                row.push_back(cut(stat(stats, k), static_cast<std::size_t>(out.pretty_limit)));
            cells.push_back(std::move(row));
        }
        text += repl::render_table({"METRIC", "MIN", "MAX", "MEAN", "90%", "99%"}, cells);
    }
    if (!out.aggregated_profile.empty()) {
        std::vector<std::vector<std::string>> cells;
        for (const auto& [s, stats] : out.aggregated_profile) {
            std::vector<std::string> row;
            for (const auto& k : stat_keys) {
                double ns = std::strtod(stat(stats, k).c_str(), nullptr);
                row.push_back(test_runner::go_duration(std::chrono::nanoseconds(static_cast<int64_t>(ns))));
            }
            for (auto n : {s.num_eval, s.num_redo, s.num_gen_expr}) row.push_back(std::to_string(n));
            row.push_back(s.location());
            cells.push_back(std::move(row));
        }
        text += repl::render_table(
            {"MIN", "MAX", "MEAN", "90%", "99%", "NUM EVAL", "NUM REDO", "NUM GEN EXPR", "LOCATION"}, cells);
    }
    if (out.coverage)
        text += repl::render_table({}, {{"Overall Coverage", fmt::format("{:.2f}", out.coverage->coverage)}});
    return text;
}

// A partial evaluation's result as OPA's presentation package writes it.
std::string render_partial_json(const Output& out) {
    std::string compact = "{\"partial\":" + partial::partial_json(out.partial->queries, {});
    if (!out.partial->support.empty()) {
        // `opa eval` names the support modules "modules" (rego.PartialQueries).
        compact.pop_back();
        if (compact.back() != '{') compact += ',';
        compact += "\"modules\":[";
        for (std::size_t i = 0; i < out.partial->support.size(); ++i) {
            if (i) compact += ',';
            compact += partial::module_json(out.partial->support[i]);
        }
        compact += "]}";
    }
    if (out.metrics && !out.metrics->empty()) {
        compact += ",\"metrics\":{";
        bool first = true;
        for (const auto& [name, v] : *out.metrics) {
            if (!first) compact += ',';
            first = false;
            compact += "\"" + name + "\":" + std::to_string(v);
        }
        compact += '}';
    }
    compact += '}';
    return runtime::go_encoded(compact, true);
}

// OPA's partial table: "Query N" and "Support N" rows, each cell on its own lines
// (tablewriter without wrapping, with a line between rows).
std::string render_partial_table(const PartialResult& p) {
    std::vector<std::pair<std::string, std::vector<std::string>>> rows;
    auto lines = [](std::string text) {
        std::vector<std::string> out;
        std::size_t tab;
        while ((tab = text.find('\t')) != std::string::npos) text.replace(tab, 1, "  ");
        while (!text.empty() && text.front() == '\n') text.erase(0, 1);
        while (!text.empty() && text.back() == '\n') text.pop_back();
        std::size_t start = 0;
        for (;;) {
            auto nl = text.find('\n', start);
            out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
            if (nl == std::string::npos) return out;
            start = nl + 1;
        }
    };
    for (std::size_t i = 0; i < p.queries.size(); ++i)
        rows.emplace_back(fmt::format("Query {}", i + 1), lines(partial::body_source(p.queries[i], nullptr)));
    for (std::size_t i = 0; i < p.support.size(); ++i)
        rows.emplace_back(fmt::format("Support {}", i + 1), lines(partial::module_source(p.support[i], nullptr)));
    std::size_t w0 = 0, w1 = 0;
    auto width = [](const std::string& s) {
        std::size_t w = 0;
        for (unsigned char c : s) w += (c & 0xC0) != 0x80;
        return w;
    };
    for (const auto& [name, cell] : rows) {
        w0 = std::max(w0, width(name));
        for (const auto& l : cell) w1 = std::max(w1, width(l));
    }
    std::string border = "+" + std::string(w0 + 2, '-') + "+" + std::string(w1 + 2, '-') + "+\n";
    std::string text = border;
    for (const auto& [name, cell] : rows) {
        for (std::size_t i = 0; i < cell.size(); ++i) {
            std::string left = i == 0 ? name : "";
            text += "| " + left + std::string(w0 - width(left), ' ') + " | " + cell[i] +
                    std::string(w1 - width(cell[i]), ' ') + " |\n";
        }
        text += border;
    }
    return text;
}

void print_partial(const Output& out, const std::string& format) {
    if (format == "json") {
        if (!out.errors.empty()) std::cout << render_json(out, false);
        else std::cout << render_partial_json(out);
        return;
    }
    if (!out.errors.empty()) {
        std::cerr << errors_text(out.errors) << "\n";
        if (format != "pretty") return;
    }
    if (format == "source") {
        for (std::size_t i = 0; i < out.partial->queries.size(); ++i) {
            // OPA formats a body with a final newline, the empty body as nothing.
            std::string body = partial::body_source(out.partial->queries[i], nullptr);
            std::cout << "# Query " << i + 1 << "\n" << body << (body.empty() ? "" : "\n") << "\n";
        }
        for (std::size_t i = 0; i < out.partial->support.size(); ++i)
            std::cout << "# Module " << i + 1 << "\n" << partial::module_source(out.partial->support[i], nullptr);
    } else if (out.errors.empty()) {
        if (out.partial->queries.empty()) std::cout << "undefined\n";
        else std::cout << render_partial_table(*out.partial);
        if (out.metrics && !out.metrics->empty()) std::cout << render_metrics_table(*out.metrics);
    }
    std::cout.flush();
}

// Prints `out` in `format`.
void print_output(const Output& out, const std::string& format) {
    if (out.partial || (!out.errors.empty() && format == "source")) {
        Output copy = out;
        if (!copy.partial) copy.partial.emplace();
        print_partial(copy, format);
        return;
    }
    if (format == "json" || format == "discard") {
        std::cout << render_json(out, format == "discard");
        return;
    }
    if (!out.errors.empty()) {
        std::cerr << errors_text(out.errors) << "\n";
        if (format != "pretty") return;
    }
    if (format == "values") {
        for (const auto& row : out.rows) {
            Json line = Json::array();
            for (const auto& e : row.expressions) line.push(Json::of(e.value));
            std::cout << encode(line);
        }
    } else if (format == "bindings") {
        for (const auto& row : out.rows) std::cout << bindings_object(row);
    } else if (format == "raw") {
        for (const auto& row : out.rows) {
            std::string line;
            for (std::size_t i = 0; i < row.expressions.size(); ++i) {
                if (i) line.push_back(' ');
                const Value& v = row.expressions[i].value;
                line += v.is_string() ? std::string(v.as_string()) : marshal_compact(v);
            }
            std::cout << line << "\n";
        }
    } else if (format == "pretty") {
        if (out.explanation) std::cout << out.explanation->text();
        if (out.errors.empty()) {
            if (out.rows.empty()) {
                std::cout << "undefined\n";
            } else if (out.rows.size() == 1 && out.rows[0].bindings.empty() &&
                       (out.rows[0].expressions.size() == 1 ||
                        std::all_of(out.rows[0].expressions.begin(), out.rows[0].expressions.end(),
                                    [](const ExpressionResult& e) { return e.value.is_bool(); }))) {
                std::cout << encode_value(out.rows[0].expressions[0].value);
            } else {
                std::cout << render_table(out.rows, static_cast<std::size_t>(out.pretty_limit));
            }
        }
        if (out.metrics && !out.metrics->empty()) std::cout << render_metrics_table(*out.metrics);
        std::cout << render_profile_tables(out);
    }
    std::cout.flush();
}

// ---- input ----------------------------------------------------------------------------------

uint64_t since_ns(std::chrono::steady_clock::time_point start) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

int run_eval(EvalCliOptions opts) {
    // As OPA: a profile limit or sort order turns the profiler on, and the profiler the metrics.
    if (!opts.profile_sort.empty() || opts.profile_limit_set) opts.profile = true;
    if (opts.profile) opts.metrics = true;
    // Flag combinations, with OPA's messages.
    if (!opts.query.empty() && opts.stdin_query) return usage_error("specify query argument or --stdin but not both");
    if (opts.query.empty() && !opts.stdin_query) return usage_error("specify query argument or --stdin");
    if (opts.stdin_query && opts.stdin_input) return usage_error("specify --stdin or --stdin-input but not both");
    if (opts.stdin_input && !opts.input.empty()) return usage_error("specify --stdin-input or --input but not both");
    if (opts.fail && opts.fail_defined) return usage_error("specify --fail or --fail-defined but not both");
    if (opts.partial && opts.format != "pretty" && opts.format != "json" && opts.format != "source")
        return usage_error("invalid output format for partial evaluation");
    if (!opts.partial && opts.format == "source") return usage_error("invalid output format for evaluation");
    for (const auto& u : opts.unknowns) {
        // As OPA checks them: the first one that is not `input` must be a ref.
        if (u == "input") continue;
        auto t = lang::parse_term(u);
        if (!t.ok()) return usage_error("failed to parse term: " + t.diagnostics.opa_text());
        bool ref = t.term->kind == lang::TermKind::Ref ||
                   (t.term->kind == lang::TermKind::Var && (t.term->text == "input" || t.term->text == "data"));
        if (!ref) return usage_error("illegal argument with --unknowns, specify string with one or more --unknowns");
        break;
    }
    std::uint64_t memory_limit = 0;
    if (!opts.memory_limit.empty()) {
        auto m = parse_byte_size(opts.memory_limit);
        if (!m)
            return usage_error("invalid argument \"" + opts.memory_limit +
                               "\" for \"--memory-limit\" flag: want a size such as 512Mi or 1G");
        memory_limit = *m;
    }
    std::chrono::nanoseconds timeout{0};
    if (!opts.timeout.empty()) {
        auto d = stdlib::go_time::parse_flag_duration(opts.timeout);
        if (!d)
            return usage_error("invalid argument \"" + opts.timeout +
                               "\" for \"--timeout\" flag: time: invalid duration \"" + opts.timeout + "\"");
        timeout = *d;
    }

    // Query and input: failures here are plain errors on stderr (exit 2), as in OPA.
    std::string query;
    if (opts.stdin_query) {
        runtime::FileRead read = runtime::read_whole_stream(STDIN_FILENO, "stdin");
        if (!read.ok) {
            std::cerr << read.message << "\n";
            return 2;
        }
        query = std::move(read.text);
    } else {
        query = opts.query;
    }
    std::optional<Value> input;
    if (opts.stdin_input || !opts.input.empty()) {
        // As OPA's os.ReadFile: "open F: no such file or directory", "read F: is a directory";
        // bounded, so that /dev/zero or an endless pipe ends in an error, not in all memory.
        std::string path = opts.input.rfind("file://", 0) == 0 ? opts.input.substr(7) : opts.input;
        runtime::FileRead read =
            opts.stdin_input ? runtime::read_whole_stream(STDIN_FILENO, "stdin") : runtime::read_whole_file(path);
        if (!read.ok) {
            std::cerr << read.message << "\n";
            return 2;
        }
        std::string text = std::move(read.text);
        auto parsed = runtime::parse_json_or_yaml(text);
        if (!parsed) {
            std::cerr << "unable to parse input: " << parsed.error.message << "\n";
            return 2;
        }
        input = std::move(parsed.value);
    }

    // -s FILE|DIR, read after the input as OPA does; an error is plain, exit 2.
    std::shared_ptr<const compiler::SchemaSet> schemas;
    if (!opts.schema.empty()) {
        auto loaded = engine::load_schemas(opts.schema);
        if (!loaded.schemas) {
            std::cerr << loaded.error << "\n";
            return 2;
        }
        schemas = std::move(loaded.schemas);
    }

    Output out;
    std::map<std::string, uint64_t> metrics;
    bool opts_metrics_off = false;  // --count > 1: aggregated metrics instead
    out.pretty_limit = opts.pretty_limit;
    auto finish = [&]() {
        if (opts.metrics && !opts_metrics_off) out.metrics = metrics;
        print_output(out, opts.format);
        if (!out.errors.empty()) return 2;
        const bool defined = !out.rows.empty() || (out.partial && !out.partial->queries.empty());
        if ((opts.fail && !defined) || (opts.fail_defined && defined)) return 1;
        return 0;
    };

    EngineOptions engine_options;
    engine_options.v0_compatible = opts.v0_compatible;
    engine_options.strict = opts.strict;
    if (!opts.capabilities.empty()) {
        std::string error;
        engine_options.allowed_builtins = read_capabilities_builtins(opts.capabilities, error);
        if (!engine_options.allowed_builtins) {
            std::cerr << "invalid --capabilities: " << error << "\n";
            return 2;
        }
    }
    engine_options.allow_net = opts.allow_net;
    engine_options.schemas = schemas;
    Engine engine(engine_options);

    if (!opts.data.empty() || !opts.bundles.empty()) {
        auto start = std::chrono::steady_clock::now();
        engine::LoadOptions load_options;
        load_options.v0_compatible = opts.v0_compatible;
        engine::bundle::BundleReadOptions bundle_options;
        std::string flag_error;
        BundleVerifyFlags verify = opts.verify;
        verify.v0_compatible = opts.v0_compatible;
        if (!verify.options(bundle_options, flag_error)) {
            std::cerr << "error: " << flag_error << "\n";
            return 1;
        }
        // `opa eval` never verifies bundle signatures; gavel's does when given a key.
        if (!bundle_options.verification) bundle_options.skip_verify = true;
        auto loaded = engine::bundle::load_paths_and_bundles(without_ignored(opts.data, opts.ignore), opts.bundles,
                                                             load_options, bundle_options);
        lang::Diagnostics diags =
            loaded.ok() ? engine::add_to_engine(engine, std::move(loaded)) : std::move(loaded.errors);
        metrics["timer_rego_load_files_ns"] = since_ns(start);
        if (!diags.empty()) {
            for (const auto& d : diags) out.errors.push_back(from_diagnostic(d));
            return finish();
        }
    }

    if (opts.partial) {
        PartialQueryOptions po;
        po.unknowns = opts.unknowns;
        po.disable_inlining = opts.disable_inlining;
        po.shallow_inlining = opts.shallow_inlining;
        po.nondeterministic_builtins = opts.nondeterministic_builtins;
        po.package = opts.package;
        po.imports = opts.imports;
        auto prepared = engine.prepare_partial(query, po);
        for (const auto& [name, v] : prepared.metrics) metrics[std::string(name)] = v;
        if (!prepared.ok()) {
            for (const auto& d : prepared.diagnostics) out.errors.push_back(from_diagnostic(d));
            return finish();
        }
        PartialOptions run;
        run.input = input ? &*input : nullptr;
        run.timeout = timeout;
        run.strict_builtin_errors = opts.strict_builtin_errors;
        PartialResult result = prepared.value->run(run);
        for (const auto& [name, v] : result.metrics) metrics[std::string(name)] = v;
        if (result.error) {
            out.errors.push_back(from_eval_error(*result.error));
        } else {
            out.partial = std::move(result);
        }
        return finish();
    }

    // --count N: prepare and evaluate N times (as OPA's evalOnce does); the
    // first run's result, trace and coverage are shown, the timers and the
    // profile of all runs aggregated.
    const runtime::Value runtime = runtime_info();
    std::vector<std::map<std::string, uint64_t>> run_metrics;
    std::vector<std::vector<ExprStats>> run_profiles;
    const auto sort_order = profile_sort_order(opts.profile_sort);
    for (int run = 0; run < opts.count; ++run) {
        std::map<std::string, uint64_t> m = metrics;  // the loading timer is measured once
        auto prepare_start = std::chrono::steady_clock::now();
        Engine::QueryOptions query_options;
        query_options.package = opts.package;
        query_options.imports = opts.imports;
        Prepared<PreparedQuery> prepared = engine.prepare(query, query_options);
        const uint64_t prepare_ns = since_ns(prepare_start);
        for (const auto& [name, v] : prepared.metrics) m[std::string(name)] = v;
        if (!prepared.ok()) {
            for (const auto& d : prepared.diagnostics) out.errors.push_back(from_diagnostic(d));
            if (out.errors.empty()) out.errors.push_back(plain_error("query could not be prepared"));
            metrics = std::move(m);
            return finish();
        }
        if (!m.count("timer_rego_query_compile_ns")) m["timer_rego_query_compile_ns"] = prepare_ns;

        std::optional<repl::TracePrinter> explanation;
        if (!opts.explain.empty() && opts.explain != "off") explanation.emplace(query);
        Profiler profiler;
        coverage::CoverageTracer coverage;
        TracerList tracers;
        if (explanation) tracers.add(&*explanation);
        if (opts.profile) tracers.add(&profiler);
        if (opts.coverage) tracers.add(&coverage);

        EvalOptions eval_options;
        eval_options.runtime_info = &runtime;
        eval_options.input = input ? &*input : nullptr;
        eval_options.strict_builtin_errors = opts.strict_builtin_errors;
        eval_options.timeout = timeout;
        eval_options.max_memory = memory_limit;
        eval_options.metrics = true;
        if (!tracers.empty()) eval_options.tracer = &tracers;
        auto eval_start = std::chrono::steady_clock::now();
        EvalResult result = prepared.value->eval(eval_options);
        const uint64_t eval_ns = since_ns(eval_start);
        for (const auto& [name, v] : result.metrics) m[std::string(name)] = v;
        if (!m.count("timer_rego_query_eval_ns")) m["timer_rego_query_eval_ns"] = eval_ns;
        if (opts.profile) run_profiles.push_back(profiler.report(opts.profile_limit, sort_order));
        run_metrics.push_back(std::move(m));
        if (run > 0) continue;

        if (result.error) {
            // OPA reports the error alone: rego.Eval returns no results with an error.
            out.errors.push_back(from_eval_error(*result.error));
        } else {
            out.rows = std::move(result.rows);
        }
        if (explanation) {
            if (opts.explain == "notes") explanation->keep_lineage_of({TraceOp::Note});
            else if (opts.explain == "fails") explanation->keep_lineage_of({TraceOp::Fail});
            out.explanation = std::move(explanation);
        }
        if (opts.coverage) out.coverage = test_runner::coverage_report(engine.coverable_lines(), coverage.covered());
    }
    if (opts.count == 1) {
        metrics = run_metrics.front();
        if (opts.profile) out.profile = run_profiles.front();
    } else {
        // OPA: with --count, the per-run metrics and profile give way to their statistics.
        opts_metrics_off = true;
        for (const auto& [name, v] : run_metrics.front()) {
            std::vector<int64_t> values;
            for (const auto& rm : run_metrics) {
                auto it = rm.find(name);
                values.push_back(it == rm.end() ? 0 : static_cast<int64_t>(it->second));
            }
            if (opts.metrics) out.aggregated_metrics[name] = statistics(std::move(values));
        }
        if (opts.profile) {
            // By position, as OPA's AggregateProfiles pairs the runs' sorted lists.
            for (std::size_t j = 0; j < run_profiles.front().size(); ++j) {
                std::vector<int64_t> times;
                for (const auto& p : run_profiles)
                    if (j < p.size()) times.push_back(p[j].time_ns);
                out.aggregated_profile.emplace_back(run_profiles.front()[j], statistics(std::move(times)));
            }
        }
    }
    return finish();
}

}  // namespace

void add_eval_command(CLI::App& app) {
    auto opts = std::make_shared<EvalCliOptions>();
    auto* cmd = app.add_subcommand("eval", "Evaluate a Rego query and print the result (like opa eval)");
    cmd->add_option("query", opts->query, "The query, e.g. data.kubernetes.admission.deny");
    cmd->add_option("-b,--bundle", opts->bundles, "Bundle directory or .tar.gz file (repeatable)")
        ->allow_extra_args(false);
    opts->verify.add_to(*cmd);
    cmd->add_option("-d,--data", opts->data, "Policy or data file or directory (repeatable)")->allow_extra_args(false);
    cmd->add_option("-i,--input", opts->input, "Input document file (JSON or YAML)");
    cmd->add_flag("-I,--stdin-input", opts->stdin_input, "Read the input document from stdin");
    cmd->add_flag("--stdin", opts->stdin_query, "Read the query from stdin");
    cmd->add_option("-f,--format", opts->format,
                    "Output format: json, values, bindings, pretty, source (partial), raw, discard")
        ->check(CLI::IsMember({"json", "values", "bindings", "pretty", "source", "raw", "discard"}));
    cmd->add_flag("-p,--partial", opts->partial, "Partially evaluate the query: residual queries over the unknowns");
    cmd->add_option("-u,--unknowns", opts->unknowns,
                    "Paths to treat as unknown in partial evaluation (repeatable; default input)")
        ->allow_extra_args(false);
    cmd->add_option("--disable-inlining", opts->disable_inlining,
                    "Paths of documents partial evaluation must not inline (support rules instead; repeatable)")
        ->allow_extra_args(false);
    cmd->add_flag("--shallow-inlining", opts->shallow_inlining,
                  "Partial evaluation inlines only rules that are fully known");
    cmd->add_flag(
        "--nondeterminstic-builtins", opts->nondeterministic_builtins,
        "Evaluate nondeterministic builtins (if all arguments are known) during partial evaluation (OPA's spelling)");
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse policies and the query in the pre-1.0 Rego dialect");
    cmd->add_flag("--allow-net", opts->allow_net, "Let http.send reach the network (off: \"unallowed host\" errors)");
    // OPA 0.x scripts pass --v1-compatible; v1 is the default here, so it changes nothing.
    cmd->add_flag("--v1-compatible")->description("Rego v1 (the default; accepted for OPA compatibility)");
    cmd->add_option("--package", opts->package, "The package the query is written in (its rules need no data. prefix)");
    cmd->add_option("--import", opts->imports,
                    "An import for the query, e.g. data.lib.k8s or \"data.x as y\" (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--ignore", opts->ignore, "Names of files and directories not to load (shell patterns, repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--capabilities", opts->capabilities,
                    "A capabilities JSON file (as `gavel capabilities` prints): calls of builtins it lacks are errors");
    cmd->add_flag(
        "-S,--strict", opts->strict,
        "Enable compiler strict mode (unused imports and assignments, duplicate imports, deprecated builtins ...)");
    cmd->add_flag("--strict-builtin-errors", opts->strict_builtin_errors,
                  "Treat the first built-in function error as fatal");
    cmd->add_flag("--fail", opts->fail, "Exit with status 1 when the result is undefined or empty");
    cmd->add_flag("--fail-defined", opts->fail_defined, "Exit with status 1 when the result is defined");
    cmd->add_option("--timeout", opts->timeout, "Evaluation timeout as a Go duration (5s, 100ms); none by default");
    cmd->add_flag("--metrics", opts->metrics, "Report timing metrics");
    cmd->add_option("-s,--schema", opts->schema,
                    "JSON Schema for type checking: a file types input everywhere; a directory's a/b.json is "
                    "schema.a.b for METADATA schemas: annotations");
    cmd->add_option("--explain", opts->explain, "Print the evaluation's trace: notes, fails, full or debug (as full)")
        ->check(CLI::IsMember({"off", "notes", "fails", "full", "debug"}));
    cmd->add_flag("--coverage", opts->coverage, "Report which lines of the policies evaluation reached");
    cmd->add_flag("--profile", opts->profile,
                  "Profile the expressions: time, evaluations and redos per line (implies --metrics)");
    cmd->add_option("--profile-sort", opts->profile_sort,
                    "Order of the profile: total_time_ns, num_eval, num_redo, num_gen_expr, file, line (repeatable)")
        ->delimiter(',');
    auto* limit = cmd->add_option("--profile-limit", opts->profile_limit, "Profile lines to show (0: all)")
                      ->capture_default_str();
    cmd->add_option("--count", opts->count, "Evaluate this many times; metrics and profile become statistics")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd->add_option(
        "--memory-limit", opts->memory_limit,
        "Memory the evaluation may take (512Mi, 1G); beyond it, eval_cancel_error (gavel's; none by default)");
    cmd->add_option("--pretty-limit", opts->pretty_limit, "Cut pretty-printed values after this many bytes (0: never)")
        ->capture_default_str();
    cmd->callback([opts, limit] {
        opts->profile_limit_set = limit->count() > 0;
        exit_status() = run_eval(*opts);
    });
}

}  // namespace gavel::cli
