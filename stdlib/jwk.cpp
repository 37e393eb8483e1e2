// JWK <-> OpenSSL keys (see jwk.hpp), through OpenSSL 3's EVP_PKEY_fromdata
// and parameter getters.

#include "stdlib/jwk.hpp"

#include <openssl/core_names.h>
#include <openssl/param_build.h>

#include "runtime/json.hpp"

namespace gavel::stdlib::jwk {

namespace {

using runtime::Value;
using ParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, crypto::Freer<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, crypto::Freer<OSSL_PARAM, OSSL_PARAM_free>>;

// A base64url member ("n", "x", ...), padding optional.
std::optional<std::string> member_bytes(const Value& o, std::string_view name, std::string& error,
                                        bool required = true) {
    const Value* v = o.find(name);
    if (!v) {
        if (required) error = "required field '" + std::string(name) + "' is missing";
        return std::nullopt;
    }
    if (!v->is_string()) {
        error = "field '" + std::string(name) + "' must be a string";
        return std::nullopt;
    }
    std::string e;
    auto bytes = crypto::base64url_decode_lenient(v->as_string(), e);
    if (!bytes) error = "failed to decode field '" + std::string(name) + "': " + e;
    return bytes;
}

std::string member_string(const Value& o, std::string_view name) {
    const Value* v = o.find(name);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

crypto::PkeyPtr from_params(const char* type, OSSL_PARAM_BLD* bld, bool is_private) {
    ParamPtr params(OSSL_PARAM_BLD_to_param(bld));
    if (!params) return nullptr;
    crypto::PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
    if (!ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0) return nullptr;
    EVP_PKEY* out = nullptr;
    if (EVP_PKEY_fromdata(ctx.get(), &out, is_private ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params.get()) <= 0)
        return nullptr;
    return crypto::PkeyPtr(out);
}

bool push_bn(OSSL_PARAM_BLD* bld, const char* name, const std::string& bytes, std::vector<crypto::BignumPtr>& keep) {
    crypto::BignumPtr bn(
        BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()), nullptr));
    if (!bn || !OSSL_PARAM_BLD_push_BN(bld, name, bn.get())) return false;
    keep.push_back(std::move(bn));
    return true;
}

bool rsa_key(const Value& o, Key& key, std::string& error) {
    auto n = member_bytes(o, "n", error);
    if (!n) return false;
    auto e = member_bytes(o, "e", error);
    if (!e) return false;
    std::string ignore;
    auto d = member_bytes(o, "d", ignore, false);
    ParamBldPtr bld(OSSL_PARAM_BLD_new());
    std::vector<crypto::BignumPtr> keep;
    bool ok = bld && push_bn(bld.get(), OSSL_PKEY_PARAM_RSA_N, *n, keep) &&
              push_bn(bld.get(), OSSL_PKEY_PARAM_RSA_E, *e, keep);
    if (ok && d) {
        ok = push_bn(bld.get(), OSSL_PKEY_PARAM_RSA_D, *d, keep);
        auto p = member_bytes(o, "p", ignore, false), q = member_bytes(o, "q", ignore, false);
        auto dp = member_bytes(o, "dp", ignore, false), dq = member_bytes(o, "dq", ignore, false);
        auto qi = member_bytes(o, "qi", ignore, false);
        if (ok && p && q) {
            ok = push_bn(bld.get(), OSSL_PKEY_PARAM_RSA_FACTOR1, *p, keep) &&
                 push_bn(bld.get(), OSSL_PKEY_PARAM_RSA_FACTOR2, *q, keep);
            if (ok && dp && dq && qi)
                ok = push_bn(bld.get(), OSSL_PKEY_PARAM_RSA_EXPONENT1, *dp, keep) &&
                     push_bn(bld.get(), OSSL_PKEY_PARAM_RSA_EXPONENT2, *dq, keep) &&
                     push_bn(bld.get(), OSSL_PKEY_PARAM_RSA_COEFFICIENT1, *qi, keep);
        }
    }
    if (ok) key.pkey = from_params("RSA", bld.get(), d.has_value());
    if (!key.pkey) {
        error = "failed to create RSA key";
        return false;
    }
    key.is_private = d.has_value();
    return true;
}

struct Curve {
    const char* jwk_name;
    const char* openssl_name;
    std::size_t size;
};
constexpr Curve kCurves[] = {{"P-256", "prime256v1", 32}, {"P-384", "secp384r1", 48}, {"P-521", "secp521r1", 66}};

bool ec_key(const Value& o, Key& key, std::string& error) {
    std::string crv = member_string(o, "crv");
    const Curve* curve = nullptr;
    for (const auto& c : kCurves)
        if (crv == c.jwk_name) curve = &c;
    if (!curve) {
        error = "invalid curve name " + crv;
        return false;
    }
    auto x = member_bytes(o, "x", error);
    if (!x) return false;
    auto y = member_bytes(o, "y", error);
    if (!y) return false;
    std::string ignore;
    auto d = member_bytes(o, "d", ignore, false);
    if (x->size() > curve->size || y->size() > curve->size) {
        error = "invalid EC point size";
        return false;
    }
    // Uncompressed point: 0x04 || X || Y, each left-padded to the field size.
    std::string point(1, '\x04');
    point += std::string(curve->size - x->size(), '\0') + *x;
    point += std::string(curve->size - y->size(), '\0') + *y;
    ParamBldPtr bld(OSSL_PARAM_BLD_new());
    std::vector<crypto::BignumPtr> keep;
    bool ok = bld && OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, curve->openssl_name, 0) &&
              OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size());
    if (ok && d) ok = push_bn(bld.get(), OSSL_PKEY_PARAM_PRIV_KEY, *d, keep);
    if (ok) key.pkey = from_params("EC", bld.get(), d.has_value());
    if (!key.pkey) {
        error = "failed to create EC key";
        return false;
    }
    key.is_private = d.has_value();
    return true;
}

