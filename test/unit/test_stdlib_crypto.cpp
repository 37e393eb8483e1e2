// Builtins of the crypto families (crypto.*, io.jwt.*, net.*): edge cases
// beyond the conformance suite (unicode, IPv6 text, big CIDRs, key types,
// malformed input, error messages).

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <vector>

#include "runtime/json.hpp"
#include "stdlib/crypto_support.hpp"
#include "stdlib/ip_network.hpp"
#include "stdlib/registry.hpp"

namespace {

using gavel::runtime::Value;
using gavel::stdlib::BuiltinResult;
using Status = BuiltinResult::Status;

BuiltinResult call(const std::string& name, const std::vector<std::string>& json_args, int64_t now_ns = 0) {
    const auto* b = gavel::stdlib::standard_registry().find(name);
    REQUIRE_MESSAGE(b != nullptr, name);
    std::vector<Value> args;
    for (const auto& j : json_args) {
        auto parsed = gavel::runtime::parse_json(j);
        REQUIRE_MESSAGE(parsed.ok, j);
        args.push_back(parsed.value);
    }
    gavel::stdlib::BuiltinContext ctx;
    ctx.now_ns = now_ns;
    return b->impl(args, ctx);
}

// The result as JSON, or "error: <message>" / "type error: <message>".
std::string eval(const std::string& name, const std::vector<std::string>& json_args, int64_t now_ns = 0) {
    auto r = call(name, json_args, now_ns);
    switch (r.status) {
        case Status::Value: return gavel::runtime::to_json(r.value);
        case Status::Undefined: return "undefined";
        case Status::TypeError: return "type error: " + r.message;
        case Status::BuiltinError: return "error: " + r.message;
        case Status::Conflict: return "conflict: " + r.message;
        case Status::Cancelled: return "cancelled";
    }
    return "?";
}

std::string quoted(const std::string& s) {
    std::string out;
    gavel::runtime::append_json_string(out, s);
    return out;
}

// An oct JWK whose key bytes are the text "secret".
const std::string kHsKey = R"({"kty":"oct","k":"c2VjcmV0"})";

}  // namespace

TEST_CASE("stdlib crypto: crypto.sha256 is registered") {
    CHECK(gavel::stdlib::standard_registry().find("crypto.sha256") != nullptr);
}

TEST_CASE("stdlib crypto: digests and HMACs of empty and unicode input") {
    CHECK(eval("crypto.md5", {R"("")"}) == R"("d41d8cd98f00b204e9800998ecf8427e")");
    CHECK(eval("crypto.sha1", {R"("")"}) == R"("da39a3ee5e6b4b0d3255bfef95601890afd80709")");
    CHECK(eval("crypto.sha256", {R"("é")"}) == R"("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c")");
    // RFC 4231 test case 2 (key "Jefe").
    CHECK(eval("crypto.hmac.sha256", {R"("what do ya want for nothing?")", R"("Jefe")"}) ==
          R"("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")");
    // An empty key is a valid HMAC key.
    CHECK(eval("crypto.hmac.sha1", {R"("")", R"("")"}) == R"("fbdb1d1b18aa6c08324b7d64b71fb76370690e1d")");
    CHECK(eval("crypto.hmac.md5", {"1", R"("k")"}) == "type error: operand 1 must be string but got number");
    CHECK(eval("crypto.hmac.sha512", {R"("m")", "[]"}) == "type error: operand 2 must be string but got array");
}

TEST_CASE("stdlib crypto: crypto.hmac.equal compares exactly, lengths included") {
    CHECK(eval("crypto.hmac.equal", {R"("abc")", R"("abc")"}) == "true");
    CHECK(eval("crypto.hmac.equal", {R"("abc")", R"("abd")"}) == "false");
    CHECK(eval("crypto.hmac.equal", {R"("abc")", R"("abcd")"}) == "false");
    CHECK(eval("crypto.hmac.equal", {R"("")", R"("")"}) == "true");
}

TEST_CASE("stdlib crypto: base64 decoding reports Go's error offsets") {
    using gavel::stdlib::crypto::base64_decode;
    CHECK(base64_decode("aGk=").bytes == "hi");
    CHECK(base64_decode("aG\nk=").bytes == "hi");  // newlines are skipped
    CHECK_FALSE(base64_decode("aGk").ok);
    CHECK(base64_decode("aGk").bad_offset == 0);
    CHECK(base64_decode("ab^d").bad_offset == 2);
    CHECK(base64_decode("aGk=x").bad_offset == 4);  // trailing garbage
    CHECK(base64_decode("", true).ok);
}

