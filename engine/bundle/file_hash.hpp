#pragma once
// File digests for bundle signatures, as OPA's bundle/hash.go computes them:
// structured documents (data.json, data.yaml, .manifest, .signatures.json, by
// base name) are parsed and hashed as their canonical JSON (object keys
// sorted, Go's encoding of strings and numbers, number literals as written);
// every other file is hashed as its raw bytes.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/value.hpp"

namespace gavel::engine::bundle {

// OPA's IsStructuredDoc.
bool is_structured_doc(std::string_view path);

// A digest of raw bytes fed piece by piece (a file too large to keep in memory).
class DigestStream {
public:
    // `ok()` is false for an unknown algorithm.
    explicit DigestStream(std::string_view algorithm);
    ~DigestStream();
    DigestStream(DigestStream&&) noexcept;
    bool ok() const { return ctx_ != nullptr; }
    void update(std::string_view bytes);
    std::string hex();  // once, at the end

private:
    struct Ctx;
    std::unique_ptr<Ctx> ctx_;
};

// Hex digest of raw `bytes` with `algorithm`; nullopt (and `error`) for an unknown algorithm.
std::optional<std::string> hash_bytes(std::string_view bytes, std::string_view algorithm, std::string& error);
// Hex digest of `bytes` for `path` with `algorithm` ("SHA-256", "SHA-512", "MD5", ...).
std::optional<std::string> hash_file(std::string_view path, std::string_view bytes, std::string_view algorithm,
                                     std::string& error);
// Hex digest of a JSON document in canonical form.
std::optional<std::string> hash_value(const runtime::Value& value, std::string_view algorithm, std::string& error);

inline constexpr std::string_view kDefaultHashAlgorithm = "SHA-256";

}  // namespace gavel::engine::bundle
