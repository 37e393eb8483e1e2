#include "webhook/opa_api/bundle_scope.hpp"

namespace gavel::webhook::opa_api {

namespace {

// A bundle root ("a/b") as segments; "" is one empty segment, as Go's strings.Split gives.
StorePath root_segments(const std::string& root) {
    StorePath out;
    for (std::size_t p = 0;;) {
        auto slash = root.find('/', p);
        out.push_back(root.substr(p, slash == std::string::npos ? std::string::npos : slash - p));
        if (slash == std::string::npos) break;
        p = slash + 1;
    }
    return out;
}

}  // namespace

std::optional<std::string> bundle_owner_error(const Snapshot& snapshot, const StorePath& path,
                                              const std::string& shown) {
    for (const auto& [name, roots] : snapshot.bundle_roots) {
        for (const auto& root : roots) {
            if (root.empty()) return "all paths owned by bundle \"" + name + "\"";
            StorePath root_path = root_segments(root);
            bool owned = true;  // one is a prefix of the other
            for (std::size_t i = 0; i < path.size() && i < root_path.size(); ++i)
                if (path[i] != root_path[i]) owned = false;
            if (owned) return "path " + shown + " is owned by bundle \"" + name + "\"";
        }
    }
    return std::nullopt;
}

}  // namespace gavel::webhook::opa_api
