#include "stdlib/registry.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace gavel::stdlib {

const Registry& standard_registry() {
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
        register_print(r);
        // Every implementation answers to a declaration of the table, whose
        // signature decides the arity. A mismatch is a bug (the unit tests see it).
        for (const Builtin* b : r.all()) {
            if (!b->decl) throw std::logic_error("builtin " + b->name + " has no declaration");
            if (!b->decl->variadic() && b->decl->arity != b->arity)
                throw std::logic_error(fmt::format("builtin {}: implemented with {} operands, declared with {}",
                                                   b->name, b->arity, b->decl->arity));
        }
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
