#include "webhook/body_budget.hpp"

namespace gavel::webhook {

bool BodyBudget::Share::take(std::size_t n) {
    auto& total = budget_->held_;
    std::size_t now = total.load(std::memory_order_relaxed);
    do {
        bool alone = now == held_;  // no other request holds bytes
        if (!alone && (now + n > budget_->limit_ || now + n < now)) return false;
    } while (!total.compare_exchange_weak(now, now + n, std::memory_order_relaxed));
    held_ += n;
    return true;
}

void BodyBudget::Share::release() {
    if (held_ == 0) return;
    budget_->held_.fetch_sub(held_, std::memory_order_relaxed);
    held_ = 0;
}

}  // namespace gavel::webhook
