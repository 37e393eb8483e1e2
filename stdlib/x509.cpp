// X.509 parsing, verification and Go-shaped output (see x509.hpp).

#include "stdlib/x509.hpp"

#include <openssl/core_names.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <functional>

#include "stdlib/ip_network.hpp"
#include "stdlib/jwk.hpp"

namespace gavel::stdlib::x509 {

namespace {

using runtime::ArrayBuilder;
using runtime::ObjectBuilder;
using runtime::Value;

constexpr std::string_view kBegin = "-----BEGIN";
using StorePtr = std::unique_ptr<X509_STORE, crypto::Freer<X509_STORE, X509_STORE_free>>;
using StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, crypto::Freer<X509_STORE_CTX, X509_STORE_CTX_free>>;
using GeneralNamesPtr = std::unique_ptr<GENERAL_NAMES, crypto::Freer<GENERAL_NAMES, GENERAL_NAMES_free>>;

void free_x509_stack(STACK_OF(X509) * s) { sk_X509_pop_free(s, X509_free); }
void free_ext_stack(STACK_OF(X509_EXTENSION) * s) { sk_X509_EXTENSION_pop_free(s, X509_EXTENSION_free); }
using X509StackPtr = std::unique_ptr<STACK_OF(X509), crypto::Freer<STACK_OF(X509), free_x509_stack>>;
using ExtStackPtr = std::unique_ptr<STACK_OF(X509_EXTENSION), crypto::Freer<STACK_OF(X509_EXTENSION), free_ext_stack>>;

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

Value str(std::string_view s) { return Value::string(s); }
// Go marshals []byte as standard base64.
Value bytes_value(std::string_view b) { return Value::string(crypto::base64_encode(b)); }
Value big_value(const std::string& decimal) { return Value::number(runtime::Number::from_decimal_integer(decimal)); }
Value null_or_array(ArrayBuilder& b) { return b.size() == 0 ? Value::null() : b.build(); }

std::string_view view(const ASN1_STRING* s) {
    if (!s) return {};
    return {reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), static_cast<std::size_t>(ASN1_STRING_length(s))};
}

template <class T>
std::string der(const T* obj, int (*encode)(const T*, unsigned char**)) {
    if (!obj) return {};
    unsigned char* out = nullptr;
    int len = encode(obj, &out);
    if (len <= 0) return {};
    std::string s(reinterpret_cast<char*>(out), static_cast<std::size_t>(len));
    OPENSSL_free(out);
    return s;
}

std::string oid_text(const ASN1_OBJECT* obj) {
    char buf[256];
    int n = OBJ_obj2txt(buf, sizeof buf, obj, 1);
    return n > 0 ? std::string(buf, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof buf - 1)) : std::string();
}

