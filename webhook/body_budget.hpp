#pragma once
// The bytes of request bodies a listener holds at once, counted as they arrive.
//
// A declared Content-Length reserves nothing: a client that announces a large
// body and sends nothing (or little) takes nothing from others. Each request
// holds a Share that takes bytes as they are read and gives them back when the
// request is answered; once the shares together would exceed the limit, the
// request that asks for more is refused (503) and its bytes given back. One
// request alone may always proceed (its own size is capped by the body limit),
// so that a limit below the body limit cannot refuse everything.

#include <atomic>
#include <cstddef>

namespace gavel::webhook {

class BodyBudget {
public:
    explicit BodyBudget(std::size_t limit) : limit_(limit) {}
    BodyBudget(const BodyBudget&) = delete;
    BodyBudget& operator=(const BodyBudget&) = delete;

    std::size_t limit() const { return limit_; }
    std::size_t held() const { return held_.load(std::memory_order_relaxed); }

    // One request's part of the budget.
    class Share {
    public:
        explicit Share(BodyBudget& budget) : budget_(&budget) {}
        ~Share() { release(); }
        Share(const Share&) = delete;
        Share& operator=(const Share&) = delete;

        // Takes `n` more bytes; false (taking nothing) when the budget cannot hold them.
        bool take(std::size_t n);
        void release();
        std::size_t held() const { return held_; }

    private:
        BodyBudget* budget_;
        std::size_t held_ = 0;
    };

private:
    std::size_t limit_;
    std::atomic<std::size_t> held_{0};
};

}  // namespace gavel::webhook
