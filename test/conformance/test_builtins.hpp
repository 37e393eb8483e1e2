// Builtins that exist only in OPA's test harness (not in gavel's stdlib),
// supplied to the cases that call them through Engine::register_builtin.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "engine/engine.hpp"

namespace gavel::conformance {

// test.sleep(duration): sleeps for a Go duration ("10ms", "1.5s", "1h2m") and
// returns null, as OPA's test builtin does. Sleeps are capped at 10 s.
void register_test_builtins(Engine& engine);

// Go's time.ParseDuration: [-+]?(number unit)+ or "0"; units ns us µs μs ms s m h.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view s);

}  // namespace gavel::conformance
