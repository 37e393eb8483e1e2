// http.send over HTTPS against a loopback TLS server whose certificate is
// made in the test (self-signed, for localhost and 127.0.0.1): trusted via
// tls_ca_cert, refused without it, accepted with tls_insecure_skip_verify,
// refused for a name the certificate does not carry.

#include <doctest/doctest.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <string>
#include <thread>

#include "engine/engine.hpp"
#include "runtime/json.hpp"

namespace {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

struct Pem {
    std::string cert, key;
};

std::string bio_text(BIO* bio) {
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<std::size_t>(n));
    BIO_free(bio);
    return out;
}

void add_ext(X509* cert, int nid, const char* value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    REQUIRE(ext != nullptr);
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
}

// A self-signed CA certificate valid for localhost and 127.0.0.1.
Pem make_certificate() {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    REQUIRE(key != nullptr);
    X509* cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), -60);
    X509_gmtime_adj(X509_getm_notAfter(cert), 3600);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1,
                               0);
    X509_set_issuer_name(cert, name);
    add_ext(cert, NID_basic_constraints, "critical,CA:TRUE");
    add_ext(cert, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
    REQUIRE(X509_sign(cert, key, EVP_sha256()) > 0);
    BIO* cb = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(cb, cert);
    BIO* kb = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(kb, key, nullptr, nullptr, 0, nullptr, nullptr);
    Pem out{bio_text(cb), bio_text(kb)};
    X509_free(cert);
    EVP_PKEY_free(key);
    return out;
}

class TlsServer {
public:
    explicit TlsServer(const Pem& pem)
        : ctx_(asio::ssl::context::tls_server), acceptor_(ioc_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
        ctx_.use_certificate_chain(asio::buffer(pem.cert));
        ctx_.use_private_key(asio::buffer(pem.key), asio::ssl::context::pem);
        port_ = acceptor_.local_endpoint().port();
        thread_ = std::thread([this] { serve(); });
    }
    ~TlsServer() {
        stop_ = true;
        boost::system::error_code ec;
        tcp::socket poke(ioc_);
        poke.connect(acceptor_.local_endpoint(), ec);
        thread_.join();
    }
    std::string url(const std::string& host) const { return "https://" + host + ":" + std::to_string(port_) + "/"; }

private:
    void serve() {
        while (!stop_) {
            tcp::socket socket(ioc_);
            boost::system::error_code ec;
            acceptor_.accept(socket, ec);
            if (ec || stop_) break;
            asio::ssl::stream<tcp::socket> stream(std::move(socket), ctx_);
            stream.handshake(asio::ssl::stream_base::server, ec);
            if (ec) continue;  // the client refused our certificate
            boost::beast::flat_buffer buffer;
            bhttp::request<bhttp::string_body> req;
            bhttp::read(stream, buffer, req, ec);
            if (ec) continue;
            bhttp::response<bhttp::string_body> res{bhttp::status::ok, 11};
            res.set(bhttp::field::content_type, "application/json");
            res.body() = R"({"secure":true})";
            res.prepare_payload();
            bhttp::write(stream, res, ec);
            stream.shutdown(ec);
        }
    }

    asio::io_context ioc_;
    asio::ssl::context ctx_;
    tcp::acceptor acceptor_;
    unsigned short port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

// The value of `x` for a policy `x := <expr>` (compact JSON), or "undefined".
std::string eval_x(const std::string& expr) {
    gavel::EngineOptions options;
    options.allow_net = true;
    gavel::Engine engine(options);
    auto diags = engine.add_policy("p.rego", "package t\nx := " + expr + "\n");
    REQUIRE_MESSAGE(diags.empty(), diags.format());
    auto q = engine.prepare("data.t.x");
    REQUIRE_MESSAGE(q.ok(), q.diagnostics.format());
    auto r = q.value->eval();
    if (r.rows.empty()) return "undefined";
    return gavel::runtime::to_json(r.rows[0].expressions[0].value);
}

std::string rego_string(const std::string& s) { return gavel::runtime::to_json(gavel::runtime::Value::string(s)); }

}  // namespace

TEST_CASE("http.send over HTTPS: CA trust, default trust store, skip-verify, server name") {
    const Pem pem = make_certificate();
    TlsServer server(pem);
    const std::string ca = rego_string(pem.cert);
    const std::string local = rego_string(server.url("localhost"));
    const std::string by_ip = rego_string(server.url("127.0.0.1"));

    CHECK(eval_x("http.send({\"method\": \"GET\", \"url\": " + local + ", \"tls_ca_cert\": " + ca + "}).body") ==
          R"({"secure":true})");
    CHECK(eval_x("http.send({\"method\": \"GET\", \"url\": " + by_ip + ", \"tls_ca_cert\": " + ca + "}).body") ==
          R"({"secure":true})");
    // The system store does not know our certificate.
    auto untrusted = eval_x("http.send({\"method\": \"GET\", \"url\": " + local + ", \"raise_error\": false})");
    CHECK(untrusted.find(R"("code":"eval_http_send_network_error")") != std::string::npos);
    CHECK(untrusted.find("certificate verify failed") != std::string::npos);
    CHECK(eval_x("http.send({\"method\": \"GET\", \"url\": " + local +
                 ", \"tls_insecure_skip_verify\": true}).status_code") == "200");
    // A name the certificate does not carry is refused even with the CA trusted.
    auto wrong_name = eval_x("http.send({\"method\": \"GET\", \"url\": " + local + ", \"tls_ca_cert\": " + ca +
                             ", \"tls_server_name\": \"other.example\", \"raise_error\": false}).status_code");
    CHECK(wrong_name == "0");
}
