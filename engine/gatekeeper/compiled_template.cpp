#include "engine/gatekeeper/compiled_template.hpp"

#include <algorithm>

#include "engine/gatekeeper/template_rules.hpp"
#include "engine/loader.hpp"
#include "lang/parse.hpp"
#include "runtime/json.hpp"

namespace gavel::gatekeeper {

using runtime::Value;

std::shared_ptr<const CompiledTemplate> CompiledTemplate::compile(const ConstraintTemplate& source,
                                                                  const Value& inventory, lang::Diagnostics& errors) {
    lang::ParseOptions po;
    po.v0_compatible = !source.rego_v1;
    std::string entry_file = source.file + "#" + source.name + ".rego";
    auto entry = lang::parse_module(entry_file, source.rego, po);
    if (!entry.ok()) {
        errors.append(entry.diagnostics);
        return nullptr;
    }
    std::vector<lang::ModuleResult> libs;
    std::vector<const lang::Module*> lib_modules;
    for (std::size_t i = 0; i < source.libs.size(); ++i) {
        libs.push_back(lang::parse_module(source.file + "#" + source.name + ".libs[" + std::to_string(i) + "].rego",
                                          source.libs[i], po));
        if (!libs.back().ok()) {
            errors.append(libs.back().diagnostics);
            return nullptr;
        }
    }
    for (const auto& l : libs) lib_modules.push_back(&*l.module);
    lang::Diagnostics rules = check_template_modules(*entry.module, lib_modules);
    if (!rules.empty()) {
        errors.append(rules);
        return nullptr;
    }
    std::vector<std::string> package = package_parts(*entry.module);
    bool reads_inventory = refers_to_inventory(*entry.module);
    for (const auto* lib : lib_modules) reads_inventory = reads_inventory || refers_to_inventory(*lib);

    EngineOptions eo;
    eo.v0_compatible = !source.rego_v1;
    Engine engine(eo);
    Engine::PolicyOptions policy_options{!source.rego_v1};
    if (auto d = engine.add_policy(entry_file, source.rego, policy_options); !d.empty()) {
        errors.append(d);
        return nullptr;
    }
    for (std::size_t i = 0; i < source.libs.size(); ++i) {
        auto d = engine.add_policy(source.file + "#" + source.name + ".libs[" + std::to_string(i) + "].rego",
                                   source.libs[i], policy_options);
        if (!d.empty()) {
            errors.append(d);
            return nullptr;
        }
    }
    if (!inventory.is_null()) engine.set_data(inventory, {"inventory"});
    package.push_back("violation");
    auto prepared = engine.prepare(engine::data_path_text(package));
    if (!prepared.ok()) {
        errors.append(prepared.diagnostics);
        return nullptr;
    }
    auto compiled = std::make_shared<CompiledTemplate>();
    compiled->source_ = source;
    compiled->reads_inventory_ = reads_inventory;
    compiled->query_ = std::move(*prepared.value);
    return compiled;
}

TemplateEval CompiledTemplate::evaluate(const Value& review, std::span<const Value> parameters,
                                        const EvalControl& control) const {
    TemplateEval out;
    out.violations.resize(parameters.size());
    EvalOptions eo;
    eo.timeout = control.timeout;
    eo.cancel = control.cancel;
    eo.max_memory = control.max_memory;
    eo.print = control.print ? control.print : [](std::string_view) {};
    for (std::size_t c = 0; c < parameters.size(); ++c) {
        Value input = Value::object({{Value::string("parameters"), parameters[c]}, {Value::string("review"), review}});
        eo.input = &input;
        EvalResult result = query_->eval(eo);
        if (result.error) {  // the one query of Gatekeeper's driver ends here, for all its constraints
            if (result.error->code == "eval_cancel_error") out.cancelled = true;
            out.eval_error = result.error->to_string();
            return out;
        }
        if (result.rows.empty() || result.rows[0].expressions.empty()) continue;
        const Value& violations = result.rows[0].expressions[0].value;
        // The hook's `violation[r]`: the members of a set, the keys of an object whose value is not false.
        std::vector<std::pair<Value, Value>> seen;  // (details, msg), Rego's order of the hook's results
        auto add = [&](const Value& r) {
            const Value* msg = r.is_object() ? r.find("msg") : nullptr;
            if (!msg) return true;  // r.msg undefined: the hook yields nothing
            if (!msg->is_string()) {
                out.review_error = "extracting message binding: .msg accessor error: " + runtime::to_json(*msg) +
                                   " is of the type " + std::string(msg->type_name()) + ", expected string";
                return false;
            }
            const Value* details = r.find("details");
            seen.emplace_back(details ? *details : Value::empty_object(), *msg);
            return true;
        };
        if (violations.is_set()) {
            for (const Value& r : violations.set_elements())
                if (!add(r)) return out;
        } else if (violations.is_object()) {
            for (const auto& e : violations.object_entries())
                if (!(e.value.is_bool() && !e.value.as_bool()) && !add(e.key)) return out;
        }
        // A set of {"details", "msg"} objects comes in this order already.
        if (!std::is_sorted(seen.begin(), seen.end())) std::sort(seen.begin(), seen.end());
        seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
        for (auto& [details, msg] : seen) out.violations[c].push_back({std::string(msg.as_string()), details});
    }
    return out;
}

}  // namespace gavel::gatekeeper
