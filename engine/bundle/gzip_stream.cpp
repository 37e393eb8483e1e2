#include "engine/bundle/gzip_stream.hpp"

#include <cstring>
#include <limits>

namespace gavel::engine::bundle {

GzipReader::GzipReader(std::string_view compressed) {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    z_.avail_in = static_cast<uInt>(std::min<std::size_t>(compressed.size(), std::numeric_limits<uInt>::max()));
    if (compressed.size() > std::numeric_limits<uInt>::max()) {
        error_ = "archive too large";
        return;
    }
    // 16 + MAX_WBITS: a gzip header and trailer, not raw zlib.
    if (inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) {
        error_ = "gzip: cannot initialise zlib";
        return;
    }
    initialised_ = true;
    if (compressed.size() < 2 || static_cast<unsigned char>(compressed[0]) != 0x1f ||
        static_cast<unsigned char>(compressed[1]) != 0x8b)
        error_ = "gzip: invalid header";
}

GzipReader::~GzipReader() {
    if (initialised_) inflateEnd(&z_);
}

std::size_t GzipReader::read(char* out, std::size_t n) {
    if (!error_.empty() || finished_ || n == 0) return 0;
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
    const uInt wanted = z_.avail_out;
    while (z_.avail_out > 0) {
        int rc = inflate(&z_, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            // Go's gzip reader reads concatenated members as one stream.
            if (z_.avail_in == 0) {
                finished_ = true;
                break;
            }
            if (z_.avail_in < 2 || z_.next_in[0] != 0x1f || z_.next_in[1] != 0x8b) {
                error_ = "gzip: invalid header";
                break;
            }
            inflateReset(&z_);
            continue;
        }
        if (rc == Z_BUF_ERROR) {
            // No progress possible: the input ended inside a member (cut short).
            if (z_.avail_in == 0) error_ = "gzip: unexpected EOF";
            break;
        }
        if (rc != Z_OK) {
            error_ = std::string("gzip: ") + (z_.msg ? z_.msg : "invalid compressed data");
            break;
        }
    }
    std::size_t got = wanted - z_.avail_out;
    if (!error_.empty()) return 0;
    return got;
}

std::string gzip_compress(std::string_view data) {
    z_stream z{};
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    std::string out;
    out.resize(deflateBound(&z, static_cast<uLong>(data.size())) + 32);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

bool gzip_decompress(std::string_view compressed, std::size_t max_bytes, std::string& out, std::string& error) {
    GzipReader reader(compressed);
    out.clear();
    char buffer[64 * 1024];
    while (true) {
        std::size_t n = reader.read(buffer, sizeof buffer);
        if (n == 0) break;
        if (out.size() + n > max_bytes) {
            error = "decompressed size exceeds " + std::to_string(max_bytes) + " bytes";
            return false;
        }
        out.append(buffer, n);
    }
    if (!reader.error().empty()) {
        error = reader.error();
        return false;
    }
    return true;
}

}  // namespace gavel::engine::bundle
