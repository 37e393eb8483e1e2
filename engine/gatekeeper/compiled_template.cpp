#include "engine/gatekeeper/compiled_template.hpp"

#include <algorithm>

#include "engine/gatekeeper/template_rules.hpp"
#include "engine/loader.hpp"
#include "lang/parse.hpp"
#include "runtime/json.hpp"

namespace gavel::gatekeeper {

using runtime::Value;

namespace {

// A package for the hook that is not the template's (nor below data.lib, where its libs are).
std::string hook_package_for(const std::vector<std::string>& template_package) {
    std::string name = "gavel_gatekeeper_hook";
    while (!template_package.empty() && template_package.front() == name) name += "_";
    return name;
}

// frameworks' hook, in our words: for each constraint (its parameters, by
// position), the template's violations under that constraint's input.
std::string hook_module(const std::string& package, const std::vector<std::string>& template_package) {
    std::vector<std::string> violation = template_package;
    violation.push_back("violation");
    return "package " + package + "\n\n" +
           "violation contains [i, r] if {\n"
           "\tsome i, parameters in input.constraints\n\t" +
           engine::data_path_text(violation) +
           "[r] with input as {\"review\": input.review, \"parameters\": parameters}\n"
           "}\n";
}

}  // namespace

std::shared_ptr<const CompiledTemplate> CompiledTemplate::compile(const ConstraintTemplate& source, const Value& inventory,
                                                                   lang::Diagnostics& errors) {
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
        auto d = engine.add_policy(source.file + "#" + source.name + ".libs[" + std::to_string(i) + "].rego", source.libs[i],
                                   policy_options);
        if (!d.empty()) {
            errors.append(d);
            return nullptr;
        }
    }
    std::string hook_package = hook_package_for(package);
    if (auto d = engine.add_policy(source.file + "#" + source.name + ".hook.rego", hook_module(hook_package, package),
                                   Engine::PolicyOptions{false});
        !d.empty()) {
        errors.append(d);
        return nullptr;
    }
    if (!inventory.is_null()) engine.set_data(inventory, {"inventory"});
    auto prepared = engine.prepare(engine::data_path_text({hook_package, "violation"}));
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
    runtime::ArrayBuilder constraints(parameters.size());
    for (const Value& p : parameters) constraints.push_back(p);
    Value input = Value::object({{Value::string("constraints"), constraints.build()}, {Value::string("review"), review}});
    EvalOptions eo;
    eo.input = &input;
    eo.timeout = control.timeout;
    eo.cancel = control.cancel;
    eo.max_memory = control.max_memory;
    eo.print = control.print ? control.print : [](std::string_view) {};
    EvalResult result = query_->eval(eo);
    if (result.error) {
        if (result.error->code == "eval_cancel_error") out.cancelled = true;
        out.eval_error = result.error->to_string();
        return out;
    }
    if (result.rows.empty() || result.rows[0].expressions.empty()) return out;
    const Value& results = result.rows[0].expressions[0].value;
    if (!results.is_set()) return out;
    // Per constraint: (details, msg) in Rego's order of the hook's results.
    std::vector<std::vector<std::pair<Value, Value>>> seen(parameters.size());
    for (const Value& pair : results.set_elements()) {
        auto items = pair.array_elements();
        std::int64_t i = 0;
        if (items.size() != 2 || !items[0].as_int64(i) || i < 0 || static_cast<std::size_t>(i) >= seen.size()) continue;
        const Value& r = items[1];
        const Value* msg = r.is_object() ? r.find("msg") : nullptr;
        if (!msg) continue;  // r.msg undefined: the hook yields nothing
        if (!msg->is_string()) {
            out.review_error = "extracting message binding: .msg accessor error: " + runtime::to_json(*msg) +
                               " is of the type " + std::string(msg->type_name()) + ", expected string";
            return out;
        }
        const Value* details = r.find("details");
        seen[static_cast<std::size_t>(i)].emplace_back(details ? *details : Value::empty_object(), *msg);
    }
    for (std::size_t c = 0; c < seen.size(); ++c) {
        auto& list = seen[c];
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        for (auto& [details, msg] : list) out.violations[c].push_back({std::string(msg.as_string()), details});
    }
    return out;
}

}  // namespace gavel::gatekeeper
