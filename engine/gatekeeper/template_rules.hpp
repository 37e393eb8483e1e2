#pragma once
// Gatekeeper's rules for the Rego of a ConstraintTemplate (frameworks'
// Rego driver and regorewriter), checked on the parsed modules:
//   * the entry module defines a `violation` rule;
//   * libs live in packages below data.lib (not data.lib itself);
//   * imports name data.lib... or future...; input cannot be imported;
//   * every `data` reference starts with data.inventory or data.lib.
// The entry module's package may be anything: Gatekeeper moves it to a
// package of its own (data.template), so it never meets another template's.

#include <string>
#include <vector>

#include "lang/ast.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::gatekeeper {

// `package a.b` -> {"a", "b"}
std::vector<std::string> package_parts(const lang::Module& module);

lang::Diagnostics check_template_modules(const lang::Module& entry, const std::vector<const lang::Module*>& libs);

// Whether a module that passed those checks may read data.inventory: it refers to
// data.inventory (or below it), or to `data` itself.
bool refers_to_inventory(const lang::Module& module);

}  // namespace gavel::gatekeeper
