#pragma once
// The data store as OPA's in-memory store reads and writes it (storage/inmem):
// paths of unescaped segments, array positions given as integers, JSON Patch's
// "-" to append, and OPA's storage errors with their messages
// ("storage_not_found_error: /a/b: document does not exist").
//
// Writes return a new document: values are immutable, so the old one stays
// valid for readers until the store publishes the new one.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::webhook::opa_api {

using StorePath = std::vector<std::string>;

struct StoreError {
    enum class Code { NotFound, WriteConflict, InvalidPatch };
    Code code = Code::NotFound;
    std::string message;
    // "storage_not_found_error: <message>" (Go's storage.Error.Error()).
    std::string text() const;
};

enum class PatchOp { Add, Remove, Replace };

// Go's storage.Path.String(): "/" for the root, else each segment url.PathEscape'd after a '/'.
std::string store_path_text(const StorePath& path);

// storage.ParsePathEscaped("/a/b%20c") -> {"a", "b c"} (a bad escape leaves the segment as is).
StorePath parse_store_path(std::string_view escaped);

// `path` without its leading and trailing slashes ("/a/b/" -> "a/b"), as OPA's
// handlers strings.Trim the path they are given.
std::string trim_slashes(std::string_view path);

// A data PATCH's JSON Pointer escapes in each segment, after the URL unescaping,
// as OPA's server replaces them: "~1" is '/', then "~0" is '~'.
void unescape_pointer_segments(StorePath& path);

// The document at `path`, or null with `error`.
const runtime::Value* store_read(const runtime::Value& data, const StorePath& path, StoreError& error);

// One write, as the in-memory store applies it; nullopt with `error`.
std::optional<runtime::Value> store_write(const runtime::Value& data, PatchOp op, const StorePath& path,
                                          const runtime::Value& value, StoreError& error);

// storage.MakeDir: objects created along `path` where nothing is; a non-object
// on the way is a write conflict.
bool store_make_dir(runtime::Value& data, const StorePath& path, StoreError& error);

}  // namespace gavel::webhook::opa_api
