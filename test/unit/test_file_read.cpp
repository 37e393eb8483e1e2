// The one bounded reader (engine/file_read.hpp): OPA's errors for what cannot be
// read, a limit counted while reading (endless streams stop), a regular file
// too large refused from its size, non-regular files refused when asked.
#include "runtime/file_read.hpp"
#include "test/unit/temp_tree.hpp"

#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <string>
#include <thread>

using namespace gavel::runtime;
using gavel::test::TempTree;

namespace {

// Writes `text` into `fd` `times` times (forever when 0, until the reader goes), then closes it.
void feed(int fd, std::string text, std::size_t times) {
    for (std::size_t i = 0; times == 0 || i < times; ++i) {
        std::size_t done = 0;
        while (done < text.size()) {
            ssize_t n = ::write(fd, text.data() + done, text.size() - done);
            if (n < 0) {
                if (errno == EINTR) continue;
                ::close(fd);
                return;  // EPIPE: the reader has gone
            }
            done += static_cast<std::size_t>(n);
        }
    }
    ::close(fd);
}

struct IgnoreSigpipe {
    IgnoreSigpipe() { ::signal(SIGPIPE, SIG_IGN); }
};

}  // namespace

TEST_CASE("file read: a regular file whole, errors as OPA words them") {
    TempTree t;
    t.write("a.json", "{\"a\": 1}");
    auto r = read_whole_file(t.path("a.json"));
    CHECK(r.ok);
    CHECK(r.text == "{\"a\": 1}");

    auto missing = read_whole_file(t.path("nope.json"));
    CHECK_FALSE(missing.ok);
    CHECK(missing.error == ENOENT);
    CHECK(missing.message == "open " + t.path("nope.json") + ": no such file or directory");

    t.write("d/x", "");
    auto dir = read_whole_file(t.path("d"));
    CHECK_FALSE(dir.ok);
    CHECK(dir.error == EISDIR);
    CHECK(dir.message == "read " + t.path("d") + ": is a directory");
    CHECK(read_whole_file(t.path("d"), kDefaultReadLimit, NonRegular::Refuse).message ==
          "read " + t.path("d") + ": is a directory");

    t.write("empty", "");
    auto empty = read_whole_file(t.path("empty"));
    CHECK(empty.ok);
    CHECK(empty.text.empty());
}

TEST_CASE("file read: the limit is the most bytes taken; a regular file past it is refused from its size") {
    TempTree t;
    t.write("ten", "0123456789");
    CHECK(read_whole_file(t.path("ten"), 10).ok);
    auto over = read_whole_file(t.path("ten"), 9);
    CHECK_FALSE(over.ok);
    CHECK(over.error == EFBIG);
    CHECK(over.message == "read " + t.path("ten") + ": file too large: 10 bytes (limit 9)");

    // A sparse file far larger than the limit: refused at once, nothing read.
    const std::string sparse = t.path("sparse");
    t.write("sparse", "");
    REQUIRE(::truncate(sparse.c_str(), std::int64_t(8) << 30) == 0);
    auto big = read_whole_file(sparse);
    CHECK_FALSE(big.ok);
    CHECK(big.message ==
          "read " + sparse + ": file too large: 8589934592 bytes (limit " + std::to_string(kDefaultReadLimit) + ")");
    CHECK(kDefaultReadLimit == gavel::runtime::kDefaultLimits.max_input_bytes);
}

TEST_CASE("file read: an endless device stops at the limit") {
    const std::size_t limit = std::size_t(3) << 20;
    auto r = read_whole_file("/dev/zero", limit);
    CHECK_FALSE(r.ok);
    CHECK(r.error == EFBIG);
    CHECK(r.message == "read /dev/zero: file too large: more than the limit of 3145728 bytes");
    CHECK(r.text.empty());  // nothing half read is handed on
}

TEST_CASE("file read: a FIFO is read as OPA reads it, bounded, or refused without waiting for a writer") {
    IgnoreSigpipe ignore;
    TempTree t;
    const std::string fifo = t.path("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);

    // Refused: no writer, and yet no wait.
    auto refused = read_whole_file(fifo, kDefaultReadLimit, NonRegular::Refuse);
    CHECK_FALSE(refused.ok);
    CHECK(refused.error == EINVAL);
    CHECK(refused.message == "read " + fifo + ": not a regular file");

    // Read: what a writer sends, to its end.
    std::thread writer([&] {
        int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd >= 0) feed(fd, "{\"x\": 1}\n", 3);
    });
    auto sent = read_whole_file(fifo);
    writer.join();
    CHECK(sent.ok);
    CHECK(sent.text == "{\"x\": 1}\n{\"x\": 1}\n{\"x\": 1}\n");

    // An endless writer: the read stops at the limit.
    std::thread endless([&] {
        int fd = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd >= 0) feed(fd, std::string(4096, 'a'), 0);
    });
    auto bounded = read_whole_file(fifo, std::size_t(1) << 20);
    CHECK_FALSE(bounded.ok);
    CHECK(bounded.error == EFBIG);
    CHECK(bounded.message == "read " + fifo + ": file too large: more than the limit of 1048576 bytes");
    endless.join();  // the writer meets EPIPE once the reader closed
}

TEST_CASE("file read: a stream (stdin) to its end, bounded, its buffer never past the limit") {
    IgnoreSigpipe ignore;
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    // 3 MiB in pieces of 1000 bytes (pipes hand them over in odd sizes).
    std::string piece(1000, 'x');
    std::thread writer([&] { feed(fds[1], piece, 3 * 1024 * 1024 / 1000); });
    const std::size_t limit = std::size_t(5) << 20;
    auto r = read_whole_stream(fds[0], "stdin", limit);
    writer.join();
    ::close(fds[0]);
    CHECK(r.ok);
    CHECK(r.text.size() == (3 * 1024 * 1024 / 1000) * 1000);
    CHECK(r.text.capacity() <= limit + 1);

    REQUIRE(::pipe(fds) == 0);
    std::thread endless([&] { feed(fds[1], piece, 0); });
    auto over = read_whole_stream(fds[0], "stdin", limit);
    ::close(fds[0]);
    endless.join();
    CHECK_FALSE(over.ok);
    CHECK(over.message == "read stdin: file too large: more than the limit of 5242880 bytes");
}

TEST_CASE("file read: stdin redirected from a file too large is refused from its size") {
    TempTree t;
    const std::string sparse = t.path("sparse");
    t.write("sparse", "");
    REQUIRE(::truncate(sparse.c_str(), std::int64_t(1) << 30) == 0);
    int fd = ::open(sparse.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    auto r = read_whole_stream(fd, "stdin", std::size_t(1) << 20);
    ::close(fd);
    CHECK_FALSE(r.ok);
    CHECK(r.message == "read stdin: file too large: 1073741824 bytes (limit 1048576)");
}
