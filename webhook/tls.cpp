#include "webhook/tls.hpp"

#include <boost/asio/ssl.hpp>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>

#include "runtime/file_read.hpp"

namespace gavel::webhook {

namespace ssl = boost::asio::ssl;

namespace {

std::string openssl_error() {
    unsigned long e = ERR_get_error();
    if (!e) return "unknown OpenSSL error";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return buf;
}

bool is_ip(const std::string& s) {
    unsigned char buf[16];
    return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

bool add_extension(X509* cert, int nid, const std::string& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (!ext) return false;
    bool ok = X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    return ok;
}

std::string bio_text(BIO* bio) {
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    return n > 0 ? std::string(data, static_cast<std::size_t>(n)) : std::string();
}

// Certificates are re-read while serving: a FIFO in their place is refused, never waited on.
bool read_whole(const std::string& path, std::string& out, std::string& error) {
    runtime::FileRead read = runtime::read_whole_file(path, runtime::kDefaultReadLimit, runtime::NonRegular::Refuse);
    if (!read.ok) {
        error = "cannot read " + path + ": " + read.message;
        return false;
    }
    out = std::move(read.text);
    return true;
}

}  // namespace

bool make_self_signed(const std::vector<std::string>& sans, KeyPair& out, std::string& error) {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    bool ok = key && cert;
    if (ok) {
        X509_set_version(cert, 2);
        unsigned char serial[16];
        RAND_bytes(serial, sizeof serial);
        serial[0] &= 0x7f;
        BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
        BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
        BN_free(bn);
        X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
        X509_gmtime_adj(X509_getm_notAfter(cert), 365L * 24 * 3600);
        X509_set_pubkey(cert, key);
        X509_NAME* name = X509_get_subject_name(cert);
        std::string cn = sans.empty() ? std::string("gavel") : sans.front();
        X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("gavel"), -1, -1, 0);
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                   0);
        X509_set_issuer_name(cert, name);
        std::string alt;
        for (const auto& s : sans) {
            if (s.empty()) continue;
            if (!alt.empty()) alt += ",";
            alt += (is_ip(s) ? "IP:" : "DNS:") + s;
        }
        ok = add_extension(cert, NID_basic_constraints, "critical,CA:TRUE") &&
             add_extension(cert, NID_key_usage, "critical,digitalSignature,keyCertSign") &&
             add_extension(cert, NID_ext_key_usage, "serverAuth") &&
             (alt.empty() || add_extension(cert, NID_subject_alt_name, alt)) && X509_sign(cert, key, EVP_sha256()) > 0;
    }
    if (ok) {
        BIO* cb = BIO_new(BIO_s_mem());
        BIO* kb = BIO_new(BIO_s_mem());
        ok = PEM_write_bio_X509(cb, cert) == 1 &&
             PEM_write_bio_PrivateKey(kb, key, nullptr, nullptr, 0, nullptr, nullptr) == 1;
        out.cert_pem = bio_text(cb);
        out.key_pem = bio_text(kb);
        BIO_free(cb);
        BIO_free(kb);
    }
    if (!ok) error = "cannot make a self-signed certificate: " + openssl_error();
    X509_free(cert);
    EVP_PKEY_free(key);
    return ok;
}

std::shared_ptr<TlsContexts> TlsContexts::create(TlsOptions options, std::string& error) {
    auto t = std::shared_ptr<TlsContexts>(new TlsContexts());
    t->options_ = std::move(options);
    Material m;
    if (t->options_.cert_file.empty()) {
        if (!make_self_signed(t->options_.sans, m.pair, error)) return nullptr;
        if (!t->options_.client_ca_file.empty() && !read_whole(t->options_.client_ca_file, m.client_ca_pem, error))
            return nullptr;
    } else if (!t->read_material(m, error)) {
        return nullptr;
    }
    auto ctx = build(m, error);
    if (!ctx) return nullptr;
    t->material_ = std::move(m);
    t->context_ = std::move(ctx);
    return t;
}

bool TlsContexts::read_material(Material& out, std::string& error) const {
    if (!read_whole(options_.cert_file, out.pair.cert_pem, error)) return false;
    if (!read_whole(options_.key_file, out.pair.key_pem, error)) return false;
    if (!options_.client_ca_file.empty() && !read_whole(options_.client_ca_file, out.client_ca_pem, error))
        return false;
    return true;
}

std::shared_ptr<ssl::context> TlsContexts::build(const Material& m, std::string& error) {
    try {
        auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
        ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                         ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
        SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
        // An idle keep-alive connection gives its read and write buffers (about 34 KB) back.
        SSL_CTX_set_mode(ctx->native_handle(), SSL_MODE_RELEASE_BUFFERS);
        ctx->use_certificate_chain(boost::asio::buffer(m.pair.cert_pem));
        ctx->use_private_key(boost::asio::buffer(m.pair.key_pem), ssl::context::pem);
        if (!m.client_ca_pem.empty()) {
            ctx->add_certificate_authority(boost::asio::buffer(m.client_ca_pem));
            ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert);
        }
        return ctx;
    } catch (const std::exception& e) {
        error = std::string("TLS setup failed: ") + e.what();
        ERR_clear_error();
        return nullptr;
    }
}

std::shared_ptr<ssl::context> TlsContexts::current() const {
    std::lock_guard lock(mutex_);
    return context_;
}

std::string TlsContexts::certificate_pem() const {
    std::lock_guard lock(mutex_);
    return material_.pair.cert_pem;
}

bool TlsContexts::reload_if_changed(bool& changed, std::string& error) {
    changed = false;
    if (options_.cert_file.empty()) return true;  // self-signed: nothing on disk
    Material m;
    if (!read_material(m, error)) return false;
    {
        std::lock_guard lock(mutex_);
        if (m == material_) return true;
    }
    auto ctx = build(m, error);
    if (!ctx) return false;
    std::lock_guard lock(mutex_);
    material_ = std::move(m);
    context_ = std::move(ctx);
    changed = true;
    return true;
}

}  // namespace gavel::webhook
