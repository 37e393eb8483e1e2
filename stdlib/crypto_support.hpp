#pragma once
// Shared pieces of the crypto, jwt and x509 builtins: RAII owners for
// OpenSSL handles, digests and HMACs through the EVP interfaces, and the
// byte encodings whose exact Go behaviour OPA's messages depend on
// (encoding/base64 with its error offsets, encoding/pem's block scanner).

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "support/base64.hpp"

namespace gavel::stdlib::crypto {

// ---- OpenSSL handle owners ------------------------------------------------------
template <class T, void (*Free)(T*)>
struct Freer {
    void operator()(T* p) const noexcept { Free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Freer<EVP_PKEY, EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Freer<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Freer<EVP_MD_CTX, EVP_MD_CTX_free>>;
using X509Ptr = std::unique_ptr<X509, Freer<X509, X509_free>>;
using X509ReqPtr = std::unique_ptr<X509_REQ, Freer<X509_REQ, X509_REQ_free>>;
using BignumPtr = std::unique_ptr<BIGNUM, Freer<BIGNUM, BN_free>>;

// ---- digests --------------------------------------------------------------------
// `md` is an OpenSSL digest name ("MD5", "SHA1", "SHA256", "SHA384", "SHA512").
std::optional<std::string> digest(const char* md, std::string_view data);
std::optional<std::string> hmac(const char* md, std::string_view key, std::string_view data);
// Lower-case hex of raw bytes (Go's %x).
std::string hex(std::string_view bytes);
// Go's hmac.Equal: constant time for equal lengths, false otherwise.
bool constant_time_equal(std::string_view a, std::string_view b);

// ---- base64: the one codec (support/base64.hpp) ------------------------------------
using support::base64_decode;
using support::base64_encode;
using support::Base64Result;
using support::base64url_decode_lenient;

// ---- PEM (Go's encoding/pem.Decode) ------------------------------------------------
struct PemBlock {
    std::string type;
    std::string bytes;
};
// The first well-formed block in `data`; `rest` is what follows it (or all
// of `data` when no block was found).
std::optional<PemBlock> pem_decode(std::string_view data, std::string_view& rest);

// ---- numbers ---------------------------------------------------------------------
// Big-endian unsigned bytes as a decimal string (for big integers in JSON).
std::string bytes_to_decimal(std::string_view big_endian);
std::string bignum_to_decimal(const BIGNUM* bn);
// Unsigned big-endian bytes of `bn`, left-padded with zeros to `width`.
std::string bignum_bytes(const BIGNUM* bn, std::size_t width = 0);

}  // namespace gavel::stdlib::crypto
