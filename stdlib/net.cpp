// net.cidr_*, net.lookup_ip_addr

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_net(Registry& r) {
    (void)r;  // the family's builtins are being written
}

}  // namespace gavel::stdlib
