#pragma once
// Reading a whole file or stream: the one reader of every file and stream the
// CLI, the engine, the server and the builtins take in (policies, data, inputs,
// schemas, capabilities, configuration, certificates, object files, stdin,
// http.send's certificate files, time zone files).
//
//   * Errors as OPA (Go's os.ReadFile) words them: "open F: permission denied",
//     "read F: is a directory", so that a caller never takes a file it could
//     not read for an empty one.
//   * Bounded: at most `limit` bytes, counted while reading, so that /dev/zero,
//     an endless FIFO or stdin stops with "file too large" once `limit` bytes
//     came, having used about `limit` bytes of memory (the buffer grows by
//     halvings of the limit, so that no copy on growth ever holds twice the
//     limit). A regular file larger than the limit (a sparse 2 GiB file) is
//     refused from its size, before any byte is read.
//   * A FIFO, a device or a socket is read as OPA reads it (a FIFO waits for its
//     writer), unless the caller refuses them (NonRegular::Refuse: looked at
//     before they are opened, and an error "not a regular file"); a server
//     reading watched directories and builtins reading paths from policies
//     refuse them, so that nothing ever blocks.
//   * Within an evaluation's budget (runtime/work_budget.hpp) when given one: the
//     read asks the memory limit before holding the text and stops at the
//     deadline (`stopped`).

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/limits.hpp"
#include "runtime/work_budget.hpp"

namespace gavel::runtime {

// The default bound: as large as one JSON or YAML document may be
// (runtime/limits.hpp, 256 MiB), which no policy, input or data file needs to
// pass, and small enough that reading /dev/zero stops under 300 MB.
inline constexpr std::size_t kDefaultReadLimit = kDefaultLimits.max_input_bytes;

enum class NonRegular { Read, Refuse };

struct FileRead {
    bool ok = false;
    std::string text;      // the bytes, when ok
    int error = 0;         // errno, when not (EFBIG past the limit, EINVAL for a refused non-regular file)
    std::string message;   // when not: "<open|read> NAME: <error>"
    bool stopped = false;  // not ok because the budget said stop (deadline, cancellation, memory limit)
};

FileRead read_whole_file(const std::string& path, std::size_t limit = kDefaultReadLimit,
                         NonRegular non_regular = NonRegular::Read, WorkBudget* budget = nullptr);

// An open descriptor (stdin) to its end, named `name` in errors ("read stdin: ...").
// The descriptor is left open.
FileRead read_whole_stream(int fd, std::string_view name, std::size_t limit = kDefaultReadLimit);

// An errno as Go's error strings spell it: "too many open files", "permission denied".
std::string go_errno_text(int error);

}  // namespace gavel::runtime