// Go's asn1.ObjectIdentifier marshals as an array of integers.
Value oid_value(const ASN1_OBJECT* obj) {
    ArrayBuilder b;
    std::string text = oid_text(obj);
    std::size_t start = 0;
    while (start <= text.size() && !text.empty()) {
        std::size_t dot = text.find('.', start);
        std::string part = text.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        b.push_back(Value::number(runtime::Number::from_decimal_integer(part.empty() ? "0" : part)));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return b.build();
}

std::string utf8(const ASN1_STRING* s) {
    unsigned char* out = nullptr;
    int n = ASN1_STRING_to_UTF8(&out, s);
    if (n < 0) return std::string(view(s));
    std::string r(reinterpret_cast<char*>(out), static_cast<std::size_t>(n));
    OPENSSL_free(out);
    return r;
}

// RFC 3339 as Go's time.Time marshals (UTC certificates: trailing Z).
Value time_value(const ASN1_TIME* t) {
    std::tm tm{};
    if (!t || !ASN1_TIME_to_tm(t, &tm)) return str("0001-01-01T00:00:00Z");
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return str(buf);
}

// pkix.Name: the well-known attributes, plus every attribute in Names.
Value name_value(const X509_NAME* name) {
    struct Multi {
        int nid;
        const char* field;
        ArrayBuilder values;
    };
    Multi multi[] = {{NID_countryName, "Country", {}},
                     {NID_organizationName, "Organization", {}},
                     {NID_organizationalUnitName, "OrganizationalUnit", {}},
                     {NID_localityName, "Locality", {}},
                     {NID_stateOrProvinceName, "Province", {}},
                     {NID_streetAddress, "StreetAddress", {}},
                     {NID_postalCode, "PostalCode", {}}};
    std::string common_name, serial;
    ArrayBuilder names;
    int count = name ? X509_NAME_entry_count(name) : 0;
    for (int i = 0; i < count; ++i) {
        const X509_NAME_ENTRY* e = X509_NAME_get_entry(name, i);
        const ASN1_OBJECT* obj = X509_NAME_ENTRY_get_object(e);
        std::string value = utf8(X509_NAME_ENTRY_get_data(e));
        int nid = OBJ_obj2nid(obj);
        if (nid == NID_commonName) common_name = value;
        if (nid == NID_serialNumber) serial = value;
        for (auto& m : multi)
            if (m.nid == nid) m.values.push_back(str(value));
        names.push_back(Value::object({{str("Type"), oid_value(obj)}, {str("Value"), str(value)}}));
    }
    ObjectBuilder o;
    for (auto& m : multi) o.insert(str(m.field), null_or_array(m.values));
    o.insert(str("SerialNumber"), str(serial));
    o.insert(str("CommonName"), str(common_name));
    o.insert(str("Names"), null_or_array(names));
    o.insert(str("ExtraNames"), Value::null());
    return o.build();
}

// Go's url.URL struct, for the simple absolute URIs certificates carry.
Value url_value(std::string_view uri) {
    std::string scheme, opaque, host, path, query, fragment;
    std::string_view rest = uri;
    if (auto hash = rest.find('#'); hash != std::string_view::npos) {
        fragment = std::string(rest.substr(hash + 1));
        rest = rest.substr(0, hash);
    }
    if (auto colon = rest.find(':'); colon != std::string_view::npos && colon > 0 &&
                                     rest.substr(0, colon).find_first_of("/?") == std::string_view::npos) {
        scheme = std::string(rest.substr(0, colon));
        for (auto& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        rest = rest.substr(colon + 1);
    }
    if (auto q = rest.find('?'); q != std::string_view::npos) {
        query = std::string(rest.substr(q + 1));
        rest = rest.substr(0, q);
    }
    if (starts_with(rest, "//")) {
        rest.remove_prefix(2);
        auto slash = rest.find('/');
        host = std::string(rest.substr(0, slash));
        path = slash == std::string_view::npos ? std::string() : std::string(rest.substr(slash));
    } else if (!scheme.empty() && !starts_with(rest, "/")) {
        opaque = std::string(rest);
    } else {
        path = std::string(rest);
    }
    return Value::object({{str("Scheme"), str(scheme)},
                          {str("Opaque"), str(opaque)},
                          {str("User"), Value::null()},
                          {str("Host"), str(host)},
                          {str("Path"), str(path)},
                          {str("RawPath"), str("")},
                          {str("OmitHost"), Value::boolean(false)},
                          {str("ForceQuery"), Value::boolean(false)},
                          {str("RawQuery"), str(query)},
                          {str("Fragment"), str(fragment)},
                          {str("RawFragment"), str("")}});
}

std::string ip_text(std::string_view raw) {
    ip::u128 a = 0;
    for (unsigned char c : raw) a = (a << 8) | c;
    if (raw.size() == 4) a |= ip::u128{0xffff} << 32;
    else if (raw.size() != 16) return "?" + crypto::hex(raw);  // Go: "?" + hex for bad lengths
    return ip::format_address(a);
}

// Subject alternative names, split as Go's Certificate fields.
struct AltNames {
    ArrayBuilder dns, email, ips, uris, uri_strings;
};

void collect_alt_names(GENERAL_NAMES* names, AltNames& out) {
    for (int i = 0; names && i < sk_GENERAL_NAME_num(names); ++i) {
        const GENERAL_NAME* g = sk_GENERAL_NAME_value(names, i);
        switch (g->type) {
            case GEN_DNS: out.dns.push_back(str(view(g->d.dNSName))); break;
            case GEN_EMAIL: out.email.push_back(str(view(g->d.rfc822Name))); break;
            case GEN_IPADD: out.ips.push_back(str(ip_text(view(g->d.iPAddress)))); break;
            case GEN_URI:
                out.uris.push_back(url_value(view(g->d.uniformResourceIdentifier)));
                out.uri_strings.push_back(str(view(g->d.uniformResourceIdentifier)));
                break;
            default: break;
        }
    }
}

// Go's x509 enums.
int signature_algorithm(X509* cert) {
    int md = NID_undef, pk = NID_undef;
    X509_get_signature_info(cert, &md, &pk, nullptr, nullptr);
    int sig = X509_get_signature_nid(cert);
    switch (sig) {
        case NID_md2WithRSAEncryption: return 1;
        case NID_md5WithRSAEncryption: return 2;
        case NID_sha1WithRSAEncryption: return 3;
        case NID_sha256WithRSAEncryption: return 4;
        case NID_sha384WithRSAEncryption: return 5;
        case NID_sha512WithRSAEncryption: return 6;
        case NID_dsaWithSHA1: return 7;
        case NID_dsa_with_SHA256: return 8;
        case NID_ecdsa_with_SHA1: return 9;
        case NID_ecdsa_with_SHA256: return 10;
        case NID_ecdsa_with_SHA384: return 11;
        case NID_ecdsa_with_SHA512: return 12;
        case NID_rsassaPss: return md == NID_sha384 ? 14 : md == NID_sha512 ? 15 : md == NID_sha256 ? 13 : 0;
        case NID_ED25519: return 16;
        default: return 0;
    }
}

int public_key_algorithm(EVP_PKEY* key) {
    if (!key) return 0;
    switch (EVP_PKEY_get_base_id(key)) {
        case EVP_PKEY_RSA: return 1;
        case EVP_PKEY_DSA: return 2;
        case EVP_PKEY_EC: return 3;
        case EVP_PKEY_ED25519: return 4;
        default: return 0;
    }
}

std::string bn_decimal(EVP_PKEY* key, const char* param) {
    BIGNUM* bn = nullptr;
    if (!EVP_PKEY_get_bn_param(key, param, &bn)) return "0";
    crypto::BignumPtr owned(bn);
    return crypto::bignum_to_decimal(bn);
}

// Go's json.Marshal of a crypto public or private key.
Value key_value(EVP_PKEY* key, bool with_private) {
    if (!key) return Value::null();
    switch (EVP_PKEY_get_base_id(key)) {
        case EVP_PKEY_RSA: {
            ObjectBuilder o;
            o.insert(str("N"), big_value(bn_decimal(key, OSSL_PKEY_PARAM_RSA_N)));
            o.insert(str("E"), big_value(bn_decimal(key, OSSL_PKEY_PARAM_RSA_E)));
            if (!with_private) return o.build();
            // rsa.PrivateKey embeds PublicKey: N and E sit at the top level.
            o.insert(str("D"), big_value(bn_decimal(key, OSSL_PKEY_PARAM_RSA_D)));
            o.insert(str("Primes"), Value::array({big_value(bn_decimal(key, OSSL_PKEY_PARAM_RSA_FACTOR1)),
                                                  big_value(bn_decimal(key, OSSL_PKEY_PARAM_RSA_FACTOR2))}));
            o.insert(str("Precomputed"),
                     Value::object({{str("Dp"), big_value(bn_decimal(key, OSSL_PKEY_PARAM_RSA_EXPONENT1))},
                                    {str("Dq"), big_value(bn_decimal(key, OSSL_PKEY_PARAM_RSA_EXPONENT2))},
                                    {str("Qinv"), big_value(bn_decimal(key, OSSL_PKEY_PARAM_RSA_COEFFICIENT1))},
                                    {str("CRTValues"), Value::empty_array()}}));
            return o.build();
        }
        case EVP_PKEY_EC: {
            // Go's named curves marshal as {} (their parameters are unexported).
            ObjectBuilder o;
            o.insert(str("Curve"), Value::empty_object());
            o.insert(str("X"), big_value(bn_decimal(key, OSSL_PKEY_PARAM_EC_PUB_X)));
            o.insert(str("Y"), big_value(bn_decimal(key, OSSL_PKEY_PARAM_EC_PUB_Y)));
            if (with_private) o.insert(str("D"), big_value(bn_decimal(key, OSSL_PKEY_PARAM_PRIV_KEY)));
            return o.build();
        }
        case EVP_PKEY_ED25519: {
            unsigned char pub[32], priv[32];
            std::size_t pub_len = sizeof pub, priv_len = sizeof priv;
            EVP_PKEY_get_raw_public_key(key, pub, &pub_len);
            if (with_private && EVP_PKEY_get_raw_private_key(key, priv, &priv_len))
                // ed25519.PrivateKey is seed || public key.
                return bytes_value(std::string(reinterpret_cast<char*>(priv), priv_len) +
                                   std::string(reinterpret_cast<char*>(pub), pub_len));
            return bytes_value(std::string(reinterpret_cast<char*>(pub), pub_len));
        }
        default: return Value::null();
    }
}

Value extensions_value(const STACK_OF(X509_EXTENSION) * exts) {
    ArrayBuilder b;
    for (int i = 0; i < sk_X509_EXTENSION_num(exts); ++i) {
        X509_EXTENSION* e = sk_X509_EXTENSION_value(exts, i);
        b.push_back(Value::object({{str("Id"), oid_value(X509_EXTENSION_get_object(e))},
                                   {str("Critical"), Value::boolean(X509_EXTENSION_get_critical(e) != 0)},
                                   {str("Value"), bytes_value(view(X509_EXTENSION_get_data(e)))}}));
    }
    return null_or_array(b);
}

// OpenSSL's key usage flags to Go's KeyUsage bits (bit i = ASN.1 bit i).
int key_usage(uint32_t ku) {
    if (ku == UINT32_MAX) return 0;
    const std::pair<uint32_t, int> bits[] = {
        {KU_DIGITAL_SIGNATURE, 1 << 0}, {KU_NON_REPUDIATION, 1 << 1}, {KU_KEY_ENCIPHERMENT, 1 << 2},
        {KU_DATA_ENCIPHERMENT, 1 << 3}, {KU_KEY_AGREEMENT, 1 << 4},   {KU_KEY_CERT_SIGN, 1 << 5},
        {KU_CRL_SIGN, 1 << 6},          {KU_ENCIPHER_ONLY, 1 << 7},   {KU_DECIPHER_ONLY, 1 << 8}};
    int out = 0;
    for (auto [flag, go] : bits)
        if (ku & flag) out |= go;
    return out;
}

struct ExtKeyUsageOid {
    const char* oid;
    int go;
};
constexpr ExtKeyUsageOid kExtKeyUsages[] = {
    {"2.5.29.37.0", 0},
    {"1.3.6.1.5.5.7.3.1", 1},
    {"1.3.6.1.5.5.7.3.2", 2},
    {"1.3.6.1.5.5.7.3.3", 3},
    {"1.3.6.1.5.5.7.3.4", 4},
    {"1.3.6.1.5.5.7.3.5", 5},
    {"1.3.6.1.5.5.7.3.6", 6},
    {"1.3.6.1.5.5.7.3.7", 7},
    {"1.3.6.1.5.5.7.3.8", 8},
    {"1.3.6.1.5.5.7.3.9", 9},
    {"1.3.6.1.4.1.311.10.3.3", 10},
    {"2.16.840.1.113730.4.1", 11},
    {"1.3.6.1.4.1.311.2.1.22", 12},
    {"1.3.6.1.4.1.311.61.1.1", 13},
};

// The certificate's extended key usages as Go values; nullopt when the
// extension is absent. Unknown OIDs go to `unknown`.
std::optional<std::vector<int>> ext_key_usages(X509* cert, ArrayBuilder* unknown) {
    auto* eku = static_cast<EXTENDED_KEY_USAGE*>(X509_get_ext_d2i(cert, NID_ext_key_usage, nullptr, nullptr));
    if (!eku) return std::nullopt;
    std::vector<int> out;
    for (int i = 0; i < sk_ASN1_OBJECT_num(eku); ++i) {
        ASN1_OBJECT* obj = sk_ASN1_OBJECT_value(eku, i);
        std::string text = oid_text(obj);
        bool known = false;
        for (const auto& k : kExtKeyUsages)
            if (text == k.oid) {
                out.push_back(k.go);
                known = true;
            }
        if (!known && unknown) unknown->push_back(oid_value(obj));
    }
    EXTENDED_KEY_USAGE_free(eku);
    return out;
}

}  // namespace

Value certificate_to_value(X509* cert) {
    ObjectBuilder o;
    auto set = [&](const char* k, Value v) { o.insert(str(k), std::move(v)); };
    set("Raw", bytes_value(der<X509>(cert, i2d_X509)));
    {
        unsigned char* tbs = nullptr;
        int len = i2d_re_X509_tbs(cert, &tbs);
        set("RawTBSCertificate",
            bytes_value(len > 0 ? std::string(reinterpret_cast<char*>(tbs), static_cast<std::size_t>(len)) : ""));
        OPENSSL_free(tbs);
    }
    set("RawSubjectPublicKeyInfo", bytes_value(der<X509_PUBKEY>(X509_get_X509_PUBKEY(cert), i2d_X509_PUBKEY)));
    set("RawSubject", bytes_value(der<X509_NAME>(X509_get_subject_name(cert), i2d_X509_NAME)));
    set("RawIssuer", bytes_value(der<X509_NAME>(X509_get_issuer_name(cert), i2d_X509_NAME)));
    const ASN1_BIT_STRING* sig = nullptr;
    X509_get0_signature(&sig, nullptr, cert);
    set("Signature", bytes_value(view(sig)));
    set("SignatureAlgorithm", Value::integer(signature_algorithm(cert)));
    EVP_PKEY* pub = X509_get0_pubkey(cert);
    set("PublicKeyAlgorithm", Value::integer(public_key_algorithm(pub)));
    set("PublicKey", key_value(pub, false));
    set("Version", Value::integer(X509_get_version(cert) + 1));
    {
        crypto::BignumPtr serial(ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr));
        std::string dec = crypto::bignum_to_decimal(serial.get());
        set("SerialNumber", Value::number(runtime::Number::from_decimal_integer(dec)));
    }
    set("Issuer", name_value(X509_get_issuer_name(cert)));
    set("Subject", name_value(X509_get_subject_name(cert)));
    set("NotBefore", time_value(X509_get0_notBefore(cert)));
    set("NotAfter", time_value(X509_get0_notAfter(cert)));
    set("KeyUsage", Value::integer(key_usage(X509_get_key_usage(cert))));
    set("Extensions", extensions_value(X509_get0_extensions(cert)));
    set("ExtraExtensions", Value::null());
    set("UnhandledCriticalExtensions", Value::null());

    ArrayBuilder unknown_eku;
    auto ekus = ext_key_usages(cert, &unknown_eku);
    ArrayBuilder eku_values;
    if (ekus)
        for (int u : *ekus) eku_values.push_back(Value::integer(u));
    set("ExtKeyUsage", null_or_array(eku_values));
    set("UnknownExtKeyUsage", null_or_array(unknown_eku));

    auto* bc = static_cast<BASIC_CONSTRAINTS*>(X509_get_ext_d2i(cert, NID_basic_constraints, nullptr, nullptr));
    int64_t max_path = 0;
    bool path_zero = false;
    if (bc) {
        max_path = -1;
        int64_t v = 0;
        if (bc->pathlen && ASN1_INTEGER_get_int64(&v, bc->pathlen)) max_path = v;
        path_zero = max_path == 0;
    }
    set("BasicConstraintsValid", Value::boolean(bc != nullptr));
    set("IsCA", Value::boolean(bc && bc->ca));
    set("MaxPathLen", Value::integer(max_path));
    set("MaxPathLenZero", Value::boolean(path_zero));
    BASIC_CONSTRAINTS_free(bc);

    const ASN1_OCTET_STRING* skid = X509_get0_subject_key_id(cert);
    set("SubjectKeyId", skid ? bytes_value(view(skid)) : Value::null());
    const ASN1_OCTET_STRING* akid = X509_get0_authority_key_id(cert);
    set("AuthorityKeyId", akid ? bytes_value(view(akid)) : Value::null());

    ArrayBuilder ocsp, issuers;
    if (auto* aia = static_cast<AUTHORITY_INFO_ACCESS*>(X509_get_ext_d2i(cert, NID_info_access, nullptr, nullptr))) {
        for (int i = 0; i < sk_ACCESS_DESCRIPTION_num(aia); ++i) {
            ACCESS_DESCRIPTION* ad = sk_ACCESS_DESCRIPTION_value(aia, i);
            if (ad->location->type != GEN_URI) continue;
            Value uri = str(view(ad->location->d.uniformResourceIdentifier));
            int nid = OBJ_obj2nid(ad->method);
            if (nid == NID_ad_OCSP) ocsp.push_back(uri);
            else if (nid == NID_ad_ca_issuers) issuers.push_back(uri);
        }
        AUTHORITY_INFO_ACCESS_free(aia);
    }
    set("OCSPServer", null_or_array(ocsp));
    set("IssuingCertificateURL", null_or_array(issuers));

    AltNames alt;
    GeneralNamesPtr san(static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr)));
    collect_alt_names(san.get(), alt);
    set("DNSNames", null_or_array(alt.dns));
    set("EmailAddresses", null_or_array(alt.email));
    set("IPAddresses", null_or_array(alt.ips));
    set("URIs", null_or_array(alt.uris));
    set("URIStrings", null_or_array(alt.uri_strings));

    set("PermittedDNSDomainsCritical", Value::boolean(false));
    for (const char* k :
         {"PermittedDNSDomains", "ExcludedDNSDomains", "PermittedIPRanges", "ExcludedIPRanges",
          "PermittedEmailAddresses", "ExcludedEmailAddresses", "PermittedURIDomains", "ExcludedURIDomains"})
        set(k, Value::null());

    ArrayBuilder crl;
    if (auto* points =
            static_cast<CRL_DIST_POINTS*>(X509_get_ext_d2i(cert, NID_crl_distribution_points, nullptr, nullptr))) {
        for (int i = 0; i < sk_DIST_POINT_num(points); ++i) {
            DIST_POINT* dp = sk_DIST_POINT_value(points, i);
            if (!dp->distpoint || dp->distpoint->type != 0) continue;
            GENERAL_NAMES* names = dp->distpoint->name.fullname;
            for (int j = 0; j < sk_GENERAL_NAME_num(names); ++j) {
                const GENERAL_NAME* g = sk_GENERAL_NAME_value(names, j);
                if (g->type == GEN_URI) crl.push_back(str(view(g->d.uniformResourceIdentifier)));
            }
        }
        CRL_DIST_POINTS_free(points);
    }
    set("CRLDistributionPoints", null_or_array(crl));

    ArrayBuilder policy_ids, policies;
    if (auto* cp =
            static_cast<CERTIFICATEPOLICIES*>(X509_get_ext_d2i(cert, NID_certificate_policies, nullptr, nullptr))) {
        for (int i = 0; i < sk_POLICYINFO_num(cp); ++i) {
            POLICYINFO* pi = sk_POLICYINFO_value(cp, i);
            policy_ids.push_back(oid_value(pi->policyid));
            policies.push_back(str(oid_text(pi->policyid)));
        }
        CERTIFICATEPOLICIES_free(cp);
    }
    set("PolicyIdentifiers", null_or_array(policy_ids));
    set("Policies", null_or_array(policies));
    set("InhibitAnyPolicy", Value::integer(0));
    set("InhibitAnyPolicyZero", Value::boolean(false));
    set("InhibitPolicyMapping", Value::integer(0));
    set("InhibitPolicyMappingZero", Value::boolean(false));
    set("RequireExplicitPolicy", Value::integer(0));
    set("RequireExplicitPolicyZero", Value::boolean(false));
    set("PolicyMappings", Value::null());
    return o.build();
}

