// net.cidr_*, net.lookup_ip_addr: OPA's topdown/cidr.go semantics on Go's
// net.ParseCIDR / net.ParseIP (see ip_network.hpp).

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/ip_network.hpp"

namespace gavel::stdlib {

namespace {

using ip::Network;
using ip::u128;

// Space reserved up front by net.cidr_expand; a larger network grows as expanded.
constexpr u128 kExpandReserve = u128{1} << 16;

struct NetworkOrError {
    std::optional<Network> network;
    BuiltinResult error;
};

// OPA reports every string operand of these builtins as "operand 1".
NetworkOrError cidr_operand(const Value& v) {
    if (!v.is_string()) return {std::nullopt, type_error(1, "string", v)};
    auto n = ip::parse_cidr(v.as_string());
    if (!n) return {std::nullopt, BuiltinResult::error("invalid CIDR address: " + std::string(v.as_string()))};
    return {n, {}};
}

// net.cidr_contains(cidr, cidr_or_ip) without the operand checks of `a`.
BuiltinResult contains(const Network& a, const Value& b) {
    if (!b.is_string()) return type_error(1, "string", b);
    if (auto addr = ip::parse_address(b.as_string())) return BuiltinResult::of(Value::boolean(a.contains(*addr)));
    auto inner = ip::parse_cidr(b.as_string());
    if (!inner)
        return BuiltinResult::error("not a valid textual representation of an IP address or CIDR: " +
                                    std::string(b.as_string()));
    // A contains B when it contains both B's first and last address.
    return BuiltinResult::of(Value::boolean(a.contains(inner->address) && a.contains(inner->last())));
}

BuiltinResult cidr_contains(Args a, BuiltinContext&) {
    auto outer = cidr_operand(a[0]);
    if (!outer.network) return outer.error;
    return contains(*outer.network, a[1]);
}

// The CIDR of one element of a cidr_contains_matches operand: a string, or
// the first element of a non-empty array (the rest is the caller's payload).
const Value* match_cidr(const Value& element) {
    if (element.is_string()) return &element;
    if (element.is_array() && element.size() > 0) return &element.array_elements()[0];
    return nullptr;
}

// Calls visit(cidr, key) for each element of a cidr_contains_matches operand;
// key is the array index, the set element, or the object key.
BuiltinResult each_match_operand(int operand, const Value& v,
                                 const std::function<BuiltinResult(const Value&, const Value&)>& visit) {
    auto bad = [operand] {
        return BuiltinResult::error("operand " + std::to_string(operand) +
                                    ": element must be string or non-empty array");
    };
    auto step = [&](const Value& element, const Value& key) -> BuiltinResult {
        const Value* cidr = match_cidr(element);
        if (!cidr) return bad();
        return visit(*cidr, key);
    };
    BuiltinResult ok = BuiltinResult::of(Value::null());
    if (v.is_string()) return visit(v, v);
    if (v.is_array()) {
        auto xs = v.array_elements();
        for (std::size_t i = 0; i < xs.size(); ++i) {
            auto r = step(xs[i], Value::integer(static_cast<int64_t>(i)));
            if (r.status != BuiltinResult::Status::Value) return r;
        }
    } else if (v.is_set()) {
        for (const auto& x : v.set_elements()) {
            auto r = step(x, x);
            if (r.status != BuiltinResult::Status::Value) return r;
        }
    } else if (v.is_object()) {
        for (const auto& e : v.object_entries()) {
            auto r = step(e.value, e.key);
            if (r.status != BuiltinResult::Status::Value) return r;
        }
    }
    return ok;
}

// Every element of one operand against every element of the other: the work,
// and the matches, grow with the product of their sizes.
BuiltinResult cidr_contains_matches(Args a, BuiltinContext& ctx) {
    runtime::SetBuilder matches;
    auto r = each_match_operand(1, a[0], [&](const Value& cidr1, const Value& key1) {
        return each_match_operand(2, a[1], [&](const Value& cidr2, const Value& key2) {
            auto outer = cidr_operand(cidr1);
            if (!outer.network) return outer.error;
            auto c = contains(*outer.network, cidr2);
            if (c.status != BuiltinResult::Status::Value) return c;
            // A match is a pair, an array of its own: with the list, about four units of work.
            if (ctx.spend(3) || (c.value.as_bool() && !matches.insert(Value::array({key1, key2}), ctx)))
                return BuiltinResult::cancelled();
            return c;
        });
    });
    if (r.status != BuiltinResult::Status::Value) return r;
    return set_result(std::move(matches), ctx);
}

BuiltinResult cidr_intersects(Args a, BuiltinContext&) {
    auto x = cidr_operand(a[0]);
    if (!x.network) return x.error;
    auto y = cidr_operand(a[1]);
    if (!y.network) return y.error;
    bool overlap = x.network->contains(y.network->address) || y.network->contains(x.network->address);
    return BuiltinResult::of(Value::boolean(overlap));
}

// As OPA's, no size limit: a large network is bounded by the evaluation's
// deadline and memory limit (each address is a string of its own).
BuiltinResult cidr_expand(Args a, BuiltinContext& ctx) {
    auto n = cidr_operand(a[0]);
    if (!n.network) return n.error;
    u128 first = n.network->first(), last = n.network->last();
    runtime::SetBuilder out(static_cast<std::size_t>(std::min<u128>(last - first + 1, kExpandReserve)));
    for (u128 addr = first;; ++addr) {
        // An address is a string of its own: with the list, about four units of work.
        if (ctx.spend(3) || !out.insert(Value::string(ip::format_address(addr)), ctx))
            return BuiltinResult::cancelled();
        if (addr == last) break;
    }
    return set_result(std::move(out), ctx);
}

BuiltinResult cidr_is_valid(Args a, BuiltinContext&) {
    bool valid = a[0].is_string() && ip::parse_cidr(a[0].as_string()).has_value();
    return BuiltinResult::of(Value::boolean(valid));
}

// One operand element of net.cidr_merge: a CIDR, or a bare IPv4 address with
// its classful default mask (Go's IP.DefaultMask, address left unmasked).
std::optional<Network> merge_element(const Value& v, BuiltinResult& error) {
    if (!v.is_string()) {
        error = BuiltinResult::error("element must be string");
        return std::nullopt;
    }
    std::string_view s = v.as_string();
    if (auto addr = ip::parse_address(s)) {
        if (!ip::is_v4(*addr)) {
            error = BuiltinResult::error("IPv6 invalid: needs prefix length");
            return std::nullopt;
        }
        auto top = static_cast<uint32_t>(*addr) >> 24;
        int ones = top < 0x80 ? 8 : top < 0xC0 ? 16 : 24;
        return Network{*addr, ones + 96};
    }
    auto n = ip::parse_cidr(s);
    if (!n) error = BuiltinResult::error("invalid CIDR address: " + std::string(s));
    return n;
}

// The smallest set of CIDRs covering the union of the inputs. A range that
// merged with nothing keeps its original network text, as OPA's does.
BuiltinResult cidr_merge(Args a, BuiltinContext&) {
    std::span<const Value> xs;
    if (a[0].is_array()) xs = a[0].array_elements();
    else if (a[0].is_set()) xs = a[0].set_elements();
    else return BuiltinResult::error("operand must be an array");

    struct Range {
        u128 first, last;
        std::optional<Network> original;
    };
    std::vector<Range> ranges;
    ranges.reserve(xs.size());
    for (const auto& x : xs) {
        BuiltinResult error;
        auto n = merge_element(x, error);
        if (!n) return error;
        ranges.push_back({n->first(), n->last(), n});
    }
    std::sort(ranges.begin(), ranges.end(),
              [](const Range& l, const Range& r) { return l.last != r.last ? l.last < r.last : l.first < r.first; });
    std::vector<Range> merged;
    for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
        // Walking from the highest range down, as OPA does: merge when the
        // address before the upper range's start is inside the lower range.
        if (!merged.empty()) {
            Range& upper = merged.back();
            // Go's GetPreviousIP does not step below 0.0.0.0 or ::.
            u128 previous = (upper.first == 0 || upper.first == (u128{0xffff} << 32)) ? upper.first : upper.first - 1;
            if (previous <= it->last) {
                upper.first = std::min(upper.first, it->first);
                upper.original.reset();
                continue;
            }
        }
        merged.push_back(*it);
    }
    runtime::SetBuilder out;
    for (const auto& r : merged) {
        if (r.original) {
            out.insert(Value::string(r.original->to_string()));
            continue;
        }
        ip::range_to_networks(r.first, r.last, [&](const Network& n) { out.insert(Value::string(n.to_string())); });
    }
    return BuiltinResult::of(out.build());
}

// Only IP literals are answered: resolving a name needs network access,
// which the engine has no option to allow yet.
// The addresses of a name: "localhost" always (the hosts file, no traffic);
// other names only when the engine allows the network, as for http.send.
BuiltinResult lookup_ip_addr(Args a, BuiltinContext& ctx) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    const std::string name(a[0].as_string());
    if (auto addr = ip::parse_address(name))
        return BuiltinResult::of(Value::set({Value::string(ip::format_address(*addr))}));
    if (!ctx.allow_net && name != "localhost") return BuiltinResult::error("unallowed host: " + name);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (int rc = getaddrinfo(name.c_str(), nullptr, &hints, &found); rc != 0)
        return BuiltinResult::error(fmt::format("lookup {}: {}", name, gai_strerror(rc)));
    runtime::SetBuilder out;
    for (addrinfo* ai = found; ai; ai = ai->ai_next) {
        char text[INET6_ADDRSTRLEN] = {};
        const void* where = ai->ai_family == AF_INET
                                ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr)
                                : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr);
        if ((ai->ai_family == AF_INET || ai->ai_family == AF_INET6) &&
            inet_ntop(ai->ai_family, where, text, sizeof text))
            out.insert(Value::string(text));
    }
    freeaddrinfo(found);
    return BuiltinResult::of(out.build());
}

}  // namespace

void register_net(Registry& r) {
    declare(r, "net.cidr_contains", 2, cidr_contains);
    declare(r, "net.cidr_contains_matches", 2, cidr_contains_matches);
    declare(r, "net.cidr_expand", 1, cidr_expand);
    declare(r, "net.cidr_intersects", 2, cidr_intersects);
    declare(r, "net.cidr_is_valid", 1, cidr_is_valid);
    declare(r, "net.cidr_merge", 1, cidr_merge);
    {
        Builtin lookup;
        lookup.name = "net.lookup_ip_addr";
        lookup.arity = 1;
        lookup.impl = lookup_ip_addr;
        r.add(std::move(lookup));
    }
    Builtin overlap;
    overlap.name = "net.cidr_overlap";
    overlap.arity = 2;
    overlap.impl = cidr_contains;
    r.add(std::move(overlap));
}

}  // namespace gavel::stdlib
