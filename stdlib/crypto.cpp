// crypto.*: digests and HMACs (OpenSSL EVP), X.509 certificates, CSRs and
// private keys (parsing in x509.cpp).

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/crypto_support.hpp"
#include "stdlib/x509.hpp"

namespace gavel::stdlib {

namespace {

BuiltinImpl hash_builtin(const char* md) {
    return [md](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        auto d = crypto::digest(md, a[0].as_string());
        if (!d) return BuiltinResult::error("digest failed");
        return BuiltinResult::of(Value::string(crypto::hex(*d)));
    };
}

BuiltinImpl hmac_builtin(const char* md) {
    return [md](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!a[1].is_string()) return type_error(2, "string", a[1]);
        auto mac = crypto::hmac(md, a[1].as_string(), a[0].as_string());
        if (!mac) return BuiltinResult::error("hmac failed");
        return BuiltinResult::of(Value::string(crypto::hex(*mac)));
    };
}

BuiltinResult hmac_equal(Args a, BuiltinContext&) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_string()) return type_error(2, "string", a[1]);
    return BuiltinResult::of(Value::boolean(crypto::constant_time_equal(a[0].as_string(), a[1].as_string())));
}

// Runs a parser that reports failure through an error string.
template <class F>
BuiltinResult guarded(F&& f) {
    try {
        std::string error;
        std::optional<Value> v = f(error);
        if (!v) return BuiltinResult::error(error);
        return BuiltinResult::of(std::move(*v));
    } catch (const std::exception& e) {
        return BuiltinResult::error(e.what());
    }
}

BuiltinResult parse_certificates(Args a, BuiltinContext&) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    return guarded([&](std::string& error) -> std::optional<Value> {
        auto certs = x509::certificates_from_string(a[0].as_string(), error);
        if (!certs) return std::nullopt;
        return x509::certificates_to_value(*certs);
    });
}

BuiltinResult parse_and_verify(const Value& input, const Value* options, BuiltinContext& ctx) {
    if (!input.is_string()) return type_error(1, "string", input);
    if (options && !options->is_object()) return type_error(2, "object", *options);
    return guarded([&](std::string& error) -> std::optional<Value> {
        Value invalid = Value::array({Value::boolean(false), Value::empty_array()});
        x509::VerifyOptions opts;
        opts.now_ns = ctx.now();
        std::string ignored;
        auto certs = x509::certificates_from_string(input.as_string(), ignored);
        if (!certs) return invalid;
        if (options && !x509::parse_verify_options(*options, opts, error)) return std::nullopt;
        auto chain = x509::verify_chain(*certs, opts);
        if (!chain) return invalid;
        return Value::array({Value::boolean(true), x509::certificates_to_value(*chain)});
    });
}

BuiltinResult parse_certificate_request(Args a, BuiltinContext&) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    return guarded([&](std::string& error) { return x509::certificate_request_from_string(a[0].as_string(), error); });
}

BuiltinResult parse_keypair(Args a, BuiltinContext&) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_string()) return type_error(1, "string", a[1]);
    return guarded(
        [&](std::string& error) { return x509::keypair_from_strings(a[0].as_string(), a[1].as_string(), error); });
}

BuiltinResult parse_rsa_private_key(Args a, BuiltinContext&) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    return guarded([&](std::string& error) { return x509::private_key_jwk_from_string(a[0].as_string(), error); });
}

BuiltinResult parse_private_keys(Args a, BuiltinContext&) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    return guarded([&](std::string& error) { return x509::private_keys_from_string(a[0].as_string(), error); });
}

}  // namespace

void register_crypto(Registry& r) {
    declare(r, "crypto.md5", 1, hash_builtin("MD5"));
    declare(r, "crypto.sha1", 1, hash_builtin("SHA1"));
    declare(r, "crypto.sha256", 1, hash_builtin("SHA256"));
    declare(r, "crypto.hmac.md5", 2, hmac_builtin("MD5"));
    declare(r, "crypto.hmac.sha1", 2, hmac_builtin("SHA1"));
    declare(r, "crypto.hmac.sha256", 2, hmac_builtin("SHA256"));
    declare(r, "crypto.hmac.sha512", 2, hmac_builtin("SHA512"));
    declare(r, "crypto.hmac.equal", 2, hmac_equal);
    declare(r, "crypto.x509.parse_certificates", 1, parse_certificates);
    declare(r, "crypto.x509.parse_and_verify_certificates", 1,
            [](Args a, BuiltinContext& ctx) { return parse_and_verify(a[0], nullptr, ctx); });
    declare(r, "crypto.x509.parse_and_verify_certificates_with_options", 2,
            [](Args a, BuiltinContext& ctx) { return parse_and_verify(a[0], &a[1], ctx); });
    declare(r, "crypto.x509.parse_certificate_request", 1, parse_certificate_request);
    declare(r, "crypto.x509.parse_keypair", 2, parse_keypair);
    declare(r, "crypto.x509.parse_rsa_private_key", 1, parse_rsa_private_key);
    declare(r, "crypto.parse_private_keys", 1, parse_private_keys);
}

}  // namespace gavel::stdlib
