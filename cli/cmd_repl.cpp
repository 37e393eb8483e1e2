// gavel repl [-d PATH...] [-i input.json] [--v0-compatible] [PATH...]: an interactive
// prompt for exploring input and data, as `opa run` without --server offers.
// At a terminal: libedit line editing, history in ~/.gavel_history, completion.
// Otherwise (stdin is a pipe or file): statements are read line by line (an
// open bracket continues on the next line) and only results are printed.
// The work happens in cli/repl/ (Session); this file only wires the front end.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/repl_command.hpp"
#include "cli/repl/completion.hpp"
#include "cli/repl/line_editor.hpp"
#include "cli/repl/session.hpp"
#include "cli/repl/statement.hpp"

namespace gavel::cli {

namespace {

void show(const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

// Reads one statement: a line, and more lines while a bracket is open.
template <class ReadLine>
std::optional<std::string> read_statement(ReadLine&& read_line) {
    auto line = read_line(false);
    if (!line) return std::nullopt;
    std::string statement = std::move(*line);
    repl::Continuation at = repl::continue_statement({}, statement);
    while (statement != repl::LineEditor::kInterrupted && at.needs_more()) {
        auto more = read_line(true);
        if (!more) break;  // end of input: run what there is (the parser reports it)
        if (*more == repl::LineEditor::kInterrupted) return *more;  // Ctrl-C drops the whole statement
        statement += '\n';
        statement += *more;
        at = repl::continue_statement(at, *more);
    }
    return statement;
}

// The most bytes one statement piped to the REPL may have. Far more than a statement
// typed or pasted ever needs; load larger documents with `input FILE` or -d.
constexpr std::size_t kStatementLimit = std::size_t(1) << 20;

// One line of piped input without its newline, of at most `room` bytes (std::getline
// has no bound: `gavel repl < /dev/zero` would take all memory).
enum class LineRead { Line, End, TooLong };
LineRead read_bounded_line(std::streambuf& in, std::string& line, std::size_t room) {
    line.clear();
    while (true) {
        const int c = in.sbumpc();
        if (c == std::char_traits<char>::eof()) return line.empty() ? LineRead::End : LineRead::Line;
        if (c == '\n') return LineRead::Line;
        if (line.size() >= room) return LineRead::TooLong;
        line.push_back(static_cast<char>(c));
    }
}

}  // namespace

int run_repl(const ReplCliOptions& opts) {
    repl::SessionOptions session_options;
    session_options.v0_compatible = opts.v0_compatible;
    session_options.data_paths = opts.data;
    // As `opa run -b`: the positional paths are bundles.
    auto& positional = opts.bundle ? session_options.bundle_paths : session_options.data_paths;
    positional.insert(positional.end(), opts.paths.begin(), opts.paths.end());
    BundleVerifyFlags verify = opts.verify;
    verify.v0_compatible = opts.v0_compatible;
    std::string flag_error;
    if (!verify.options(session_options.bundle_options, flag_error)) {
        std::cerr << "error: " << flag_error << "\n";
        return 1;
    }
    session_options.input_path = opts.input;
    repl::Session session(session_options);
    if (!session.startup_errors().empty()) {
        std::cerr << session.startup_errors();
        return 1;
    }

    if (!isatty(STDIN_FILENO)) {
        // A statement (its lines together) is bounded: the REPL scans it into tokens
        // (up to one per byte) and parses it, using many times its size.
        const std::size_t limit = kStatementLimit;
        std::size_t statement_bytes = 0;
        bool too_long = false;
        auto read_line = [&](bool continued) -> std::optional<std::string> {
            if (!continued) statement_bytes = 0;
            std::string line;
            switch (read_bounded_line(*std::cin.rdbuf(), line, limit - std::min(limit, statement_bytes))) {
                case LineRead::End: return std::nullopt;
                case LineRead::TooLong: too_long = true; return std::nullopt;
                case LineRead::Line: break;
            }
            statement_bytes += line.size() + 1;
            return line;
        };
        while (auto statement = read_statement(read_line)) {
            if (too_long) break;
            show(session.execute(*statement));
            if (session.exit_requested()) break;
        }
        if (too_long) {
            std::cerr << "read stdin: statement too large: more than the limit of " << limit << " bytes\n";
            return 1;
        }
        return 0;
    }

    repl::LineEditor editor(repl::default_history_file(), [&session](std::string_view word, bool at_start) {
        return repl::complete(session, word, at_start);
    });
    show("gavel REPL. Run 'help' to see a list of commands, Ctrl-D or 'exit' to leave.\n");
    auto read_line = [&editor](bool continued) { return editor.read_line(continued ? "| " : "> "); };
    session.set_cancel_flag(&repl::interrupted());
    while (auto statement = read_statement(read_line)) {
        if (*statement == repl::LineEditor::kInterrupted) continue;
        editor.remember(*statement);
        repl::interrupted().store(false);
        show(session.execute(*statement));
        if (session.exit_requested()) return 0;
    }
    show("\n");
    return 0;
}

namespace {

void add_options(CLI::App* cmd, const std::shared_ptr<ReplCliOptions>& opts) {
    cmd->add_option("-d,--data", opts->data, "Policy or data file or directory (repeatable)")->allow_extra_args(false);
    cmd->add_option("-i,--input", opts->input, "Input document file (JSON or YAML)");
    cmd->add_option("paths", opts->paths, "More policy or data files or directories (bundles with -b)");
    cmd->add_flag("-b,--bundle", opts->bundle, "Load paths as bundle files or root directories");
    opts->verify.add_to(*cmd);
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse policies and statements in the pre-1.0 Rego dialect");
    cmd->add_flag("--v1-compatible")->description("Rego v1 (the default; accepted for OPA compatibility)");
    cmd->callback([opts] { exit_status() = run_repl(*opts); });
}

}  // namespace

void add_repl_command(CLI::App& app) {
    auto opts = std::make_shared<ReplCliOptions>();
    add_options(app.add_subcommand("repl", "Explore input and data at an interactive prompt"), opts);
}

}  // namespace gavel::cli
