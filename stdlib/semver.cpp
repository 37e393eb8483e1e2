// semver.compare, semver.is_valid: Semantic Versioning 2.0 as OPA parses it
// (an optional leading "v", numeric major.minor.patch, dot-separated
// pre-release and build identifiers of [0-9A-Za-z-]).

#include <optional>

#include <fmt/format.h>

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

namespace {

struct Version {
    std::string_view major, minor, patch;  // decimal digits
    std::string_view pre_release;
};

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// [0-9A-Za-z-]+ separated by single dots.
bool valid_identifiers(std::string_view s) {
    if (s.empty()) return true;
    std::size_t start = 0;
    while (true) {
        auto dot = s.find('.', start);
        auto part = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (part.empty()) return false;
        for (char c : part)
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-')) return false;
        if (dot == std::string_view::npos) return true;
        start = dot + 1;
    }
}

// Numeric fields must fit int64 (Go's strconv.ParseInt).
bool fits_int64(std::string_view digits) {
    while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
    return digits.size() < 19 || (digits.size() == 19 && digits <= "9223372036854775807");
}

std::optional<Version> parse_version(std::string_view s) {
    if (!s.empty() && s[0] == 'v') s.remove_prefix(1);
    Version v;
    if (auto plus = s.find('+'); plus != std::string_view::npos) {
        if (!valid_identifiers(s.substr(plus + 1))) return std::nullopt;
        s = s.substr(0, plus);
    }
    if (auto dash = s.find('-'); dash != std::string_view::npos) {
        v.pre_release = s.substr(dash + 1);
        if (!valid_identifiers(v.pre_release)) return std::nullopt;
        s = s.substr(0, dash);
    }
    auto d1 = s.find('.');
    if (d1 == std::string_view::npos) return std::nullopt;
    auto d2 = s.find('.', d1 + 1);
    if (d2 == std::string_view::npos || s.find('.', d2 + 1) != std::string_view::npos) return std::nullopt;
    v.major = s.substr(0, d1);
    v.minor = s.substr(d1 + 1, d2 - d1 - 1);
    v.patch = s.substr(d2 + 1);
    for (auto part : {v.major, v.minor, v.patch})
        if (!all_digits(part) || !fits_int64(part)) return std::nullopt;
    return v;
}

// Compares decimal digit strings by value.
int compare_numeric(std::string_view a, std::string_view b) {
    while (a.size() > 1 && a[0] == '0') a.remove_prefix(1);
    while (b.size() > 1 && b[0] == '0') b.remove_prefix(1);
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    int c = a.compare(b);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
}

std::string_view cut(std::string_view& s) {
    auto dot = s.find('.');
    auto head = s.substr(0, dot);
    s = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
    return head;
}

// SemVer precedence (spec item 11); build metadata is ignored.
int compare_versions(const Version& a, const Version& b) {
    for (auto [x, y] : {std::pair{a.major, b.major}, std::pair{a.minor, b.minor}, std::pair{a.patch, b.patch}})
        if (int c = compare_numeric(x, y)) return c;
    if (a.pre_release == b.pre_release) return 0;
    if (a.pre_release.empty()) return 1;
    if (b.pre_release.empty()) return -1;
    std::string_view ra = a.pre_release, rb = b.pre_release;
    while (!ra.empty() || !rb.empty()) {
        if (ra.empty()) return -1;  // fewer identifiers, all equal so far
        if (rb.empty()) return 1;
        auto x = cut(ra), y = cut(rb);
        bool xn = all_digits(x), yn = all_digits(y);
        if (xn != yn) return xn ? -1 : 1;  // numeric identifiers sort first
        int c = xn ? compare_numeric(x, y) : (x < y ? -1 : x > y ? 1 : 0);
        if (c) return c;
    }
    return 0;
}

}  // namespace

void register_semver(Registry& r) {
    declare(r, "semver.is_valid", 1, [](Args a, BuiltinContext&) {
        return BuiltinResult::of(Value::boolean(a[0].is_string() && parse_version(a[0].as_string()).has_value()));
    });
    declare(r, "semver.compare", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!a[1].is_string()) return type_error(2, "string", a[1]);
        auto x = parse_version(a[0].as_string());
        if (!x)
            return BuiltinResult::error(
                fmt::format("operand 1: string \"{}\" is not a valid SemVer", a[0].as_string()));
        auto y = parse_version(a[1].as_string());
        if (!y)
            return BuiltinResult::error(
                fmt::format("operand 2: string \"{}\" is not a valid SemVer", a[1].as_string()));
        return BuiltinResult::of(Value::integer(compare_versions(*x, *y)));
    });
}

}  // namespace gavel::stdlib
