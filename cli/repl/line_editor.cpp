#include "cli/repl/line_editor.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csignal>

#include <editline/readline.h>

namespace gavel::cli::repl {

namespace {

LineEditor::Completer* active_completer = nullptr;
std::vector<std::string> matches;

char* next_match(const char*, int state) {
    static std::size_t index = 0;
    if (state == 0) index = 0;
    if (index >= matches.size()) return nullptr;
    return strdup(matches[index++].c_str());
}

char** attempt_completion(const char* text, int start, int) {
    rl_attempted_completion_over = 1;  // never fall back to file names
    if (!active_completer) return nullptr;
    bool at_line_start = true;
    for (int i = 0; i < start && rl_line_buffer; ++i)
        if (rl_line_buffer[i] != ' ' && rl_line_buffer[i] != '\t') at_line_start = false;
    matches = (*active_completer)(text, at_line_start);
    if (matches.empty()) return nullptr;
    return rl_completion_matches(text, next_match);
}

}  // namespace

std::atomic<bool>& interrupted() {
    static std::atomic<bool> flag{false};
    return flag;
}

namespace {
extern "C" void on_interrupt(int) { interrupted().store(true); }
}  // namespace

std::string default_history_file() {
    const char* home = std::getenv("HOME");
    if (!home || !*home) return {};
    return std::string(home) + "/.gavel_history";
}

LineEditor::LineEditor(std::string history_file, Completer completer) : history_file_(std::move(history_file)) {
    active_completer = new Completer(std::move(completer));
    rl_readline_name = const_cast<char*>("gavel");
    // Paths stay one word (`.`, `["key"]`, `[0]` do not break words); operators and spaces do.
    static char breaks[] = " \t\n'`@$><=;|&{(,+-*/%:";
    rl_completer_word_break_characters = breaks;
    rl_attempted_completion_function = attempt_completion;
    rl_completion_append_character = '\0';
    using_history();
    stifle_history(1000);
    if (!history_file_.empty()) read_history(history_file_.c_str());
    // Ctrl-C abandons the line being typed or cancels the running query; it does not end the REPL.
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
}

LineEditor::~LineEditor() {
    delete active_completer;
    active_completer = nullptr;
}

std::optional<std::string> LineEditor::read_line(const std::string& prompt) {
    interrupted().store(false);
    char* line = readline(prompt.c_str());
    if (interrupted().exchange(false)) {
        std::free(line);
        std::fputs("\n", stdout);
        return std::string(kInterrupted);
    }
    if (!line) return std::nullopt;
    std::string out(line);
    std::free(line);
    return out;
}

void LineEditor::remember(const std::string& statement) {
    if (statement.find_first_not_of(" \t\n") == std::string::npos) return;
    // The same statement twice in a row is one entry (Up should not walk through repeats).
    if (history_length > 0) {
        HIST_ENTRY* last = history_get(history_base + history_length - 1);
        if (last && last->line && statement == last->line) return;
    }
    add_history(statement.c_str());
    if (!history_file_.empty()) write_history(history_file_.c_str());
}

}  // namespace gavel::cli::repl
