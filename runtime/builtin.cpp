#include "runtime/builtin.hpp"

#include <algorithm>

namespace gavel::runtime {

void BuiltinRegistry::add(Builtin b) {
    if (!b.decl) {
        // The table's declarations live as long as the program: share them without owning.
        if (const lang::BuiltinDecl* d = lang::find_builtin_decl(b.name))
            b.decl = std::shared_ptr<const lang::BuiltinDecl>(std::shared_ptr<void>(), d);
    }
    std::string name = b.name;
    by_name_.insert_or_assign(std::move(name), std::move(b));
}

const Builtin* BuiltinRegistry::find(std::string_view name) const {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : &it->second;
}

std::vector<const Builtin*> BuiltinRegistry::all() const {
    std::vector<const Builtin*> out;
    out.reserve(by_name_.size());
    for (const auto& [name, b] : by_name_) out.push_back(&b);
    std::sort(out.begin(), out.end(), [](const Builtin* a, const Builtin* b) { return a->name < b->name; });
    return out;
}

}  // namespace gavel::runtime