Value certificates_to_value(const Certificates& certs) {
    ArrayBuilder b(certs.size());
    for (const auto& c : certs) b.push_back(certificate_to_value(c.get()));
    return b.build();
}

namespace {

// Go's x509.ParseCertificates: concatenated DER certificates.
std::optional<Certificates> parse_der_certificates(std::string_view der, std::string& error) {
    Certificates out;
    const auto* p = reinterpret_cast<const unsigned char*>(der.data());
    const auto* end = p + der.size();
    while (p < end) {
        X509* cert = d2i_X509(nullptr, &p, static_cast<long>(end - p));
        if (!cert) {
            error = "x509: malformed certificate";
            return std::nullopt;
        }
        out.emplace_back(cert);
    }
    return out;
}

std::optional<Certificates> certificates_from_pem(std::string_view pem, std::string& error) {
    std::string der;
    while (!pem.empty()) {
        std::string_view rest;
        auto block = crypto::pem_decode(pem, rest);
        if (!block) break;
        if (block->type != "CERTIFICATE") {
            error = "PEM block type is '" + block->type + "', expected CERTIFICATE";
            return std::nullopt;
        }
        der += block->bytes;
        pem = rest;
    }
    return parse_der_certificates(der, error);
}

}  // namespace

std::optional<Certificates> certificates_from_string(std::string_view input, std::string& error) {
    if (starts_with(input, kBegin)) return certificates_from_pem(input, error);
    auto decoded = crypto::base64_decode(input);
    if (!decoded.ok) {
        error = decoded.error();
        return std::nullopt;
    }
    if (starts_with(decoded.bytes, kBegin)) return certificates_from_pem(decoded.bytes, error);
    return parse_der_certificates(decoded.bytes, error);
}

