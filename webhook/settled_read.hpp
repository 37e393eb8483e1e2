#pragma once
// Reading directories while something may be writing them. A file rewritten
// in place (truncated, then written in pieces, as `cat > f` or an editor that
// saves in place do) can be read half-written, and a half-written policy may
// well parse: without its deny rule, it allows everything. So a reload takes
// only content that holds still: two readings `settle` apart that agree (the
// same hash over names, bytes and any read errors), the later one made when no
// file read had changed (st_ctim) for `quiet`. While the content keeps moving
// it tries again, for at most `limit`; then the caller keeps what it has and
// the next poll tries anew. Renaming a finished file into place (atomic) only
// costs one `settle` more.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace gavel::webhook {

struct ReadingStamp {
    std::string hash;                   // of everything read (errors included)
    std::int64_t newest_change_ns = 0;  // the newest st_ctim among the files read (0: none)
};

struct SettleTiming {
    std::chrono::milliseconds settle{100};  // between two readings
    std::chrono::milliseconds quiet{300};   // no file changed for this long before the confirming reading
    std::chrono::milliseconds limit{2000};  // of waiting, before giving up until the next poll
};

// `first` stamps a reading just made; `read_again` makes another (replacing the
// caller's) and stamps it. true once the caller's latest reading is settled;
// false when the content did not hold still within `limit`.
bool wait_until_settled(ReadingStamp first, const std::function<ReadingStamp()>& read_again,
                        const SettleTiming& timing = {});

// Why nothing was loaded when the first reading never settled.
std::string still_changing_message(const SettleTiming& timing);

}  // namespace gavel::webhook