TEST_CASE("stdlib crypto: IPv6 text follows Go's net.IP.String") {
    using namespace gavel::stdlib::ip;
    auto fmt = [](const char* s) { return format_address(*parse_address(s)); };
    CHECK(fmt("2001:0db8:0000:0000:0000:0000:0000:0001") == "2001:db8::1");
    CHECK(fmt("2001:db8:0:1:0:0:0:1") == "2001:db8:0:1::1");       // longest run wins
    CHECK(fmt("2001:0:0:1:0:0:1:1") == "2001::1:0:0:1:1");         // first of equal runs
    CHECK(fmt("2001:db8:1:1:1:1:0:1") == "2001:db8:1:1:1:1:0:1");  // a single zero group stays
    CHECK(fmt("::ffff:10.1.2.3") == "10.1.2.3");                   // IPv4-mapped prints dotted
    CHECK(fmt("::") == "::");
    CHECK_FALSE(parse_address("010.0.0.1").has_value());     // leading zeros rejected
    CHECK_FALSE(parse_address("fe80::1%eth0").has_value());  // zones rejected
    CHECK_FALSE(parse_address("").has_value());
}

TEST_CASE("stdlib crypto: net.cidr_contains across families and malformed input") {
    CHECK(eval("net.cidr_contains", {R"("10.0.0.0/8")", R"("::ffff:10.1.1.1")"}) == "true");
    CHECK(eval("net.cidr_contains", {R"("::/0")", R"("10.1.1.1")"}) == "false");  // Go: families differ
    CHECK(eval("net.cidr_contains", {R"("0.0.0.0/0")", R"("255.255.255.255/32")"}) == "true");
    CHECK(eval("net.cidr_contains", {R"("10.0.0.0/33")", R"("10.0.0.1")"}) ==
          "error: invalid CIDR address: 10.0.0.0/33");
    CHECK(eval("net.cidr_contains", {R"("10.0.0.0/8")", R"("x")"}) ==
          "error: not a valid textual representation of an IP address or CIDR: x");
    CHECK(eval("net.cidr_contains", {"1", R"("x")"}) == "type error: operand 1 must be string but got number");
    CHECK(eval("net.cidr_intersects", {R"("::/0")", R"("fe80::/10")"}) == "true");
    CHECK(eval("net.cidr_is_valid", {R"("10.0.0.0/-1")"}) == "false");
    CHECK(eval("net.cidr_is_valid", {"7"}) == "false");
}

TEST_CASE("stdlib crypto: net.cidr_expand, bounded by cancellation rather than a size limit (as OPA)") {
    CHECK(eval("net.cidr_expand", {R"("fe80::/127")"}) == R"(["fe80::","fe80::1"])");
    CHECK(eval("net.cidr_expand", {R"("255.255.255.254/31")"}) == R"(["255.255.255.254","255.255.255.255"])");
    auto wide = gavel::runtime::parse_json(R"("::/0")").value;
    std::atomic<bool> cancelled{true};
    gavel::stdlib::BuiltinContext ctx;
    ctx.cancel = &cancelled;
    auto b = gavel::stdlib::standard_registry().find("net.cidr_expand");
    REQUIRE(b != nullptr);
    std::vector<gavel::runtime::Value> args{wide};
    CHECK(b->impl(args, ctx).status == Status::Cancelled);
    CHECK(eval("net.cidr_expand", {R"("10.0.0.0/11")"}).size() > (std::size_t{1} << 21) * 9);  // 2 Mi addresses
}

TEST_CASE("stdlib crypto: net.cidr_merge keeps unmerged networks and merges IPv6") {
    CHECK(eval("net.cidr_merge", {R"(["192.0.2.112"])"}) == R"(["192.0.2.112/24"])");  // Go keeps the host bits
    CHECK(eval("net.cidr_merge", {R"(["10.1.2.3"])"}) == R"(["10.1.2.3/8"])");         // class A default mask
    CHECK(eval("net.cidr_merge", {R"(["2001:db8::/33", "2001:db8:8000::/33"])"}) == R"(["2001:db8::/32"])");
    CHECK(eval("net.cidr_merge", {R"(["0.0.0.0/1", "128.0.0.0/1"])"}) == R"(["0.0.0.0/0"])");
    CHECK(eval("net.cidr_merge", {R"([1])"}) == "error: element must be string");
    CHECK(eval("net.cidr_merge", {R"("10.0.0.0/8")"}) == "error: operand must be an array");
}

TEST_CASE("stdlib crypto: net.lookup_ip_addr answers literals and localhost; other names need allow_net") {
    CHECK(eval("net.lookup_ip_addr", {R"("2001:DB8::1")"}) == R"(["2001:db8::1"])");
    CHECK(eval("net.lookup_ip_addr", {R"("example.com")"}) == "error: unallowed host: example.com");
    CHECK(eval("net.lookup_ip_addr", {R"("localhost")"}).find("error") == std::string::npos);  // 127.0.0.1 and/or ::1
}

