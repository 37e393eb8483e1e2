#include "engine/bundle/tar_writer.hpp"

#include <cstdio>
#include <cstring>

#include "engine/bundle/gzip_stream.hpp"

namespace gavel::engine::bundle {

namespace {

constexpr std::size_t kBlock = 512;

void octal(char* dst, std::size_t width, unsigned long long value) {
    // width-1 digits, zero padded, NUL terminated (Go's formatOctal).
    std::snprintf(dst, width, "%0*llo", static_cast<int>(width - 1), value);
}

// ustar stores up to 155 bytes of directory in `prefix` and 100 in `name`.
bool split_ustar(std::string_view name, std::string_view& prefix, std::string_view& base) {
    if (name.size() <= 100) {
        prefix = {};
        base = name;
        return true;
    }
    for (std::size_t i = name.size(); i-- > 0;) {
        if (name[i] != '/') continue;
        if (i <= 155 && name.size() - i - 1 <= 100 && name.size() - i - 1 > 0) {
            prefix = name.substr(0, i);
            base = name.substr(i + 1);
            return true;
        }
    }
    return false;
}

void pad(std::string& out) {
    if (out.size() % kBlock) out.append(kBlock - out.size() % kBlock, '\0');
}

}  // namespace

void TarWriter::header(std::string_view name, std::size_t size, char type) {
    char h[kBlock];
    std::memset(h, 0, sizeof h);
    std::string_view prefix, base;
    if (!split_ustar(name, prefix, base)) base = name.substr(0, 100);
    if (!base.empty()) std::memcpy(h, base.data(), base.size());  // (an empty view may have no data)
    octal(h + 100, 8, 0600);
    octal(h + 108, 8, 0);
    octal(h + 116, 8, 0);
    octal(h + 124, 12, size);
    octal(h + 136, 12, 0);
    h[156] = type;
    std::memcpy(h + 257,
                "ustar\0"
                "00",
                8);
    if (!prefix.empty()) std::memcpy(h + 345, prefix.data(), prefix.size());
    std::memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (unsigned char c : h) sum += c;
    std::snprintf(h + 148, 8, "%06o", sum);  // six digits, NUL, then the space already there
    h[155] = ' ';
    tar_.append(h, kBlock);
}

void TarWriter::add_file(std::string_view name, std::string_view bytes) {
    std::string_view prefix, base;
    if (!split_ustar(name, prefix, base)) {
        // A PAX record "len path=name\n", whose length counts its own digits.
        std::string body = " path=" + std::string(name) + "\n";
        std::size_t len = body.size() + 1;
        while (std::to_string(len).size() + body.size() != len) ++len;
        std::string record = std::to_string(len) + body;
        header("PaxHeaders.0/" + std::string(name.substr(name.rfind('/') + 1)).substr(0, 80), record.size(), 'x');
        tar_ += record;
        pad(tar_);
    }
    header(name, bytes.size(), '0');
    tar_.append(bytes);
    pad(tar_);
}

std::string TarWriter::finish_tar() {
    tar_.append(2 * kBlock, '\0');
    return std::move(tar_);
}

std::string TarWriter::finish_gz() { return gzip_compress(finish_tar()); }

}  // namespace gavel::engine::bundle
