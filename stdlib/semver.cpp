// semver.compare, semver.is_valid

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_semver(Registry& r) {
    (void)r;  // the family's builtins are being written
}

}  // namespace gavel::stdlib
