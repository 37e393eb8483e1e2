// Loading OPA's conformance cases (../shared/conformance/opa, format in its
// SOURCE.md) into plain structs, once, with every YAML value already turned
// into a runtime::Value the way OPA reads it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lang/yaml_node.hpp"
#include "runtime/value.hpp"

namespace gavel::conformance {

using runtime::Value;

struct Case {
    // Identity: "<v0|v1>/<folder>/<file>.yaml#<index>" (notes are not unique).
    std::string id;
    std::string file;    // "v1/aggregates/test-aggregates-0001.yaml"
    std::string folder;  // "v1/aggregates"
    std::size_t index = 0;
    bool v0 = false;  // under v0/: parse modules as Rego v0

    std::string note;
    std::string query;
    std::vector<std::string> modules;       // named test-0.rego, test-1.rego, ... by index
    std::optional<Value> data;              // absent or null: empty store
    std::optional<std::string> input_term;  // a Rego term; wins over `input`
    std::optional<Value> input;             // neither: input undefined

    std::optional<std::vector<Value>> want_result;  // rows: objects var -> value; [] = undefined
    std::optional<std::string> want_error_code;
    std::optional<std::string> want_error;  // substring of EvalError::to_string()
    std::optional<bool> want_defined;       // OPA's loader knows it; not in the data

    bool strict_error = false;
    bool sort_bindings = false;
    bool experimental_keywords = false;
    bool ignore_generated_vars = false;

    // Keys this runner cannot honour (e.g. `env`): the case is skipped, with this reason.
    std::string skip_reason;
    // The case (or its file) could not be read: it fails with this reason.
    std::string load_error;
};

// Every case of every *.yaml file under root/v0 and root/v1, files sorted by
// relative path, cases by list index. A file that cannot be read yields one
// case "<file>#0" carrying load_error.
std::vector<Case> load_suite(const std::filesystem::path& root);

// One case list from YAML text (exposed for tests). `file` is the relative path.
std::vector<Case> load_cases(const std::string& text, const std::string& file);

// A YAML node as the JSON value OPA gets from it (Go YAML decoder, then JSON):
//   quoted and block scalars are strings; plain null/Null/NULL/~/empty are
//   null, true/True/TRUE/false/False/FALSE booleans, integers exact when they
//   fit int64 or uint64 and doubles otherwise, floats doubles (YAML 1.2 core
//   schema; `y` stays the string "y", see SOURCE.md's quirk); mapping keys are
//   strings of their scalar text. Throws std::runtime_error on non-scalar keys.
Value yaml_to_value(const lang::yaml::Node& node);

}  // namespace gavel::conformance
