#include "lang/annotations.hpp"

#include <yaml-cpp/yaml.h>

namespace gavel::lang {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

}  // namespace

void attach_annotations(Module& module, Diagnostics& diagnostics) {
    const auto& comments = module.comments;
    for (std::size_t i = 0; i < comments.size(); ++i) {
        if (trim(comments[i].text) != "METADATA") continue;
        Annotation a;
        a.loc = comments[i].loc;
        uint32_t last_line = comments[i].loc.line;
        std::size_t j = i + 1;
        for (; j < comments.size() && comments[j].loc.line == last_line + 1; ++j) {
            std::string_view line = comments[j].text;
            if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
            a.yaml.append(line);
            a.yaml.push_back('\n');
            last_line = comments[j].loc.line;
        }
        i = j - 1;
        try {
            YAML::Node node = YAML::Load(a.yaml);
            if (node && !node.IsNull() && !node.IsMap()) {
                diagnostics.add(a.loc, codes::parse_error, "invalid METADATA block: expected a YAML mapping");
                continue;
            }
            if (node && node.IsMap() && node["scope"]) a.scope = node["scope"].as<std::string>();
        } catch (const YAML::Exception& e) {
            diagnostics.add(a.loc, codes::parse_error, "invalid METADATA block: yaml: " + std::string(e.msg));
            continue;
        }
        // The block belongs to the first statement after it.
        if (module.package.loc.line > last_line &&
            (module.rules.empty() || module.rules.front().loc.line > module.package.loc.line)) {
            a.on_package = true;
        } else {
            for (std::size_t r = 0; r < module.rules.size(); ++r) {
                if (module.rules[r].loc.line > last_line) {
                    a.rule_index = r;
                    break;
                }
            }
        }
        if (a.scope.empty()) a.scope = a.on_package ? "package" : "rule";
        module.annotations.push_back(std::move(a));
    }
}

}  // namespace gavel::lang
