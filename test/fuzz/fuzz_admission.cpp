// libFuzzer target: any bytes as the body of an admission request, through the
// server's request handler (no sockets). Every body must get an answer: 200
// with a decision, or 400 with a JSON error; never a crash, a hang or a 5xx
// other than the well-formed evaluation-error denial.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "webhook/service.hpp"

namespace {

namespace wh = gavel::webhook;

wh::Service& service() {
    static auto store = [] {
        auto s = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{});
        auto r = s->put_policy("registry.rego", R"(package kubernetes.admission

deny contains msg if {
	input.request.kind.kind == "Pod"
	some container in input.request.object.spec.containers
	not startswith(container.image, "hooli.com/")
	msg := sprintf("image '%v' comes from untrusted registry", [container.image])
}

warn contains "no labels" if not input.request.object.metadata.labels

patch contains {"op": "add", "path": "/metadata/annotations/a~1b", "value": "x"} if input.request.operation == "CREATE"
)");
        if (!r.ok()) __builtin_trap();
        return s;
    }();
    static wh::Service svc(wh::ServiceOptions{}, store, std::make_shared<wh::Metrics>());
    return svc;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const char* const targets[] = {"/validate/kubernetes/admission", "/mutate/kubernetes/admission", "/"};
    wh::HttpRequest req;
    req.method = "POST";
    req.target = targets[size % 3];
    req.headers.emplace_back("Content-Type", "application/json");
    req.body.assign(reinterpret_cast<const char*>(data), size);
    auto resp = service().handle(req);
    if (resp.body.empty()) __builtin_trap();
    if (resp.status != 200 && resp.status != 400 && resp.status != 413) __builtin_trap();
    return 0;
}
