#include "cli/repl/session.hpp"

#include <chrono>
#include <set>

#include "cli/repl/lexer.hpp"
#include "cli/repl/trace_printer.hpp"
#include "runtime/json.hpp"
#include "runtime/file_read.hpp"
#include "engine/loader.hpp"
#include "engine/bundle/load.hpp"
#include "runtime/yaml.hpp"

namespace gavel::cli::repl {

using runtime::Value;

std::string errors_text(const std::vector<std::string>& errors) {
    std::string out = errors.size() == 1 ? "1 error occurred: " : std::to_string(errors.size()) + " errors occurred:\n";
    for (std::size_t i = 0; i < errors.size(); ++i) {
        if (i) out.push_back('\n');
        out += errors[i];
    }
    return out + "\n";
}

namespace {

// `import data.a.b` -> ("b", "data.a.b"); `import input.x as y` -> ("y", "input.x");
// imports of keywords (future.keywords, rego.v1) name nothing.
std::optional<std::pair<std::string, std::string>> import_alias(const std::string& line) {
    Scan s = scan(line);
    std::vector<Token> t;
    for (const auto& tok : s.tokens)
        if (tok.kind != TokenKind::Newline) t.push_back(tok);
    if (t.size() < 2 || t[0].text != "import") return std::nullopt;
    std::size_t i = 1;
    std::string path, last;
    while (i < t.size() && !(t[i].kind == TokenKind::Keyword && t[i].text == "as")) {
        path += t[i].text;
        if (t[i].kind == TokenKind::Name || t[i].kind == TokenKind::Keyword) last = t[i].text;
        else if (t[i].kind != TokenKind::Dot) last.clear();
        ++i;
    }
    if (path.rfind("data", 0) != 0 && path.rfind("input", 0) != 0) return std::nullopt;
    if (i + 1 < t.size()) last = t[i + 1].text;
    if (last.empty() || last == "data" || last == "input") return std::nullopt;
    return std::make_pair(last, path);
}

std::string metrics_text(const Metrics& metrics) {
    std::map<std::string, uint64_t> sorted(metrics.begin(), metrics.end());
    std::string out = "{\n";
    std::size_t i = 0;
    for (const auto& [name, v] : sorted) {
        out += "  \"" + name + "\": " + std::to_string(v) + (++i < sorted.size() ? ",\n" : "\n");
    }
    return out + "}\n";
}

}  // namespace

Session::Session(const SessionOptions& options) : engine_(EngineOptions{.v0_compatible = options.v0_compatible}) {
    if (!options.data_paths.empty()) startup_errors_ += load_paths(options.data_paths);
    if (!options.bundle_paths.empty()) {
        lang::Diagnostics diags;
        auto loaded = engine::bundle::load_bundles(options.bundle_paths, options.bundle_options);
        diags = loaded.ok() ? engine::add_to_engine(engine_, std::move(loaded)) : std::move(loaded.errors);
        std::vector<std::string> errors;
        for (const auto& d : diags) errors.push_back(engine::describe(d));
        if (!errors.empty()) startup_errors_ += errors_text(errors);
    }
    if (!options.input_path.empty()) startup_errors_ += load_input(options.input_path);
}

std::string Session::load_paths(const std::vector<std::string>& paths) {
    engine::LoadOptions load_options;
    load_options.v0_compatible = engine_.options().v0_compatible;
    lang::Diagnostics diags = engine::load_into(engine_, paths, load_options);
    if (diags.empty()) return {};
    std::vector<std::string> errors;
    for (const auto& d : diags) errors.push_back(engine::describe(d));
    return errors_text(errors);
}

std::string Session::load_input(const std::string& path) {
    runtime::FileRead read = runtime::read_whole_file(path);
    if (!read.ok) return "error: " + read.message + "\n";
    auto parsed = runtime::parse_json_or_yaml(read.text);  // OPA's util.Unmarshal
    if (!parsed) return "error: unable to parse input " + path + ": " + parsed.error.message + "\n";
    input_ = std::move(parsed.value);
    return {};
}

const Value* Session::input() const {
    if (input_) return &*input_;
    const Value* repl = engine_.data().find(std::string_view("repl"));
    return repl ? repl->find(std::string_view("input")) : nullptr;
}

std::map<std::string, std::string> Session::package_names() const {
    std::map<std::string, std::string> names;
    const std::string package_path = engine::data_path_text([&] {
        std::vector<std::string> segments;
        std::string seg;
        for (char c : package_) {
            if (c == '.') {
                segments.push_back(seg);
                seg.clear();
            } else {
                seg.push_back(c);
            }
        }
        segments.push_back(seg);
        return segments;
    }());
    for (const auto& rule : engine_.rules())
        if (rule.package == package_path) names[rule.name] = package_path + "." + rule.name;
    auto it = modules_.find(package_);
    if (it != modules_.end())
        for (const auto& rule : it->second.rules) names[rule.name] = package_path + "." + rule.name;
    if (it != modules_.end())
        for (const auto& line : it->second.imports)
            if (auto alias = import_alias(line)) names[alias->first] = alias->second;
    return names;
}

std::string Session::execute(std::string_view text) {
    Statement s = classify(text);
    switch (s.kind) {
        case StatementKind::Empty: return {};
        case StatementKind::Command: return run_command(s);
        case StatementKind::Package: {
            // Checked by parsing a module with it: `package 1` must not become current.
            lang::Diagnostics d = Engine(engine_.options()).add_policy("repl", s.text);
            if (!d.empty()) {
                std::vector<std::string> errors;
                for (auto diag : d) {
                    diag.file.clear();
                    errors.push_back(engine::describe(diag));
                }
                return errors_text(errors);
            }
            package_ = s.name;
            return {};
        }
        case StatementKind::Import: return add_import(s.text);
        case StatementKind::Rule: return define_rule(s, false);
        case StatementKind::Assignment: return define_rule(s, true);
        case StatementKind::Query: return run_query(s.text);
    }
    return {};
}

std::string Session::module_text(const std::string& package, const ReplModule& module,
                                 std::vector<std::pair<uint32_t, uint32_t>>* rule_lines) const {
    std::string text = "package " + package + "\n";
    uint32_t line = 2;
    for (const auto& imp : module.imports) {
        text += imp + "\n";
        if (rule_lines) rule_lines->emplace_back(line, line);
        ++line;
    }
    for (const auto& rule : module.rules) {
        uint32_t lines = 1;
        for (char c : rule.text) lines += c == '\n';
        text += rule.text + "\n";
        if (rule_lines) rule_lines->emplace_back(line, line + lines - 1);
        line += lines;
    }
    return text;
}

std::vector<std::string> Session::install(const std::string& package, const ReplModule& module,
                                          std::optional<std::size_t> new_entry) {
    const std::string file = module_file(package);
    std::vector<std::pair<uint32_t, uint32_t>> lines;
    std::string text = module_text(package, module, &lines);
    lang::Diagnostics diags = engine_.add_policy(file, text);
    if (diags.empty()) diags = engine_.check();
    if (diags.empty()) return {};
    // Put the last good module back.
    auto old = modules_.find(package);
    if (old != modules_.end() && (!old->second.rules.empty() || !old->second.imports.empty()))
        engine_.add_policy(file, module_text(package, old->second));
    else engine_.remove_policy(file);
    std::vector<std::string> errors;
    for (auto d : diags) {
        if (d.file == file) {
            // Lines count from the start of the statement the error is in, as typed.
            bool mapped = false;
            for (const auto& [first, last] : lines)
                if (d.line >= first && d.line <= last) {
                    d.line = d.line - first + 1;
                    mapped = true;
                    break;
                }
            if (!mapped && new_entry && *new_entry < lines.size()) {
                // The end of the module: just after the statement typed last.
                const auto& [first, last] = lines[*new_entry];
                const std::string& typed = *new_entry < module.imports.size()
                                               ? module.imports[*new_entry]
                                               : module.rules[*new_entry - module.imports.size()].text;
                auto line_start = typed.rfind('\n');
                d.line = last - first + 1;
                d.col =
                    static_cast<uint32_t>(typed.size() - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
                d.source_line = typed.substr(line_start == std::string::npos ? 0 : line_start + 1);
            }
            d.file.clear();
        }
        errors.push_back(engine::describe(d));
    }
    return errors;
}

std::string Session::define_rule(const Statement& s, bool replace) {
    ReplModule module = modules_[package_];
    bool existed = false;
    for (const auto& r : module.rules) existed |= r.name == s.name;
    if (replace) std::erase_if(module.rules, [&](const ReplRule& r) { return r.name == s.name; });
    module.rules.push_back({s.name, s.text});
    auto errors = install(package_, module, module.imports.size() + module.rules.size() - 1);
    if (!errors.empty()) return errors_text(errors);
    modules_[package_] = std::move(module);
    return "Rule '" + s.name + "' " + (existed ? "re-defined" : "defined") + " in package " + package_ +
           ". Type 'show' to see rules.\n";
}

std::string Session::add_import(const std::string& text) {
    ReplModule module = modules_[package_];
    if (std::find(module.imports.begin(), module.imports.end(), text) != module.imports.end()) return {};
    module.imports.push_back(text);
    auto errors = install(package_, module, module.imports.size() - 1);
    if (!errors.empty()) return errors_text(errors);
    modules_[package_] = std::move(module);
    return {};
}

std::string Session::show_module() const {
    auto it = modules_.find(package_);
    std::string out = "package " + package_ + "\n";
    if (it == modules_.end()) return out;
    if (!it->second.imports.empty()) {
        out += "\n";
        for (const auto& imp : it->second.imports) out += imp + "\n";
    }
    for (const auto& rule : it->second.rules) out += "\n" + rule.text + "\n";
    return out;
}

std::string Session::run_query(const std::string& text) {
    RewrittenQuery rq = rewrite_query(text, package_names());
    // As OPA's REPL: the query is compiled as written first (its errors are
    // the ones shown), then evaluated as rego does, each value captured.
    Prepared<PreparedQuery> prepared = engine_.prepare(rq.text, {.capture_values = false});
    if (prepared.ok()) prepared = engine_.prepare(rq.text);
    if (!prepared.ok()) {
        std::vector<std::string> errors;
        for (auto d : prepared.diagnostics) {
            if (d.file.empty() && d.line > 0) {
                rq.map_position(text, d.line, d.col);
                if (!rq.edits.empty() && !d.source_line.empty()) {
                    std::size_t at = offset_of(text, d.line, 1);
                    if (at != std::string::npos) d.source_line = text.substr(at, text.find('\n', at) - at);
                }
            }
            errors.push_back(engine::describe(d));
        }
        if (errors.empty()) errors.push_back("query could not be prepared");
        return errors_text(errors);
    }
    EvalOptions options;
    options.input = input();
    options.cancel = cancel_;
    options.metrics = metrics_;
    std::string out;
    TracePrinter tracer(text, [&](uint32_t line, uint32_t col, std::string_view expression) {
        return rq.original_span(text, line, col, expression.size(), std::string(expression));
    });
    if (trace_) options.tracer = &tracer;
    options.print = [&out](std::string_view s) {
        out.append(s);
        out.push_back('\n');
    };
    EvalResult result = prepared.value->eval(options);
    if (trace_) out += tracer.text();
    if (result.error) {
        out += errors_text({result.error->to_string()});
    } else {
        // The expressions as the user typed them (the rows' text points here until rendered).
        std::vector<std::string> texts;
        if (!result.rows.empty() && !rq.edits.empty()) {
            for (const auto& e : result.rows.front().expressions)
                texts.push_back(rq.original_span(text, e.line, e.col, e.text.size(), std::string(e.text)));
            for (auto& row : result.rows)
                for (std::size_t i = 0; i < row.expressions.size() && i < texts.size(); ++i) {
                    row.expressions[i].text = texts[i];
                    rq.map_position(text, row.expressions[i].line, row.expressions[i].col);
                }
        }
        out += render_results(result.rows, mode_);
    }
    if (metrics_) {
        Metrics all = prepared.metrics;
        all.insert(all.end(), result.metrics.begin(), result.metrics.end());
        out += metrics_text(all);
    }
    return out;
}

}  // namespace gavel::cli::repl
