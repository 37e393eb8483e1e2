#pragma once
// Sets of variable names, as OPA's VarSet, ordered so that whatever the
// compiler reports from them comes out in a stable order.

#include <set>
#include <string>

#include "lang/term_string.hpp"

namespace gavel::compiler {

using VarSet = std::set<std::string>;

inline bool contains(const VarSet& s, const std::string& v) { return s.count(v) > 0; }

// a \ b
inline VarSet difference(const VarSet& a, const VarSet& b) {
    VarSet out;
    for (const auto& v : a)
        if (!b.count(v)) out.insert(v);
    return out;
}

inline std::size_t difference_count(const VarSet& a, const VarSet& b) {
    std::size_t n = 0;
    for (const auto& v : a) n += b.count(v) ? 0 : 1;
    return n;
}

inline VarSet intersection(const VarSet& a, const VarSet& b) {
    VarSet out;
    for (const auto& v : a)
        if (b.count(v)) out.insert(v);
    return out;
}

inline void add_all(VarSet& into, const VarSet& from) { into.insert(from.begin(), from.end()); }

// Names the compiler made up (`__local3__`): never shown to users.
inline bool is_generated_var(std::string_view v) { return v.rfind("__local", 0) == 0; }
using lang::display_var;  // lang/term_string.hpp
using lang::is_wildcard_var;

}  // namespace gavel::compiler
