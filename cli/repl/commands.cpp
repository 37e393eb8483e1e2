// The REPL's commands (help, show, unset, load ...): Session::run_command.
#include <algorithm>

#include "cli/repl/session.hpp"

namespace gavel::cli::repl {

std::string Session::help_text() const {
    return "Enter a Rego statement: a query (input.request.kind), a rule (allow if input.user == \"alice\"),\n"
           "an assignment (i := 0, kept as a rule), `package` or `import`. An open ( [ { continues\n"
           "on the next line. Results: one value as JSON, several as a table, or undefined.\n"
           "\n"
           "Commands:\n"
           "  help              show this help\n"
           "  show              show the REPL's module (package, imports, rules typed here)\n"
           "  unset NAME        remove the rules named NAME typed here\n"
           "  unset-package [P] remove the REPL's rules and imports of package P (default: current)\n"
           "  data, input       show all data / the input (or type a path: data.x.y, input.request)\n"
           "  load FILE         load a policy or data file (as -d does)\n"
           "  input FILE        replace the input with a JSON or YAML file\n"
           "  json              print results as `gavel eval` JSON\n"
           "  pretty            print results as values and tables (default)\n"
           "  trace             toggle step-by-step evaluation traces for the queries that follow\n"
           "  metrics           toggle timing metrics after each query\n"
           "  exit              leave (or Ctrl-D)\n"
           "\n"
           "Tab completes commands, builtin names, rule names and input./data. paths.\n";
}

std::string Session::run_command(const Statement& s) {
    const std::string& c = s.name;
    if (c == "help") return help_text();
    if (c == "exit") {
        exit_requested_ = true;
        return {};
    }
    if (c == "show") return show_module();
    if (c == "json") {
        mode_ = OutputMode::Json;
        return {};
    }
    if (c == "pretty") {
        mode_ = OutputMode::Pretty;
        return {};
    }
    if (c == "trace") {
        trace_ = !trace_;
        return {};
    }
    if (c == "metrics") {
        metrics_ = !metrics_;
        return {};
    }
    if (c == "load") return load_paths({s.args.at(0)});
    if (c == "input") return load_input(s.args.at(0));
    if (c == "unset") {
        auto it = modules_.find(package_);
        const std::string& name = s.args.at(0);
        if (it == modules_.end() || std::none_of(it->second.rules.begin(), it->second.rules.end(),
                                                 [&](const ReplRule& r) { return r.name == name; }))
            return "warning: no matching rules in current module\n";
        ReplModule module = it->second;
        std::erase_if(module.rules, [&](const ReplRule& r) { return r.name == name; });
        auto errors = install(package_, module, std::nullopt);
        if (!errors.empty()) return errors_text(errors);  // another rule still uses it
        modules_[package_] = std::move(module);
        return {};
    }
    if (c == "unset-package") {
        std::string package = s.args.empty() ? package_ : s.args[0];
        auto it = modules_.find(package);
        if (it == modules_.end()) return "warning: no matching package\n";
        engine_.remove_policy(module_file(package));
        modules_.erase(it);
        return {};
    }
    return "error: unknown command " + c + "\n";
}

}  // namespace gavel::cli::repl