bool parse_verify_options(const Value& options, VerifyOptions& out, std::string& error) {
    static const std::pair<const char*, int> kUsages[] = {{"KeyUsageAny", 0},
                                                          {"KeyUsageServerAuth", 1},
                                                          {"KeyUsageClientAuth", 2},
                                                          {"KeyUsageCodeSigning", 3},
                                                          {"KeyUsageEmailProtection", 4},
                                                          {"KeyUsageIPSECEndSystem", 5},
                                                          {"KeyUsageIPSECTunnel", 6},
                                                          {"KeyUsageIPSECUser", 7},
                                                          {"KeyUsageTimeStamping", 8},
                                                          {"KeyUsageOCSPSigning", 9},
                                                          {"KeyUsageMicrosoftServerGatedCrypto", 10},
                                                          {"KeyUsageNetscapeServerGatedCrypto", 11},
                                                          {"KeyUsageMicrosoftCommercialCodeSigning", 12},
                                                          {"KeyUsageMicrosoftKernelCodeSigning", 13}};
    for (const auto& e : options.object_entries()) {
        if (!e.key.is_string()) continue;
        std::string_view k = e.key.as_string();
        const Value& v = e.value;
        if (k == "DNSName") {
            if (!v.is_string()) return error = "'DNSName' should be a string", false;
            std::string_view s = v.as_string();
            while (!s.empty() && s.front() == '"') s.remove_prefix(1);
            while (!s.empty() && s.back() == '"') s.remove_suffix(1);
            out.dns_name = std::string(s);
        } else if (k == "CurrentTime") {
            if (!v.is_number()) return error = "'CurrentTime' should be a number", false;
            int64_t ns = 0;
            if (!v.as_int64(ns)) return error = "'CurrentTime' should be a valid int64 number", false;
            out.now_ns = ns;
        } else if (k == "MaxConstraintComparisons") {
            if (!v.is_number()) return error = "'MaxConstraintComparisons' should be a number", false;
            int64_t n = 0;
            if (!v.as_int64(n)) return error = "'MaxConstraintComparisons' should be a valid number", false;
        } else if (k == "KeyUsages") {
            std::span<const Value> xs;
            if (v.is_array()) xs = v.array_elements();
            else if (v.is_set()) xs = v.set_elements();
            else return error = "'KeyUsages' should be an Array or Set", false;
            std::vector<std::string> invalid;
            for (const auto& x : xs) {
                if (!x.is_string()) continue;
                std::string_view s = x.as_string();
                bool found = false;
                for (const auto& [name, go] : kUsages)
                    if (s == name) {
                        out.ext_key_usages.push_back(go);
                        found = true;
                    }
                if (!found) invalid.emplace_back(s);
            }
            if (!invalid.empty()) {
                // Go prints a []string as [a b].
                std::string list;
                for (const auto& s : invalid) list += (list.empty() ? "" : " ") + s;
                error = "invalid entries for 'KeyUsages' found: [" + list + "]";
                return false;
            }
        } else {
            error = "invalid key option";
            return false;
        }
    }
    return true;
}

