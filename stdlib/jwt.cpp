// io.jwt.*: decoding, verification (HS/RS/PS/ES/EdDSA), decode_verify with
// constraints, and signing, following OPA's topdown/tokens.go. Keys come as
// PEM certificates / public keys or JWK (sets); algorithms live in jws.cpp.

#include <openssl/x509.h>

#include <cmath>
#include <vector>

#include "runtime/json.hpp"
#include "stdlib/builtin_helpers.hpp"
#include "stdlib/crypto_support.hpp"
#include "stdlib/jwk.hpp"
#include "stdlib/jws.hpp"

namespace gavel::stdlib {

namespace {

// Nested tokens (cty "JWT") shrink at every level; this bounds the work anyway.
constexpr int kMaxNesting = 32;

struct Token {
    std::string header, payload, signature;  // the three base64url sections
    Value decoded_header;                    // set by decode_header()
};

template <class T>
struct Or {
    std::optional<T> value;
    BuiltinResult failure;
    explicit operator bool() const { return value.has_value(); }
    T& operator*() { return *value; }
    T* operator->() { return &*value; }
};

template <class T>
Or<T> ok(T v) {
    return {std::move(v), {}};
}
template <class T>
Or<T> fail(BuiltinResult r) {
    return {std::nullopt, std::move(r)};
}
template <class T>
Or<T> fail(std::string message) {
    return {std::nullopt, BuiltinResult::error(std::move(message))};
}

Or<Token> split_token(const Value& v) {
    if (!v.is_string()) return fail<Token>(type_error(1, "string", v));
    std::string_view s = v.as_string();
    if (s.find('.') == std::string_view::npos) return fail<Token>("encoded JWT had no period separators");
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        std::size_t dot = s.find('.', start);
        parts.push_back(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    if (parts.size() != 3)
        return fail<Token>("encoded JWT must have 3 sections, found " + std::to_string(parts.size()));
    return ok(Token{std::string(parts[0]), std::string(parts[1]), std::string(parts[2]), {}});
}

// OPA's extractJSONObject: JSON text that must be an object.
Or<Value> json_object(std::string_view text) {
    auto parsed = runtime::parse_json(text);
    if (!parsed) return fail<Value>("invalid JSON: " + parsed.error.message);
    if (!parsed.value.is_object()) return fail<Value>("decoded JSON type was not an Object");
    return ok(std::move(parsed.value));
}

BuiltinResult decode_header(Token& t) {
    std::string error;
    auto bytes = crypto::base64url_decode_lenient(t.header, error);
    if (!bytes) return BuiltinResult::error("JWT header had invalid encoding: " + error);
    auto header = json_object(*bytes);
    if (!header) return BuiltinResult::error("bad JWT header: " + header.failure.message);
    if (header->find("enc")) return BuiltinResult::error("JWT is a JWE object, which is not supported");
    t.decoded_header = std::move(*header);
    return BuiltinResult::of(Value::null());
}

Or<std::string> decode_payload(const Token& t) {
    std::string error;
    auto bytes = crypto::base64url_decode_lenient(t.payload, error);
    if (!bytes) return fail<std::string>("JWT payload had invalid encoding: " + error);
    return ok(std::move(*bytes));
}

Or<std::string> decode_signature(const Token& t) {
    std::string error;
    auto bytes = crypto::base64url_decode_lenient(t.signature, error);
    if (!bytes) return fail<std::string>(error);
    return ok(std::move(*bytes));
}

bool failed(const BuiltinResult& r) { return r.status != BuiltinResult::Status::Value; }

std::string_view string_member(const Value& o, std::string_view name) {
    const Value* v = o.find(name);
    return v && v->is_string() ? v->as_string() : std::string_view{};
}

// ---- io.jwt.decode ---------------------------------------------------------------

BuiltinResult jwt_decode(Args a, BuiltinContext&) {
    Value input = a[0];
    for (int depth = 0; depth < kMaxNesting; ++depth) {
        auto token = split_token(input);
        if (!token) return token.failure;
        if (auto r = decode_header(*token); failed(r)) return r;
        auto payload = decode_payload(*token);
        if (!payload) return payload.failure;
        if (string_member(token->decoded_header, "cty") == "JWT") {
            // A nested token arrives quoted (as jwt.io produces it).
            std::string_view inner = *payload;
            while (!inner.empty() && (inner.front() == '"' || inner.front() == '\'')) inner.remove_prefix(1);
            while (!inner.empty() && (inner.back() == '"' || inner.back() == '\'')) inner.remove_suffix(1);
            input = Value::string(inner);
            continue;
        }
        auto object = json_object(*payload);
        if (!object) return object.failure;
        std::string error;
        auto sig = crypto::base64url_decode_lenient(token->signature, error);
        if (!sig) return BuiltinResult::error("JWT signature had invalid encoding: " + error);
        return BuiltinResult::of(Value::array({token->decoded_header, *object, Value::string(crypto::hex(*sig))}));
    }
    return BuiltinResult::error("JWT nesting too deep");
}

// ---- keys ------------------------------------------------------------------------

struct VerificationKey {
    std::string alg, kid;
    crypto::PkeyPtr key;  // null for JWKs that are not public keys (Go: wrong key type)
};

// OPA's getKeysFromCertOrJWK: a PEM certificate or public key, else JWK (set).
Or<std::vector<VerificationKey>> keys_from_cert_or_jwk(std::string_view text) {
    using Keys = std::vector<VerificationKey>;
    std::string_view rest;
    if (auto block = crypto::pem_decode(text, rest)) {
        if (!rest.empty()) return fail<Keys>("extra data after a PEM certificate block");
        const auto* p = reinterpret_cast<const unsigned char*>(block->bytes.data());
        Keys keys(1);
        if (block->type == "CERTIFICATE") {
            crypto::X509Ptr cert(d2i_X509(nullptr, &p, static_cast<long>(block->bytes.size())));
            if (!cert) return fail<Keys>("failed to parse a PEM certificate: x509: malformed certificate");
            keys[0].key.reset(X509_get_pubkey(cert.get()));
            return ok(std::move(keys));
        }
        if (block->type == "PUBLIC KEY") {
            keys[0].key.reset(d2i_PUBKEY(nullptr, &p, static_cast<long>(block->bytes.size())));
            if (!keys[0].key) return fail<Keys>("failed to parse a PEM public key: asn1: structure error");
            return ok(std::move(keys));
        }
        return fail<Keys>("failed to extract a Key from the PEM certificate");
    }
    std::string error;
    auto jwks = jwk::parse_set(text, error);
    if (!jwks) return fail<Keys>("failed to parse a JWK key (set): " + error);
    Keys keys;
    for (auto& k : *jwks) {
        VerificationKey v{k.alg, k.kid, nullptr};
        // Go verifies only with public keys; a private JWK fails the type check.
        if (!k.is_private) v.key = std::move(k.pkey);
        keys.push_back(std::move(v));
    }
    return ok(std::move(keys));
}

// ---- parsed JOSE header ---------------------------------------------------------------

struct Header {
    std::string alg, kid, typ, cty;
    std::vector<std::string> crit;
    std::vector<std::string> unknown;

    // RFC 7515: alg present; no critical parameter we do not understand.
    bool valid() const {
        if (alg.empty()) return false;
        for (const auto& u : unknown)
            for (const auto& c : crit)
                if (u == c) return false;
        return true;
    }
};

Or<Header> parse_header(const Value& decoded) {
    Header h;
    for (const auto& e : decoded.object_entries()) {
        std::string_view name = e.key.as_string();
        std::string* field = name == "alg"   ? &h.alg
                             : name == "kid" ? &h.kid
                             : name == "typ" ? &h.typ
                             : name == "cty" ? &h.cty
                                             : nullptr;
        if (field) {
            if (!e.value.is_string()) return fail<Header>(std::string(name) + ": must be a string");
            *field = std::string(e.value.as_string());
        } else if (name == "crit") {
            if (!e.value.is_array()) return fail<Header>("crit: must be a list");
            for (const auto& c : e.value.array_elements()) {
                if (!c.is_string()) break;  // OPA stops at the first non-string
                h.crit.emplace_back(c.as_string());
            }
            if (h.crit.empty()) return fail<Header>("crit: must be a nonempty list");
        } else {
            h.unknown.emplace_back(name);
        }
    }
    return ok(std::move(h));
}

// ---- io.jwt.verify_* ---------------------------------------------------------------

// A signature checked with one key of a set, in units of the evaluation's work
// (an asymmetric verification costs tens of microseconds): a set of many keys
// is bounded by the deadline.
constexpr std::size_t kVerifyWork = 256;

BuiltinImpl verify_asymmetric(std::string_view alg_name) {
    const jws::Algorithm* alg = jws::find(alg_name);
    return [alg](Args a, BuiltinContext& ctx) -> BuiltinResult {
        auto token = split_token(a[0]);
        if (!token) return token.failure;
        if (!a[1].is_string()) return type_error(2, "string", a[1]);
        auto keys = keys_from_cert_or_jwk(a[1].as_string());
        if (!keys) return keys.failure;
        auto signature = decode_signature(*token);
        if (!signature) return signature.failure;
        if (auto r = decode_header(*token); failed(r)) return r;
        auto header = parse_header(token->decoded_header);
        if (!header) return header.failure;
        std::string input = token->header + "." + token->payload;
        auto check = [&](const VerificationKey& k) {
            return jws::verify(*alg, k.key.get(), input, *signature) == jws::Outcome::Valid;
        };
        // A key whose kid matches the token's decides alone.
        if (!header->kid.empty())
            for (const auto& k : *keys)
                if (k.kid == header->kid) return BuiltinResult::of(Value::boolean(check(k)));
        for (const auto& k : *keys) {
            if (!k.alg.empty() && k.alg != header->alg) continue;
            if (ctx.spend(kVerifyWork)) return BuiltinResult::cancelled();
            if (check(k)) return BuiltinResult::of(Value::boolean(true));
        }
        return BuiltinResult::of(Value::boolean(false));
    };
}

BuiltinImpl verify_hmac(std::string_view alg_name) {
    const jws::Algorithm* alg = jws::find(alg_name);
    return [alg](Args a, BuiltinContext&) -> BuiltinResult {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!a[1].is_string()) return type_error(2, "string", a[1]);
        auto token = split_token(a[0]);
        if (!token) return token.failure;
        auto signature = decode_signature(*token);
        if (!signature) return signature.failure;
        bool valid = jws::verify_hmac(*alg, a[1].as_string(), token->header + "." + token->payload, *signature);
        return BuiltinResult::of(Value::boolean(valid));
    };
}

// ---- io.jwt.decode_verify ------------------------------------------------------------

struct Constraints {
    std::optional<std::vector<VerificationKey>> keys;
    std::string secret, alg, iss, aud;
    double time_ns = -1;
};

Or<double> time_from(const Value& v) {
    if (!v.is_number()) return fail<double>("token time constraint: must be a number");
    double t = v.as_number().to_double();
    if (!std::isfinite(t)) return fail<double>("token time constraint: unvalid float64");
    if (t < 0) return fail<double>("token time constraint: must not be negative");
    return ok(t);
}

Or<Constraints> parse_constraints(const Value& o, int64_t now_ns) {
    Constraints c;
    for (const auto& e : o.object_entries()) {
        std::string name = e.key.is_string() ? std::string(e.key.as_string()) : runtime::to_json(e.key);
        const Value& v = e.value;
        auto string_constraint = [&](std::string& where) -> std::optional<BuiltinResult> {
            if (!v.is_string()) return BuiltinResult::error(name + " constraint: must be a string");
            where = std::string(v.as_string());
            return std::nullopt;
        };
        std::optional<BuiltinResult> err;
        if (name == "cert") {
            if (!v.is_string()) return fail<Constraints>("cert constraint: must be a string");
            auto keys = keys_from_cert_or_jwk(v.as_string());
            if (!keys) return fail<Constraints>(keys.failure);
            c.keys = std::move(*keys);
        } else if (name == "secret") {
            err = string_constraint(c.secret);
        } else if (name == "alg") {
            err = string_constraint(c.alg);
        } else if (name == "iss") {
            err = string_constraint(c.iss);
        } else if (name == "aud") {
            err = string_constraint(c.aud);
        } else if (name == "time") {
            auto t = time_from(v);
            if (!t) return fail<Constraints>(t.failure);
            c.time_ns = *t;
        } else {
            return fail<Constraints>("unknown token validation constraint: " + name);
        }
        if (err) return fail<Constraints>(std::move(*err));
    }
    if (c.time_ns == -1) c.time_ns = static_cast<double>(now_ns);
    int key_count = (c.keys ? 1 : 0) + (c.secret.empty() ? 0 : 1);
    if (key_count > 1) return fail<Constraints>("duplicate key constraints");
    if (key_count < 1) return fail<Constraints>("no key constraint");
    return ok(std::move(c));
}

// OPA's constraints.verify: Valid, Invalid (signature not verified) or an error.
BuiltinResult verify_with_constraints(const Constraints& c, const Header& h, const std::string& input,
                                      const std::string& signature, bool& valid, BuiltinContext& ctx) {
    const jws::Algorithm* alg = jws::find(h.alg);
    if (!alg) return BuiltinResult::error("unknown JWS algorithm: " + h.alg);
    valid = false;
    if (c.keys) {
        auto check = [&](const VerificationKey& k) {
            if (alg->family == jws::Family::Hmac) return false;  // asymmetric keys never verify an HMAC
            return jws::verify(*alg, k.key.get(), input, signature) == jws::Outcome::Valid;
        };
        if (!h.kid.empty())
            for (const auto& k : *c.keys)
                if (k.kid == h.kid) {
                    valid = check(k);
                    return BuiltinResult::of(Value::null());
                }
        for (const auto& k : *c.keys) {
            if (!k.alg.empty() && k.alg != h.alg) continue;
            if (ctx.spend(kVerifyWork)) return BuiltinResult::cancelled();
            if (check(k)) {
                valid = true;
                break;
            }
        }
        return BuiltinResult::of(Value::null());
    }
    if (alg->family != jws::Family::Hmac) return BuiltinResult::error("incorrect public key type");
    valid = jws::verify_hmac(*alg, c.secret, input, signature);
    return BuiltinResult::of(Value::null());
}

bool audience_ok(const Value& aud, const std::string& want) {
    if (aud.is_string()) return aud.as_string() == want;
    if (!aud.is_array()) return false;
    for (const auto& e : aud.array_elements())
        if (e.is_string() && e.as_string() == want) return true;
    return false;
}

BuiltinResult decode_verify(Args a, BuiltinContext& ctx) {
    if (!a[1].is_object()) return type_error(2, "object", a[1]);
    const Value unverified = Value::array({Value::boolean(false), Value::empty_object(), Value::empty_object()});
    auto constraints = parse_constraints(a[1], ctx.now());
    if (!constraints) return constraints.failure;

    Value input = a[0];
    Token token;
    std::string payload_text;
    for (int depth = 0;; ++depth) {
        if (depth == kMaxNesting) return BuiltinResult::error("JWT nesting too deep");
        auto t = split_token(input);
        if (!t) return t.failure;
        token = std::move(*t);
        if (auto r = decode_header(token); failed(r)) return r;
        auto header = parse_header(token.decoded_header);
        if (!header) return header.failure;
        if (!header->valid()) return BuiltinResult::of(unverified);
        if (!constraints->alg.empty() && constraints->alg != header->alg) return BuiltinResult::of(unverified);
        auto signature = decode_signature(token);
        if (!signature) return signature.failure;
        bool valid = false;
        auto r =
            verify_with_constraints(*constraints, *header, token.header + "." + token.payload, *signature, valid, ctx);
        if (failed(r)) return r;
        if (!valid) return BuiltinResult::of(unverified);
        auto payload = decode_payload(token);
        if (!payload) return payload.failure;
        std::string cty = header->cty;
        for (auto& ch : cty) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        if (cty == "JWT") {
            input = Value::string(*payload);
            continue;
        }
        payload_text = std::move(*payload);
        break;
    }
    auto payload = json_object(payload_text);
    if (!payload) return payload.failure;

    if (!constraints->iss.empty()) {
        const Value* iss = payload->find("iss");
        if (!iss || !iss->is_string() || iss->as_string() != constraints->iss) return BuiltinResult::of(unverified);
    }
    if (const Value* aud = payload->find("aud")) {
        if (!audience_ok(*aud, constraints->aud)) return BuiltinResult::of(unverified);
    } else if (!constraints->aud.empty()) {
        return BuiltinResult::of(unverified);
    }
    // exp and nbf are in seconds, the time constraint in nanoseconds.
    runtime::Number now = runtime::Number::from_double(constraints->time_ns / 1e9);
    if (const Value* exp = payload->find("exp")) {
        if (!exp->is_number()) return BuiltinResult::error("exp value must be a number");
        if (compare(now, exp->as_number()) != -1) return BuiltinResult::of(unverified);
    }
    if (const Value* nbf = payload->find("nbf")) {
        if (!nbf->is_number()) return BuiltinResult::error("nbf value must be a number");
        if (compare(now, nbf->as_number()) == -1) return BuiltinResult::of(unverified);
    }
    return BuiltinResult::of(Value::array({Value::boolean(true), token.decoded_header, *payload}));
}

// ---- io.jwt.encode_sign(_raw) ----------------------------------------------------------

BuiltinResult encode_sign_common(std::string_view header_text, std::string_view payload_text,
                                 std::string_view jwk_text) {
    std::string error;
    auto keys = jwk::parse_set(jwk_text, error);
    if (!keys || keys->empty()) return BuiltinResult::error(error.empty() ? "no JWK given" : error);
    const jwk::Key& key = keys->front();

    constexpr std::string_view kAlgPrefix = "missing or invalid 'alg' header: ";
    std::string_view trimmed = header_text;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) trimmed.remove_prefix(1);
    if (trimmed.empty())
        return BuiltinResult::error(std::string(kAlgPrefix) + "cannot parse JSON: cannot parse empty string");
    Value header;
    if (trimmed.front() == '{') {
        auto parsed = runtime::parse_json(header_text);
        if (!parsed)
            return BuiltinResult::error(std::string(kAlgPrefix) + "cannot parse JSON: " + parsed.error.message);
        header = std::move(parsed.value);
    }
    const Value* alg_value = header.find("alg");
    if (!alg_value) return BuiltinResult::error(std::string(kAlgPrefix) + "jwsbb: header \"alg\" not found");
    if (!alg_value->is_string()) return BuiltinResult::error(std::string(kAlgPrefix) + "alg must be a string");
    const jws::Algorithm* alg = jws::find(alg_value->as_string());
    if (!alg) return BuiltinResult::error("unknown JWS algorithm: " + std::string(alg_value->as_string()));

