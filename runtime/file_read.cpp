#include "runtime/file_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <vector>

#include <system_error>

namespace gavel::runtime {

namespace {

constexpr std::size_t kChunk = std::size_t(64) << 10;  // one read
constexpr std::size_t kBlock = std::size_t(1) << 20;   // one block of a stream

FileRead failed(std::string_view operation, std::string_view name, int error, std::string_view text) {
    FileRead r;
    r.error = error;
    r.message.append(operation).append(" ").append(name).append(": ").append(text);
    return r;
}

FileRead failed(std::string_view operation, std::string_view name, int error) {
    return failed(operation, name, error, go_errno_text(error));
}

FileRead too_large(std::string_view name, std::size_t limit) {
    return failed("read", name, EFBIG, "file too large: more than the limit of " + std::to_string(limit) + " bytes");
}

// Reads `fd` to its end, failing once more than `limit` bytes came. `expected`: the size
// a regular file said it has (0: unknown), read into one buffer of that size. Anything
// else (a stream, a file still growing) is read in blocks and joined at the end: what is
// held never exceeds what was read by more than a block, whatever the allocator does
// (a growing buffer would hold its old and new copies at once, up to 1.5 times the limit
// for /dev/zero; MALLOC_PERTURB_ touches all of both).
FileRead read_to_end(int fd, std::string_view name, std::size_t limit, std::size_t expected, WorkBudget* budget) {
    if (budget && expected > 0 && !budget->affords(expected)) {
        FileRead stop;
        stop.stopped = true;
        return stop;
    }
    std::vector<std::string> blocks;
    std::size_t total = 0;
    while (true) {
        if (blocks.empty() || blocks.back().size() == blocks.back().capacity()) {
            blocks.emplace_back();
            blocks.back().reserve(blocks.size() == 1 ? (expected > 0 ? expected + 1 : kChunk) : kBlock);
        }
        std::string& block = blocks.back();
        const std::size_t size = block.size();
        const std::size_t room = std::min(block.capacity() - size, kChunk);
        block.resize(size + room);
        if (budget && budget->spend(room / 16)) {
            FileRead stop;
            stop.stopped = true;
            return stop;
        }
        const ssize_t n = ::read(fd, block.data() + size, room);
        const int error = errno;
        block.resize(size + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
        if (n < 0) {
            if (error == EINTR) continue;
            return failed("read", name, error);
        }
        total += static_cast<std::size_t>(n);
        if (total > limit) return too_large(name, limit);
        if (n == 0) break;
    }
    FileRead r;
    r.ok = true;
    if (blocks.size() == 1) {
        r.text = std::move(blocks.front());
        return r;
    }
    r.text.reserve(total);
    for (auto& block : blocks) {
        r.text.append(block);
        std::string().swap(block);  // given back as it is copied
    }
    return r;
}

}  // namespace

FileRead read_whole_file(const std::string& path, std::size_t limit, NonRegular non_regular, WorkBudget* budget) {
    if (non_regular == NonRegular::Refuse) {
        // Looked at before it is opened: opening a device can itself do something.
        struct stat before {};
        if (::stat(path.c_str(), &before) != 0) return failed("open", path, errno);
        if (S_ISDIR(before.st_mode)) return failed("read", path, EISDIR);
        if (!S_ISREG(before.st_mode)) return failed("read", path, EINVAL, "not a regular file");
    }
    // Refusing: open without waiting for a FIFO's writer (it may have become one since).
    const int flags = O_RDONLY | O_CLOEXEC | (non_regular == NonRegular::Refuse ? O_NONBLOCK : 0);
    const int fd = ::open(path.c_str(), flags);
    if (fd < 0) return failed("open", path, errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int error = errno;
        ::close(fd);
        return failed("stat", path, error);
    }
    FileRead r;
    std::size_t expected = 0;
    if (S_ISDIR(st.st_mode)) {
        r = failed("read", path, EISDIR);  // Go's open succeeds and its read fails so
    } else if (!S_ISREG(st.st_mode) && non_regular == NonRegular::Refuse) {
        r = failed("read", path, EINVAL, "not a regular file");
    } else if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > limit) {
        r = failed("read", path, EFBIG,
                   "file too large: " + std::to_string(st.st_size) + " bytes (limit " + std::to_string(limit) + ")");
    } else {
        if (S_ISREG(st.st_mode)) expected = static_cast<std::size_t>(st.st_size);
        r = read_to_end(fd, path, limit, expected, budget);
    }
    ::close(fd);
    return r;
}

FileRead read_whole_stream(int fd, std::string_view name, std::size_t limit) {
    struct stat st {};
    std::size_t expected = 0;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {  // stdin redirected from a file: its size tells
        const off_t at = ::lseek(fd, 0, SEEK_CUR);
        const std::uint64_t left = at >= 0 && at < st.st_size ? static_cast<std::uint64_t>(st.st_size - at) : 0;
        if (left > limit)
            return failed("read", name, EFBIG,
                          "file too large: " + std::to_string(left) + " bytes (limit " + std::to_string(limit) + ")");
        expected = static_cast<std::size_t>(left);
    }
    return read_to_end(fd, name, limit, expected, nullptr);
}

std::string go_errno_text(int error) {
    std::string text = std::error_code(error, std::generic_category()).message();
    if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
    return text;
}

}  // namespace gavel::runtime
