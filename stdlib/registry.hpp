#pragma once
// The builtin implementations, one register_* per family (one file each).
// Their declarations (signatures, flags) are lang/builtin_table.cpp.

#include <string>
#include <string_view>

#include "runtime/builtin.hpp"

namespace gavel::stdlib {

// The builtin interface is the runtime's (runtime/builtin.hpp); the families
// below register implementations into a registry of that type.
using runtime::Builtin;
using runtime::BuiltinContext;
using runtime::BuiltinEmit;
using runtime::BuiltinImpl;
using runtime::BuiltinResult;
using runtime::RelationImpl;
using Registry = runtime::BuiltinRegistry;

// The registry with every builtin gavel ships, each joined with its declaration.
const Registry& standard_registry();

// Helpers for implementations: OPA's operand error messages.
std::string operand_type_error(std::string_view builtin, std::size_t index, std::string_view want,
                               const runtime::Value& got);

// Each family registers its builtins (one file per family).
void register_comparison(Registry& r);
void register_arithmetic(Registry& r);
void register_sets(Registry& r);
void register_aggregates(Registry& r);
void register_strings(Registry& r);
void register_types(Registry& r);
void register_regex(Registry& r);
void register_objects(Registry& r);
void register_arrays(Registry& r);
void register_json(Registry& r);
void register_casts(Registry& r);
void register_graph(Registry& r);
void register_encoding(Registry& r);
void register_time(Registry& r);
void register_units(Registry& r);
void register_semver(Registry& r);
void register_numbers(Registry& r);
void register_uuid(Registry& r);
void register_crypto(Registry& r);
void register_jwt(Registry& r);
void register_net(Registry& r);
void register_walk(Registry& r);
void register_deprecated(Registry& r);
void register_rego(Registry& r);
void register_providers(Registry& r);
void register_http(Registry& r);
void register_graphql(Registry& r);
void register_print(Registry& r);

}  // namespace gavel::stdlib
