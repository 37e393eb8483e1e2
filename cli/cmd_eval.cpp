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
#include <cerrno>
#include <cstring>
#include <fstream>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/capabilities_file.hpp"
#include "cli/commands.hpp"
#include "cli/go_duration.hpp"
#include "cli/html_escape.hpp"
#include "cli/ignore_paths.hpp"
#include "cli/output_errors.hpp"
#include "cli/output_json.hpp"
#include "cli/repl/table.hpp"
#include "cli/version.hpp"
#include "engine/engine.hpp"
#include "runtime/json.hpp"
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
    std::string capabilities;  // a capabilities.json: only its builtins may be called
    std::string package;               // --package: the query is written in this package
    std::vector<std::string> imports;  // --import: the query's imports
    std::vector<std::string> ignore;   // --ignore: names of files and directories not to load
    bool fail = false;
    bool fail_defined = false;
    std::string timeout;
    bool metrics = false;
    std::string schema;  // -s: a JSON Schema file (for input) or a directory of them
};

std::string encode_value(const Value& v) { return encode(Json::of(v)); }

// json.Marshal: compact, HTML-escaped.
std::string marshal_compact(const Value& v) { return html_escape(runtime::to_json(v)); }

// ---- the output -----------------------------------------------------------------------------

struct Output {
    std::vector<OutputError> errors;
    std::vector<ResultRow> rows;
    std::optional<std::map<std::string, uint64_t>> metrics;
};

