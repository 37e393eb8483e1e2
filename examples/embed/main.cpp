// Embedding gavel: compile a policy once, evaluate it for many inputs.
// Builds against the public API only (engine/engine.hpp, runtime/json.hpp).

#include <cstdio>
#include <string>

#include "engine/engine.hpp"
#include "runtime/json.hpp"

int main() {
    gavel::Engine engine;
    auto errors = engine.add_policy("registry.rego", R"(package kubernetes.admission

deny contains msg if {
	input.request.kind.kind == "Pod"
	some container in input.request.object.spec.containers
	not startswith(container.image, "hooli.com/")
	msg := sprintf("image '%v' comes from untrusted registry", [container.image])
}
)");
    if (!errors.empty()) {
        std::fputs(errors.format().c_str(), stderr);
        return 1;
    }
    auto query = engine.prepare("data.kubernetes.admission.deny");
    if (!query.ok()) {
        std::fputs(query.diagnostics.format().c_str(), stderr);
        return 1;
    }
    auto input = gavel::runtime::parse_json(
        R"({"request": {"kind": {"kind": "Pod"}, "object": {"spec": {"containers": [
            {"image": "hooli.com/web"}, {"image": "nginx"}]}}}})");
    if (!input.ok) return 1;
    gavel::EvalOptions options;
    options.input = &input.value;
    auto result = query.value->eval(options);
    if (!result.ok()) {
        std::fprintf(stderr, "%s\n", result.error->to_string().c_str());
        return 1;
    }
    // One row, one expression: the set of messages.
    const auto& messages = result.rows.at(0).expressions.at(0).value;
    std::printf("%s\n", gavel::runtime::to_json(messages).c_str());
    return messages.size() == 1 ? 0 : 1;
}
