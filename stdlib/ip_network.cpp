// Go-compatible IP address and CIDR text (see ip_network.hpp).

#include "stdlib/ip_network.hpp"

#include <arpa/inet.h>

#include <array>
#include <charconv>

#include <fmt/format.h>

namespace gavel::stdlib::ip {

namespace {

constexpr u128 kV4MappedPrefix = u128{0xffff} << 32;

u128 from_bytes(const unsigned char* b, std::size_t n) noexcept {
    u128 v = 0;
    for (std::size_t i = 0; i < n; ++i) v = (v << 8) | b[i];
    return v;
}

}  // namespace

bool is_v4(u128 a) noexcept { return (a >> 32) == 0xffff; }

u128 mask(int prefix) noexcept {
    if (prefix <= 0) return 0;
    if (prefix >= 128) return ~u128{0};
    return ~u128{0} << (128 - prefix);
}

std::optional<u128> parse_address(std::string_view s) {
    // inet_pton (glibc) follows the same grammar as Go: dotted quads without
    // leading zeros, RFC 4291 IPv6 text, no zones.
    if (s.empty() || s.size() > 64) return std::nullopt;
    std::string text(s);
    if (text.find('\0') != std::string::npos) return std::nullopt;
    std::array<unsigned char, 16> bytes{};
    if (text.find(':') == std::string::npos) {
        if (inet_pton(AF_INET, text.c_str(), bytes.data()) != 1) return std::nullopt;
        return kV4MappedPrefix | from_bytes(bytes.data(), 4);
    }
    if (inet_pton(AF_INET6, text.c_str(), bytes.data()) != 1) return std::nullopt;
    return from_bytes(bytes.data(), 16);
}

std::string format_address(u128 a) {
    if (is_v4(a)) {
        auto v = static_cast<uint32_t>(a);
        return fmt::format("{}.{}.{}.{}", v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff);
    }
    std::array<uint16_t, 8> groups{};
    for (int i = 0; i < 8; ++i) groups[i] = static_cast<uint16_t>(a >> (112 - 16 * i));
    // RFC 5952: the longest run (first on a tie) of two or more zero groups becomes "::".
    int best_start = -1, best_len = 0;
    for (int i = 0; i < 8;) {
        if (groups[i] != 0) {
            ++i;
            continue;
        }
        int j = i;
        while (j < 8 && groups[j] == 0) ++j;
        if (j - i > best_len) {
            best_start = i;
            best_len = j - i;
        }
        i = j;
    }
    if (best_len < 2) best_start = -1;
    std::string out;
    for (int i = 0; i < 8; ++i) {
        if (i == best_start) {
            out += "::";
            i += best_len - 1;
            continue;
        }
        if (!out.empty() && out.back() != ':') out += ':';
        out += fmt::format("{:x}", groups[i]);
    }
    return out;
}

bool Network::contains(u128 ip) const noexcept {
    if (is_v4(address) != is_v4(ip)) return false;
    u128 m = mask(prefix);
    return (ip & m) == (address & m);
}

std::string Network::to_string() const {
    int ones = is_v4(address) ? std::max(prefix - 96, 0) : prefix;
    return format_address(address) + "/" + std::to_string(ones);
}

std::optional<Network> parse_cidr(std::string_view s) {
    auto slash = s.find('/');
    if (slash == std::string_view::npos) return std::nullopt;
    std::string_view addr_text = s.substr(0, slash), len_text = s.substr(slash + 1);
    auto addr = parse_address(addr_text);
    if (!addr) return std::nullopt;
    // Go's dtoi: one or more decimal digits (leading zeros allowed).
    if (len_text.empty() || len_text.size() > 8) return std::nullopt;
    int ones = 0;
    auto [end, ec] = std::from_chars(len_text.data(), len_text.data() + len_text.size(), ones);
    if (ec != std::errc{} || end != len_text.data() + len_text.size() || len_text[0] == '+' || len_text[0] == '-')
        return std::nullopt;
    // Written as dotted IPv4 the length counts IPv4 bits; written as IPv6
    // (even ::ffff:1.2.3.4) it counts IPv6 bits.
    bool dotted = addr_text.find(':') == std::string_view::npos;
    int bits = dotted ? 32 : 128;
    if (ones < 0 || ones > bits) return std::nullopt;
    int prefix = dotted ? ones + 96 : ones;
    return Network{*addr & mask(prefix), prefix};
}

}  // namespace gavel::stdlib::ip
