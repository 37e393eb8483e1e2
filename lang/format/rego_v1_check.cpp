#include "lang/format/rego_v1_check.hpp"

namespace gavel::lang::format {

Diagnostics check_rego_v1(const Module&) { return {}; }

}  // namespace gavel::lang::format
