#include "webhook/lifecycle.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <csignal>
#include <vector>

#include "webhook/log.hpp"
#include "webhook/server.hpp"
#include "webhook/worker_pool.hpp"

namespace gavel::webhook {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

// A periodic task; owned by Impl, which outlives the control thread's handlers.
struct Repeater {
    Repeater(asio::io_context& io, std::chrono::milliseconds period, std::function<void()> fn)
        : timer(io), period(period), fn(std::move(fn)) {}
    asio::steady_timer timer;
    std::chrono::milliseconds period;
    std::function<void()> fn;

    void arm(Lifecycle::Impl* impl);
};

struct Lifecycle::Impl : std::enable_shared_from_this<Impl> {
    LifecycleOptions options;
    asio::io_context io;
    asio::signal_set signals{io, SIGINT, SIGTERM, SIGHUP};
    asio::steady_timer wait_timer{io};
    asio::steady_timer drain_timer{io};
    std::vector<std::shared_ptr<Repeater>> repeaters;
    std::vector<Server*> draining, last;
    std::vector<WorkerPool*> pools;
    Lifecycle* owner = nullptr;

    enum class Phase { Serving, Waiting, Draining, Cancelled, Done } phase = Phase::Serving;
    Clock::time_point grace_end, cancel_end;
    bool clean = true;

    void watch_signals() {
        signals.async_wait([self = shared_from_this()](const boost::system::error_code& ec, int signal) {
            if (ec) return;
            if (signal == SIGHUP) {
                log_line("info", "SIGHUP: reloading policies, data and certificates");
                if (self->owner->on_reload) self->owner->on_reload();
            } else {
                self->request_shutdown();
            }
            if (self->phase != Phase::Done) self->watch_signals();
        });
    }

    void request_shutdown() {
        switch (phase) {
            case Phase::Serving:
                phase = Phase::Waiting;
                if (owner->on_not_ready) owner->on_not_ready();
                if (options.shutdown_wait.count() > 0) {
                    wait_timer.expires_after(options.shutdown_wait);
                    wait_timer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
                        if (!ec) self->drain();
                    });
                    return;
                }
                return drain();
            case Phase::Waiting:
                wait_timer.cancel();
                log_line("info", "shutdown: second signal, draining now");
                return drain();
            case Phase::Draining:
                log_line("info", "shutdown: another signal, ending the grace period now");
                grace_end = Clock::now();
                return;
            case Phase::Cancelled:
            case Phase::Done: return;
        }
    }

    void drain() {
        if (phase != Phase::Waiting) return;
        phase = Phase::Draining;
        if (owner->on_draining) owner->on_draining();
        for (auto* s : draining) s->stop_accepting();
        grace_end = Clock::now() + options.shutdown_grace;
        check_drained();
    }

    // Polled: connections close and workers finish on their own threads.
    void check_drained() {
        if (phase == Phase::Done) return;
        bool idle = true;
        for (auto* s : draining) idle = idle && s->drained();
        for (auto* p : pools) idle = idle && p->pending() == 0;
        auto now = Clock::now();
        if (idle) return finish();
        if (phase == Phase::Draining && now >= grace_end) {
            phase = Phase::Cancelled;
            log_line("warn", "shutdown: grace period over; cancelling evaluations still running");
            for (auto* p : pools) p->cancel();
            cancel_end = now + options.cancel_linger;
        } else if (phase == Phase::Cancelled && now >= cancel_end) {
            return finish();
        }
        drain_timer.expires_after(std::chrono::milliseconds(20));
        drain_timer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
            if (!ec) self->check_drained();
        });
    }

    void finish() {
        phase = Phase::Done;
        for (auto* s : draining) s->stop();
        for (auto* s : last) {
            s->stop_accepting();
            s->stop();
        }
        for (auto* p : pools) clean = p->stop(Clock::now(), options.cancel_linger) && clean;
        boost::system::error_code ignored;
        signals.cancel(ignored);
        for (auto& r : repeaters) r->timer.cancel();
        io.stop();
    }
};

void Repeater::arm(Lifecycle::Impl* impl) {
    timer.expires_after(period);
    timer.async_wait([this, impl](const boost::system::error_code& ec) {
        if (ec || impl->phase == Lifecycle::Impl::Phase::Done) return;
        fn();
        arm(impl);
    });
}

Lifecycle::Lifecycle(LifecycleOptions options) : impl_(std::make_shared<Impl>()) {
    impl_->options = options;
    impl_->owner = this;
}

Lifecycle::~Lifecycle() {
    // Let cancelled handlers run (they see the error and return), so that none keeps
    // Impl alive through the io_context it owns.
    boost::system::error_code ignored;
    impl_->signals.cancel(ignored);
    impl_->wait_timer.cancel();
    impl_->drain_timer.cancel();
    for (auto& r : impl_->repeaters) r->timer.cancel();
    impl_->phase = Impl::Phase::Done;
    impl_->io.restart();
    impl_->io.poll();
}

void Lifecycle::add_draining(Server* server) { impl_->draining.push_back(server); }
void Lifecycle::add_last(Server* server) { impl_->last.push_back(server); }
void Lifecycle::add_pool(WorkerPool* pool) { impl_->pools.push_back(pool); }

void Lifecycle::every(std::chrono::milliseconds period, std::function<void()> fn) {
    auto repeater = std::make_shared<Repeater>(impl_->io, period, std::move(fn));
    impl_->repeaters.push_back(repeater);
    asio::post(impl_->io, [impl = impl_.get(), r = repeater.get()] { r->arm(impl); });
}

void Lifecycle::post(std::function<void()> fn) {
    asio::post(impl_->io, [impl = impl_, fn = std::move(fn)] {
        if (impl->phase != Impl::Phase::Done) fn();
    });
}

void Lifecycle::shutdown() {
    asio::post(impl_->io, [impl = impl_] { impl->request_shutdown(); });
}

bool Lifecycle::run() {
    impl_->watch_signals();
    auto guard = asio::make_work_guard(impl_->io);
    impl_->io.run();
    return impl_->clean;
}

}  // namespace gavel::webhook
