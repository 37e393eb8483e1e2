// libFuzzer target: any bytes as a Rego module, in both dialects, as a query
// and as a term. The parser must return diagnostics, never crash or hang.

#include <cstddef>
#include <cstdint>
#include <string>

#include "lang/parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    gavel::lang::ParseOptions options;
    options.experimental_keywords = size > 0 && (data[0] & 1);
    auto v1 = gavel::lang::parse_module("fuzz.rego", text, options);
    // A parsed module has a package; a failed one says why.
    if (!v1.ok() && v1.diagnostics.empty()) __builtin_trap();
    options.v0_compatible = true;
    auto v0 = gavel::lang::parse_module("fuzz.rego", text, options);
    if (!v0.ok() && v0.diagnostics.empty()) __builtin_trap();
    auto query = gavel::lang::parse_query(text, options);
    if (!query.ok() && query.diagnostics.empty()) __builtin_trap();
    auto term = gavel::lang::parse_term(text, options);
    if (!term.ok() && term.diagnostics.empty()) __builtin_trap();
    return 0;
}
