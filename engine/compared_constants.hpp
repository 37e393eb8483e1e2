#pragma once
// Which constants a package's rules compare given references with, read from
// the compiled rules (imports resolved, `==` and `:=` rewritten to unification,
// local variables renamed): what `gavel webhook-config` needs to know which
// kinds and operations a policy looks at, without reading the text.
//
// Found, in every body of every rule (nested comprehension and `every` bodies
// included), in expressions that are not negated:
//   input.request.kind.kind == "Pod"                  (either side)
//   input.request.kind.kind in {"Pod", "Service"}      (a set or array of strings)
//   k := input.request.kind.kind; k == "Pod"           (local variables holding the reference)
//   some k in ["Pod", "Service"]; input.request.kind.kind == k
//   kinds := {"Pod"}; input.request.kind.kind in kinds
// A comparison with anything else (a rule, a function argument, data) is not a constant.

#include <map>
#include <set>
#include <string>
#include <vector>

namespace gavel::compiler {
struct CompiledModules;
}

namespace gavel {

struct ComparedConstants {
    std::string package;                                  // "data.kubernetes.admission"
    std::set<std::string> rules;                          // the names of the rules the package defines
    std::map<std::string, std::set<std::string>> values;  // reference ("input.request.kind.kind") -> constants
};

// Per package, in package order; `refs` are dotted references ("input.request.operation").
std::vector<ComparedConstants> find_compared_constants(const compiler::CompiledModules& compiled,
                                                       const std::vector<std::string>& refs);

}  // namespace gavel
