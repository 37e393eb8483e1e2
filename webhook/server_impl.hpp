#pragma once
// The inside of a Server (webhook/server.hpp), shared by server.cpp and the two
// translation units that compile the connections (server_session_{plain,tls}.cpp):
// Session<Protocol, kTls> over TCP or a unix socket, plain or TLS. Its instantiations cost
// more to compile than the rest of the server, so they are compiled apart (plain and TLS,
// in parallel), and server.cpp reaches them through start_session.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>
#include <string_view>

#include "webhook/body_budget.hpp"
#include "webhook/connection_table.hpp"
#include "webhook/log_throttle.hpp"
#include "webhook/memory.hpp"
#include "webhook/server.hpp"

namespace gavel::webhook {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Each connection lives on one network thread's own io_context (a lane), so its handlers never
// run concurrently without a strand, and its executor is a plain pointer to that io_context:
// a strand behind Asio's type-erased any_io_executor cost every handler and work guard of a
// request a copy and release of a shared strand (about a sixth of a TLS request's CPU).
using ConnectionExecutor = asio::io_context::executor_type;
template <class Protocol>
using ConnectionSocket = asio::basic_stream_socket<Protocol, ConnectionExecutor>;

struct Server::Impl : std::enable_shared_from_this<Impl> {
    ServerOptions options;
    Handler handler;
    std::shared_ptr<TlsContexts> tls;
    // The first network thread's: the acceptors, the control strand and a share of the connections.
    asio::io_context io;
    // Keeps the threads running while connections wait for a worker's answer
    // and nothing else is pending; released by stop().
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
    // The other network threads' io_contexts (the first thread runs `io`), one thread each;
    // accepted connections are dealt to `io` and these in turn.
    std::vector<std::unique_ptr<asio::io_context>> lanes;
    std::vector<asio::executor_work_guard<asio::io_context::executor_type>> lanes_running;
    std::size_t next_lane = 0;  // touched by the accepting handler only
    tcp::acceptor acceptor{io};
    // unix:// listeners: a stream socket in the file system instead of TCP.
    using local = asio::local::stream_protocol;
    std::optional<local::acceptor> local_acceptor;
    uint16_t bound_port = 0;
    std::atomic<bool> stopping{false};
    std::atomic<std::size_t> in_flight{0};
    std::unique_ptr<BodyBudget> body_budget;
    ConnectionTable connections;
    std::atomic<std::uint64_t> refused{0};
    std::atomic<std::uint64_t> evicted{0};
    LogThrottle cap_log;
    LogThrottle accept_error_log;

    asio::strand<asio::io_context::executor_type> control{asio::make_strand(io)};

    void accept();
    ConnectionExecutor connection_executor();
    template <class Acceptor>
    void accept_on(Acceptor& acc);
    template <class Socket>
    void admit(Socket socket);
    void begin_shutdown();

    void connection_closed(ConnectionTable::Slot slot) {
        // After a flood, the freed connections' memory goes back to the system
        // (by the periodic release, off the network threads).
        if (connections.remove(slot)) request_memory_release();
    }

    // The listener's own refusal (status and message) as the options want it answered.
    HttpResponse failure(int status, std::string_view message) const;
};

// Starts serving one accepted connection: `ctx` non-null for TLS. Defined in server_session.hpp and
// instantiated for TCP and unix sockets in server_session_plain.cpp and server_session_tls.cpp.
template <class Protocol, bool kTls>
void start_session(ConnectionSocket<Protocol> socket, std::shared_ptr<asio::ssl::context> ctx,
                   std::shared_ptr<Server::Impl> server);

}  // namespace gavel::webhook
