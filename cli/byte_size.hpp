#pragma once
// Sizes on the command line as Kubernetes writes memory quantities: plain
// bytes ("1048576"), decimal suffixes k/K, M, G ("500M"), binary Ki, Mi, Gi ("512Mi").

#include <cstdint>
#include <optional>
#include <string_view>

namespace gavel::cli {

std::optional<std::uint64_t> parse_byte_size(std::string_view text);

}  // namespace gavel::cli
