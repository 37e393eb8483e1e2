// base64*, hex.*, urlquery.*, uri.*

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_encoding(Registry& r) {
    (void)r;  // the family's builtins are being written
}

}  // namespace gavel::stdlib
