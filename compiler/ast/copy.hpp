#pragma once
// The deep copies live in lang/copy.hpp. This header only keeps
// runtime/eval building while its own branch is in flight; once it includes
// lang/copy.hpp it goes.

#include "lang/copy.hpp"

namespace gavel::compiler {

using lang::copy_body;
using lang::copy_head;

}  // namespace gavel::compiler