std::optional<Certificates> verify_chain(const Certificates& certs, const VerifyOptions& opts) {
    if (certs.size() < 2) return std::nullopt;
    StorePtr store(X509_STORE_new());
    if (!store || !X509_STORE_add_cert(store.get(), certs.front().get())) return std::nullopt;
    X509StackPtr intermediates(sk_X509_new_null());
    for (std::size_t i = 1; i + 1 < certs.size(); ++i) {
        X509_up_ref(certs[i].get());
        sk_X509_push(intermediates.get(), certs[i].get());
    }
    X509* leaf = certs.back().get();
    StoreCtxPtr ctx(X509_STORE_CTX_new());
    if (!ctx || !X509_STORE_CTX_init(ctx.get(), store.get(), leaf, intermediates.get())) return std::nullopt;
    X509_VERIFY_PARAM* param = X509_STORE_CTX_get0_param(ctx.get());
    // Go trusts whatever is in the roots pool, self-signed or not.
    X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_PARTIAL_CHAIN);
    time_t now = opts.now_ns != 0 ? static_cast<time_t>(opts.now_ns / 1000000000) : std::time(nullptr);
    X509_VERIFY_PARAM_set_time(param, now);
    if (!opts.dns_name.empty() && !X509_VERIFY_PARAM_set1_host(param, opts.dns_name.c_str(), opts.dns_name.size()))
        return std::nullopt;
    if (X509_verify_cert(ctx.get()) != 1) return std::nullopt;
    X509StackPtr chain(X509_STORE_CTX_get1_chain(ctx.get()));
    if (!chain) return std::nullopt;
    Certificates out;
    for (int i = 0; i < sk_X509_num(chain.get()); ++i) {
        X509* c = sk_X509_value(chain.get(), i);
        X509_up_ref(c);
        out.emplace_back(c);
    }
    // Go's extended key usage rule: every certificate in the chain must
    // allow one requested usage (no extension or "any" allows all);
    // nothing requested means server authentication.
    std::vector<int> wanted = opts.ext_key_usages.empty() ? std::vector<int>{1} : opts.ext_key_usages;
    bool any_wanted = std::find(wanted.begin(), wanted.end(), 0) != wanted.end();
    if (!any_wanted) {
        bool some_usage_ok = false;
        for (int u : wanted) {
            bool ok = true;
            for (const auto& c : out) {
                auto ekus = ext_key_usages(c.get(), nullptr);
                if (!ekus) continue;
                bool allows = std::find(ekus->begin(), ekus->end(), 0) != ekus->end() ||
                              std::find(ekus->begin(), ekus->end(), u) != ekus->end();
                if (!allows) ok = false;
            }
            some_usage_ok = some_usage_ok || ok;
        }
        if (!some_usage_ok) return std::nullopt;
    }
    return out;
}

