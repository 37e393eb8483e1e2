#pragma once
// Bundle signatures as OPA writes and checks them (bundle/sign.go, verify.go,
// keys.go): `.signatures.json` holds {"signatures": ["<JWT>"]}; the JWT's
// payload lists every file with its digest (engine/bundle/file_hash.hpp):
//
//   {"files": [{"name": "policy.rego", "hash": "<hex>", "algorithm": "SHA-256"}, ...],
//    "keyid": "default", "scope": "..."}
//
// The key that verifies is chosen by the configured key id, else the JWT's
// "kid" header, else its deprecated "keyid" claim; the algorithm is the
// key's (configured), never the token's. Errors are OPA's texts.
// The JWS algorithms are stdlib's (io.jwt.*), shared, not duplicated.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::engine::bundle {

struct FileDigest {
    std::string name;  // bundle path without leading '/'
    std::string hash;  // hex
    std::string algorithm = "SHA-256";
};

// keys.Config: a public key (PEM) or HMAC secret, its algorithm and scope.
struct KeyConfig {
    std::string key;
    std::string algorithm = "RS256";
    std::string scope;
};

struct VerificationConfig {
    std::map<std::string, KeyConfig> public_keys;  // by key id
    std::string key_id;                            // the key to use; empty: the token's kid
    std::string scope;                             // overrides the key's scope
    std::vector<std::string> exclude_files;        // glob patterns (filepath.Match) not verified
};

struct SigningConfig {
    std::string key;  // PEM text, a file holding it, or the HMAC secret
    std::string algorithm = "RS256";
    std::string claims_file;  // extra claims (a JSON object)
};

// OPA's keys.IsSupportedAlgorithm: ES/HS/PS/RS 256, 384, 512.
bool is_supported_algorithm(std::string_view alg);

// keys.NewKeyConfig: `key` names a file when one exists, else it is the key itself.
// Nothing, with `error` set, when the file exists and cannot be read.
std::optional<KeyConfig> key_config_from_flag(const std::string& key, const std::string& algorithm,
                                              const std::string& scope, std::string& error);

// The signed JWT for `files`. `key_id` (if not empty) goes into the "kid" header and,
// without a claims file, the "keyid" claim.
std::optional<std::string> sign_files(const std::vector<FileDigest>& files, const SigningConfig& config,
                                      const std::string& key_id, std::string& error);

// The verifier (and signer) OPA registers by default, and names in `.signatures.json`.
inline constexpr std::string_view kDefaultVerifierId = "_default";

// `.signatures.json`: {"signatures": ["<JWT>"], "plugin": "_default"}. `plugin` names
// the verifier that checks the tokens (OPA writes its default's id; none means it too).
struct SignaturesFile {
    std::vector<std::string> tokens;
    std::string plugin;
    // Not OPA's zero value (no "signatures" list, even an empty one, and no plugin):
    // the bundle counts as signed and must verify.
    bool signed_bundle = false;
};

// `.signatures.json` content for one token, as `opa build` writes it (Go's
// json.MarshalIndent(v, "", " ") of the default signer's config).
std::string signatures_json(const std::string& token);

// Parses `.signatures.json`; nullopt and OPA's error when it is not valid.
std::optional<SignaturesFile> parse_signatures(std::string_view text, std::string& error);

// OPA's VerifyBundleSignature: the verifier the file names ("" or "_default": the
// default one, the only one gavel has, as a stock OPA), then the tokens verified;
// on success the files they sign, by name.
std::optional<std::map<std::string, FileDigest>> verify_bundle_signature(const SignaturesFile& file,
                                                                         const VerificationConfig& config,
                                                                         std::string& error);

// The default verifier: the tokens verified; on success the files they sign, by name.
std::optional<std::map<std::string, FileDigest>> verify_signatures(const std::vector<std::string>& tokens,
                                                                   const VerificationConfig& config,
                                                                   std::string& error);

// Checks one bundle file against the signed digests and removes it from `files`.
bool verify_bundle_file(const std::string& path, std::string_view bytes, std::map<std::string, FileDigest>& files,
                        std::string& error);

// The same for a file whose bytes were not kept, only their SHA-256 (a file the
// reader does not use): a signature naming another algorithm for it is an error.
bool verify_bundle_file_sha256(const std::string& path, const std::string& sha256_hex,
                               std::map<std::string, FileDigest>& files, std::string& error);

// Go's filepath.Match (for exclude_files).
bool go_path_match(std::string_view pattern, std::string_view name);

}  // namespace gavel::engine::bundle
