#pragma once
// The limits a server evaluation runs under, set up in one place: the time left of --eval-timeout,
// the request's cancel flag, --eval-memory-limit, and where print() lines go. An admission review,
// a Gatekeeper review and an OPA API evaluation take them in the form each evaluator wants.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string_view>

#include "engine/engine.hpp"
#include "engine/gatekeeper/compiled_template.hpp"

namespace gavel::webhook {

struct EvalLimits {
    std::chrono::nanoseconds timeout{0};        // 0: none
    const std::atomic<bool>* cancel = nullptr;  // set when the client is gone or the server stops
    std::uint64_t max_memory = 0;               // bytes; 0: none
    std::function<void(std::string_view)> print;

    // A prepared query's options with `input` (null: undefined).
    EvalOptions eval_options(const runtime::Value* input) const;
    // Each Gatekeeper template evaluation's.
    gatekeeper::EvalControl gatekeeper_control() const;
};

}  // namespace gavel::webhook
