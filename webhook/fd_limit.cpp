#include "webhook/fd_limit.hpp"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>

namespace gavel::webhook {

FdLimit raise_fd_limit() {
    FdLimit out;
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
        out.error = std::strerror(errno);
        return out;
    }
    out.before = out.after = limit.rlim_cur;
    if (limit.rlim_cur == RLIM_INFINITY || (limit.rlim_max != RLIM_INFINITY && limit.rlim_cur >= limit.rlim_max))
        return out;
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
        out.error = std::strerror(errno);
        return out;
    }
    out.after = raised.rlim_cur;
    return out;
}

}  // namespace gavel::webhook
