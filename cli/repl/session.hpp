#pragma once
// The REPL's state and what each statement does to it: the engine with the
// loaded policies and data, the input, the current package, and the REPL's
// own modules (one per package it has been in), whose rules are the rules and
// assignments typed at the prompt. Front-end free: execute() returns the text
// to show, so the terminal loop, the piped loop and tests all drive it alike.

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/repl/query_rewrite.hpp"
#include "cli/repl/result_printer.hpp"
#include "cli/repl/statement.hpp"
#include "engine/engine.hpp"
#include "engine/bundle/bundle.hpp"
#include "runtime/value.hpp"

namespace gavel::cli::repl {

struct SessionOptions {
    bool v0_compatible = false;
    std::vector<std::string> data_paths;         // -d: policies and data
    std::vector<std::string> bundle_paths = {};  // -b: bundles (directories or .tar.gz)
    engine::bundle::BundleReadOptions bundle_options = {};
    std::string input_path;  // -i: the input document
};

class Session {
public:
    explicit Session(const SessionOptions& options);

    // Errors from loading the start-up files (empty when all loaded).
    const std::string& startup_errors() const { return startup_errors_; }

    // Runs one complete statement; returns what to print (each line ends in '\n').
    std::string execute(std::string_view text);
    bool exit_requested() const { return exit_requested_; }
    // Queries stop with eval_cancel_error when this becomes true (Ctrl-C at the terminal).
    void set_cancel_flag(const std::atomic<bool>* cancel) { cancel_ = cancel; }

    // For completion.
    // The input: the document given with -i / `input FILE`, else data.repl.input (OPA's
    // REPL convention: `gavel run repl.input:input.json`); null when there is none.
    const runtime::Value* input() const;
    const runtime::Value& base_data() const { return engine_.data(); }
    std::vector<RuleInfo> rules() const { return engine_.rules(); }
    std::vector<std::string> builtin_names() const { return engine_.builtin_names(); }
    const std::string& current_package() const { return package_; }
    // Names a query in the current package may use for rules and imports, with what they stand for.
    std::map<std::string, std::string> package_names() const;

private:
    struct ReplRule {
        std::string name;
        std::string text;
    };
    struct ReplModule {
        std::vector<std::string> imports;
        std::vector<ReplRule> rules;
    };

    std::string run_query(const std::string& text);
    std::string define_rule(const Statement& s, bool replace);
    std::string add_import(const std::string& text);
    std::string run_command(const Statement& s);
    std::string help_text() const;
    std::string show_module() const;

    // Installs the module of `package` into the engine and checks that everything
    // compiles; returns the errors, lines counted from the start of the statement they
    // are in. `new_entry` is the statement just typed (imports first, then rules), which
    // an error past the end of the module (an unexpected end) belongs to.
    std::vector<std::string> install(const std::string& package, const ReplModule& module,
                                     std::optional<std::size_t> new_entry);
    std::string module_text(const std::string& package, const ReplModule& module,
                            std::vector<std::pair<uint32_t, uint32_t>>* rule_lines = nullptr) const;
    static std::string module_file(const std::string& package) { return "repl:" + package; }
    std::string load_input(const std::string& path);
    std::string load_paths(const std::vector<std::string>& paths);

    Engine engine_;
    std::optional<runtime::Value> input_;
    std::string package_ = "repl";
    std::map<std::string, ReplModule> modules_;
    OutputMode mode_ = OutputMode::Pretty;
    bool metrics_ = false;
    bool trace_ = false;
    bool exit_requested_ = false;
    const std::atomic<bool>* cancel_ = nullptr;
    std::string startup_errors_;
};

// "1 error occurred: X" or "N errors occurred:\nX\nY", as OPA joins errors.
std::string errors_text(const std::vector<std::string>& errors);

}  // namespace gavel::cli::repl
