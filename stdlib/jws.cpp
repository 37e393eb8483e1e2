// JWS algorithms on OpenSSL EVP (see jws.hpp).

#include "stdlib/jws.hpp"

#include <openssl/ec.h>
#include <openssl/rsa.h>

#include <array>

namespace gavel::stdlib::jws {

namespace {

constexpr std::array<Algorithm, 13> kAlgorithms = {{
    {"HS256", Family::Hmac, "SHA256"},
    {"HS384", Family::Hmac, "SHA384"},
    {"HS512", Family::Hmac, "SHA512"},
    {"RS256", Family::RsaPkcs1, "SHA256"},
    {"RS384", Family::RsaPkcs1, "SHA384"},
    {"RS512", Family::RsaPkcs1, "SHA512"},
    {"PS256", Family::RsaPss, "SHA256"},
    {"PS384", Family::RsaPss, "SHA384"},
    {"PS512", Family::RsaPss, "SHA512"},
    {"ES256", Family::Ecdsa, "SHA256"},
    {"ES384", Family::Ecdsa, "SHA384"},
    {"ES512", Family::Ecdsa, "SHA512"},
    {"EdDSA", Family::EdDsa, nullptr},
}};

using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, crypto::Freer<ECDSA_SIG, ECDSA_SIG_free>>;

int key_type_for(Family f) {
    switch (f) {
        case Family::RsaPkcs1:
        case Family::RsaPss: return EVP_PKEY_RSA;
        case Family::Ecdsa: return EVP_PKEY_EC;
        case Family::EdDsa: return EVP_PKEY_ED25519;
        default: return EVP_PKEY_NONE;
    }
}

// Sets RSA padding (and PSS parameters) on a sign/verify context.
bool configure(const Algorithm& alg, EVP_PKEY_CTX* pctx, bool signing) {
    if (alg.family == Family::RsaPkcs1) return EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) > 0;
    if (alg.family == Family::RsaPss) {
        // Go verifies PSS with the salt length auto-detected and signs
        // (jwx) with a salt as long as the hash.
        return EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) > 0 &&
               EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, signing ? RSA_PSS_SALTLEN_DIGEST : RSA_PSS_SALTLEN_AUTO) > 0;
    }
    return true;
}

// Raw JWS r||s to the DER form OpenSSL verifies. Go splits at half the length.
std::optional<std::string> ecdsa_raw_to_der(std::string_view raw) {
    std::size_t n = raw.size() / 2;
    auto* r = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(n), nullptr);
    auto* s =
        BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data() + n), static_cast<int>(raw.size() - n), nullptr);
    EcdsaSigPtr sig(ECDSA_SIG_new());
    if (!r || !s || !sig || !ECDSA_SIG_set0(sig.get(), r, s)) {
        BN_free(r);
        BN_free(s);
        return std::nullopt;
    }
    unsigned char* der = nullptr;
    int len = i2d_ECDSA_SIG(sig.get(), &der);
    if (len <= 0) return std::nullopt;
    std::string out(reinterpret_cast<char*>(der), static_cast<std::size_t>(len));
    OPENSSL_free(der);
    return out;
}

std::optional<std::string> ecdsa_der_to_raw(std::string_view der, EVP_PKEY* key) {
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    EcdsaSigPtr sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));
    if (!sig) return std::nullopt;
    std::size_t width = static_cast<std::size_t>((EVP_PKEY_get_bits(key) + 7) / 8);
    return crypto::bignum_bytes(ECDSA_SIG_get0_r(sig.get()), width) +
           crypto::bignum_bytes(ECDSA_SIG_get0_s(sig.get()), width);
}

const EVP_MD* fetch_md(const Algorithm& alg) { return alg.md ? EVP_get_digestbyname(alg.md) : nullptr; }

}  // namespace

const Algorithm* find(std::string_view name) {
    for (const auto& a : kAlgorithms)
        if (a.name == name) return &a;
    return nullptr;
}

Outcome verify(const Algorithm& alg, EVP_PKEY* key, std::string_view input, std::string_view signature) {
    if (!key || alg.family == Family::Hmac || EVP_PKEY_get_base_id(key) != key_type_for(alg.family))
        return Outcome::WrongKeyType;
    std::string sig(signature);
    if (alg.family == Family::Ecdsa) {
        auto der = ecdsa_raw_to_der(signature);
        if (!der) return Outcome::Invalid;
        sig = std::move(*der);
    }
    crypto::MdCtxPtr ctx(EVP_MD_CTX_new());
    EVP_PKEY_CTX* pctx = nullptr;
    if (!ctx || EVP_DigestVerifyInit(ctx.get(), &pctx, fetch_md(alg), nullptr, key) != 1) return Outcome::Invalid;
    if (!configure(alg, pctx, false)) return Outcome::Invalid;
    int rc = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                              reinterpret_cast<const unsigned char*>(input.data()), input.size());
    return rc == 1 ? Outcome::Valid : Outcome::Invalid;
}

bool verify_hmac(const Algorithm& alg, std::string_view secret, std::string_view input, std::string_view signature) {
    if (alg.family != Family::Hmac) return false;
    auto mac = crypto::hmac(alg.md, secret, input);
    return mac && crypto::constant_time_equal(*mac, signature);
}

std::optional<std::string> sign(const Algorithm& alg, const jwk::Key& key, std::string_view input, std::string& error) {
    if (alg.family == Family::Hmac) {
        if (key.kty != "oct") {
            error = "invalid key type for " + std::string(alg.name) + ": " + key.kty;
            return std::nullopt;
        }
        auto mac = crypto::hmac(alg.md, key.secret, input);
        if (!mac) error = "failed to sign payload";
        return mac;
    }
    if (!key.pkey || !key.is_private || EVP_PKEY_get_base_id(key.pkey.get()) != key_type_for(alg.family)) {
        error = "invalid key type for " + std::string(alg.name) + ": " + key.kty;
        return std::nullopt;
    }
    crypto::MdCtxPtr ctx(EVP_MD_CTX_new());
    EVP_PKEY_CTX* pctx = nullptr;
    std::size_t len = 0;
    const auto* data = reinterpret_cast<const unsigned char*>(input.data());
    if (!ctx || EVP_DigestSignInit(ctx.get(), &pctx, fetch_md(alg), nullptr, key.pkey.get()) != 1 ||
        !configure(alg, pctx, true) || EVP_DigestSign(ctx.get(), nullptr, &len, data, input.size()) != 1) {
        error = "failed to sign payload";
        return std::nullopt;
    }
    std::string sig(len, '\0');
    if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, data, input.size()) != 1) {
        error = "failed to sign payload";
        return std::nullopt;
    }
    sig.resize(len);
    if (alg.family == Family::Ecdsa) {
        auto raw = ecdsa_der_to_raw(sig, key.pkey.get());
        if (!raw) error = "failed to sign payload";
        return raw;
    }
    return sig;
}

}  // namespace gavel::stdlib::jws
