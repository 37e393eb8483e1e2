#pragma once
// X.509 certificates, CSRs and private keys for the crypto.* builtins:
// input decoding as OPA does it (PEM, base64 PEM, base64 DER), OpenSSL
// parsing and chain verification, and output objects shaped like the JSON
// of Go's x509.Certificate / x509.CertificateRequest / tls.Certificate.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/value.hpp"
#include "stdlib/crypto_support.hpp"

namespace gavel::stdlib::x509 {

using Certificates = std::vector<crypto::X509Ptr>;

// OPA's getX509CertsFromString.
std::optional<Certificates> certificates_from_string(std::string_view input, std::string& error);

// Go's json.Marshal of []x509.Certificate plus OPA's URIStrings field.
runtime::Value certificates_to_value(const Certificates& certs);
runtime::Value certificate_to_value(X509* cert);

struct VerifyOptions {
    int64_t now_ns = 0;               // CurrentTime; 0 = wall clock
    std::string dns_name;             // DNSName
    std::vector<int> ext_key_usages;  // Go ExtKeyUsage values; empty = ServerAuth
};
// The options object of parse_and_verify_certificates_with_options.
bool parse_verify_options(const runtime::Value& options, VerifyOptions& out, std::string& error);

// certs[0] is the root, the last one the leaf, the rest intermediates.
// Returns the verified chain, leaf first; nullopt when it does not verify.
std::optional<Certificates> verify_chain(const Certificates& certs, const VerifyOptions& opts);

std::optional<runtime::Value> certificate_request_from_string(std::string_view input, std::string& error);
std::optional<runtime::Value> keypair_from_strings(std::string_view cert, std::string_view key, std::string& error);
// crypto.x509.parse_rsa_private_key: the first private key as a JWK object.
std::optional<runtime::Value> private_key_jwk_from_string(std::string_view input, std::string& error);
// crypto.parse_private_keys: every private key, as Go marshals them.
std::optional<runtime::Value> private_keys_from_string(std::string_view input, std::string& error);

}  // namespace gavel::stdlib::x509
