// uuid.rfc4122 (random version 4 UUIDs, stable per query and input) and
// uuid.parse (the forms and fields of Go's google/uuid as OPA reports them).

#include <array>
#include <optional>

#include <fmt/format.h>

#include "stdlib/builtin_helpers.hpp"
#include "support/hex_digit.hpp"
#include "support/random_uuid.hpp"

namespace gavel::stdlib {

namespace {

using Bytes = std::array<std::uint8_t, 16>;

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

// google/uuid.Parse: 36 chars with dashes, "urn:uuid:" + 36 (prefix
// case-insensitive), 38 chars whose first and last are not examined
// ({...}), or 32 hex digits.
std::optional<Bytes> parse_uuid(std::string_view s) {
    Bytes u{};
    auto read_hex = [&](std::string_view hex32) {
        for (std::size_t i = 0; i < 16; ++i) {
            int hi = support::hex_digit_value(hex32[2 * i]), lo = support::hex_digit_value(hex32[2 * i + 1]);
            if (hi < 0 || lo < 0) return false;
            u[i] = std::uint8_t(hi * 16 + lo);
        }
        return true;
    };
    if (s.size() == 32) return read_hex(s) ? std::optional(u) : std::nullopt;
    if (s.size() == 45) {
        if (!iequals(s.substr(0, 9), "urn:uuid:")) return std::nullopt;
        s = s.substr(9);
    } else if (s.size() == 38) {
        s = s.substr(1, 36);
    } else if (s.size() != 36) {
        return std::nullopt;
    }
    if (s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-') return std::nullopt;
    std::string digits;
    for (char c : s)
        if (c != '-') digits += c;
    if (digits.size() != 32) return std::nullopt;
    return read_hex(digits) ? std::optional(u) : std::nullopt;
}

std::string variant_name(std::uint8_t b) {
    if ((b & 0xc0) == 0x80) return "RFC4122";
    if ((b & 0xe0) == 0xc0) return "Microsoft";
    if ((b & 0xe0) == 0xe0) return "Future";
    return "Reserved";
}

std::string mac_variables(std::uint8_t b) {
    if ((b & 3) == 3) return "local:multicast";
    if ((b & 1) == 1) return "global:multicast";
    if ((b & 2) == 2) return "local:unicast";
    return "global:unicast";
}

Value describe(const Bytes& u) {
    runtime::ObjectBuilder b;
    int version = u[6] >> 4;
    b.insert(Value::string("version"), Value::integer(version));
    b.insert(Value::string("variant"), Value::string(variant_name(u[8])));
    if (version == 1 || version == 2) {
        auto be16 = [&](int i) { return std::int64_t(u[i]) << 8 | u[i + 1]; };
        // google/uuid reads the 60-bit timestamp the same way for v1 and v2
        // (for v2 the low 32 bits are the local id).
        std::int64_t time = (be16(0) << 16) | be16(2) | (be16(4) << 32) | ((be16(6) & 0xfff) << 48);
        // 100ns ticks since 1582-10-15 to Unix nanoseconds.
        constexpr std::int64_t kGregorianToUnix = 122192928000000000;
        std::int64_t ticks = time - kGregorianToUnix;
        b.insert(Value::string("time"), Value::integer((ticks / 10000000) * 1000000000 + (ticks % 10000000) * 100));
        b.insert(Value::string("nodeid"), Value::string(fmt::format("{:02x}-{:02x}-{:02x}-{:02x}-{:02x}-{:02x}", u[10],
                                                                    u[11], u[12], u[13], u[14], u[15])));
        b.insert(Value::string("macvariables"), Value::string(mac_variables(u[10])));
        b.insert(Value::string("clocksequence"), Value::integer(be16(8) & 0x3fff));
        if (version == 2) {
            b.insert(Value::string("id"), Value::integer((be16(0) << 16) | be16(2)));
            static constexpr const char* kDomains[] = {"Person", "Group", "Org"};
            b.insert(Value::string("domain"),
                     Value::string(u[9] < 3 ? std::string(kDomains[u[9]]) : fmt::format("Domain{}", u[9])));
        }
    }
    return b.build();
}

}  // namespace

void register_uuid(Registry& r) {
    Builtin gen;
    gen.name = "uuid.rfc4122";
    gen.arity = 1;
    gen.impl = [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        std::string key = "uuid.rfc4122\x1f" + std::string(a[0].as_string());
        if (auto it = ctx.memo.find(key); it != ctx.memo.end()) return BuiltinResult::of(it->second);
        std::string id = support::random_uuid();
        if (id.empty()) return BuiltinResult::error("random source failed");
        Value v = Value::string(id);
        ctx.memo.emplace(std::move(key), v);
        return BuiltinResult::of(v);
    };
    r.add(std::move(gen));

    declare(r, "uuid.parse", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        auto u = parse_uuid(a[0].as_string());
        if (!u) return BuiltinResult::undefined();
        return BuiltinResult::of(describe(*u));
    });
}

}  // namespace gavel::stdlib
