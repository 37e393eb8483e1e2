#pragma once
// JWS signature algorithms (RFC 7518, RFC 8037 EdDSA) on OpenSSL's EVP
// interfaces: HS*, RS*, PS*, ES* (raw r||s signatures) and EdDSA.

#include <optional>
#include <string>
#include <string_view>

#include "stdlib/crypto_support.hpp"
#include "stdlib/jwk.hpp"

namespace gavel::stdlib::jws {

enum class Family { Hmac, RsaPkcs1, RsaPss, Ecdsa, EdDsa };

struct Algorithm {
    std::string_view name;  // "RS256"
    Family family;
    const char* md;  // OpenSSL digest name; nullptr for EdDSA
};

// nullptr for an unknown "alg".
const Algorithm* find(std::string_view name);

enum class Outcome {
    Valid,
    Invalid,       // the signature does not verify
    WrongKeyType,  // Go: "incorrect public key type"
};

// Verifies `signature` over `signing_input` with a public key.
Outcome verify(const Algorithm& alg, EVP_PKEY* key, std::string_view signing_input, std::string_view signature);
// HS*: constant-time comparison with the HMAC under `secret`.
bool verify_hmac(const Algorithm& alg, std::string_view secret, std::string_view signing_input,
                 std::string_view signature);

// Signs with a private JWK (oct secret for HS*). nullopt and `error` when the
// key does not fit the algorithm or OpenSSL fails.
std::optional<std::string> sign(const Algorithm& alg, const jwk::Key& key, std::string_view signing_input,
                                std::string& error);

}  // namespace gavel::stdlib::jws
