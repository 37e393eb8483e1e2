#include "engine/file_read.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "engine/directory_walk.hpp"

namespace gavel::engine {

namespace {

FileRead failed(const char* operation, const std::string& path, int error) {
    FileRead r;
    r.error = error;
    r.message = std::string(operation) + " " + path + ": " + go_errno_text(error);
    return r;
}

}  // namespace

FileRead read_whole_file(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return failed("open", path, errno);
    FileRead r;
    char buffer[65536];
    while (true) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            int error = errno;
            ::close(fd);
            return failed("read", path, error);
        }
        r.text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    r.ok = true;
    return r;
}

}  // namespace gavel::engine
