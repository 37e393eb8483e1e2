// units.parse, units.parse_bytes

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_units(Registry& r) {
    (void)r;  // the family's builtins are being written
}

}  // namespace gavel::stdlib
