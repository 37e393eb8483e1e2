#include "runtime/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gavel::runtime {

namespace {

// Go prints system errors in lower case ("no such file or directory").
std::string system_error(const char* op, const std::string& path, int err) {
    std::string what = std::strerror(err);
    if (!what.empty() && what[0] >= 'A' && what[0] <= 'Z') what[0] = static_cast<char>(what[0] - 'A' + 'a');
    return std::string(op) + " " + path + ": " + what;
}

// What is at `path` unless it is a regular file; empty when it is one.
std::string not_regular(const std::string& path, const struct stat& st) {
    if (S_ISREG(st.st_mode)) return {};
    if (S_ISDIR(st.st_mode)) return "read " + path + ": is a directory";
    return "read " + path + ": not a regular file";
}

struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

FileRead read_bounded_file(const std::string& path, std::size_t max_bytes, WorkBudget* budget) {
    FileRead out;
    auto too_large = [&] { return "read " + path + ": larger than " + std::to_string(max_bytes) + " bytes"; };
    // Looked at before it is opened: opening a device can itself do something.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        out.error = system_error("open", path, errno);
        return out;
    }
    if (out.error = not_regular(path, st); !out.error.empty()) return out;
    // Non-blocking, should it have become a FIFO since: its open would wait for a writer.
    Fd file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
    if (file.fd < 0) {
        out.error = system_error("open", path, errno);
        return out;
    }
    if (::fstat(file.fd, &st) != 0) {
        out.error = system_error("read", path, errno);
        return out;
    }
    if (out.error = not_regular(path, st); !out.error.empty()) return out;
    const auto expected = static_cast<std::size_t>(st.st_size);
    if (expected > max_bytes) {
        out.error = too_large();
        return out;
    }
    if (budget && !budget->affords(expected)) {
        out.stopped = true;
        return out;
    }
    std::string text;
    text.reserve(expected);
    char chunk[64 * 1024];
    while (true) {
        if (budget && budget->spend(sizeof chunk / 16)) {
            out.stopped = true;
            return out;
        }
        ssize_t n = ::read(file.fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            out.error = system_error("read", path, errno);
            return out;
        }
        if (n == 0) break;
        if (text.size() + static_cast<std::size_t>(n) > max_bytes) {  // it grew while read
            out.error = too_large();
            return out;
        }
        text.append(chunk, static_cast<std::size_t>(n));
    }
    out.text = std::move(text);
    return out;
}

}  // namespace gavel::runtime
