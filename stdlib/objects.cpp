// object.*, json.filter, json.remove, json.patch, walk

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_objects(Registry& r) {
    (void)r;  // the family's builtins are being written
}

}  // namespace gavel::stdlib
