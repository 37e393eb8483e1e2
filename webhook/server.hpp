#pragma once
// One HTTP/1.1 listener on Boost.Beast: its own threads, each running an
// io_context of its own that a connection stays on (no strand needed), keep-alive, a request body limit
// (413 beyond it), header/body read timeouts, optional TLS (TlsContexts).
//
// gavel serve runs three of them (admission, REST API, diagnostics), so that
// a flood or a stall on one never holds up another's accepts and reads.
//
// Handlers answer through a callback, from any thread: the network threads
// only read, write and route; slow work (policy evaluation) goes to a
// WorkerPool and answers when done. A connection reads its next request only
// after its answer is written, so a client never has more than one request in
// the server at a time.
//
// What a client can make the server hold is bounded:
//   - connections: at most `max_connections`; at the cap a new connection takes
//     the place of the one that has waited longest for its client, or is closed
//     at once when all are busy (ConnectionTable);
//   - memory per connection: nothing but the socket and a small object until
//     bytes arrive; a TLS connection's OpenSSL state is made once a whole first
//     handshake record is in, and its buffers given back while idle;
//   - request bodies: memory taken as bytes arrive, never for a declared length,
//     and all connections' bodies together within `body_budget` (BodyBudget): the
//     request whose bytes would exceed it gets 503 with Retry-After;
//   - time: the headers (and a keep-alive wait) within `header_timeout`, a whole
//     body within `body_timeout` (then 408).
// Requests whose framing could smuggle a second request (Transfer-Encoding other
// than a single `chunked`, Content-Length conflicts) are refused as Go's net/http
// refuses them (request_framing.hpp). The listener's own refusals go through
// `failure_response`, so the admission listener can answer them as AdmissionReviews.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "webhook/http_message.hpp"

namespace gavel::webhook {

class TlsContexts;

struct ServerOptions {
    std::string name = "admission";  // for logs
    std::string address = "0.0.0.0";
    uint16_t port = 8443;       // 0: any free port (see Server::port())
    std::string unix_path;      // non-empty: a unix socket at this path instead ("@name": abstract)
    unsigned unix_mode = 0755;  // the socket file's permissions (OPA's --unix-socket-perm)
    unsigned threads = 0;       // 0: half the cores (at least one)
    std::size_t body_limit = 3u << 20;
    std::size_t body_budget = 0;  // 0: 32 times body_limit
    std::size_t header_limit = 64u << 10;
    std::chrono::milliseconds header_timeout{10000};  // also the keep-alive idle timeout (and the TLS handshake's)
    std::chrono::milliseconds body_timeout{10000};    // for a whole request body
    std::size_t max_connections = 512;                // open connections at once; 0: no limit
    // The answer for a request the listener itself refuses (400 malformed, 408 body
    // deadline, 413 too large, 431 header too large, 501 transfer encoding, 503 body
    // budget); the connection closes after it. Unset: {"code","message"} JSON, as OPA's errors.
    std::function<HttpResponse(int status, std::string_view message)> failure_response;
};

// Called exactly once per request, from any thread.
using Respond = std::function<void(HttpResponse)>;
using Handler = std::function<void(HttpRequest, Respond)>;

class Server {
public:
    // `tls` null: plain HTTP. Binds at once; throws std::runtime_error when the address cannot be bound.
    Server(ServerOptions options, Handler handler, std::shared_ptr<TlsContexts> tls);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    uint16_t port() const;  // the bound port

    // Starts accepting on the listener's threads.
    void start();
    // Graceful shutdown, first step: close the listener and idle keep-alive
    // connections; a connection with a request in progress closes once answered.
    void stop_accepting();
    // True once stop_accepting() was called and every connection has closed.
    bool drained() const;
    // Closes everything at once (the grace period is over) and joins the threads.
    void stop();

    // Requests read and not yet answered.
    std::size_t in_flight() const;
    // Connections open now; those closed at once because the cap was reached and every
    // connection was busy; those closed to make room for a new one (the longest waiting).
    std::size_t connections() const;
    std::uint64_t refused_connections() const;
    std::uint64_t evicted_connections() const;

    struct Impl;  // public so that the connection type in server.cpp can name it

private:
    std::shared_ptr<Impl> impl_;
    std::vector<std::thread> threads_;
};

}  // namespace gavel::webhook
