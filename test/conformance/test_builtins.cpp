#include "test/conformance/test_builtins.hpp"

#include <thread>

namespace gavel::conformance {

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view s) {
    bool neg = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s == "0") return std::chrono::nanoseconds(0);
    if (s.empty()) return std::nullopt;
    long double total = 0;
    while (!s.empty()) {
        long double number = 0, scale = 1;
        std::size_t digits = 0, i = 0;
        for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) number = number * 10 + (s[i] - '0');
        if (i < s.size() && s[i] == '.') {
            for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
                scale /= 10;
                number += (s[i] - '0') * scale;
            }
        }
        if (digits == 0) return std::nullopt;
        s.remove_prefix(i);
        static constexpr std::pair<std::string_view, long double> units[] = {
            {"ns", 1.0L}, {"us", 1e3L}, {"\xC2\xB5s", 1e3L}, {"\xCE\xBCs", 1e3L},
            {"ms", 1e6L}, {"s", 1e9L},  {"m", 60e9L},        {"h", 3600e9L},
        };
        std::size_t j = 0;
        while (j < s.size() && !(s[j] >= '0' && s[j] <= '9') && s[j] != '.') ++j;
        const std::string_view unit = s.substr(0, j);
        bool found = false;
        for (const auto& [name, ns] : units)
            if (unit == name) {
                total += number * ns;
                found = true;
                break;
            }
        if (!found) return std::nullopt;
        s.remove_prefix(j);
    }
    if (total > 9.2e18L) return std::nullopt;  // overflows int64 nanoseconds, as in Go
    auto ns = std::chrono::nanoseconds(static_cast<std::int64_t>(total));
    return neg ? -ns : ns;
}

void register_test_builtins(Engine& engine) {
    engine.register_builtin("test.sleep", 1, [](BuiltinCall& call) -> std::optional<runtime::Value> {
        if (call.args.size() != 1 || !call.args[0].is_string()) {
            call.error = "operand 1 must be string";  // the engine prefixes the builtin name
            return std::nullopt;
        }
        auto d = parse_go_duration(call.args[0].as_string());
        if (!d) {
            call.error = "time: invalid duration \"" + std::string(call.args[0].as_string()) + "\"";  // Go's message
            return std::nullopt;
        }
        auto capped = std::min<std::chrono::nanoseconds>(*d, std::chrono::seconds(10));
        if (capped.count() > 0) std::this_thread::sleep_for(capped);
        return runtime::Value::null();
    });
}

}  // namespace gavel::conformance
