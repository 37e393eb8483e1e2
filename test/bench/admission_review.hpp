#pragma once
// Synthetic AdmissionReviews of a chosen size, built as JSON text, for benchmarks.

#include <fmt/format.h>

#include <string>

namespace gavel::bench {

// A Pod AdmissionReview with `containers` containers, each with env vars,
// ports and labels as real workloads carry.
inline std::string admission_review(std::size_t containers) {
    std::string list;
    for (std::size_t i = 0; i < containers; ++i) {
        if (i) list += ",";
        list += fmt::format(
            R"({{"name":"app-{0}","image":"registry.example.com/team/app-{0}:v1.{0}.3","imagePullPolicy":"IfNotPresent",)"
            R"("ports":[{{"containerPort":{1},"protocol":"TCP","name":"http-{0}"}}],)"
            R"("env":[{{"name":"LOG_LEVEL","value":"info"}},{{"name":"INSTANCE","value":"app-{0}-\u00e9t\u00e9"}},)"
            R"({{"name":"RATIO","value":"0.{0}"}}],"resources":{{"limits":{{"cpu":"500m","memory":"128Mi"}},)"
            R"("requests":{{"cpu":"250m","memory":"64Mi"}}}},"securityContext":{{"runAsNonRoot":true,"runAsUser":{2},)"
            R"("readOnlyRootFilesystem":true,"allowPrivilegeEscalation":false}}}})",
            i, 8000 + i % 1000, 1000 + i);
    }
    return fmt::format(
        R"({{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",)"
        R"("kind":{{"group":"","version":"v1","kind":"Pod"}},"resource":{{"group":"","version":"v1","resource":"pods"}},)"
        R"("namespace":"default","operation":"CREATE","userInfo":{{"username":"alice","groups":["system:authenticated"]}},)"
        R"("object":{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"myapp","namespace":"default",)"
        R"("labels":{{"app":"myapp","tier":"backend","cost-center":"1234"}},"annotations":{{"example.com/owner":"team-a"}}}},)"
        R"("spec":{{"containers":[{}],"restartPolicy":"Always","terminationGracePeriodSeconds":30}}}}}}}})",
        list);
}

// The smallest review with at least `bytes` bytes.
inline std::string admission_review_of_size(std::size_t bytes) {
    std::size_t n = 1;
    while (admission_review(n).size() < bytes) n *= 2;
    std::size_t lo = n / 2, hi = n;
    while (lo + 1 < hi) {
        std::size_t mid = (lo + hi) / 2;
        (admission_review(mid).size() < bytes ? lo : hi) = mid;
    }
    return admission_review(hi);
}

}  // namespace gavel::bench
