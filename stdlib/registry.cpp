#include "stdlib/registry.hpp"

#include <algorithm>
#include <stdexcept>

#include "stdlib/builtin_table.hpp"

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
        // The table gives each builtin its signature, categories and flags.
        for (const auto& d : builtin_table()) {
            auto it = r.by_name_.find(std::string(d.name));
            Builtin declared_only;
            declared_only.name = std::string(d.name);
            Builtin& b = it != r.by_name_.end() ? it->second : declared_only;
            if (auto error = apply_declaration(d, b)) throw std::logic_error("builtin table: " + *error);
            if (it == r.by_name_.end()) r.declared_only_.push_back(std::move(declared_only));
        }
        return r;
    }();
    return registry;
}

std::optional<std::string> apply_declaration(const BuiltinDeclaration& d, Builtin& b) {
    std::string error;
    auto sig = parse_signature(d.signature, error);
    if (!sig) return std::string(d.name) + ": " + error;
    if (!sig->variadic) b.arity = sig->args.size();
    b.signature = std::make_shared<const Signature>(std::move(*sig));
    b.categories.clear();
    for (std::string_view rest = d.categories; !rest.empty();) {
        auto comma = rest.find(',');
        b.categories.emplace_back(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    for (std::string_view rest = d.flags; !rest.empty();) {
        auto space = rest.find(' ');
        std::string_view flag = rest.substr(0, space);
        rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
        if (flag == "deprecated") b.deprecated = true;
        else if (flag == "nondeterministic") b.nondeterministic = true;
        else if (flag == "native") b.native = true;
        else if (flag == "relation" || flag.empty()) continue;
        else if (flag.rfind("infix=", 0) == 0) b.infix = std::string(flag.substr(6));
        else return std::string(d.name) + ": unknown flag " + std::string(flag);
    }
    return std::nullopt;
}

std::string operand_type_error(std::string_view builtin, std::size_t index, std::string_view want,
                               const runtime::Value& got) {
    (void)builtin;
    return fmt::format("operand {} must be {} but got {}", index, want, got.type_name());
}

}  // namespace gavel::stdlib
