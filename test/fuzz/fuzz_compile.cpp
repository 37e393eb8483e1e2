// libFuzzer target: any bytes as a Rego module, compiled in both dialects and
// evaluated (data, under a short timeout), and as a query compiled and
// evaluated against nothing. The parser, the compiler and the evaluator must
// report errors, never crash or hang.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/engine.hpp"

namespace {

void evaluate(gavel::Engine& engine, std::string_view query) {
    auto q = engine.prepare(query);
    if (!q.ok()) {
        if (q.diagnostics.empty()) __builtin_trap();  // a failure says why
        return;
    }
    gavel::EvalOptions options;
    options.timeout = std::chrono::milliseconds(50);
    options.print = [](std::string_view) {};
    (void)q.value->eval(options);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    for (bool v0 : {false, true}) {
        gavel::EngineOptions options;
        options.v0_compatible = v0;
        gavel::Engine engine(options);
        if (!engine.add_policy("fuzz.rego", text).empty()) continue;
        if (!engine.check().empty()) continue;
        evaluate(engine, "data");
    }
    gavel::Engine engine;
    evaluate(engine, text);
    return 0;
}
