#include "stdlib/registry.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gavel::stdlib {

void Registry::add(Builtin b) {
    std::string name = b.name;
    by_name_.insert_or_assign(std::move(name), std::move(b));
}

const Builtin* Registry::find(std::string_view name) const {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : &it->second;
}

std::vector<const Builtin*> Registry::all() const {
    std::vector<const Builtin*> out;
    for (const auto& [name, b] : by_name_) out.push_back(&b);
    std::sort(out.begin(), out.end(), [](const Builtin* a, const Builtin* b) { return a->name < b->name; });
    return out;
}

const Registry& Registry::standard() {
    static const Registry registry = [] {
        Registry r;
        register_comparison(r);
        register_arithmetic(r);
        register_sets(r);
        register_aggregates(r);
        register_strings(r);
        register_types(r);
        register_regex(r);
        register_objects(r);
        register_arrays(r);
        register_json(r);
        register_casts(r);
        register_graph(r);
        register_encoding(r);
        register_time(r);
        register_units(r);
        register_semver(r);
        register_numbers(r);
        register_uuid(r);
        register_crypto(r);
        register_jwt(r);
        register_net(r);
        register_walk(r);
        register_deprecated(r);
        register_rego(r);
        register_providers(r);
        register_http(r);
        register_graphql(r);
        return r;
    }();
    return registry;
}

std::string operand_type_error(std::string_view builtin, std::size_t index, std::string_view want,
                               const runtime::Value& got) {
    (void)builtin;
    return fmt::format("operand {} must be {} but got {}", index, want, got.type_name());
}

}  // namespace gavel::stdlib
