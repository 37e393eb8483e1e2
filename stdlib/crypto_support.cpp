// Digests, HMACs, Go-compatible base64 and PEM (see crypto_support.hpp).

#include "stdlib/crypto_support.hpp"

#include <openssl/crypto.h>

#include <array>

namespace gavel::stdlib::crypto {

std::optional<std::string> digest(const char* md, std::string_view data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    std::size_t len = 0;
    if (EVP_Q_digest(nullptr, md, nullptr, data.data(), data.size(), out.data(), &len) != 1) return std::nullopt;
    return std::string(reinterpret_cast<const char*>(out.data()), len);
}

std::optional<std::string> hmac(const char* md, std::string_view key, std::string_view data) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    std::size_t len = 0;
    // A zero-length key is valid HMAC; OpenSSL wants a non-null pointer.
    static const unsigned char empty = 0;
    const void* key_ptr = key.empty() ? static_cast<const void*>(&empty) : key.data();
    if (!EVP_Q_mac(nullptr, "HMAC", nullptr, md, nullptr, key_ptr, key.size(),
                   reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), out.size(), &len))
        return std::nullopt;
    return std::string(reinterpret_cast<const char*>(out.data()), len);
}

std::string hex(std::string_view bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    if (a.empty()) return true;
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// ---- PEM ----------------------------------------------------------------------------

namespace {

// Go's pem getLine: up to '\n', trailing " \t\r" trimmed.
std::pair<std::string_view, std::string_view> get_line(std::string_view data) {
    std::size_t i = data.find('\n');
    std::string_view line, rest;
    if (i == std::string_view::npos) {
        line = data;
    } else {
        line = data.substr(0, i);
        rest = data.substr(i + 1);
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    return {line, rest};
}

}  // namespace

std::optional<PemBlock> pem_decode(std::string_view data, std::string_view& rest_out) {
    constexpr std::string_view kBegin = "\n-----BEGIN ";
    constexpr std::string_view kEnd = "\n-----END ";
    constexpr std::string_view kDashes = "-----";
    std::string_view rest = data;
    rest_out = data;
    for (;;) {
        if (rest.substr(0, kBegin.size() - 1) == kBegin.substr(1)) {
            rest.remove_prefix(kBegin.size() - 1);
        } else if (auto at = rest.find(kBegin); at != std::string_view::npos) {
            rest.remove_prefix(at + kBegin.size());
        } else {
            return std::nullopt;
        }
        auto [type_line, after_type] = get_line(rest);
        rest = after_type;
        if (type_line.size() < kDashes.size() || type_line.substr(type_line.size() - kDashes.size()) != kDashes)
            continue;
        type_line.remove_suffix(kDashes.size());
        bool has_headers = false;
        bool truncated = false;
        for (;;) {
            if (rest.empty()) {
                truncated = true;
                break;
            }
            auto [line, next] = get_line(rest);
            auto colon = line.find(':');
            if (colon == std::string_view::npos) break;
            has_headers = true;
            rest = next;
        }
        if (truncated) return std::nullopt;
        std::size_t end_index, trailer_index;
        if (!has_headers && rest.substr(0, kEnd.size() - 1) == kEnd.substr(1)) {
            end_index = 0;
            trailer_index = kEnd.size() - 1;
        } else {
            end_index = rest.find(kEnd);
            if (end_index == std::string_view::npos) continue;
            trailer_index = end_index + kEnd.size();
        }
        std::string_view trailer = rest.substr(trailer_index);
        std::size_t trailer_len = type_line.size() + kDashes.size();
        if (trailer.size() < trailer_len) continue;
        std::string_view rest_of_end_line = trailer.substr(trailer_len);
        trailer = trailer.substr(0, trailer_len);
        if (trailer.substr(0, type_line.size()) != type_line || trailer.substr(type_line.size()) != kDashes) continue;
        if (!get_line(rest_of_end_line).first.empty()) continue;
        std::string body;
        for (char c : rest.substr(0, end_index))
            if (c != ' ' && c != '\t') body += c;
        auto decoded = base64_decode(body);
        if (!decoded.ok) continue;
        rest_out = get_line(rest.substr(end_index + kEnd.size() - 1)).second;
        return PemBlock{std::string(type_line), std::move(decoded.bytes)};
    }
}

// ---- numbers --------------------------------------------------------------------------

std::string bignum_to_decimal(const BIGNUM* bn) {
    if (!bn) return "0";
    char* s = BN_bn2dec(bn);
    if (!s) return "0";
    std::string out(s);
    OPENSSL_free(s);
    return out;
}

std::string bytes_to_decimal(std::string_view big_endian) {
    BignumPtr bn(BN_bin2bn(reinterpret_cast<const unsigned char*>(big_endian.data()),
                           static_cast<int>(big_endian.size()), nullptr));
    return bignum_to_decimal(bn.get());
}

std::string bignum_bytes(const BIGNUM* bn, std::size_t width) {
    if (!bn) return std::string(width, '\0');
    std::size_t n = static_cast<std::size_t>(BN_num_bytes(bn));
    std::size_t size = std::max(n, width);
    std::string out(size, '\0');
    BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data() + (size - n)));
    return out;
}

}  // namespace gavel::stdlib::crypto
