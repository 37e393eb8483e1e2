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

void request_memory_release();
// Returns free heap pages to the system when a release was asked for since the last call.
void release_memory_if_requested();

}  // namespace gavel::webhook
