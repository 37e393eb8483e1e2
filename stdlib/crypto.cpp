// crypto.* (OpenSSL libcrypto)

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_crypto(Registry& r) {
    (void)r;  // the family's builtins are being written
}

}  // namespace gavel::stdlib
