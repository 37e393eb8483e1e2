#pragma once
// JSON Web Keys (RFC 7517/7518/8037) to OpenSSL keys, and OpenSSL keys back
// to JWK objects, for io.jwt.* and crypto.x509.parse_rsa_private_key.
// Supported key types: RSA, EC (P-256, P-384, P-521), oct, OKP (Ed25519).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/value.hpp"
#include "stdlib/crypto_support.hpp"

namespace gavel::stdlib::jwk {

struct Key {
    std::string kty;       // "RSA", "EC", "oct", "OKP"
    std::string alg;       // optional "alg" member
    std::string kid;       // optional "kid" member
    crypto::PkeyPtr pkey;  // RSA / EC / OKP (private when "d" was present)
    std::string secret;    // oct: the raw "k" bytes
    bool is_private = false;
};

// One JWK object, or a set {"keys": [...]}. On failure returns nullopt and
// an error message in the style of OPA's jwx package.
std::optional<std::vector<Key>> parse_set(std::string_view json, std::string& error);
std::optional<Key> from_value(const runtime::Value& object, std::string& error);

// The JWK object (as Go's jwx marshals it) of an RSA/EC/Ed25519 key.
std::optional<runtime::Value> to_value(EVP_PKEY* key, std::string& error);

}  // namespace gavel::stdlib::jwk
