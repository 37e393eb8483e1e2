#include "engine/bundle/inspect.hpp"

#include <map>

#include "engine/bundle/roots.hpp"
#include "lang/parse.hpp"
#include "stdlib/rego_metadata.hpp"

namespace gavel::engine::bundle {

using runtime::Value;

namespace {

Value str(std::string_view s) { return Value::string(s); }

Value ref_value(const std::vector<std::string>& parts) {
    runtime::ArrayBuilder path;
    path.push_back(Value::object({{str("type"), str("var")}, {str("value"), str("data")}}));
    for (const auto& p : parts) path.push_back(Value::object({{str("type"), str("string")}, {str("value"), str(p)}}));
    return path.build();
}

}  // namespace

runtime::Value inspect_bundle(const Bundle& bundle, bool annotations) {
    std::map<std::string, std::vector<std::string>> namespaces;
    runtime::ArrayBuilder annotation_list;
    for (const auto& m : bundle.modules) {
        auto parts = path_parts(m.package_path);
        std::string ns = "data";
        for (const auto& p : parts) ns += "." + p;
        namespaces[ns].push_back(m.name);
        if (!annotations) continue;
        lang::ParseOptions po;
        po.v0_compatible = m.v0_compatible;
        auto parsed = lang::parse_module(m.name, m.text, po);
        if (!parsed.ok()) continue;
        for (const auto& a : parsed.module->annotations) {
            std::vector<std::string> path = parts;
            if (a.rule_index < parsed.module->rules.size() && (a.scope == "rule" || a.scope == "document")) {
                const auto& head = parsed.module->rules[a.rule_index].head;
                if (head.ref)
                    for (std::size_t i = 0; i < head.ref->elems.size(); ++i) {
                        const auto& e = head.ref->elems[i];
                        if (e->kind == lang::TermKind::Var && i > 0) break;
                        path.push_back(e->text);
                    }
            }
            // As OPA's AnnotationsRef: where the annotated package or rule is, not the block.
            const lang::Module& module = *parsed.module;
            const lang::Location& at = a.on_package                         ? module.package.loc
                                       : a.rule_index < module.rules.size() ? module.rules[a.rule_index].loc
                                                                            : a.loc;
            annotation_list.push_back(Value::object({
                {str("annotations"), stdlib::annotation_object(a.yaml, a.scope)},
                {str("location"), Value::object({{str("file"), str(m.name)},
                                                 {str("row"), Value::integer(at.line)},
                                                 {str("col"), Value::integer(at.col)}})},
                {str("path"), ref_value(path)},
            }));
        }
    }
    for (const auto& file : bundle.data_files) {
        auto parts = path_parts(file);
        parts.pop_back();  // data.json / data.yaml
        std::string ns = "data";
        for (const auto& p : parts) ns += "." + p;
        namespaces[ns].push_back(bundle.name == "." ? file : bundle.name + "/" + file);
    }
    runtime::ObjectBuilder ns;
    for (const auto& [k, files] : namespaces) {
        runtime::ArrayBuilder list;
        for (const auto& f : files) list.push_back(str(f));
        ns.insert(str(k), list.build());
    }
    runtime::ObjectBuilder info;
    info.insert(str("manifest"), manifest_value(bundle.manifest));
    runtime::ObjectBuilder sig;
    if (!bundle.signatures.empty()) {
        runtime::ArrayBuilder tokens;
        for (const auto& t : bundle.signatures) tokens.push_back(str(t));
        sig.insert(str("signatures"), tokens.build());
    }
    info.insert(str("signatures_config"), sig.build());
    if (!namespaces.empty()) info.insert(str("namespaces"), ns.build());
    auto list = annotation_list.build();
    if (list.size() > 0) info.insert(str("annotations"), list);
    return info.build();
}

}  // namespace gavel::engine::bundle
