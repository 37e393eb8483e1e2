#pragma once
// Kubernetes objects as gator reads them: YAML files split on "\n---", lines
// that are blank or only a comment dropped, each document typed by go-yaml v3
// (only true/false are booleans) and required to be an object with a kind.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lang/diagnostics.hpp"
#include "runtime/value.hpp"

namespace gavel::gatekeeper {

// An object and where its document starts.
struct SourcedObject {
    runtime::Value value;
    std::string file;
    uint32_t line = 0;
};

struct ObjectsRead {
    std::vector<SourcedObject> objects;
    std::optional<lang::Diagnostic> error;  // file:line:col of the first bad document
    bool ok() const { return !error; }
};

// All objects of a YAML (or JSON) stream.
ObjectsRead read_objects(std::string_view text, const std::string& file);
// The same from a file (at most kMaxObjectFileBytes).
ObjectsRead read_objects_file(const std::string& path);
// The first document of a file as one object (gator reads templates and suites so).
ObjectsRead read_first_object_file(const std::string& path);

inline constexpr std::size_t kMaxObjectFileBytes = std::size_t(64) << 20;

struct GroupVersionKind {
    std::string group, version, kind;
    std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

GroupVersionKind gvk_of(const runtime::Value& object);
// A string at a path of object keys, or "" when absent or not a string.
std::string_view string_at(const runtime::Value& object, std::initializer_list<std::string_view> path);
const runtime::Value* value_at(const runtime::Value& object, std::initializer_list<std::string_view> path);
std::string_view object_name(const runtime::Value& object);
std::string_view object_namespace(const runtime::Value& object);
bool is_namespace_object(const runtime::Value& object);  // kind Namespace in the core group

lang::Diagnostic file_error(const std::string& file, uint32_t line, std::string message);

}  // namespace gavel::gatekeeper