// ---- certificate requests ----------------------------------------------------------

std::optional<Value> certificate_request_from_string(std::string_view input, std::string& error) {
    std::string bytes(input);
    if (!starts_with(input, "-----BEGIN CERTIFICATE REQUEST-----")) {
        auto decoded = crypto::base64_decode(input);
        if (!decoded.ok) {
            error = decoded.error();
            return std::nullopt;
        }
        bytes = std::move(decoded.bytes);
    }
    std::string_view rest;
    if (auto block = crypto::pem_decode(bytes, rest)) {
        if (block->type != "CERTIFICATE REQUEST") {
            error = "invalid PEM-encoded certificate signing request";
            return std::nullopt;
        }
        bytes = std::move(block->bytes);
    }
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    crypto::X509ReqPtr req(d2i_X509_REQ(nullptr, &p, static_cast<long>(bytes.size())));
    if (!req) {
        error = "asn1: structure error: tags don't match";
        return std::nullopt;
    }
    X509_REQ* r = req.get();
    ObjectBuilder o;
    auto set = [&](const char* k, Value v) { o.insert(str(k), std::move(v)); };
    set("Raw", bytes_value(der<X509_REQ>(r, i2d_X509_REQ)));
    {
        unsigned char* tbs = nullptr;
        int len = i2d_re_X509_REQ_tbs(r, &tbs);
        set("RawTBSCertificateRequest",
            bytes_value(len > 0 ? std::string(reinterpret_cast<char*>(tbs), static_cast<std::size_t>(len)) : ""));
        OPENSSL_free(tbs);
    }
    EVP_PKEY* pub = X509_REQ_get0_pubkey(r);
    {
        unsigned char* spki = nullptr;
        int len = pub ? i2d_PUBKEY(pub, &spki) : 0;
        set("RawSubjectPublicKeyInfo",
            bytes_value(len > 0 ? std::string(reinterpret_cast<char*>(spki), static_cast<std::size_t>(len)) : ""));
        OPENSSL_free(spki);
    }
    set("RawSubject", bytes_value(der<X509_NAME>(X509_REQ_get_subject_name(r), i2d_X509_NAME)));
    set("Version", Value::integer(X509_REQ_get_version(r)));
    const ASN1_BIT_STRING* sig = nullptr;
    X509_REQ_get0_signature(r, &sig, nullptr);
    set("Signature", bytes_value(view(sig)));
    set("SignatureAlgorithm", Value::integer(0));
    set("PublicKeyAlgorithm", Value::integer(public_key_algorithm(pub)));
    set("PublicKey", key_value(pub, false));
    set("Subject", name_value(X509_REQ_get_subject_name(r)));
    set("Attributes", Value::null());
    ExtStackPtr exts(X509_REQ_get_extensions(r));
    set("Extensions", exts ? extensions_value(exts.get()) : Value::null());
    set("ExtraExtensions", Value::null());
    AltNames alt;
    if (exts) {
        GeneralNamesPtr san(
            static_cast<GENERAL_NAMES*>(X509V3_get_d2i(exts.get(), NID_subject_alt_name, nullptr, nullptr)));
        collect_alt_names(san.get(), alt);
    }
    set("DNSNames", null_or_array(alt.dns));
    set("EmailAddresses", null_or_array(alt.email));
    set("IPAddresses", null_or_array(alt.ips));
    set("URIs", null_or_array(alt.uris));
    return o.build();
}

