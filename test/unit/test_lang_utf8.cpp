// The UTF-8 codec (support/utf8: decode, append_code_point) and the quoting built on it: what
// Go's utf8.DecodeRune accepts and rejects.
#include <doctest/doctest.h>

#include <string>

#include "lang/go_quote.hpp"
#include "support/utf8.hpp"

using gavel::support::utf8::decode;

namespace {

// The length decode gives for the sequence at the start of `s`.
std::size_t length_of(std::string_view s) {
    char32_t cp = 0;
    return decode(s, 0, cp);
}

}  // namespace

TEST_CASE("lang utf8: valid sequences of each length, with their code points") {
    char32_t cp = 0;
    CHECK(decode("a", 0, cp) == 1);
    CHECK(cp == U'a');
    CHECK(decode("\xc3\xa9", 0, cp) == 2);
    CHECK(cp == U'\u00e9');
    CHECK(decode("x\xe2\x9c\x93", 1, cp) == 3);
    CHECK(cp == U'\u2713');
    CHECK(decode("\xf4\x8f\xbf\xbf", 0, cp) == 4);
    CHECK(cp == U'\U0010FFFF');
}

TEST_CASE("lang utf8: what Go's DecodeRune rejects is 0") {
    CHECK(length_of("\x80") == 0);              // a continuation byte
    CHECK(length_of("\xc0\xaf") == 0);          // overlong (2 bytes)
    CHECK(length_of("\xe0\x80\xaf") == 0);      // overlong (3 bytes)
    CHECK(length_of("\xf0\x80\x80\xaf") == 0);  // overlong (4 bytes)
    CHECK(length_of("\xed\xa0\x80") == 0);      // a UTF-16 surrogate
    CHECK(length_of("\xf4\x90\x80\x80") == 0);  // past U+10FFFF
    CHECK(length_of("\xf8\x80\x80\x80") == 0);  // no such lead byte (once read as 3 bytes)
    CHECK(length_of("\xe2\x9c") == 0);          // truncated
    CHECK(length_of("\xe2\x28\x93") == 0);      // not a continuation
}

TEST_CASE("lang utf8: append_utf8 writes what decode_utf8 reads") {
    for (char32_t cp : {U'\0', U'\x7f', U'\x80', U'\u07ff', U'\u0800', U'\uffff', U'\U00010000', U'\U0010FFFF'}) {
        std::string s;
        gavel::support::utf8::append_code_point(s, cp);
        char32_t back = 0;
        CHECK(decode(s, 0, back) == s.size());
        CHECK(back == cp);
    }
}

TEST_CASE("lang utf8: Go's %q escapes each byte that does not decode") {
    CHECK(gavel::lang::go_quote("\xf8\x80\x80") == R"("\xf8\x80\x80")");
    CHECK(gavel::lang::go_quote("\xc3\xa9\xc3") == R"("é\xc3")");
}
