#include "webhook/directory_events.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <filesystem>

namespace gavel::webhook {

namespace fs = std::filesystem;

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
// adding an existing watch again is harmless).
void DirectoryEvents::add_watches() {
    constexpr uint32_t kMask = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |
                               IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
    for (const auto& root : dirs_) {
        std::error_code ec;
        inotify_add_watch(fd_, root.c_str(), kMask);
        for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::follow_directory_symlink, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (it.depth() > 16) it.disable_recursion_pending();
            if (it->is_directory(ec)) inotify_add_watch(fd_, it->path().c_str(), kMask);
        }
    }
}

void DirectoryEvents::run() {
    alignas(inotify_event) char buffer[16384];
    while (!stopping_) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) continue;
        while (read(fd_, buffer, sizeof buffer) > 0) {
        }
        // Let a burst of writes (an editor's save, a ConfigMap swap) settle, then drain it too.
        usleep(50000);
        while (read(fd_, buffer, sizeof buffer) > 0) {
        }
        add_watches();
        if (!stopping_) changed_();
    }
}

}  // namespace gavel::webhook