TEST_CASE("stdlib crypto: io.jwt.decode errors name the broken section") {
    CHECK(eval("io.jwt.decode", {R"("a.b")"}) == "error: encoded JWT must have 3 sections, found 2");
    CHECK(eval("io.jwt.decode", {R"("abc")"}) == "error: encoded JWT had no period separators");
    CHECK(eval("io.jwt.decode", {R"("a.b.c.d")"}) == "error: encoded JWT must have 3 sections, found 4");
    // Header "[]" (WzBd is "[0]") is JSON but not an object.
    CHECK(eval("io.jwt.decode", {R"("WzBd.e30.")"}) == "error: bad JWT header: decoded JSON type was not an Object");
    CHECK(eval("io.jwt.decode", {R"("e30.e30.a")"}) ==
          "error: JWT signature had invalid encoding: illegal base64url string: a");
}

TEST_CASE("stdlib crypto: HS256 sign and verify round trip, unicode payload") {
    auto token = call("io.jwt.encode_sign", {R"({"alg":"HS256"})", R"({"name":"Ωmega <&>"})", kHsKey});
    REQUIRE(token.status == Status::Value);
    std::string t(token.value.as_string());
    // Go's json.Marshal escapes <, > and & in the signed payload.
    auto decoded = call("io.jwt.decode", {quoted(t)});
    REQUIRE(decoded.status == Status::Value);
    CHECK(gavel::runtime::to_json(decoded.value.array_elements()[1]) == R"({"name":"Ωmega <&>"})");
    CHECK(eval("io.jwt.verify_hs256", {quoted(t), R"("secret")"}) == "true");
    CHECK(eval("io.jwt.verify_hs256", {quoted(t), R"("Secret")"}) == "false");
    CHECK(eval("io.jwt.verify_hs384", {quoted(t), R"("secret")"}) == "false");
}

TEST_CASE("stdlib crypto: encode_sign marshals operands of any type, as OPA (only the type checker wants objects)") {
    // A payload that is no object is signed as its JSON text (OPA 1.7.1's token for these).
    auto number = call("io.jwt.encode_sign", {R"({"alg":"HS256"})", "1e0", R"({"kty":"oct","k":"AAAA"})"});
    REQUIRE(number.status == Status::Value);
    CHECK(number.value.as_string() == "eyJhbGciOiJIUzI1NiJ9.MWUw.f8WtNBjl9klCmJNL9CGgfSHyDWnVL212f4LzX_X2eLs");
    // A key or header that is no object fails as a builtin error, not a type error.
    CHECK(call("io.jwt.encode_sign", {R"({"alg":"HS256"})", "{}", "1"}).status == Status::BuiltinError);
    CHECK(call("io.jwt.encode_sign", {"1", "{}", R"({"kty":"oct","k":"AAAA"})"}).status == Status::BuiltinError);
}

