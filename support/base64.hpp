#pragma once
// Base64 as Go's encoding/base64 has it, for every layer (lang's AST JSON, the builtins,
// bundle signatures, the webhook's patches, test reports): one codec.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gavel::support {

struct Base64Result {
    bool ok = false;
    std::string bytes;
    std::size_t bad_offset = 0;  // Go's CorruptInputError offset when !ok
    // "illegal base64 data at input byte N"
    std::string error() const;
};
// Padded standard or URL alphabet; '\r' and '\n' are skipped as Go does.
Base64Result base64_decode(std::string_view s, bool url = false);
std::string base64_encode(std::string_view bytes, bool url = false, bool pad = true);
// OPA's base64url.decode: restores missing padding first. On failure returns
// nullopt and sets `error` to OPA's message.
std::optional<std::string> base64url_decode_lenient(std::string_view s, std::string& error);

}  // namespace gavel::support
