#include "runtime/large_stack.hpp"

#include <pthread.h>
#include <signal.h>

namespace gavel::runtime {

namespace {

struct Job {
    const std::function<int()>* work;
    sigset_t signals;  // the caller's signal mask, which the work runs with
    int result = 0;
};

void* run_job(void* arg) {
    auto* job = static_cast<Job*>(arg);
    pthread_sigmask(SIG_SETMASK, &job->signals, nullptr);
    job->result = (*job->work)();
    return nullptr;
}

}  // namespace

bool use_large_thread_stacks(std::size_t bytes) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return false;
    bool ok = pthread_attr_setstacksize(&attr, bytes) == 0 && pthread_setattr_default_np(&attr) == 0;
    pthread_attr_destroy(&attr);
    return ok;
}

int run_on_large_stack(const std::function<int()>& work, std::size_t bytes) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return work();
    // The waiting thread blocks every signal, so that a process-directed one (the REPL's
    // Ctrl-C, a server's SIGTERM) reaches the thread doing the work and interrupts its reads.
    Job job{&work, {}};
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &job.signals);
    pthread_t thread;
    bool started = pthread_attr_setstacksize(&attr, bytes) == 0 && pthread_create(&thread, &attr, run_job, &job) == 0;
    pthread_attr_destroy(&attr);
    if (!started) {
        pthread_sigmask(SIG_SETMASK, &job.signals, nullptr);
        return work();
    }
    pthread_join(thread, nullptr);
    pthread_sigmask(SIG_SETMASK, &job.signals, nullptr);
    return job.result;
}

}  // namespace gavel::runtime