bool okp_key(const Value& o, Key& key, std::string& error) {
    std::string crv = member_string(o, "crv");
    if (crv != "Ed25519") {
        error = "unsupported curve " + crv;
        return false;
    }
    std::string ignore;
    if (auto d = member_bytes(o, "d", ignore, false)) {
        key.pkey.reset(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr,
                                                    reinterpret_cast<const unsigned char*>(d->data()), d->size()));
        key.is_private = true;
    } else {
        auto x = member_bytes(o, "x", error);
        if (!x) return false;
        key.pkey.reset(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr,
                                                   reinterpret_cast<const unsigned char*>(x->data()), x->size()));
    }
    if (!key.pkey) {
        error = "failed to create Ed25519 key";
        return false;
    }
    return true;
}

}  // namespace

std::optional<Key> from_value(const Value& o, std::string& error) {
    if (!o.is_object()) {
        error = "invalid JWK: not an object";
        return std::nullopt;
    }
    Key key;
    key.kty = member_string(o, "kty");
    key.alg = member_string(o, "alg");
    key.kid = member_string(o, "kid");
    bool ok = false;
    if (key.kty == "RSA") {
        ok = rsa_key(o, key, error);
    } else if (key.kty == "EC") {
        ok = ec_key(o, key, error);
    } else if (key.kty == "OKP") {
        ok = okp_key(o, key, error);
    } else if (key.kty == "oct") {
        auto k = member_bytes(o, "k", error);
        if (k) {
            key.secret = std::move(*k);
            key.is_private = true;
            ok = true;
        }
    } else {
        error = key.kty.empty() ? "invalid key type: missing \"kty\"" : "invalid key type " + key.kty;
    }
    if (!ok) return std::nullopt;
    return key;
}

