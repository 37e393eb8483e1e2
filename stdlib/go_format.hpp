// Go's fmt.Sprintf, for the operand types OPA's sprintf hands it: Go `int`,
// `*big.Int`, `float64` and `string` (every other Rego value arrives as the
// string of its Rego text). Verbs, flags (`+ - # 0 space`), width, precision,
// `*` and `[n]` argument indexes, and Go's error forms (`%!d(string=x)`,
// `%!v(MISSING)`, `%!(EXTRA int=1)`, `%!(NOVERB)`, `%!v(BADINDEX)`) behave
// as Go's. Differences: unicode.IsPrint (for %q) follows glibc's tables; `%p`
// prints the bad-verb form instead of an address.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/bigint.hpp"

namespace gavel::stdlib::gofmt {

struct Arg {
    enum class Kind : std::uint8_t { Int, BigInt, Float, String } kind = Kind::Int;
    std::int64_t i = 0;
    runtime::BigInt big;
    double f = 0;
    std::string s;

    static Arg integer(std::int64_t v) { Arg a; a.kind = Kind::Int; a.i = v; return a; }
    static Arg big_integer(runtime::BigInt v) { Arg a; a.kind = Kind::BigInt; a.big = std::move(v); return a; }
    static Arg floating(double v) { Arg a; a.kind = Kind::Float; a.f = v; return a; }
    static Arg string(std::string v) { Arg a; a.kind = Kind::String; a.s = std::move(v); return a; }
};

std::string sprintf(std::string_view format, const std::vector<Arg>& args);

// Go's strconv.Quote (ascii_only: QuoteToASCII).
void append_quoted(std::string& out, std::string_view s, bool ascii_only = false);

}  // namespace gavel::stdlib::gofmt