// ---- private keys ------------------------------------------------------------------

namespace {

// One PEM private key block of OPA's accepted types; nullptr for other types.
std::optional<crypto::PkeyPtr> parse_private_key_block(const crypto::PemBlock& block, std::string& error) {
    const auto* p = reinterpret_cast<const unsigned char*>(block.bytes.data());
    long len = static_cast<long>(block.bytes.size());
    EVP_PKEY* key = nullptr;
    if (block.type == "RSA PRIVATE KEY") {
        key = d2i_PrivateKey(EVP_PKEY_RSA, nullptr, &p, len);
        if (!key) error = "x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)";
    } else if (block.type == "PRIVATE KEY") {
        key = d2i_AutoPrivateKey(nullptr, &p, len);
        if (!key) error = "x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)";
    } else if (block.type == "EC PRIVATE KEY") {
        key = d2i_PrivateKey(EVP_PKEY_EC, nullptr, &p, len);
        if (!key) error = "x509: failed to parse EC private key";
    } else {
        return crypto::PkeyPtr();
    }
    if (!key) return std::nullopt;
    return crypto::PkeyPtr(key);
}

// OPA's getPrivateKeysFromPEMData.
std::optional<std::vector<crypto::PkeyPtr>> private_keys(std::string_view input, std::string& error) {
    std::string text(input);
    if (auto decoded = crypto::base64_decode(input); decoded.ok) text = std::move(decoded.bytes);
    std::vector<crypto::PkeyPtr> keys;
    std::string_view rest = text;
    while (!rest.empty()) {
        std::string_view next;
        auto block = crypto::pem_decode(rest, next);
        if (!block) break;
        rest = next;
        auto key = parse_private_key_block(*block, error);
        if (!key) return std::nullopt;
        if (*key) keys.push_back(std::move(*key));
    }
    return keys;
}

}  // namespace

