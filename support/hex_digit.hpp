#pragma once
// The value of one hexadecimal digit, for every reader of \u escapes, %XX escapes, hex
// strings and UUIDs: one definition.

namespace gavel::support {

// 0-15 for 0-9, a-f, A-F; -1 for anything else.
constexpr int hex_digit_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace gavel::support
