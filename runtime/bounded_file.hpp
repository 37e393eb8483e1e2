#pragma once
// Reading a file whose name came from a policy, a request or a setting
// (http.send's certificate files, a TZif file): only a regular file is read,
// never more than a given size, and without ever blocking on a FIFO or a
// device (/dev/zero would be read forever, a FIFO's open waits for a writer).
// A reader under an evaluation's budget also stops at its deadline, and asks
// its memory limit before holding the text.

#include <cstddef>
#include <optional>
#include <string>

#include "runtime/work_budget.hpp"

namespace gavel::runtime {

struct FileRead {
    std::optional<std::string> text;  // the contents, when read
    std::string error;                // why not, in Go's words ("open PATH: no such file or directory")
    bool stopped = false;             // the budget said stop (deadline, cancellation or memory limit)
};

FileRead read_bounded_file(const std::string& path, std::size_t max_bytes, WorkBudget* budget = nullptr);

}  // namespace gavel::runtime
