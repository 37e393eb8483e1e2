#pragma once
// gzip in and out on zlib. Reading is a pull stream so that an archive is
// unpacked entry by entry: memory stays bounded by what the caller keeps, and
// a "gzip bomb" stops at the caller's byte limit instead of filling memory.

#include <zlib.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace gavel::engine::bundle {

class GzipReader {
public:
    explicit GzipReader(std::string_view compressed);
    ~GzipReader();
    GzipReader(const GzipReader&) = delete;
    GzipReader& operator=(const GzipReader&) = delete;

    // Reads up to `n` bytes into `out`; returns how many were read. 0 with
    // error() empty is the end of the stream (all gzip members read).
    std::size_t read(char* out, std::size_t n);
    const std::string& error() const { return error_; }

private:
    z_stream z_{};
    bool initialised_ = false;
    bool finished_ = false;
    std::string error_;
};

// The whole of `data` as one gzip member (default compression, as Go's gzip.Writer).
std::string gzip_compress(std::string_view data);

// Inflates a whole gzip stream, failing beyond `max_bytes` of output.
bool gzip_decompress(std::string_view compressed, std::size_t max_bytes, std::string& out, std::string& error);

}  // namespace gavel::engine::bundle