    std::string_view typ = string_member(header, "typ");
    if (typ.empty() || typ == "JWT") {
        if (!runtime::parse_json(payload_text)) return BuiltinResult::error("type is JWT but payload is not JSON");
    }
    std::string input =
        crypto::base64_encode(header_text, true, false) + "." + crypto::base64_encode(payload_text, true, false);
    auto signature = jws::sign(*alg, key, input, error);
    if (!signature) return BuiltinResult::error(error);
    return BuiltinResult::of(Value::string(input + "." + crypto::base64_encode(*signature, true, false)));
}

BuiltinResult encode_sign(Args a, BuiltinContext& ctx) {
    // OPA marshals whatever the operands hold (the type checker alone wants objects): a payload
    // that is a number is signed, a key that is no JWK fails when it is read.
    // Go's json.Marshal: <, > and & escaped.
    auto header = json_text(a[0], ctx, true), payload = json_text(a[1], ctx, true), key = json_text(a[2], ctx, true);
    if (!header || !payload || !key) return BuiltinResult::cancelled();
    return encode_sign_common(*header, *payload, *key);
}

BuiltinResult encode_sign_raw(Args a, BuiltinContext&) {
    if (!a[2].is_string()) return type_error(3, "string", a[2]);
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_string()) return type_error(2, "string", a[1]);
    return encode_sign_common(a[0].as_string(), a[1].as_string(), a[2].as_string());
}

