#include "engine/bundle/signatures.hpp"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <filesystem>

#include "engine/bundle/file_hash.hpp"
#include "runtime/file_read.hpp"
#include "runtime/json.hpp"
#include "stdlib/crypto_support.hpp"
#include "stdlib/jwk.hpp"
#include "stdlib/jws.hpp"
#include "support/json_string.hpp"

namespace gavel::engine::bundle {

using runtime::Value;
namespace crypto = stdlib::crypto;
namespace jws = stdlib::jws;

namespace {

bool is_hmac(std::string_view alg) { return alg == "HS256" || alg == "HS384" || alg == "HS512"; }

// A file's content when `text` names an existing file, else `text` itself (OPA's os.Stat
// test); nothing, with `error` set, when the file exists and cannot be read.
std::optional<std::string> file_or_literal(const std::string& text, std::string& error) {
    std::error_code ec;
    if (text.empty() || !std::filesystem::exists(text, ec)) return text;
    runtime::FileRead read = runtime::read_whole_file(text);
    if (!read.ok) {
        error = read.message;
        return std::nullopt;
    }
    return std::move(read.text);
}

crypto::PkeyPtr parse_der_key(const crypto::PemBlock& block, bool want_private, std::string& error) {
    const auto* p = reinterpret_cast<const unsigned char*>(block.bytes.data());
    long n = static_cast<long>(block.bytes.size());
    crypto::PkeyPtr key;
    if (block.type == "RSA PRIVATE KEY" || block.type == "PRIVATE KEY" || block.type == "EC PRIVATE KEY") {
        key.reset(d2i_AutoPrivateKey(nullptr, &p, n));
    } else if (want_private) {
        error = "unsupported key type: " + block.type;
        return nullptr;
    } else if (block.type == "RSA PUBLIC KEY") {
        key.reset(d2i_PublicKey(EVP_PKEY_RSA, nullptr, &p, n));
    } else if (block.type == "PUBLIC KEY") {
        key.reset(d2i_PUBKEY(nullptr, &p, n));
    } else if (block.type == "CERTIFICATE") {
        crypto::X509Ptr cert(d2i_X509(nullptr, &p, n));
        if (cert) key.reset(X509_get_pubkey(cert.get()));
    } else {
        error = "failed to parse PEM block containing the key";
        return nullptr;
    }
    if (!key) error = "x509: failed to parse " + block.type;
    return key;
}

std::string key_type_of(EVP_PKEY* key) {
    switch (EVP_PKEY_get_base_id(key)) {
        case EVP_PKEY_RSA: return "RSA";
        case EVP_PKEY_EC: return "EC";
        case EVP_PKEY_ED25519: return "OKP";
        default: return "";
    }
}

std::string b64url(std::string_view bytes) { return crypto::base64_encode(bytes, true, false); }

// Go's RawURLEncoding: no padding allowed in the input.
std::optional<std::string> b64url_decode(std::string_view s, std::string& error) {
    if (s.find('=') != std::string_view::npos) {
        error = "illegal base64 data";
        return std::nullopt;
    }
    return crypto::base64url_decode_lenient(s, error);
}

}  // namespace

bool is_supported_algorithm(std::string_view alg) {
    static const char* kAlgs[] = {"ES256", "ES384", "ES512", "HS256", "HS384", "HS512",
                                  "PS256", "PS384", "PS512", "RS256", "RS384", "RS512"};
    for (const char* a : kAlgs)
        if (alg == a) return true;
    return false;
}

std::optional<KeyConfig> key_config_from_flag(const std::string& key, const std::string& algorithm,
                                              const std::string& scope, std::string& error) {
    auto text = file_or_literal(key, error);
    if (!text) return std::nullopt;
    return KeyConfig{std::move(*text), algorithm.empty() ? "RS256" : algorithm, scope};
}

bool go_path_match(std::string_view pattern, std::string_view name) {
    // '*' and '?' never match '/'; '[...]' classes; '\\' escapes.
    if (pattern.empty()) return name.empty();
    char c = pattern[0];
    if (c == '*') {
        for (std::size_t i = 0; i <= name.size(); ++i) {
            if (go_path_match(pattern.substr(1), name.substr(i))) return true;
            if (i < name.size() && name[i] == '/') break;
        }
        return false;
    }
    if (name.empty()) return false;
    if (c == '?') return name[0] != '/' && go_path_match(pattern.substr(1), name.substr(1));
    if (c == '[') {
        auto close = pattern.find(']', 1);
        if (close == std::string_view::npos) return false;
        std::string_view cls = pattern.substr(1, close - 1);
        bool negate = !cls.empty() && cls[0] == '^';
        if (negate) cls.remove_prefix(1);
        bool match = false;
        for (std::size_t i = 0; i < cls.size(); ++i) {
            if (i + 2 < cls.size() && cls[i + 1] == '-') {
                if (name[0] >= cls[i] && name[0] <= cls[i + 2]) match = true;
                i += 2;
            } else if (cls[i] == name[0]) {
                match = true;
            }
        }
        return match != negate && name[0] != '/' && go_path_match(pattern.substr(close + 1), name.substr(1));
    }
    if (c == '\\' && pattern.size() > 1) {
        return pattern[1] == name[0] && go_path_match(pattern.substr(2), name.substr(1));
    }
    return c == name[0] && go_path_match(pattern.substr(1), name.substr(1));
}

std::optional<std::string> sign_files(const std::vector<FileDigest>& files, const SigningConfig& config,
                                      const std::string& key_id, std::string& error) {
    const jws::Algorithm* alg = jws::find(config.algorithm);
    if (!alg || !is_supported_algorithm(config.algorithm)) {
        error = "unknown signature algorithm: " + config.algorithm;
        return std::nullopt;
    }
    std::optional<std::string> key_file =
        config.key.starts_with("-----BEGIN") ? config.key : file_or_literal(config.key, error);
    if (!key_file) return std::nullopt;
    const std::string& key_text = *key_file;
    stdlib::jwk::Key key;
    if (is_hmac(config.algorithm)) {
        key.kty = "oct";
        key.secret = key_text;
        key.is_private = true;
    } else {
        std::string_view rest;
        auto block = crypto::pem_decode(key_text, rest);
        if (!block) {
            error = "failed to parse PEM block containing the key";
            return std::nullopt;
        }
        key.pkey = parse_der_key(*block, true, error);
        if (!key.pkey) return std::nullopt;
        key.kty = key_type_of(key.pkey.get());
        key.is_private = true;
    }
    key.kid = key_id;

    // The payload's bytes as OPA's json.Marshal writes them (so that the same key signs
    // the same files into the same token): a map, so members in key order, each file
    // {"name", "hash", "algorithm"} in FileInfo's field order, claims overriding.
    std::map<std::string, std::string> members;
    std::string list = "[";
    for (const auto& f : files) {
        if (list.size() > 1) list += ",";
        list += "{\"name\":";
        runtime::append_json_string(list, f.name);
        list += ",\"hash\":";
        runtime::append_json_string(list, f.hash);
        list += ",\"algorithm\":";
        runtime::append_json_string(list, f.algorithm);
        list += "}";
    }
    members["files"] = list + "]";
    if (!config.claims_file.empty()) {
        runtime::FileRead read = runtime::read_whole_file(config.claims_file);
        if (!read.ok) {
            error = read.message;
            return std::nullopt;
        }
        auto claims = runtime::parse_json(read.text);
        if (!claims || !claims.value.is_object()) {
            error = claims ? "json: cannot unmarshal claims file into an object" : claims.error.message;
            return std::nullopt;
        }
        for (const auto& e : claims.value.object_entries())
            members[e.key.is_string() ? std::string(e.key.as_string()) : runtime::to_json(e.key)] =
                runtime::to_json(e.value);
    } else if (!key_id.empty()) {
        members["keyid"] = runtime::to_json(Value::string(key_id));  // deprecated, kept as OPA does
    }
    std::string payload = "{";
    for (const auto& [name, json] : members) {
        if (payload.size() > 1) payload += ",";
        runtime::append_json_string(payload, name);
        payload += ":" + json;
    }
    payload += "}";
    std::string header = "{\"alg\":";
    runtime::append_json_string(header, config.algorithm);
    if (!key_id.empty()) {
        header += ",\"kid\":";
        runtime::append_json_string(header, key_id);
    }
    header += "}";
    std::string input =
        b64url(support::escape_html_in_json(header)) + "." + b64url(support::escape_html_in_json(payload));
    auto signature = jws::sign(*alg, key, input, error);
    if (!signature) return std::nullopt;
    return input + "." + b64url(*signature);
}

std::string signatures_json(const std::string& token) {
    std::string out = "{\n \"signatures\": [\n  ";
    runtime::append_json_string(out, token);
    out += "\n ],\n \"plugin\": ";
    runtime::append_json_string(out, kDefaultVerifierId);
    out += "\n}";
    return out;
}

std::optional<SignaturesFile> parse_signatures(std::string_view text, std::string& error) {
    auto parsed = runtime::parse_json(text);
    if (!parsed || !parsed.value.is_object()) {
        error = "bundle load failed on signatures decode: " +
                (parsed ? std::string("not a JSON object") : parsed.error.message);
        return std::nullopt;
    }
    SignaturesFile file;
    if (const Value* s = parsed.value.find("signatures"); s && !s->is_null()) {
        if (!s->is_array()) {
            error =
                "bundle load failed on signatures decode: json: cannot unmarshal into Go struct field "
                "SignaturesConfig.signatures of type []string";
            return std::nullopt;
        }
        for (const auto& t : s->array_elements()) {
            if (!t.is_string()) {
                error =
                    "bundle load failed on signatures decode: json: cannot unmarshal into Go struct field "
                    "SignaturesConfig.signatures of type string";
                return std::nullopt;
            }
            file.tokens.emplace_back(t.as_string());
        }
        file.signed_bundle = true;
    }
    if (const Value* p = parsed.value.find("plugin"); p && !p->is_null()) {
        if (!p->is_string()) {
            error =
                "bundle load failed on signatures decode: json: cannot unmarshal into Go struct field "
                "SignaturesConfig.plugin of type string";
            return std::nullopt;
        }
        file.plugin = std::string(p->as_string());
        if (!file.plugin.empty()) file.signed_bundle = true;
    }
    return file;
}

std::optional<std::map<std::string, FileDigest>> verify_bundle_signature(const SignaturesFile& file,
                                                                         const VerificationConfig& config,
                                                                         std::string& error) {
    if (!file.plugin.empty() && file.plugin != kDefaultVerifierId)
        return error = "no verifier exists under id " + file.plugin, std::nullopt;
    return verify_signatures(file.tokens, config, error);
}

std::optional<std::map<std::string, FileDigest>> verify_signatures(const std::vector<std::string>& tokens,
                                                                   const VerificationConfig& config,
                                                                   std::string& error) {
    if (tokens.empty()) return error = ".signatures.json: missing JWT (expected exactly one)", std::nullopt;
    if (tokens.size() > 1)
        return error = ".signatures.json: multiple JWTs not supported (expected exactly one)", std::nullopt;
    const std::string& token = tokens[0];
    auto dot1 = token.find('.');
    auto dot2 = dot1 == std::string::npos ? std::string::npos : token.find('.', dot1 + 1);
    if (dot1 == std::string::npos || dot2 == std::string::npos || token.find('.', dot2 + 1) != std::string::npos)
        return error = "failed to split compact JWT: invalid number of segments", std::nullopt;
    std::string_view header_b64(token.data(), dot1), payload_b64(token.data() + dot1 + 1, dot2 - dot1 - 1),
        signature_b64(token.data() + dot2 + 1, token.size() - dot2 - 1);

    std::string key_id = config.key_id;
    if (key_id.empty()) {
        std::string e;
        auto header = b64url_decode(header_b64, e);
        auto parsed = header ? runtime::parse_json(*header) : runtime::ParseResult{};
        if (!header || !parsed || !parsed.value.is_object())
            return error = "failed to extract key ID from headers: invalid header", std::nullopt;
        if (const Value* kid = parsed.value.find("kid")) {
            if (!kid->is_string())
                return error = "failed to extract key ID from headers: kid is not a string", std::nullopt;
            key_id = std::string(kid->as_string());
        }
    }
    std::string e;
    auto payload = b64url_decode(payload_b64, e);
    if (!payload) return error = "failed to base64 decode JWT payload: " + e, std::nullopt;
    auto doc = runtime::parse_json(*payload);
    if (!doc) return error = doc.error.message, std::nullopt;
    if (!doc.value.is_object())
        return error = "json: cannot unmarshal into Go value of type bundle.DecodedSignature", std::nullopt;
    auto string_claim = [&](std::string_view name) {
        const Value* v = doc.value.find(name);
        return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    if (key_id.empty()) key_id = string_claim("keyid");
    if (key_id.empty()) return error = "verification key ID is empty", std::nullopt;
    auto kc = config.public_keys.find(key_id);
    if (kc == config.public_keys.end())
        return error = "verification key corresponding to ID " + key_id + " not found", std::nullopt;
    const KeyConfig& key = kc->second;
    const jws::Algorithm* alg = jws::find(key.algorithm);
    if (!alg || !is_supported_algorithm(key.algorithm))
        return error = "unsupported signature algorithm: " + key.algorithm, std::nullopt;
    auto signature = b64url_decode(signature_b64, e);
    if (!signature) return error = "failed to decode signature: " + e, std::nullopt;
    std::string signing_input(token.data(), dot2);
    // OPA's (jws.Verify) texts: "failed to verify message: " and the verifier's reason.
    std::string why;
    if (is_hmac(key.algorithm)) {
        if (!jws::verify_hmac(*alg, key.key, signing_input, *signature)) why = "failed to match hmac signature";
    } else {
        std::string_view rest;
        auto block = crypto::pem_decode(key.key, rest);
        if (!block) return error = "failed to parse PEM block containing the key", std::nullopt;
        auto pkey = parse_der_key(*block, false, error);
        if (!pkey) return std::nullopt;
        const bool ecdsa = key.algorithm.starts_with("ES");
        const std::string type = key_type_of(pkey.get());
        const std::string go_type = type == "RSA"  ? "*rsa.PublicKey"
                                    : type == "EC" ? "*ecdsa.PublicKey"
                                                   : "*ed25519.PublicKey";
        if (type != (ecdsa ? "EC" : "RSA"))
            why =
                "invalid key type " + go_type + ". " + (ecdsa ? "*ecdsa.PublicKey" : "*rsa.PublicKey") + " is required";
        else if (jws::verify(*alg, pkey.get(), signing_input, *signature) != jws::Outcome::Valid)
            why = ecdsa ? "failed to verify signature using ecdsa" : "crypto/rsa: verification error";
    }
    if (!why.empty()) return error = "failed to verify message: " + why, std::nullopt;
    std::string scope = config.scope.empty() ? key.scope : config.scope;
    if (string_claim("scope") != scope) return error = "scope mismatch", std::nullopt;
    std::map<std::string, FileDigest> files;
    if (const Value* list = doc.value.find("files"); list && list->is_array()) {
        for (const auto& f : list->array_elements()) {
            if (!f.is_object()) continue;
            auto get = [&](std::string_view k) {
                const Value* v = f.find(k);
                return v && v->is_string() ? std::string(v->as_string()) : std::string();
            };
            FileDigest d{get("name"), get("hash"), get("algorithm")};
            files[d.name] = d;
        }
    }
    return files;
}

namespace {

// The file's entry in the signature, or false and OPA's error.
bool signed_entry(const std::string& path, std::map<std::string, FileDigest>& files,
                  std::map<std::string, FileDigest>::iterator& it, std::string& error) {
    it = files.find(path);
    if (it == files.end()) return error = "file " + path + " not included in bundle signature", false;
    if (it->second.algorithm.empty()) return error = "no hashing algorithm provided for file " + path, false;
    return true;
}

bool compare_digest(const std::string& path, const std::string& got, std::map<std::string, FileDigest>& files,
                    std::map<std::string, FileDigest>::iterator it, std::string& error) {
    std::string want = it->second.hash;
    for (auto& c : want) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (want != got) return error = path + ": digest mismatch (want: " + it->second.hash + ", got: " + got + ")", false;
    files.erase(it);
    return true;
}

}  // namespace

bool verify_bundle_file(const std::string& path, std::string_view bytes, std::map<std::string, FileDigest>& files,
                        std::string& error) {
    std::map<std::string, FileDigest>::iterator it;
    if (!signed_entry(path, files, it, error)) return false;
    auto hash = hash_file(path, bytes, it->second.algorithm, error);
    if (!hash) return false;
    return compare_digest(path, *hash, files, it, error);
}

bool verify_bundle_file_sha256(const std::string& path, const std::string& sha256_hex,
                               std::map<std::string, FileDigest>& files, std::string& error) {
    std::map<std::string, FileDigest>::iterator it;
    if (!signed_entry(path, files, it, error)) return false;
    if (it->second.algorithm != kDefaultHashAlgorithm) {
        std::string check;
        if (!hash_bytes("", it->second.algorithm, check)) return error = check, false;  // OPA's unknown-algorithm error
        return error = "file " + path + ": gavel checks files it does not load by their " +
                       std::string(kDefaultHashAlgorithm) + " digest only, not " + it->second.algorithm,
               false;
    }
    return compare_digest(path, sha256_hex, files, it, error);
}

}  // namespace gavel::engine::bundle