TEST_CASE("stdlib crypto: decode_verify checks constraints") {
    auto token = call("io.jwt.encode_sign_raw",
                      {R"("{\"alg\":\"HS256\",\"typ\":\"JWT\"}")",
                       R"("{\"iss\":\"me\",\"aud\":[\"a\",\"b\"],\"exp\":2000,\"nbf\":1000}")", quoted(kHsKey)});
    REQUIRE(token.status == Status::Value);
    std::string t = quoted(std::string(token.value.as_string()));
    // exp 2000 s and nbf 1000 s against a time in nanoseconds.
    CHECK(
        eval("io.jwt.decode_verify", {t, R"({"secret":"secret","time":1500000000000,"aud":"a"})"}).rfind("[true,", 0) ==
        0);
    // A token with an audience needs an aud constraint naming one of them.
    CHECK(eval("io.jwt.decode_verify", {t, R"({"secret":"secret","time":1500000000000})"}) == "[false,{},{}]");
    CHECK(eval("io.jwt.decode_verify", {t, R"({"secret":"secret","time":2000000000000})"}) == "[false,{},{}]");
    CHECK(eval("io.jwt.decode_verify", {t, R"({"secret":"secret","time":999999999999})"}) == "[false,{},{}]");
    CHECK(eval("io.jwt.decode_verify", {t, R"({"secret":"secret","time":1500000000000,"aud":"b","iss":"me"})"})
              .rfind("[true,", 0) == 0);
    CHECK(eval("io.jwt.decode_verify", {t, R"({"secret":"secret","time":1500000000000,"iss":"you"})"}) ==
          "[false,{},{}]");
    CHECK(eval("io.jwt.decode_verify", {t, R"({"secret":"nope","time":1500000000000})"}) == "[false,{},{}]");
    CHECK(eval("io.jwt.decode_verify", {t, R"({"secret":"secret","alg":"HS512","time":1500000000000})"}) ==
          "[false,{},{}]");
    CHECK(eval("io.jwt.decode_verify", {t, R"({"time":1})"}) == "error: no key constraint");
    CHECK(eval("io.jwt.decode_verify", {t, R"({"secret":"a","cert":"b"})"}).rfind("error: failed to parse a JWK", 0) ==
          0);
    CHECK(eval("io.jwt.decode_verify", {t, R"({"secret":"a","bogus":1})"}) ==
          "error: unknown token validation constraint: bogus");
    CHECK(eval("io.jwt.decode_verify", {t, R"({"secret":"a","time":-1})"}) ==
          "error: token time constraint: must not be negative");
    CHECK(eval("io.jwt.decode_verify", {t, "[]"}) == "type error: operand 2 must be object but got array");
}

TEST_CASE("stdlib crypto: ES256 and EdDSA sign with JWKs and verify with the public half") {
    const std::string ec_private =
        R"({"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"})";
    const std::string ec_public =
        R"({"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"})";
    auto es = call("io.jwt.encode_sign", {R"({"alg":"ES256"})", R"({"sub":"x"})", ec_private});
    REQUIRE(es.status == Status::Value);
    std::string es_token = quoted(std::string(es.value.as_string()));
    CHECK(eval("io.jwt.verify_es256", {es_token, quoted(ec_public)}) == "true");
    // The private JWK is not a public key: Go's type check fails, so false.
    CHECK(eval("io.jwt.verify_es256", {es_token, quoted(ec_private)}) == "false");
    CHECK(eval("io.jwt.decode_verify", {es_token, R"({"cert":)" + quoted(ec_public) + "}"}) ==
          R"([true,{"alg":"ES256"},{"sub":"x"}])");

    const std::string ed_private =
        R"({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"})";
    const std::string ed_public = R"({"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})";
    auto ed = call("io.jwt.encode_sign", {R"({"alg":"EdDSA"})", R"({"sub":"x"})", ed_private});
    REQUIRE(ed.status == Status::Value);
    std::string ed_token = quoted(std::string(ed.value.as_string()));
    CHECK(eval("io.jwt.verify_eddsa", {ed_token, quoted(ed_public)}) == "true");
    CHECK(eval("io.jwt.verify_es256", {ed_token, quoted(ec_public)}) == "false");
    // Signing with a key that does not fit the algorithm is an error.
    CHECK(eval("io.jwt.encode_sign", {R"({"alg":"RS256"})", "{}", ed_private}).rfind("error: invalid key type", 0) ==
          0);
}

TEST_CASE("stdlib crypto: encode_sign header errors") {
    CHECK(eval("io.jwt.encode_sign_raw", {R"("{\"alg\":1}")", R"("{}")", quoted(kHsKey)}) ==
          "error: missing or invalid 'alg' header: alg must be a string");
    CHECK(eval("io.jwt.encode_sign_raw", {R"("{\"alg\":\"none\"}")", R"("{}")", quoted(kHsKey)}) ==
          "error: unknown JWS algorithm: none");
    // A non-JWT typ allows any payload bytes.
    CHECK(eval("io.jwt.encode_sign_raw",
               {R"("{\"alg\":\"HS256\",\"typ\":\"text/plain\"}")", R"("not json")", quoted(kHsKey)})
              .rfind("\"eyJ", 0) == 0);
}

TEST_CASE("stdlib crypto: x509 parsing of malformed input never crashes") {
    CHECK(eval("crypto.x509.parse_certificates", {R"("foobar")"}) == "error: illegal base64 data at input byte 4");
    CHECK(eval("crypto.x509.parse_certificates", {R"("YmFkc3RyaW5n")"}) == "error: x509: malformed certificate");
    // A PEM header with nothing decodable yields no certificates.
    CHECK(eval("crypto.x509.parse_certificates", {R"("-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----")"}) ==
          "[]");
    CHECK(
        eval("crypto.x509.parse_certificates", {R"("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")"}) ==
        "error: PEM block type is 'PUBLIC KEY', expected CERTIFICATE");
    CHECK(eval("crypto.x509.parse_and_verify_certificates", {R"("foobar")"}) == "[false,[]]");
    CHECK(eval("crypto.x509.parse_and_verify_certificates_with_options", {R"("foobar")", R"({"Bogus":1})"}) ==
          "[false,[]]");
    CHECK(eval("crypto.x509.parse_rsa_private_key", {R"("")"}) == "error: input PEM data was empty");
    CHECK(eval("crypto.parse_private_keys", {R"("")"}) == "null");
    CHECK(eval("crypto.parse_private_keys", {R"("nope")"}) == "[]");
}
