#include "runtime/stack_limit.hpp"

#include <pthread.h>

namespace gavel::runtime {

namespace {

struct ThreadStack {
    uintptr_t floor = 0;
    std::size_t size = 0;

    ThreadStack() {
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
        void* low = nullptr;
        std::size_t bytes = 0;
        if (pthread_attr_getstack(&attr, &low, &bytes) == 0 && low && bytes > kStackMargin) {
            floor = reinterpret_cast<uintptr_t>(low) + kStackMargin;
            size = bytes;
        }
        pthread_attr_destroy(&attr);
    }
};

const ThreadStack& this_thread_stack() {
    thread_local const ThreadStack stack;
    return stack;
}

}  // namespace

uintptr_t stack_floor() { return this_thread_stack().floor; }

std::size_t stack_size() { return this_thread_stack().size; }

}  // namespace gavel::runtime
