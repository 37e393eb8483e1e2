#pragma once
// Symbolic link cycles met while reading the watched directories (the walk
// skips them, engine/directory_walk.hpp): each is logged once as a warning
// naming the link, for as long as it lasts; one removed and made again is
// logged again.

#include <set>
#include <string>
#include <vector>

#include "webhook/log.hpp"

namespace gavel::webhook {

class CycleWarnings {
public:
    // `cycles`: the walk's messages ("LINK: directory cycle: leads back to DIR ...") of one reading.
    void report(const std::vector<std::string>& cycles) {
        std::set<std::string> now(cycles.begin(), cycles.end());
        for (const auto& c : now)
            if (!warned_.count(c))
                log_line("warn", "symbolic link cycle skipped", {{"cycle", runtime::Value::string(c)}});
        warned_ = std::move(now);
    }

private:
    std::set<std::string> warned_;
};

}  // namespace gavel::webhook
