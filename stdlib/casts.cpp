// to_number, cast_* (deprecated), format_int

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_casts(Registry& r) {
    (void)r;  // the family's builtins are being written
}

}  // namespace gavel::stdlib
