// http.send's transport: Boost.Beast over asio, TLS through OpenSSL. Every
// step is asynchronous on a private io_context so that one deadline
// (tcp_stream::expires_at) bounds the whole exchange; the caller blocks.

#include "stdlib/http_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/ssl.h>

#include <cctype>

namespace gavel::stdlib::http {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// Runs one asynchronous operation to completion on `ioc`.
template <class Start>
beast::error_code run_op(asio::io_context& ioc, Start start) {
    beast::error_code result;
    start([&result](beast::error_code ec, auto&&...) { result = ec; });
    ioc.restart();
    ioc.run();
    return result;
}

// Go prints system errors in lower case ("connect: connection refused").
Failure failure(const beast::error_code& ec, const std::string& step) {
    Failure f;
    f.timed_out = ec == beast::error::timeout;
    std::string what = ec.message();
    if (!what.empty()) what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
    f.message = f.timed_out ? "request timed out" : step + ": " + what;
    return f;
}

std::string dial_step(const Request& r) {
    const bool v6 = r.host.find(':') != std::string::npos;
    return "dial tcp " + (v6 ? "[" + r.host + "]" : r.host) + ":" + r.port + ": connect";
}

template <class Stream>
std::pair<std::optional<Response>, std::optional<Failure>> exchange(asio::io_context& ioc, Stream& stream,
                                                                    const Request& r) {
    bhttp::request<bhttp::string_body> req;
    if (bhttp::verb v = bhttp::string_to_verb(r.method); v != bhttp::verb::unknown) req.method(v);
    else req.method_string(r.method);
    req.target(r.target.empty() ? "/" : r.target);
    req.version(11);
    bool has_host = false;
    for (const auto& [k, v] : r.headers) {
        req.insert(k, v);
        if (beast::iequals(k, "host")) has_host = true;
    }
    if (!has_host) {
        const bool default_port = r.port == (r.https ? "443" : "80");
        const bool v6 = r.host.find(':') != std::string::npos;
        std::string host = v6 ? "[" + r.host + "]" : r.host;
        req.set(bhttp::field::host, default_port ? host : host + ":" + r.port);
    }
    if (req.find(bhttp::field::user_agent) == req.end()) req.set(bhttp::field::user_agent, "gavel");
    req.set(bhttp::field::connection, "close");
    req.body() = r.body;
    req.prepare_payload();
    if (auto ec = run_op(ioc, [&](auto h) { bhttp::async_write(stream, req, h); }))
        return {std::nullopt, failure(ec, "write")};
    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(64u << 20);
    if (auto ec = run_op(ioc, [&](auto h) { bhttp::async_read(stream, buffer, parser, h); }))
        return {std::nullopt, failure(ec, "read")};
    const auto& res = parser.get();
    Response out;
    out.status = res.result_int();
    out.reason = std::string(res.reason());
    for (const auto& field : res)
        out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    out.body = res.body();
    return {std::move(out), std::nullopt};
}

}  // namespace

std::pair<std::optional<Response>, std::optional<Failure>> perform(const Request& r) {
    asio::io_context ioc;
    const auto deadline = Clock::now() + r.timeout;
    tcp::resolver resolver(ioc);
    tcp::resolver::results_type endpoints;
    {
        beast::error_code ec;
        bool done = false;
        resolver.async_resolve(r.host, r.port, [&](beast::error_code e, tcp::resolver::results_type res) {
            ec = e;
            endpoints = std::move(res);
            done = true;
        });
        ioc.run_until(deadline);
        if (!done) {
            resolver.cancel();
            return {std::nullopt, Failure{"request timed out", true}};
        }
        if (ec) return {std::nullopt, Failure{"dial tcp: lookup " + r.host + ": " + ec.message(), false}};
    }
    if (!r.https) {
        beast::tcp_stream stream(ioc);
        stream.expires_at(deadline);
        if (auto ec = run_op(ioc, [&](auto h) { stream.async_connect(endpoints, h); }))
            return {std::nullopt, failure(ec, dial_step(r))};
        return exchange(ioc, stream, r);
    }

    asio::ssl::context ctx(asio::ssl::context::tls_client);
    ctx.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                    asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
    try {
        if (r.tls.insecure_skip_verify) {
            ctx.set_verify_mode(asio::ssl::verify_none);
        } else {
            ctx.set_verify_mode(asio::ssl::verify_peer);
            if (r.tls.use_system_certs || (r.tls.ca_pem.empty() && r.tls.ca_file.empty()))
                ctx.set_default_verify_paths();
            if (!r.tls.ca_pem.empty()) ctx.add_certificate_authority(asio::buffer(r.tls.ca_pem));
            if (!r.tls.ca_file.empty()) ctx.add_certificate_authority(asio::buffer(r.tls.ca_file_pem));
        }
        if (!r.tls.client_cert_pem.empty()) ctx.use_certificate_chain(asio::buffer(r.tls.client_cert_pem));
        if (!r.tls.client_key_pem.empty())
            ctx.use_private_key(asio::buffer(r.tls.client_key_pem), asio::ssl::context::pem);
    } catch (const boost::system::system_error& e) {
        return {std::nullopt, Failure{std::string("tls configuration: ") + e.what(), false}};
    }
    beast::ssl_stream<beast::tcp_stream> stream(ioc, ctx);
    const std::string server_name = r.tls.server_name.empty() ? r.host : r.tls.server_name;
    SSL_set_tlsext_host_name(stream.native_handle(), server_name.c_str());
    if (!r.tls.insecure_skip_verify) SSL_set1_host(stream.native_handle(), server_name.c_str());
    beast::get_lowest_layer(stream).expires_at(deadline);
    if (auto ec = run_op(ioc, [&](auto h) { beast::get_lowest_layer(stream).async_connect(endpoints, h); }))
        return {std::nullopt, failure(ec, dial_step(r))};
    if (auto ec = run_op(ioc, [&](auto h) { stream.async_handshake(asio::ssl::stream_base::client, h); }))
        return {std::nullopt, failure(ec, "tls")};
    return exchange(ioc, stream, r);
}

}  // namespace gavel::stdlib::http
