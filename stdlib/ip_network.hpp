#pragma once
// IP addresses and CIDR networks as Go's `net` package sees them, for the
// net.cidr_* builtins.
//
// Every address is held as 128 bits; IPv4 addresses in their IPv4-mapped form
// (::ffff:a.b.c.d), which is how Go's net.IP treats them too: an address is
// "IPv4" exactly when it has that prefix (Go's IP.To4() != nil), whether it
// was written dotted or as ::ffff:1.2.3.4. Prefix lengths are kept in the
// 128-bit space (an IPv4 /24 is 120) so containment is one masked compare.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gavel::stdlib::ip {

using u128 = unsigned __int128;

// True when `a` is an IPv4-mapped address (::ffff:0:0/96).
bool is_v4(u128 a) noexcept;

// Go's net.ParseIP: dotted IPv4 (no leading zeros) or IPv6 (RFC 4291 text,
// optionally ending in a dotted IPv4), no zone.
std::optional<u128> parse_address(std::string_view s);

// Go's IP.String(): dotted for IPv4 addresses, RFC 5952 text otherwise.
std::string format_address(u128 a);

// The 128-bit mask with `prefix` leading ones (0..128).
u128 mask(int prefix) noexcept;

struct Network {
    u128 address = 0;  // as Go's IPNet.IP: masked when parsed from CIDR text
    int prefix = 0;    // ones in the 128-bit mask

    u128 first() const noexcept { return address & mask(prefix); }
    u128 last() const noexcept { return address | ~mask(prefix); }
    // Go's IPNet.Contains: same family, same network bits.
    bool contains(u128 ip) const noexcept;
    // Go's IPNet.String(): "address/ones" with IPv4 networks in IPv4 terms.
    std::string to_string() const;
};

// Go's net.ParseCIDR ("addr/len"); the returned network is masked.
std::optional<Network> parse_cidr(std::string_view s);

// The fewest CIDR blocks exactly covering [first, last] (first <= last).
template <class Emit>
void range_to_networks(u128 first, u128 last, Emit&& emit) {
    for (;;) {
        // The largest aligned block that starts at `first` and ends by `last`.
        int prefix = 128;
        while (prefix > 0) {
            int host_bits = 128 - (prefix - 1);
            u128 block_mask = host_bits >= 128 ? ~u128{0} : ((u128{1} << host_bits) - 1);
            if ((first & block_mask) != 0) break;    // not aligned for a bigger block
            if ((first | block_mask) > last) break;  // bigger block overshoots
            --prefix;
        }
        emit(Network{first, prefix});
        u128 end = first | ~mask(prefix);
        if (end >= last) return;
        first = end + 1;
    }
}

}  // namespace gavel::stdlib::ip
