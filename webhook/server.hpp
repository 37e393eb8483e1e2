#pragma once
// An HTTP/1.1 server on Boost.Beast: a fixed pool of threads running one
// io_context, one strand per connection, keep-alive, a request body limit
// (413 beyond it), header/body read timeouts, optional TLS (TlsContexts) and
// a graceful shutdown: stop accepting, let requests in progress finish and be
// answered, close idle connections, then return from run().
//
// Handlers run on the connection's thread and may block (policy evaluation is
// bounded by its own timeout); with N threads at most N requests run at once.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "webhook/http_message.hpp"

namespace gavel::webhook {

class TlsContexts;

struct ServerOptions {
    std::string address = "0.0.0.0";
    uint16_t port = 8443;  // 0: any free port (see Server::port())
    unsigned threads = 0;  // 0: the number of cores
    std::size_t body_limit = 3u << 20;
    std::size_t header_limit = 64u << 10;
    std::chrono::milliseconds header_timeout{10000};  // also the keep-alive idle timeout
    std::chrono::milliseconds body_timeout{10000};
    std::chrono::milliseconds shutdown_grace{30000};  // in-flight requests get this long to finish
};

using Handler = std::function<HttpResponse(HttpRequest&)>;

class Server {
public:
    // `tls` null: plain HTTP. Throws std::runtime_error when the address cannot be bound.
    Server(ServerOptions options, Handler handler, std::shared_ptr<TlsContexts> tls);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    uint16_t port() const;  // the bound port

    // Runs the threads until shutdown() (or SIGTERM/SIGINT when `handle_signals`) has drained.
    void run(bool handle_signals = true);
    // Thread-safe; begins the graceful shutdown.
    void shutdown();

    // Called once when shutdown begins, before the listener closes (readiness goes false here).
    std::function<void()> on_shutdown;
    // Runs `fn` every `period` on the server's threads until shutdown (reload polling, cert checks).
    void every(std::chrono::milliseconds period, std::function<void()> fn);
    // Runs `fn` once, soon, on the same strand as the `every` tasks (thread-safe).
    void post(std::function<void()> fn);

    // Connections open, requests being handled.
    std::size_t in_flight() const;

    struct Impl;  // public so that the connection and timer types in server.cpp can name it

private:
    std::shared_ptr<Impl> impl_;
};

}  // namespace gavel::webhook
