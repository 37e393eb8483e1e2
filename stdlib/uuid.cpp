// uuid.rfc4122, uuid.parse

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_uuid(Registry& r) {
    (void)r;  // the family's builtins are being written
}

}  // namespace gavel::stdlib
