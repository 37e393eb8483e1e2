#include "webhook/large_json.hpp"

#include <thread>

#include "runtime/json.hpp"
#include "webhook/memory.hpp"

namespace gavel::webhook {

runtime::ParseResult parse_json_document(std::string_view text) {
    if (text.size() < kLargeRequestBytes) return runtime::parse_json(text);
    runtime::ParseResult result;
    std::thread reader([&] { result = runtime::parse_json(text); });
    reader.join();
    request_memory_release();
    return result;
}

}  // namespace gavel::webhook
