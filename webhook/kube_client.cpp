#include "webhook/kube_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/x509v3.h>

#include <cstdlib>

#include "runtime/file_read.hpp"

namespace gavel::webhook {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

bool read_all(const std::string& path, std::string& out, std::string& error) {
    runtime::FileRead read = runtime::read_whole_file(path, runtime::kDefaultReadLimit, runtime::NonRegular::Refuse);
    if (!read.ok) {
        error = read.message;
        return false;
    }
    out = std::move(read.text);
    return true;
}

}  // namespace

bool kube_config_from_environment(KubeClientConfig& out, std::string& error) {
    out.host = env("KUBERNETES_SERVICE_HOST");
    if (out.host.empty()) {
        error = "KUBERNETES_SERVICE_HOST is not set (not running in a Pod?)";
        return false;
    }
    if (auto port = env("KUBERNETES_SERVICE_PORT"); !port.empty()) out.port = port;
    if (auto f = env("GAVEL_KUBE_TOKEN_FILE"); !f.empty()) out.token_file = f;
    if (auto f = env("GAVEL_KUBE_CA_FILE"); !f.empty()) out.ca_file = f;
    return true;
}

KubeResponse kube_request(const KubeClientConfig& c, const std::string& method, const std::string& path,
                          const std::string& content_type, const std::string& body) {
    KubeResponse r;
    std::string token, ca, why;
    if (!read_all(c.token_file, token, why)) {
        r.error = "cannot read the service account token " + c.token_file + ": " + why;
        return r;
    }
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
    if (!read_all(c.ca_file, ca, why)) {
        r.error = "cannot read the API server's CA " + c.ca_file + ": " + why;
        return r;
    }
    try {
        asio::io_context io;
        asio::ssl::context ctx(asio::ssl::context::tls_client);
        SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
        ctx.add_certificate_authority(asio::buffer(ca));
        ctx.set_verify_mode(asio::ssl::verify_peer);
        beast::ssl_stream<beast::tcp_stream> stream(io, ctx);
        // The API server's certificate names the service IP (or its DNS name).
        boost::system::error_code ec;
        auto address = asio::ip::make_address(c.host, ec);
        X509_VERIFY_PARAM* param = SSL_get0_param(stream.native_handle());
        if (!ec) {
            X509_VERIFY_PARAM_set1_ip_asc(param, c.host.c_str());
        } else {
            X509_VERIFY_PARAM_set1_host(param, c.host.c_str(), 0);
            SSL_set_tlsext_host_name(stream.native_handle(), c.host.c_str());
        }
        auto& tcp = beast::get_lowest_layer(stream);
        tcp.expires_after(c.timeout);
        if (!ec) {
            tcp.connect(asio::ip::tcp::endpoint(address, static_cast<unsigned short>(std::stoi(c.port))));
        } else {
            asio::ip::tcp::resolver resolver(io);
            tcp.connect(resolver.resolve(c.host, c.port));
        }
        stream.handshake(asio::ssl::stream_base::client);
        http::request<http::string_body> req;
        req.method_string(method);
        req.target(path);
        req.version(11);
        req.set(http::field::host, !ec && address.is_v6() ? "[" + c.host + "]:" + c.port : c.host + ":" + c.port);
        req.set(http::field::authorization, "Bearer " + token);
        req.set(http::field::accept, "application/json");
        req.set(http::field::user_agent, "gavel");
        if (!content_type.empty()) {
            req.set(http::field::content_type, content_type);
            req.body() = body;
        }
        req.prepare_payload();
        http::write(stream, req);
        beast::flat_buffer buffer;
        http::response_parser<http::string_body> parser;
        parser.body_limit(8u << 20);
        http::read(stream, buffer, parser);
        r.status = static_cast<int>(parser.get().result_int());
        r.body = parser.get().body();
        stream.shutdown(ec);  // the API server may close first: not an error
    } catch (const std::exception& e) {
        r.status = 0;
        r.error = e.what();
    }
    return r;
}

}  // namespace gavel::webhook
