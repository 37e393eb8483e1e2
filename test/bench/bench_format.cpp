// gavel fmt on a 1,000-line module (parse and layout): the target is under 10 ms.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "lang/format/format.hpp"

namespace {

// Rules of the kinds policies are made of, with comments, composites and
// comprehensions, repeated to 1,000 lines.
std::string thousand_line_module() {
    std::string text = "# A generated policy.\npackage bench.fmt\n\nimport data.lib\n\n";
    int n = 0;
    while (std::count(text.begin(), text.end(), '\n') < 1000) {
        std::string i = std::to_string(n++);
        text += "# deny" + i + " explains itself\n";
        text += "deny contains msg if {\n";
        text += "\tsome container in input.request.object.spec.containers # each one\n";
        text += "\tnot startswith(container.image, \"registry-" + i + ".example.com/\")\n";
        text += "\tlimits := {\"cpu\": container.resources.limits.cpu,\n\t\t\"memory\": [1, 2, 3]}\n";
        text += "\tnames := [c.name | some c in input.request.object.spec.containers; c.name != \"x\"]\n";
        text += "\tmsg := sprintf(\"image %v (%v) is not allowed\", [container.image, count(names) + " + i + " * 2])\n";
        text += "}\n\n";
        text += "allowed" + i + "(x) := y if {\n\ty := x + 1\n} else := 0\n\n";
    }
    return text;
}

void BM_FormatThousandLineModule(benchmark::State& state) {
    const std::string text = thousand_line_module();
    for (auto _ : state) {
        auto r = gavel::lang::format::format_module("bench.rego", text);
        if (!r.ok()) {
            state.SkipWithError("the module did not format");
            break;
        }
        benchmark::DoNotOptimize(r);
    }
    state.SetBytesProcessed(static_cast<int64_t>(text.size() * state.iterations()));
    state.counters["lines"] = static_cast<double>(std::count(text.begin(), text.end(), '\n'));
}
BENCHMARK(BM_FormatThousandLineModule)->Unit(benchmark::kMillisecond);

}  // namespace
