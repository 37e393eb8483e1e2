#pragma once
// A float64 spelt as Go spells it, for every layer: strconv's shortest digits, FormatFloat's
// 'g' (fmt's %v, ast.InterfaceToValue, Prometheus' text format) and encoding/json's form
// (OPA's JSON output of decoded YAML, `opa eval --profile`). Callers handle NaN and Inf.

#include <string>

namespace gavel::support {

// The shortest decimal digits that read back as |v| (no leading or trailing zeros; "" for 0) and
// where the decimal point goes: |v| = 0.DIGITS * 10^point (Go's decimal d and dp).
struct ShortestDigits {
    std::string digits;
    int point = 0;
};
ShortestDigits shortest_digits(double v);

// strconv.FormatFloat(v, 'g', -1, 64): the exponent form (1e+06, 1.5e-05) from 1e21 down to
// 1e6 and below 1e-4, else the plain one; -0 is "-0". `upper` writes 'E' as 'G' does.
std::string go_format_g(double v, bool upper = false);

// encoding/json's float64: the plain form from 1e-6 up to 1e21, else the exponent form
// without a leading zero in the exponent (1e-7, 1e+21).
std::string go_json_float(double v);

}  // namespace gavel::support