Json result_json(const std::vector<ResultRow>& rows) {
    Json arr = Json::array();
    for (const auto& row : rows) {
        Json r = Json::object();
        Json exprs = Json::array();
        for (const auto& e : row.expressions) {
            Json loc = Json::object();
            loc.add("row", Json::integer(e.line)).add("col", Json::integer(e.col));
            Json x = Json::object();
            x.add("value", Json::of(e.value)).add("text", Json::str(e.text)).add("location", std::move(loc));
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

std::string render_json(const Output& out, bool discard) {
    Json doc = Json::object();
    if (!out.errors.empty()) doc.add("errors", errors_json(out.errors));
    if (!out.rows.empty()) doc.add("result", discard ? Json::str("discarded") : result_json(out.rows));
    if (out.metrics && !out.metrics->empty()) doc.add("metrics", metrics_json(*out.metrics));
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
std::string render_table(const std::vector<ResultRow>& rows) {
    struct Key {
        std::string var;            // a binding's name, or empty
        std::size_t expr = 0;       // else the expression's index
        std::string text;
    };
    std::vector<Key> keys;
    const ResultRow& first = rows.front();
    for (const auto& b : first.bindings) keys.push_back({b.first, 0, b.first});  // sorted by name already
    for (std::size_t i = 0; i < first.expressions.size(); ++i)
        if (!first.expressions[i].value.is_bool() || first.bindings.empty())
            keys.push_back({"", i, first.expressions[i].text});
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
            line.push_back(v ? cut(marshal_compact(*v), 80) : "null");
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

// Prints `out` in `format`.
void print_output(const Output& out, const std::string& format) {
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
        if (out.errors.empty()) {
            if (out.rows.empty()) {
                std::cout << "undefined\n";
            } else if (out.rows.size() == 1 && out.rows[0].bindings.empty() &&
                       (out.rows[0].expressions.size() == 1 ||
                        std::all_of(out.rows[0].expressions.begin(), out.rows[0].expressions.end(),
                                    [](const ExpressionResult& e) { return e.value.is_bool(); }))) {
                std::cout << encode_value(out.rows[0].expressions[0].value);
            } else {
                std::cout << render_table(out.rows);
            }
        }
        if (out.metrics && !out.metrics->empty()) std::cout << render_metrics_table(*out.metrics);
    }
    std::cout.flush();
}

// ---- input ----------------------------------------------------------------------------------

bool read_stdin(std::string& out) {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    out = std::move(buffer).str();
    return !std::cin.bad();
}

// OPA's util.Unmarshal: JSON, or else YAML (first document). An error message when neither.
std::optional<std::string> parse_input(const std::string& text, Value& out) {
    auto json = runtime::parse_json(text);
    if (json) {
        out = json.value;
        return std::nullopt;
    }
    auto yaml = runtime::load_yaml_data(text);
    if (yaml) {
        out = yaml.value;
        return std::nullopt;
    }
    auto first = text.find_first_not_of(" \t\r\n");
    bool looks_json = first != std::string::npos && (text[first] == '{' || text[first] == '[');
    return looks_json ? json.error.message : yaml.error.message;
}

uint64_t since_ns(std::chrono::steady_clock::time_point start) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

int usage_error(const std::string& message) {
    std::cerr << "Error: " << message << "\n";
    return 1;
}

int run_eval(const EvalCliOptions& opts) {
    // Flag combinations, with OPA's messages.
    if (!opts.query.empty() && opts.stdin_query) return usage_error("specify query argument or --stdin but not both");
    if (opts.query.empty() && !opts.stdin_query) return usage_error("specify query argument or --stdin");
    if (opts.stdin_query && opts.stdin_input) return usage_error("specify --stdin or --stdin-input but not both");
    if (opts.stdin_input && !opts.input.empty()) return usage_error("specify --stdin-input or --input but not both");
    if (opts.fail && opts.fail_defined) return usage_error("specify --fail or --fail-defined but not both");
    std::chrono::nanoseconds timeout{0};
    if (!opts.timeout.empty()) {
        auto d = parse_go_duration(opts.timeout);
        if (!d) return usage_error("invalid argument \"" + opts.timeout + "\" for \"--timeout\" flag: time: invalid duration \"" + opts.timeout + "\"");
        timeout = *d;
    }

    // Query and input: failures here are plain errors on stderr (exit 2), as in OPA.
    std::string query;
    if (opts.stdin_query) {
        if (!read_stdin(query)) {
            std::cerr << "read stdin: read error\n";
            return 2;
        }
    } else {
        query = opts.query;
    }
    std::optional<Value> input;
    if (opts.stdin_input || !opts.input.empty()) {
        std::string text;
        if (opts.stdin_input) {
            if (!read_stdin(text)) {
                std::cerr << "read stdin: read error\n";
                return 2;
            }
        } else {
            std::string path = opts.input.rfind("file://", 0) == 0 ? opts.input.substr(7) : opts.input;
            std::ifstream in(path, std::ios::binary);
            if (!in) {
                std::string reason = std::strerror(errno);
                if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
                std::cerr << "open " << path << ": " << reason << "\n";
                return 2;
            }
            std::ostringstream buffer;
            buffer << in.rdbuf();
            text = std::move(buffer).str();
        }
        Value v;
        if (auto err = parse_input(text, v)) {
            std::cerr << "unable to parse input: " << *err << "\n";
            return 2;
        }
        input = std::move(v);
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
    auto finish = [&]() {
        if (opts.metrics) out.metrics = metrics;
        print_output(out, opts.format);
        if (!out.errors.empty()) return 2;
        const bool defined = !out.rows.empty();
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
        auto loaded = engine::bundle::load_paths_and_bundles(without_ignored(opts.data, opts.ignore), opts.bundles,
                                                             load_options, bundle_options);
        lang::Diagnostics diags = loaded.ok() ? engine::add_to_engine(engine, std::move(loaded)) : std::move(loaded.errors);
        metrics["timer_rego_load_files_ns"] = since_ns(start);
        if (!diags.empty()) {
            for (const auto& d : diags) out.errors.push_back(from_diagnostic(d));
            return finish();
        }
    }

    auto prepare_start = std::chrono::steady_clock::now();
    Engine::QueryOptions query_options;
    query_options.package = opts.package;
    query_options.imports = opts.imports;
    Prepared<PreparedQuery> prepared = engine.prepare(query, query_options);
    const uint64_t prepare_ns = since_ns(prepare_start);
    for (const auto& [name, v] : prepared.metrics) metrics[std::string(name)] = v;
    if (!prepared.ok()) {
        for (const auto& d : prepared.diagnostics) out.errors.push_back(from_diagnostic(d));
        if (out.errors.empty()) out.errors.push_back(plain_error("query could not be prepared"));
        return finish();
    }
    if (!metrics.count("timer_rego_query_compile_ns")) metrics["timer_rego_query_compile_ns"] = prepare_ns;

    const runtime::Value runtime = runtime_info();
    EvalOptions eval_options;
    eval_options.runtime_info = &runtime;
    eval_options.input = input ? &*input : nullptr;
    eval_options.strict_builtin_errors = opts.strict_builtin_errors;
    eval_options.timeout = timeout;
    auto eval_start = std::chrono::steady_clock::now();
    EvalResult result = prepared.value->eval(eval_options);
    const uint64_t eval_ns = since_ns(eval_start);
    for (const auto& [name, v] : result.metrics) metrics[std::string(name)] = v;
    if (!metrics.count("timer_rego_query_eval_ns")) metrics["timer_rego_query_eval_ns"] = eval_ns;

    if (result.error) {
        // OPA reports the error alone: rego.Eval returns no results with an error.
        out.errors.push_back(from_eval_error(*result.error));
    } else {
        out.rows = std::move(result.rows);
    }
    return finish();
}

}  // namespace

void add_eval_command(CLI::App& app) {
    auto opts = std::make_shared<EvalCliOptions>();
    auto* cmd = app.add_subcommand("eval", "Evaluate a Rego query and print the result (like opa eval)");
    cmd->add_option("query", opts->query, "The query, e.g. data.kubernetes.admission.deny");
    cmd->add_option("-b,--bundle", opts->bundles, "Bundle directory or .tar.gz file (repeatable)")->allow_extra_args(false);
    opts->verify.add_to(*cmd);
    cmd->add_option("-d,--data", opts->data, "Policy or data file or directory (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("-i,--input", opts->input, "Input document file (JSON or YAML)");
    cmd->add_flag("-I,--stdin-input", opts->stdin_input, "Read the input document from stdin");
    cmd->add_flag("--stdin", opts->stdin_query, "Read the query from stdin");
    cmd->add_option("-f,--format", opts->format, "Output format: json, values, bindings, pretty, raw, discard")
        ->check(CLI::IsMember({"json", "values", "bindings", "pretty", "raw", "discard"}));
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse policies and the query in the pre-1.0 Rego dialect");
    cmd->add_flag("--allow-net", opts->allow_net, "Let http.send reach the network (off: \"unallowed host\" errors)");
    // OPA 0.x scripts pass --v1-compatible; v1 is the default here, so it changes nothing.
    cmd->add_flag("--v1-compatible")->description("Rego v1 (the default; accepted for OPA compatibility)");
    cmd->add_option("--package", opts->package, "The package the query is written in (its rules need no data. prefix)");
    cmd->add_option("--import", opts->imports, "An import for the query, e.g. data.lib.k8s or \"data.x as y\" (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--ignore", opts->ignore, "Names of files and directories not to load (shell patterns, repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--capabilities", opts->capabilities,
                    "A capabilities JSON file (as `gavel capabilities` prints): calls of builtins it lacks are errors");
    cmd->add_flag("-S,--strict", opts->strict, "Enable compiler strict mode (unused imports and assignments, duplicate imports, deprecated builtins ...)");
    cmd->add_flag("--strict-builtin-errors", opts->strict_builtin_errors,
                  "Treat the first built-in function error as fatal");
    cmd->add_flag("--fail", opts->fail, "Exit with status 1 when the result is undefined or empty");
    cmd->add_flag("--fail-defined", opts->fail_defined, "Exit with status 1 when the result is defined");
    cmd->add_option("--timeout", opts->timeout, "Evaluation timeout as a Go duration (5s, 100ms); none by default");
    cmd->add_flag("--metrics", opts->metrics, "Report timing metrics");
    cmd->add_option("-s,--schema", opts->schema,
                    "JSON Schema for type checking: a file types input everywhere; a directory's a/b.json is "
                    "schema.a.b for METADATA schemas: annotations");
    cmd->callback([opts] { exit_status() = run_eval(*opts); });
}

}  // namespace gavel::cli
