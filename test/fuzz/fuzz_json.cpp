// libFuzzer target: any bytes as JSON input (and as YAML data). The readers
// must return a value or an error with a position, never crash or hang; a
// value that was read must print and read back to itself; the lazy reader
// (small documents) must agree with the eager one: same value, or the same error.

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/json.hpp"
#include "runtime/yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    auto parsed = gavel::runtime::parse_json(text);
    auto eager = gavel::runtime::detail::parse_json_eagerly(text);
    if (parsed.ok != eager.ok) __builtin_trap();
    if (!parsed.ok && parsed.error.message != eager.error.message) __builtin_trap();
    if (parsed.ok &&
        (parsed.value != eager.value || gavel::runtime::to_json(parsed.value) != gavel::runtime::to_json(eager.value)))
        __builtin_trap();
    if (parsed.ok) {
        auto again = gavel::runtime::parse_json(gavel::runtime::to_json(parsed.value));
        if (!again.ok || again.value != parsed.value) __builtin_trap();
    } else if (parsed.error.message.empty()) {
        __builtin_trap();
    }
    (void)gavel::runtime::parse_yaml(text);
    return 0;
}
