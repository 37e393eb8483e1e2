#include "webhook/misspelt_rules.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "webhook/admission.hpp"

namespace gavel::webhook {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string without_underscores(std::string s) {
    s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
    return s;
}

// `longer` is `shorter` with one letter more.
bool one_added(std::string_view longer, std::string_view shorter) {
    if (longer.size() != shorter.size() + 1) return false;
    std::size_t i = 0;
    while (i < shorter.size() && longer[i] == shorter[i]) ++i;
    return longer.substr(i + 1) == shorter.substr(i);
}

// `name` is `c` with one letter written twice (denny, warnn).
bool one_doubled(std::string_view name, std::string_view c) {
    if (name.size() != c.size() + 1) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const bool twin = (i > 0 && name[i] == name[i - 1]) || (i + 1 < name.size() && name[i] == name[i + 1]);
        if (twin && std::string(name.substr(0, i)).append(name.substr(i + 1)) == c) return true;
    }
    return false;
}

// `name` is `c` with two adjacent letters swapped (dney).
bool two_swapped(std::string_view name, std::string_view c) {
    if (name.size() != c.size()) return false;
    std::size_t i = 0;
    while (i < c.size() && name[i] == c[i]) ++i;
    return i + 1 < c.size() && name[i] == c[i + 1] && name[i + 1] == c[i] && name.substr(i + 2) == c.substr(i + 2);
}

bool one_replaced(std::string_view name, std::string_view c) {
    if (name.size() != c.size()) return false;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < c.size(); ++i) differ += name[i] != c[i];
    return differ == 1;
}

bool plural_of(std::string_view name, const std::string& c) {
    if (name == c + "s" || name == c + "es") return true;
    return c.back() == 'y' && name == c.substr(0, c.size() - 1) + "ies";
}

// Whether the package has what conventional rule `c` would give: deny and violation
// stand for each other (either denies).
bool has_role_of(const std::set<std::string, std::less<>>& package_rules, const std::string& c) {
    if (c == "deny" || c == "violation") return package_rules.count("deny") || package_rules.count("violation");
    return package_rules.count(c) > 0;
}

}  // namespace

std::optional<std::string> resembled_conventional_rule(std::string_view name,
                                                       const std::set<std::string, std::less<>>& package_rules) {
    const auto& conventional = conventional_rule_names();
    if (std::find(conventional.begin(), conventional.end(), name) != conventional.end()) return std::nullopt;
    const std::string l = lower(name);
    for (const std::string& c : conventional) {
        if (plural_of(l, c)) {
            if (has_role_of(package_rules, c)) continue;  // a helper beside the rule it counts
            return c;
        }
        if (l == c) return c;
        if (c.find('_') != std::string::npos && without_underscores(l) == without_underscores(c)) return c;
        if (c == "patch" && l == "path") continue;
        if (two_swapped(l, c) || one_doubled(l, c) || one_added(c, l)) return c;
        if (c == "violation" && (one_replaced(l, c) || one_added(l, c))) return c;
    }
    return std::nullopt;
}

std::vector<MisspeltRule> misspelt_rules(const std::vector<RuleInfo>& rules) {
    std::map<std::string, std::set<std::string, std::less<>>> by_package;
    for (const auto& r : rules)
        if (!r.function) by_package[r.package].insert(r.name);
    std::vector<MisspeltRule> out;
    std::set<std::pair<std::string, std::string>> reported;
    for (const auto& r : rules) {
        if (r.function || reported.count({r.package, r.name})) continue;
        auto resembles = resembled_conventional_rule(r.name, by_package[r.package]);
        if (!resembles) continue;
        reported.insert({r.package, r.name});
        out.push_back({r.package, r.name, *resembles, r.file, r.line, r.col});
    }
    return out;
}

std::string misspelling_text(const MisspeltRule& m) {
    return "rule " + m.name + " looks like a misspelling of " + m.resembles;
}

}  // namespace gavel::webhook
