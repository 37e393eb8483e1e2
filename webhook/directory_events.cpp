#include "webhook/directory_events.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>

#include "engine/directory_walk.hpp"

namespace gavel::webhook {

DirectoryEvents::DirectoryEvents(std::vector<std::string> dirs, std::function<void()> changed)
    : dirs_(std::move(dirs)), changed_(std::move(changed)) {}

DirectoryEvents::~DirectoryEvents() { stop(); }

bool DirectoryEvents::start() {
    fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd_ < 0) return false;
    add_watches();
    thread_ = std::thread([this] { run(); });
    return true;
}

void DirectoryEvents::stop() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
}

// Every directory below the roots (new subdirectories are added after each event;
// adding an existing watch again is harmless). The walk follows links and never
// loops (engine/directory_walk.hpp); what it cannot read, the reload reports.
void DirectoryEvents::add_watches() {
    constexpr uint32_t kMask = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |
                               IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
    for (const auto& root : dirs_)
        for (const auto& e : engine::walk_directory(root))
            if (e.kind == engine::WalkEntry::Kind::Directory ||
                (e.depth == 0 && e.kind != engine::WalkEntry::Kind::Unreadable))
                inotify_add_watch(fd_, e.path.c_str(), kMask);  // a root may be a file (--gatekeeper FILE)
}

void DirectoryEvents::run() {
    alignas(inotify_event) char buffer[16384];
    while (!stopping_) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) continue;
        // Let a burst of writes (an editor's save, a ConfigMap swap) settle: wait for 50 ms
        // without events, for at most a second (the reload checks that files hold still).
        auto burst_end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        do {
            while (read(fd_, buffer, sizeof buffer) > 0) {}
        } while (!stopping_ && std::chrono::steady_clock::now() < burst_end && poll(&p, 1, 50) > 0);
        add_watches();
        if (!stopping_) changed_();
    }
}

}  // namespace gavel::webhook