std::optional<Value> private_key_jwk_from_string(std::string_view input, std::string& error) {
    if (input.empty()) {
        error = "input PEM data was empty";
        return std::nullopt;
    }
    std::string text(input);
    if (!starts_with(input, kBegin)) {
        auto decoded = crypto::base64_decode(input);
        if (!decoded.ok) {
            error = decoded.error();
            return std::nullopt;
        }
        text = std::move(decoded.bytes);
    }
    auto keys = private_keys(text, error);
    if (!keys) return std::nullopt;
    if (keys->empty()) return Value::null();
    return jwk::to_value(keys->front().get(), error);
}

std::optional<Value> private_keys_from_string(std::string_view input, std::string& error) {
    if (input.empty()) return Value::null();
    auto keys = private_keys(input, error);
    if (!keys) return std::nullopt;
    ArrayBuilder b;
    for (const auto& k : *keys) b.push_back(key_value(k.get(), true));
    return b.build();
}

// ---- key pairs -----------------------------------------------------------------------

std::optional<Value> keypair_from_strings(std::string_view cert_text, std::string_view key_text, std::string& error) {
    auto unbase64 = [&](std::string_view s, std::string& out) {
        if (starts_with(s, kBegin)) {
            out = std::string(s);
            return true;
        }
        auto d = crypto::base64_decode(s);
        if (!d.ok) {
            error = d.error();
            return false;
        }
        out = std::move(d.bytes);
        return true;
    };
    std::string cert_pem, key_pem;
    if (!unbase64(cert_text, cert_pem) || !unbase64(key_text, key_pem)) return std::nullopt;

    // DER input stands for a single CERTIFICATE / PRIVATE KEY block.
    Certificates certs;
    if (starts_with(cert_pem, kBegin)) {
        std::string_view rest = cert_pem;
        while (!rest.empty()) {
            std::string_view next;
            auto block = crypto::pem_decode(rest, next);
            if (!block) break;
            rest = next;
            if (block->type != "CERTIFICATE") continue;
            std::string e;
            auto parsed = parse_der_certificates(block->bytes, e);
            if (!parsed || parsed->size() != 1) {
                error = "x509: malformed certificate";
                return std::nullopt;
            }
            certs.push_back(std::move(parsed->front()));
        }
    } else {
        auto parsed = parse_der_certificates(cert_pem, error);
        if (!parsed) return std::nullopt;
        certs = std::move(*parsed);
    }
    if (certs.empty()) {
        error = "tls: failed to find any PEM data in certificate input";
        return std::nullopt;
    }
    crypto::PkeyPtr key;
    if (starts_with(key_pem, kBegin)) {
        std::string_view rest = key_pem;
        while (!rest.empty() && !key) {
            std::string_view next;
            auto block = crypto::pem_decode(rest, next);
            if (!block) break;
            rest = next;
            if (block->type != "PRIVATE KEY" &&
                (block->type.size() < 12 || block->type.substr(block->type.size() - 12) != " PRIVATE KEY"))
                continue;
            crypto::PemBlock as_type = *block;
            if (as_type.type != "RSA PRIVATE KEY" && as_type.type != "EC PRIVATE KEY") as_type.type = "PRIVATE KEY";
            auto parsed = parse_private_key_block(as_type, error);
            if (!parsed || !*parsed) {
                error = "tls: failed to parse private key";
                return std::nullopt;
            }
            key = std::move(*parsed);
        }
        if (!key) {
            error = "tls: failed to find any PEM data in key input";
            return std::nullopt;
        }
    } else {
        const auto* p = reinterpret_cast<const unsigned char*>(key_pem.data());
        key.reset(d2i_AutoPrivateKey(nullptr, &p, static_cast<long>(key_pem.size())));
        if (!key) {
            error = "tls: failed to parse private key";
            return std::nullopt;
        }
    }
    if (EVP_PKEY_eq(X509_get0_pubkey(certs.front().get()), key.get()) != 1) {
        error = "tls: private key does not match public key";
        return std::nullopt;
    }
    ArrayBuilder raw;
    for (const auto& c : certs) raw.push_back(bytes_value(der<X509>(c.get(), i2d_X509)));
    return Value::object({{str("Certificate"), raw.build()},
                          {str("PrivateKey"), key_value(key.get(), true)},
                          {str("SupportedSignatureAlgorithms"), Value::null()},
                          {str("OCSPStaple"), Value::null()},
                          {str("SignedCertificateTimestamps"), Value::null()},
                          {str("Leaf"), certificate_to_value(certs.front().get())}});
}

}  // namespace gavel::stdlib::x509
