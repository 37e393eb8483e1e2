#pragma once
// The process around the listeners: signals, periodic tasks (reload polling,
// certificate checks) and the shutdown a Kubernetes rolling update expects.
//
// SIGTERM or SIGINT:
//   1. not ready (on_not_ready): /health/ready answers 503 while everything
//      keeps serving for `shutdown_wait`, so that the endpoints controller and
//      every API server take the Pod out of rotation before it stops accepting
//      (OPA's --shutdown-wait-period);
//   2. drain: the admission and REST listeners stop accepting and close idle
//      connections; requests in progress and queued evaluations finish, for at
//      most `shutdown_grace` (OPA's --shutdown-grace-period);
//   3. past the grace period, evaluations still running are cancelled and get a
//      second to answer; then the diagnostic listener closes last and run() returns.
// A second signal skips what is left of the wait; one during the drain ends
// the grace period at once.
// SIGHUP calls on_reload (reload policies, data and certificates) and the
// process carries on, instead of dying as SIGHUP's default would have it.

#include <chrono>
#include <functional>
#include <memory>

namespace gavel::webhook {

class Server;
class WorkerPool;

struct LifecycleOptions {
    std::chrono::milliseconds shutdown_wait{0};
    std::chrono::milliseconds shutdown_grace{30000};
    std::chrono::milliseconds cancel_linger{1000};  // after cancelling, how long answers may still be written
};

class Lifecycle {
public:
    explicit Lifecycle(LifecycleOptions options);
    ~Lifecycle();
    Lifecycle(const Lifecycle&) = delete;
    Lifecycle& operator=(const Lifecycle&) = delete;

    // Listeners that drain at shutdown (admission, REST API), and those that close
    // only after them (diagnostics: liveness keeps answering while the others drain).
    void add_draining(Server* server);
    void add_last(Server* server);
    // Pools whose queued work finishes before the exit, cancelled past the grace period.
    void add_pool(WorkerPool* pool);

    std::function<void()> on_not_ready;  // step 1, on the control thread
    std::function<void()> on_draining;   // step 2
    std::function<void()> on_reload;     // SIGHUP

    // Runs `fn` every `period` on the control thread until shutdown.
    void every(std::chrono::milliseconds period, std::function<void()> fn);
    // Runs `fn` once, soon, on the control thread (thread-safe).
    void post(std::function<void()> fn);
    // Begins the shutdown as SIGTERM does (thread-safe).
    void shutdown();

    // Starts nothing itself: runs the control thread (signals, timers) on the caller
    // until the shutdown is complete. false when evaluations were still running after
    // they were cancelled: the caller should exit without waiting for them.
    bool run();

    struct Impl;

private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace gavel::webhook