// Every builtin here turns unexpected exceptions into builtin errors.
BuiltinImpl safe(BuiltinImpl impl) {
    return [impl = std::move(impl)](Args a, BuiltinContext& ctx) {
        try {
            return impl(a, ctx);
        } catch (const std::exception& e) {
            return BuiltinResult::error(e.what());
        }
    };
}

}  // namespace

void register_jwt(Registry& r) {
    declare(r, "io.jwt.decode", 1, safe(jwt_decode));
    declare(r, "io.jwt.decode_verify", 2, safe(decode_verify));
    for (const char* alg : {"HS256", "HS384", "HS512"}) {
        std::string name = "io.jwt.verify_" + std::string(alg);
        for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        declare(r, name, 2, safe(verify_hmac(alg)));
    }
    for (const char* alg : {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}) {
        std::string name = "io.jwt.verify_" + std::string(alg);
        for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        declare(r, name, 2, safe(verify_asymmetric(alg)));
    }
    declare(r, "io.jwt.verify_eddsa", 2, safe(verify_asymmetric("EdDSA")));
    declare(r, "io.jwt.encode_sign", 3, safe(encode_sign));
    declare(r, "io.jwt.encode_sign_raw", 3, safe(encode_sign_raw));
}

}  // namespace gavel::stdlib
