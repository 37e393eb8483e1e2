#include "compiler/annotation_set.hpp"

#include "compiler/rule_tree.hpp"

namespace gavel::compiler {

namespace {

std::vector<std::string> package_keys(const lang::Module& m) { return ground_keys(*m.package.path); }

// A rule's path up to its first variable part (OPA's rule.Ref().GroundPrefix()).
std::vector<std::string> document_keys(const lang::Module& m, const lang::Rule& r) {
    lang::TermPtr path = rule_full_ref(m, r);
    if (r.head.key && r.head.value) path->elems.push_back(r.head.key);  // v0 `p[k] = v`
    return ground_keys(*path);
}

std::string where(const lang::Location& loc) { return std::string(loc.file()) + ":" + std::to_string(loc.line); }

}  // namespace

std::shared_ptr<const AnnotationSet> AnnotationSet::build(const std::vector<lang::Module*>& modules,
                                                          std::vector<lang::Diagnostic>& errors) {
    auto set = std::make_shared<AnnotationSet>();
    auto redeclared = [&](const lang::Annotation& a, const lang::Annotation& first) {
        errors.push_back(lang::Diagnostic::at(a.loc, lang::codes::type_error,
                                              a.scope + " annotation redeclared: " + where(first.loc)));
    };
    for (const lang::Module* m : modules) {
        for (const auto& a : m->annotations) {
            set->has_schemas_ = set->has_schemas_ || !a.schemas.empty();
            const lang::Rule* rule = a.rule_index < m->rules.size() ? &m->rules[a.rule_index] : nullptr;
            // A block whose scope does not fit what it is written above is in no scope.
            if (a.scope == "rule" && rule) {
                set->by_rule_[rule].push_back(&a);
            } else if (a.scope == "package" && a.on_package) {
                auto [it, added] = set->by_package_.emplace(package_keys(*m), &a);
                if (!added) redeclared(a, *it->second);
            } else if ((a.scope == "document" && rule) || (a.scope == "subpackages" && a.on_package)) {
                auto [it, added] = set->by_path_.emplace(rule ? document_keys(*m, *rule) : package_keys(*m), &a);
                if (!added) redeclared(a, *it->second);
            }
        }
    }
    return set;
}

std::vector<const lang::SchemaAnnotation*> AnnotationSet::schemas_for(const lang::Module& module,
                                                                      const lang::Rule& rule, bool first_clause) const {
    std::vector<const lang::SchemaAnnotation*> out;
    if (!has_schemas_) return out;
    auto add = [&](const lang::Annotation* a) {
        for (const auto& s : a->schemas) out.push_back(&s);
    };
    const auto pkg = package_keys(module);
    for (std::size_t n = 1; n <= pkg.size(); ++n)
        if (auto it = by_path_.find(std::vector<std::string>(pkg.begin(), pkg.begin() + static_cast<long>(n)));
            it != by_path_.end())
            add(it->second);
    if (auto it = by_package_.find(pkg); it != by_package_.end()) add(it->second);
    if (auto it = by_path_.find(document_keys(module, rule)); it != by_path_.end()) add(it->second);
    if (first_clause)
        if (auto it = by_rule_.find(&rule); it != by_rule_.end())
            for (const lang::Annotation* a : it->second) add(a);
    return out;
}

}  // namespace gavel::compiler
