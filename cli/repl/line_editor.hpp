#pragma once
// Reading statements at a terminal with libedit: a prompt, line editing,
// history kept in a file (a multi-line statement is one entry), and tab
// completion through a callback. One LineEditor per process (libedit's
// readline interface is global).

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::cli::repl {

class LineEditor {
public:
    // completer(word, at_line_start) -> the words that complete `word`.
    using Completer = std::function<std::vector<std::string>(std::string_view, bool)>;

    LineEditor(std::string history_file, Completer completer);
    ~LineEditor();
    LineEditor(const LineEditor&) = delete;
    LineEditor& operator=(const LineEditor&) = delete;

    // One line without its newline; nullopt at end of input (Ctrl-D); kInterrupted
    // when Ctrl-C abandoned the line.
    std::optional<std::string> read_line(const std::string& prompt);
    static constexpr const char* kInterrupted = "\x03";
    // Records a whole statement (possibly several lines) and saves the history.
    void remember(const std::string& statement);

private:
    std::string history_file_;
};

// Set by the SIGINT handler the LineEditor installs; whoever acts on it resets it.
std::atomic<bool>& interrupted();

// ~/.gavel_history ($HOME unset: none).
std::string default_history_file();

}  // namespace gavel::cli::repl
