#pragma once
// Sorting string Values by their bytes (OPA's order of strings), for sets of
// strings: the messages of `deny` rules, which typically share a long prefix
// ("image '...' comes from untrusted registry"). Comparing whole strings
// would compare that prefix again in every comparison; this sort finds the
// prefix all strings share once and compares only what follows it.

#include <vector>

#include "runtime/value.hpp"

namespace gavel::runtime {

// Sorts `items`, which must all be strings, by bytes and removes duplicates.
// Already sorted input costs one pass.
void sort_unique_strings(std::vector<Value>& items);

}  // namespace gavel::runtime
