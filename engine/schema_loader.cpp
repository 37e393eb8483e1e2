#include "engine/schema_loader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>
#include <vector>

#include "runtime/file_read.hpp"
#include "runtime/json.hpp"
#include "runtime/value_json_tree.hpp"
#include "runtime/yaml.hpp"

namespace gavel::engine {

namespace fs = std::filesystem;

namespace {

std::string go_error_text(const std::error_code& ec) {
    std::string s = ec.message();
    if (!s.empty()) s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
    return s;
}

// One schema file (OPA's loadOneSchema: util.Unmarshal, JSON else YAML).
bool load_one(const std::string& path, lang::JsonTree& out, std::string& error) {
    runtime::FileRead read = runtime::read_whole_file(path);  // OPA's os.ReadFile: "read DIR: is a directory"
    if (!read.ok) {
        error = read.message;
        return false;
    }
    auto parsed = runtime::parse_json_or_yaml(read.text);  // OPA's util.Unmarshal
    if (!parsed) {
        error = path + ": " + parsed.error.message;
        return false;
    }
    out = runtime::to_json_tree(parsed.value);
    return true;
}

// A file's key below `schema`: its directories, then its name without the extension (filepath.Ext's).
std::vector<std::string> key_of(const std::vector<std::string>& dirs, const std::string& name) {
    std::vector<std::string> key = dirs;
    auto dot = name.find_last_of('.');
    key.push_back(dot == std::string::npos ? name : name.substr(0, dot));
    return key;
}

bool walk(const std::string& dir, std::vector<std::string>& dirs, compiler::SchemaSet& set, std::string& error,
          int depth) {
    if (depth > 256) {
        error = "lstat " + dir + ": too many levels of directories";
        return false;
    }
    std::error_code ec;
    std::vector<std::string> names;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        names.push_back(it->path().filename().string());
    if (ec) {
        error = "open " + dir + ": " + go_error_text(ec);
        return false;
    }
    std::sort(names.begin(), names.end());  // filepath.Walk's order
    for (const auto& name : names) {
        std::string path = (fs::path(dir) / name).generic_string();
        // Walk does not follow symbolic links to directories: such a link is read as a file.
        if (fs::is_directory(fs::symlink_status(path, ec))) {
            dirs.push_back(name);
            if (!walk(path, dirs, set, error, depth + 1)) return false;
            dirs.pop_back();
            continue;
        }
        lang::JsonTree schema;
        if (!load_one(path, schema, error)) return false;
        set.schemas[key_of(dirs, name)] = std::move(schema);
    }
    return true;
}

}  // namespace

SchemaLoadResult load_schemas(const std::string& given) {
    SchemaLoadResult out;
    std::string path = given.rfind("file://", 0) == 0 ? given.substr(7) : given;
    auto fail = [&](const std::string& why) {
        out.error = "1 error occurred during loading: " + why;
        return out;
    };
    std::error_code ec;
    fs::file_status status = fs::status(path, ec);
    if (ec) return fail("stat " + path + ": " + go_error_text(ec));
    auto set = std::make_shared<compiler::SchemaSet>();
    std::string error;
    if (!fs::is_directory(status)) {
        lang::JsonTree schema;
        if (!load_one(path, schema, error)) return fail(error);
        set->schemas[{}] = std::move(schema);
    } else {
        std::vector<std::string> dirs;
        if (!walk(path, dirs, *set, error, 0)) return fail(error);
    }
    out.schemas = std::move(set);
    return out;
}

}  // namespace gavel::engine
