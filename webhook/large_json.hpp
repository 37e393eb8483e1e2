#pragma once
// Reading JSON bodies and data files without keeping their memory. The JSON
// reader keeps per-thread buffers (stage-1 index, padded copy, build stack)
// sized to the largest document its thread has read, for as long as the
// thread lives: a worker that once read a 100 MB PUT /v1/data would hold
// hundreds of MB until the process ends. Documents of kLargeRequestBytes or
// more are therefore read on a thread of their own, and its buffers go with it
// (a thread start costs far less than reading a megabyte).

#include <string_view>

#include "runtime/parse_result.hpp"

namespace gavel::webhook {

runtime::ParseResult parse_json_document(std::string_view text);

}  // namespace gavel::webhook
