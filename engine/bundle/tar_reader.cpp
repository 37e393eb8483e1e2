#include "engine/bundle/tar_reader.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

#include "engine/bundle/file_hash.hpp"
#include "engine/bundle/gzip_stream.hpp"

namespace gavel::engine::bundle {

namespace {

constexpr std::size_t kBlock = 512;
constexpr std::size_t kMaxHeaderData = 1 << 20;  // PAX / GNU long-name payloads
constexpr std::uint64_t kInitialReserve = 1 << 20;

std::string field(const char* p, std::size_t n) {
    std::size_t len = 0;
    while (len < n && p[len] != '\0') ++len;
    return std::string(p, len);
}

// Octal (NUL/space padded) or GNU base-256 numbers.
bool parse_number(const char* p, std::size_t n, std::uint64_t& out) {
    out = 0;
    if (n > 0 && (static_cast<unsigned char>(p[0]) & 0x80)) {
        if (static_cast<unsigned char>(p[0]) & 0x40) return false;  // negative
        std::uint64_t v = static_cast<unsigned char>(p[0]) & 0x3f;
        for (std::size_t i = 1; i < n; ++i) {
            if (v >> 55) return false;  // would overflow
            v = (v << 8) | static_cast<unsigned char>(p[i]);
        }
        out = v;
        return true;
    }
    std::size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\0')) ++i;
    bool digits = false;
    for (; i < n && p[i] >= '0' && p[i] <= '7'; ++i) {
        if (out >> 60) return false;
        out = out * 8 + static_cast<std::uint64_t>(p[i] - '0');
        digits = true;
    }
    for (; i < n; ++i)
        if (p[i] != ' ' && p[i] != '\0') return false;
    (void)digits;
    return true;
}

bool checksum_ok(const unsigned char* h) {
    std::uint64_t stored = 0;
    if (!parse_number(reinterpret_cast<const char*>(h) + 148, 8, stored)) return false;
    std::uint64_t unsigned_sum = 0;
    std::int64_t signed_sum = 0;
    for (std::size_t i = 0; i < kBlock; ++i) {
        unsigned char c = (i >= 148 && i < 156) ? ' ' : h[i];
        unsigned_sum += c;
        signed_sum += static_cast<signed char>(c);
    }
    return stored == unsigned_sum || static_cast<std::int64_t>(stored) == signed_sum;
}

bool all_zero(const unsigned char* h) {
    return std::all_of(h, h + kBlock, [](unsigned char c) { return c == 0; });
}

// "len key=value\n" records.
void parse_pax(const std::string& data, std::string& path, bool& has_path, std::uint64_t& size, bool& has_size,
               std::string& error) {
    std::size_t pos = 0;
    while (pos < data.size()) {
        std::size_t space = data.find(' ', pos);
        if (space == std::string::npos) break;
        std::uint64_t len = 0;
        for (std::size_t i = pos; i < space; ++i) {
            if (data[i] < '0' || data[i] > '9' || len > data.size()) {
                error = "invalid PAX record";
                return;
            }
            len = len * 10 + static_cast<std::uint64_t>(data[i] - '0');
        }
        if (len == 0 || pos + len > data.size() || data[pos + len - 1] != '\n') {
            error = "invalid PAX record";
            return;
        }
        std::string record = data.substr(space + 1, pos + len - 1 - (space + 1));
        auto eq = record.find('=');
        if (eq != std::string::npos) {
            std::string key = record.substr(0, eq), value = record.substr(eq + 1);
            if (key == "path") {
                path = value;
                has_path = true;
            } else if (key == "size") {
                std::uint64_t s = 0;
                bool ok = !value.empty() && value.size() < 20;
                for (char c : value) ok = ok && c >= '0' && c <= '9', s = s * 10 + static_cast<std::uint64_t>(c - '0');
                if (!ok) {
                    error = "invalid PAX size";
                    return;
                }
                size = s;
                has_size = true;
            }
        }
        pos += len;
    }
}

class TarStream {
public:
    TarStream(GzipReader& gz) : gz_(gz) {}
    // Exactly `n` bytes, or false (truncated or a gzip error).
    bool read_exact(char* out, std::size_t n) {
        while (n > 0) {
            std::size_t got = gz_.read(out, n);
            if (got == 0) return false;
            out += got;
            n -= got;
        }
        return true;
    }
    bool skip(std::uint64_t n) {
        char buffer[16 * 1024];
        while (n > 0) {
            std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(n, sizeof buffer));
            if (!read_exact(buffer, chunk)) return false;
            n -= chunk;
        }
        return true;
    }
    std::string failure(const std::string& what) const { return gz_.error().empty() ? what : gz_.error(); }

private:
    GzipReader& gz_;
};

std::uint64_t padded(std::uint64_t size) { return (size + kBlock - 1) / kBlock * kBlock; }

}  // namespace

