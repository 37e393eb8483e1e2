#pragma once
// inotify on the policy/data directories: a change triggers a reload at once
// instead of at the next poll. Polling stays as the fallback (inotify may be
// unavailable, out of watches, or miss changes on network filesystems).

#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace gavel::webhook {

class DirectoryEvents {
public:
    // Calls `changed` (from its own thread) after filesystem events below `dirs`,
    // at most once per 50 ms burst. false from start() when inotify is unavailable.
    DirectoryEvents(std::vector<std::string> dirs, std::function<void()> changed);
    ~DirectoryEvents();
    DirectoryEvents(const DirectoryEvents&) = delete;
    DirectoryEvents& operator=(const DirectoryEvents&) = delete;

    bool start();
    void stop();

private:
    void add_watches();
    void run();

    std::vector<std::string> dirs_;
    std::function<void()> changed_;
    int fd_ = -1;
    std::atomic<bool> stopping_{false};
    std::thread thread_;
};

}  // namespace gavel::webhook
