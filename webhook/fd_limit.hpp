#pragma once
// Every connection takes a file descriptor, and the soft limit a process starts
// with is often 1024 although the hard limit allows far more (systemd, container
// runtimes): a webhook with a few hundred connections per listener, policy files
// and bundle downloads would run out. At start the soft limit is raised to the
// hard one, as Go's runtime does for OPA since Go 1.19.

#include <cstdint>
#include <string>

namespace gavel::webhook {

struct FdLimit {
    std::uint64_t before = 0;  // the soft limit found (RLIM_INFINITY as UINT64_MAX)
    std::uint64_t after = 0;   // the soft limit now
    std::string error;         // why it could not be raised, or empty
};

// Raises the soft RLIMIT_NOFILE to the hard limit; never lowers it.
FdLimit raise_fd_limit();

}  // namespace gavel::webhook
