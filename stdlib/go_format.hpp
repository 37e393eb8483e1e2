// Go's fmt.Sprintf, for the operand types OPA's sprintf hands it: Go `int`,
// `*big.Int`, `float64` and `string` (every other Rego value arrives as the
// string of its Rego text). Verbs, flags (`+ - # 0 space`), width, precision,
// `*` and `[n]` argument indexes, and Go's error forms (`%!d(string=x)`,
// `%!v(MISSING)`, `%!(EXTRA int=1)`, `%!(NOVERB)`, `%!v(BADINDEX)`) behave
// as Go's. Differences: unicode.IsPrint (for %q) follows glibc's tables; `%p`
// prints the bad-verb form instead of an address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/bigint.hpp"
#include "runtime/work_budget.hpp"

namespace gavel::stdlib::gofmt {

struct Arg {
    // Bool, Nil and Composite come from templates (strings.render_template's
    // printf), whose operands are Go's decoded JSON: bool, nil, []interface {},
    // map[string]interface {} and json.Number (a String with that go_type).
    enum class Kind : std::uint8_t { Int, BigInt, Float, String, Bool, Nil, Composite } kind = Kind::Int;
    std::int64_t i = 0;
    runtime::BigInt big;
    double f = 0;
    std::string s;        // a String's text, or a Composite's %v text
    std::string go_type;  // the Go type's name where it is not the kind's own (json.Number, []interface {})

    static Arg integer(std::int64_t v) {
        Arg a;
        a.kind = Kind::Int;
        a.i = v;
        return a;
    }
    static Arg big_integer(runtime::BigInt v) {
        Arg a;
        a.kind = Kind::BigInt;
        a.big = std::move(v);
        return a;
    }
    static Arg floating(double v) {
        Arg a;
        a.kind = Kind::Float;
        a.f = v;
        return a;
    }
    static Arg string(std::string v) {
        Arg a;
        a.kind = Kind::String;
        a.s = std::move(v);
        return a;
    }
    static Arg boolean(bool v) {
        Arg a;
        a.kind = Kind::Bool;
        a.i = v ? 1 : 0;
        return a;
    }
    static Arg nil() {
        Arg a;
        a.kind = Kind::Nil;
        return a;
    }
    // A string kind with a type name of its own (json.Number): formatted as a string.
    static Arg named_string(std::string v, std::string type) {
        Arg a = string(std::move(v));
        a.go_type = std::move(type);
        return a;
    }
    // A slice or map: `%v` (and `%s`) print `text`, other verbs the bad-verb form.
    static Arg composite(std::string text, std::string type) {
        Arg a;
        a.kind = Kind::Composite;
        a.s = std::move(text);
        a.go_type = std::move(type);
        return a;
    }
};

std::string sprintf(std::string_view format, const std::vector<Arg>& args);
// The same, its text grown only within `budget`'s memory limit (widths and
// operands can make it far longer than the format): nullopt when the
// evaluation must stop.
std::optional<std::string> sprintf(std::string_view format, const std::vector<Arg>& args, runtime::WorkBudget& budget);

// Go's strconv.Quote (ascii_only: QuoteToASCII).
void append_quoted(std::string& out, std::string_view s, bool ascii_only = false);

}  // namespace gavel::stdlib::gofmt
