#include "webhook/worker_pool.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gavel::webhook {

WorkerPool::WorkerPool(std::string name, unsigned workers, std::size_t queue_limit)
    : name_(std::move(name)), queue_limit_(queue_limit), workers_(std::max(1u, workers)) {
    threads_.reserve(workers_);
    for (unsigned i = 0; i < workers_; ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() { stop(); }

bool WorkerPool::try_submit(Task& task) {
    {
        std::lock_guard lock(mutex_);
        // Idle workers take a task at once; beyond them at most queue_limit_ wait.
        std::size_t idle = stopping_ ? 0 : workers_ - std::min<std::size_t>(workers_, busy_);
        if (stopping_ || queue_.size() >= idle + queue_limit_) {
            ++rejected_;
            return false;
        }
        queue_.push_back(std::move(task));
    }
    wake_.notify_one();
    return true;
}

void WorkerPool::run() {
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return !queue_.empty() || stopping_; });
        if (queue_.empty()) break;  // stopping, and nothing left to do
        Task task = std::move(queue_.front());
        queue_.pop_front();
        ++busy_;
        lock.unlock();
        try {
            task(cancel_);
        } catch (...) {
            // A task answers its own errors; nothing may take a worker down.
        }
        task = nullptr;  // its captures (request bodies) go now, not at the next task
        ++completed_;
        lock.lock();
        --busy_;
    }
    ++exited_;
    finished_.notify_all();
}

std::size_t WorkerPool::pending() const {
    std::lock_guard lock(mutex_);
    return queue_.size() + busy_;
}

void WorkerPool::cancel() { cancel_ = true; }

bool WorkerPool::stop(std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds linger) {
    std::unique_lock lock(mutex_);
    if (threads_.empty()) return true;
    stopping_ = true;
    wake_.notify_all();
    auto all_exited = [this] { return exited_ == workers_; };
    if (deadline == std::chrono::steady_clock::time_point::max()) finished_.wait(lock, all_exited);  // no overflow
    else if (!finished_.wait_until(lock, deadline, all_exited)) {
        cancel_ = true;
        if (!finished_.wait_for(lock, linger, all_exited)) return false;
    }
    lock.unlock();
    for (auto& t : threads_) t.join();
    threads_.clear();
    return true;
}

std::string WorkerPool::render_metrics() const {
    std::size_t queued, busy;
    {
        std::lock_guard lock(mutex_);
        queued = queue_.size();
        busy = busy_;
    }
    std::string out;
    auto gauge = [&](std::string_view metric, std::string_view help, auto value, std::string_view type = "gauge") {
        out += fmt::format("# HELP gavel_{}_{} {}\n# TYPE gavel_{}_{} {}\ngavel_{}_{} {}\n", name_, metric, help, name_,
                           metric, type, name_, metric, value);
    };
    gauge("workers", "Threads of the pool.", workers_);
    gauge("workers_busy", "Threads running a task now.", busy);
    gauge("queued", "Tasks waiting for a thread.", queued);
    gauge("queue_limit", "Tasks that may wait before new ones are refused.", queue_limit_);
    gauge("rejected_total", "Tasks refused because the queue was full.", rejected_.load(), "counter");
    gauge("completed_total", "Tasks run.", completed_.load(), "counter");
    return out;
}

}  // namespace gavel::webhook
