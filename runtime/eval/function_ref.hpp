#pragma once
// A non-owning reference to a callable: the continuations of the evaluator.
// Cheaper than std::function (no allocation, no copy); valid only while the
// callable it refers to is alive, which for a continuation passed down the
// stack is always the case.

#include <type_traits>
#include <utility>

namespace gavel::eval {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
public:
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
    FunctionRef(F&& f) noexcept  // NOLINT: implicit on purpose, like std::function
        : object_(const_cast<void*>(static_cast<const void*>(&f))), call_([](void* o, Args... args) -> R {
              return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<Args>(args)...);
          }) {}

    R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
    void* object_;
    R (*call_)(void*, Args...);
};

}  // namespace gavel::eval
