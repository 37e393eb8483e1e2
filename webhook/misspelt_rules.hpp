#pragma once
// Rule names that look like a misspelt conventional admission rule
// (webhook/admission.hpp: deny, violation, warn, patch, audit_annotations).
// A package whose `deny` is spelt `denny` has rules but no deny: /validate/
// would allow every review without a word. gavel serve logs a warning for
// each at load and reload; gavel check reports them as errors.
//
// A rule name N (not a function) resembles conventional name C when N != C and
//   * N is C in other letter case (Deny, WARN), or, for audit_annotations,
//     also without its underscore (auditAnnotations, as Kubernetes spells it);
//   * N is C with one slip that keeps C's letters: two adjacent letters swapped
//     (dney, violaiton), one letter doubled (denny, warnn), one letter left out
//     (dny, violaton) -- except `path` (patch without its c: a common rule name);
//   * for violation, long enough that no real word is one letter away, also one
//     letter replaced or added (violatiom, violationx);
//   * N is C's plural (denies, denys, violations, warns, patches) and the package
//     does not define C itself, nor, for deny and violation, the other one (beside a
//     deny, `violations := count(deny)` is a helper).
// One letter replaced in the short names is not matched: it makes words that are
// rule names of their own (path, match, batch, ward, warm, dent).
// Measured on gatekeeper-library, trivy-checks, open-policy-agent/library,
// kubescape/regolibrary, conftest, regula and redhat-cop/rego-policies (2,500 .rego
// files): no rule matched.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"

namespace gavel::webhook {

// The conventional name `name` resembles, if any. `package_rules`: the names of the
// rules (not functions) its package defines.
std::optional<std::string> resembled_conventional_rule(std::string_view name,
                                                       const std::set<std::string, std::less<>>& package_rules);

struct MisspeltRule {
    std::string package;    // "data.a.b"
    std::string name;       // as written
    std::string resembles;  // the conventional name
    std::string file;       // where the rule is first defined
    std::uint32_t line = 0, col = 0;
};

// Every rule of `rules` (Engine::rules()) whose name resembles a conventional one,
// once per package and name, at its first definition.
std::vector<MisspeltRule> misspelt_rules(const std::vector<RuleInfo>& rules);

// "rule denny looks like a misspelling of deny": gavel check's error, and the reason
// gavel serve gives when such a package cannot answer a /validate/ request.
std::string misspelling_text(const MisspeltRule& m);

inline constexpr const char* kConventionalRulesNote =
    "gavel serve answers admission reviews only from rules named deny, violation, warn, patch and audit_annotations";

// gavel check's error code for them.
inline constexpr const char* kMisspeltRuleCode = "gavel_rule_name_error";

}  // namespace gavel::webhook
