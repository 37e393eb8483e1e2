// time.*

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_time(Registry& r) {
    (void)r;  // the family's builtins are being written
}

}  // namespace gavel::stdlib
