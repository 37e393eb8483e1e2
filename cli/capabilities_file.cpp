#include "cli/capabilities_file.hpp"

#include "runtime/file_read.hpp"
#include "runtime/json.hpp"

namespace gavel::cli {

std::optional<std::set<std::string>> read_capabilities_builtins(const std::string& path, std::string& error) {
    runtime::FileRead read = runtime::read_whole_file(path);
    if (!read.ok) {
        error = read.message;
        return std::nullopt;
    }
    auto parsed = runtime::parse_json(read.text);
    if (!parsed) {
        error = path + ": " + parsed.error.message;
        return std::nullopt;
    }
    const runtime::Value* builtins = parsed.value.find("builtins");
    if (!builtins || !builtins->is_array()) {
        error = path + ": capabilities without a \"builtins\" array";
        return std::nullopt;
    }
    std::set<std::string> names;
    for (const auto& b : builtins->array_elements()) {
        const runtime::Value* name = b.find("name");
        if (!name || !name->is_string()) {
            error = path + ": a builtin without a name";
            return std::nullopt;
        }
        names.insert(std::string(name->as_string()));
    }
    return names;
}

}  // namespace gavel::cli