bool clean_entry_name(std::string_view name, std::string& out, std::string& error) {
    out.clear();
    if (name.find('\0') != std::string_view::npos) {
        error = "NUL byte in name";
        return false;
    }
    if (name.find('\\') != std::string_view::npos) {
        error = "backslash in name " + std::string(name);
        return false;
    }
    std::size_t start = 0;
    while (start <= name.size()) {
        std::size_t slash = name.find('/', start);
        std::string_view part =
            name.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
        if (part == "..") {
            error = "path traversal in entry name " + std::string(name);
            return false;
        }
        if (!part.empty() && part != ".") {
            if (!out.empty()) out.push_back('/');
            out.append(part);
        }
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    if (out.empty()) {
        error = "empty entry name";
        return false;
    }
    return true;
}

std::string file_size_limit_error(std::string_view name, std::uint64_t size, std::uint64_t limit) {
    return "bundle file " + std::string(name) + " size (" + std::to_string(size) +
           " bytes) exceeds configured size_limit_bytes (" + std::to_string(limit) + " bytes)";
}

std::string total_size_limit_error(std::uint64_t limit) {
    return "bundle files exceed the total size limit (" + std::to_string(limit) + " bytes unpacked)";
}

ArchiveReadResult read_tar_gz(std::string_view compressed, const ArchiveLimits& limits, const EntryPolicy& policy) {
    ArchiveReadResult result;
    // OPA's prefixes: "archive read failed" when the gzip stream cannot start, "bundle
    // read failed" for what goes wrong after (tar entries, limits, the stream cut short).
    auto fail = [&](std::string message) {
        result.files.clear();
        result.error = "bundle read failed: " + std::move(message);
        return std::move(result);
    };
    GzipReader gz(compressed);
    if (!gz.error().empty()) {
        result.error = "archive read failed: " + gz.error();
        return result;
    }
    TarStream in(gz);
    std::set<std::string> seen;
    std::uint64_t total = 0;
    // Every entry's data counts, read or skipped: nothing inflates past the total.
    auto over_total = [&](std::uint64_t size) {
        total += size;
        return total > limits.max_total_bytes;
    };
    std::size_t entries = 0;
    std::string long_name;
    bool has_long_name = false;
    std::string pax_path;
    bool has_pax_path = false, has_pax_size = false;
    std::uint64_t pax_size = 0;
    unsigned char header[kBlock];
    while (true) {
        std::size_t got = gz.read(reinterpret_cast<char*>(header), kBlock);
        if (got == 0) {
            if (!gz.error().empty()) return fail(gz.error());
            break;  // the end without the two zero blocks: Go accepts it too
        }
        if (got < kBlock && !in.read_exact(reinterpret_cast<char*>(header) + got, kBlock - got))
            return fail(in.failure("truncated header"));
        if (all_zero(header)) break;
        if (!checksum_ok(header)) return fail("invalid tar header checksum");
        if (++entries > limits.max_entries) return fail("more than " + std::to_string(limits.max_entries) + " entries");
        const char* h = reinterpret_cast<const char*>(header);
        char type = h[156];
        std::uint64_t size = 0;
        if (!parse_number(h + 124, 12, size)) return fail("invalid size in tar header");
        std::string name = field(h, 100);
        bool ustar = std::memcmp(h + 257, "ustar", 5) == 0;
        if (ustar && std::memcmp(h + 257, "ustar\0", 6) == 0) {
            std::string prefix = field(h + 345, 155);
            if (!prefix.empty()) name = prefix + "/" + name;
        }
        if (type == 'L' || type == 'x' || type == 'g') {
            if (size > kMaxHeaderData) return fail("extended header too large");
            if (over_total(size)) return fail(total_size_limit_error(limits.max_total_bytes));
            std::string data(static_cast<std::size_t>(size), '\0');
            if (!in.read_exact(data.data(), data.size()) || !in.skip(padded(size) - size))
                return fail(in.failure("unexpected EOF in extended header"));
            if (type == 'L') {
                long_name = field(data.data(), data.size());
                has_long_name = true;
            } else if (type == 'x') {
                std::string error;
                parse_pax(data, pax_path, has_pax_path, pax_size, has_pax_size, error);
                if (!error.empty()) return fail(error);
            }
            continue;
        }
        if (has_long_name) name = long_name;
        if (has_pax_path) name = pax_path;
        if (has_pax_size) size = pax_size;
        has_long_name = has_pax_path = has_pax_size = false;

        switch (type) {
            case '0':
            case '\0':
            case '7': break;  // regular file ('7': contiguous, read as regular)
            case '5':         // directory: nothing to read
                if (over_total(size)) return fail(total_size_limit_error(limits.max_total_bytes));
                if (!in.skip(padded(size))) return fail(in.failure("unexpected EOF"));
                continue;
            case '1': return fail("hard link entries are not allowed: " + name);
            case '2': return fail("symbolic link entries are not allowed: " + name);
            case '3':
            case '4':
            case '6': return fail("device or FIFO entries are not allowed: " + name);
            default: return fail(std::string("unsupported tar entry type '") + type + "': " + name);
        }
        std::string path, error;
        if (!clean_entry_name(name, path, error)) return fail(error);
        if (size > limits.max_file_bytes) return fail(file_size_limit_error(name, size, limits.max_file_bytes));
        if (over_total(size)) return fail(total_size_limit_error(limits.max_total_bytes));
        if (!seen.insert(path).second) return fail("duplicate entry " + path);
        EntryDecision decision = policy ? policy(path, size) : EntryDecision{};
        if (!decision.error.empty()) {
            result.files.clear();
            result.error = std::move(decision.error);
            return result;
        }
        auto truncated = [&] {
            return fail(in.failure("entry " + path + " is truncated (" + std::to_string(size) + " bytes announced)"));
        };
        if (decision.action == EntryAction::Skip) {
            if (!in.skip(padded(size))) return truncated();
            continue;
        }
        ArchiveFile f;
        f.path = path;
        f.kept = decision.action == EntryAction::Keep;
        std::optional<DigestStream> digest;
        if (!f.kept) digest.emplace(kDefaultHashAlgorithm);
        // Grown as bytes arrive (doubling, up to the announced size): an entry that
        // announces more than it holds costs what it holds.
        if (f.kept) f.bytes.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(size, kInitialReserve)));
        char buffer[64 * 1024];
        for (std::uint64_t left = size; left > 0;) {
            std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(left, sizeof buffer));
            if (!in.read_exact(buffer, chunk)) return truncated();
            if (f.kept) {
                if (f.bytes.size() + chunk > f.bytes.capacity())
                    f.bytes.reserve(
                        static_cast<std::size_t>(std::min<std::uint64_t>(size, 2 * f.bytes.capacity() + chunk)));
                f.bytes.append(buffer, chunk);
            } else {
                digest->update(std::string_view(buffer, chunk));
            }
            left -= chunk;
        }
        if (digest) f.sha256 = digest->hex();
        if (!in.skip(padded(size) - size)) return fail(in.failure("entry " + path + " is truncated"));
        result.files.push_back(std::move(f));
    }
    return result;
}

}  // namespace gavel::engine::bundle