std::optional<std::vector<Key>> parse_set(std::string_view json, std::string& error) {
    auto parsed = runtime::parse_json(json);
    if (!parsed) {
        error = "failed to unmarshal JWK: " + parsed.error.message;
        return std::nullopt;
    }
    std::vector<Key> keys;
    if (const Value* set = parsed.value.find("keys"); set && set->is_array()) {
        for (const auto& k : set->array_elements()) {
            auto key = from_value(k, error);
            if (!key) return std::nullopt;
            keys.push_back(std::move(*key));
        }
        return keys;
    }
    auto key = from_value(parsed.value, error);
    if (!key) return std::nullopt;
    keys.push_back(std::move(*key));
    return keys;
}

namespace {

std::optional<std::string> bn_param(EVP_PKEY* key, const char* name) {
    BIGNUM* bn = nullptr;
    if (!EVP_PKEY_get_bn_param(key, name, &bn)) return std::nullopt;
    crypto::BignumPtr owned(bn);
    return crypto::bignum_bytes(bn);
}

Value b64(const std::string& bytes) { return Value::string(crypto::base64_encode(bytes, true, false)); }

}  // namespace

std::optional<Value> to_value(EVP_PKEY* key, std::string& error) {
    runtime::ObjectBuilder o;
    switch (EVP_PKEY_get_base_id(key)) {
        case EVP_PKEY_RSA: {
            o.insert(Value::string("kty"), Value::string("RSA"));
            const std::pair<const char*, const char*> members[] = {
                {"n", OSSL_PKEY_PARAM_RSA_N},          {"e", OSSL_PKEY_PARAM_RSA_E},
                {"d", OSSL_PKEY_PARAM_RSA_D},          {"p", OSSL_PKEY_PARAM_RSA_FACTOR1},
                {"q", OSSL_PKEY_PARAM_RSA_FACTOR2},    {"dp", OSSL_PKEY_PARAM_RSA_EXPONENT1},
                {"dq", OSSL_PKEY_PARAM_RSA_EXPONENT2}, {"qi", OSSL_PKEY_PARAM_RSA_COEFFICIENT1}};
            for (const auto& [jwk_name, param] : members)
                if (auto v = bn_param(key, param)) o.insert(Value::string(jwk_name), b64(*v));
            break;
        }
        case EVP_PKEY_EC: {
            o.insert(Value::string("kty"), Value::string("EC"));
            char group[64] = {0};
            std::size_t len = 0;
            EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &len);
            std::size_t size = 0;
            for (const auto& c : kCurves)
                if (std::string_view(group) == c.openssl_name) {
                    o.insert(Value::string("crv"), Value::string(c.jwk_name));
                    size = c.size;
                }
            if (size == 0) {
                error = "unsupported EC curve " + std::string(group);
                return std::nullopt;
            }
            BIGNUM *x = nullptr, *y = nullptr;
            EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X, &x);
            EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, &y);
            crypto::BignumPtr xo(x), yo(y);
            o.insert(Value::string("x"), b64(crypto::bignum_bytes(x, size)));
            o.insert(Value::string("y"), b64(crypto::bignum_bytes(y, size)));
            BIGNUM* d = nullptr;
            if (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &d)) {
                crypto::BignumPtr dn(d);
                o.insert(Value::string("d"), b64(crypto::bignum_bytes(d, size)));
            }
            break;
        }
        case EVP_PKEY_ED25519: {
            o.insert(Value::string("kty"), Value::string("OKP"));
            o.insert(Value::string("crv"), Value::string("Ed25519"));
            unsigned char raw[64];
            std::size_t len = sizeof raw;
            if (EVP_PKEY_get_raw_public_key(key, raw, &len))
                o.insert(Value::string("x"), b64(std::string(reinterpret_cast<char*>(raw), len)));
            len = sizeof raw;
            if (EVP_PKEY_get_raw_private_key(key, raw, &len))
                o.insert(Value::string("d"), b64(std::string(reinterpret_cast<char*>(raw), len)));
            break;
        }
        default: error = "unsupported key type"; return std::nullopt;
    }
    return o.build();
}

}  // namespace gavel::stdlib::jwk
