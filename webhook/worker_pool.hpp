#pragma once
// A fixed set of threads taking tasks from a bounded queue: where policy
// evaluations (and REST writes) run, so that the network threads only move
// bytes and /health answers however slow a policy is.
//
// try_submit never blocks: when every worker is busy and `queue_limit` tasks
// already wait, it refuses, and the caller answers "overloaded" at once
// instead of letting requests pile up without bound.
//
// Tasks get the pool's cancel flag (EvalOptions::cancel): at the end of a
// shutdown's grace period it is set, so that evaluations still running stop
// at their next check instead of holding the exit back.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gavel::webhook {

class WorkerPool {
public:
    using Task = std::function<void(const std::atomic<bool>& cancel)>;

    // Starts `workers` threads (at least 1). `name` labels the metrics.
    WorkerPool(std::string name, unsigned workers, std::size_t queue_limit);
    ~WorkerPool();  // stop() without a deadline
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    // Queues `task`; false (and `task` untouched) when the queue is full or the pool stopped.
    bool try_submit(Task& task);

    // Tasks queued or running; 0 when the pool has nothing to do.
    std::size_t pending() const;
    // Sets the cancel flag that running and later tasks see.
    void cancel();
    // Runs what is queued, then joins the threads. Past `deadline` the cancel flag
    // is set; returns false when some task still ran `linger` after that: its thread
    // cannot be joined, and the caller should exit without destroying the pool.
    bool stop(std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max(),
              std::chrono::milliseconds linger = std::chrono::milliseconds(2000));

    // Prometheus text: gavel_<name>_workers, _busy, _queued, _queue_limit, _rejected_total.
    std::string render_metrics() const;

    unsigned workers() const { return workers_; }
    std::size_t queue_limit() const { return queue_limit_; }

private:
    void run();

    const std::string name_;
    const std::size_t queue_limit_;
    const unsigned workers_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;      // workers wait here for tasks
    std::condition_variable finished_;  // stop() waits here for the last task
    std::deque<Task> queue_;
    std::size_t busy_ = 0;
    std::size_t exited_ = 0;
    bool stopping_ = false;
    std::atomic<bool> cancel_{false};
    std::atomic<std::uint64_t> rejected_{0}, completed_{0};
    std::vector<std::thread> threads_;  // joined and cleared by stop()
};

}  // namespace gavel::webhook
