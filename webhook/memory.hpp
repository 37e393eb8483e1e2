#pragma once
// Giving memory back after large requests. A 100 MB PUT /v1/data leaves the
// allocator holding the freed pages of its parse tree (glibc keeps them in
// its per-thread arenas), so RSS would stay at the high-water mark forever.
// Whoever handled a large request asks for a release; a periodic task (not a
// request thread) then returns the free pages to the system.

#include <cstddef>

namespace gavel::webhook {

// Requests and responses at least this large ask for a release when done.
inline constexpr std::size_t kLargeRequestBytes = std::size_t(1) << 20;

// Called once when a server starts. glibc gives a per-thread arena's free top back to the
// system (madvise, a TLB shootdown across threads, page faults when it is used again) as soon
// as it exceeds a threshold that starts at 128 KB: an evaluation worker did that for most
// admission reviews. Fixed thresholds instead: blocks of 1 MB and more are mapped apart (their
// memory goes back when freed), and an arena keeps up to 4 MB free at its top; the periodic
// release above still trims everything after large requests.
void tune_allocator_for_serving();

void request_memory_release();
// Returns free heap pages to the system when a release was asked for since the last call.
void release_memory_if_requested();

}  // namespace gavel::webhook
