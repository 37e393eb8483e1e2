#include "webhook/server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/x509.h>

#include <array>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <thread>

#include "webhook/body_budget.hpp"
#include "webhook/budgeted_body.hpp"
#include "webhook/connection_table.hpp"
#include "webhook/log.hpp"
#include "webhook/log_throttle.hpp"
#include "webhook/memory.hpp"
#include "webhook/request_framing.hpp"
#include "webhook/tls.hpp"

namespace gavel::webhook {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string_view HttpRequest::header(std::string_view name) const {
    for (const auto& [k, v] : headers)
        if (beast::iequals(k, beast::string_view(name.data(), name.size()))) return v;
    return {};
}

std::string_view HttpRequest::path() const {
    std::string_view t = target;
    return t.substr(0, t.find('?'));
}

std::string_view HttpRequest::query() const {
    std::string_view t = target;
    auto q = t.find('?');
    return q == std::string_view::npos ? std::string_view{} : t.substr(q + 1);
}

namespace {

// The subject of the verified peer certificate in RFC 2253 form, or empty.
std::string peer_subject(SSL* ssl) {
    X509* cert = SSL_get1_peer_certificate(ssl);
    if (!cert) return {};
    std::string out;
    if (SSL_get_verify_result(ssl) == X509_V_OK) {
        BIO* bio = BIO_new(BIO_s_mem());
        X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
        char* data = nullptr;
        long n = BIO_get_mem_data(bio, &data);
        if (n > 0) out.assign(data, static_cast<std::size_t>(n));
        BIO_free(bio);
    }
    X509_free(cert);
    return out;
}

HttpResponse plain_error(int status, std::string_view code, std::string_view message) {
    std::string body = "{\"code\":\"";
    body += code;
    body += "\",\"message\":\"";
    body += message;
    body += "\"}";
    return HttpResponse::json(status, std::move(body));
}

std::string seconds_text(std::chrono::milliseconds d) {
    auto ms = d.count();
    if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
    return std::to_string(ms) + "ms";
}

bool closed_by_client(const beast::error_code& ec) {
    return ec == http::error::end_of_stream || ec == asio::error::operation_aborted || ec == beast::error::timeout ||
           ec == asio::error::eof || ec == asio::ssl::error::stream_truncated || ec == asio::error::connection_reset ||
           ec == asio::error::bad_descriptor;
}

constexpr unsigned char kTlsHandshakeRecord = 0x16;
constexpr std::size_t kTlsRecordHeader = 5;
constexpr std::size_t kTlsMaxRecord = 16384 + 2048;  // plaintext limit plus what compression/AEAD may add

}  // namespace

struct Server::Impl : std::enable_shared_from_this<Impl> {
    ServerOptions options;
    Handler handler;
    std::shared_ptr<TlsContexts> tls;
    asio::io_context io;
    // Keeps the threads running while connections wait for a worker's answer
    // and nothing else is pending; released by stop().
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
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

    HttpResponse failure(int status, std::string_view message) const {
        HttpResponse resp = options.failure_response
                                ? options.failure_response(status, message)
                                : plain_error(status, status == 503 ? "unavailable" : "invalid_parameter", message);
        if (status == 503) resp.headers.emplace_back("Retry-After", "1");
        return resp;
    }
};

// One connection over TCP or a unix socket (Protocol), plain (beast::basic_stream)
// or TLS (beast::ssl_stream over it).
template <class Protocol, bool kTls>
class Session : public Connection, public std::enable_shared_from_this<Session<Protocol, kTls>> {
    using PlainStream = beast::basic_stream<Protocol>;
    using TlsStream = beast::ssl_stream<PlainStream>;
    using Stream = std::conditional_t<kTls, TlsStream, PlainStream>;

public:
    Session(typename Protocol::socket socket, std::shared_ptr<asio::ssl::context> ctx, std::shared_ptr<Server::Impl> server)
        : server_(std::move(server)), ctx_(std::move(ctx)), tcp_(std::move(socket)), share_(*server_->body_budget),
          slot_(server_->connections.add()) {}
    ~Session() override { server_->connection_closed(slot_); }

    void start() {
        server_->connections.attach(slot_, this->weak_from_this());
        asio::dispatch(tcp_.get_executor(), [self = this->shared_from_this()] { self->begin(); });
    }

    void stop_if_idle() override {
        asio::post(lowest_executor(), [self = this->shared_from_this()] {
            if (self->idle_) self->lowest().cancel();
        });
    }

    void close_if_waiting() override {
        asio::post(lowest_executor(), [self = this->shared_from_this()] {
            if (self->waiting_) self->close_now();
        });
    }

private:
    // The socket layer: tcp_ until a TLS stream took it over.
    PlainStream& lowest() {
        if constexpr (kTls) {
            if (tls_) return beast::get_lowest_layer(*tls_);
        }
        return tcp_;
    }
    // Set at construction and never changed (the TLS stream takes over the same socket).
    asio::any_io_executor lowest_executor() { return executor_; }
    Stream& stream() {
        if constexpr (kTls) return *tls_;
        else return tcp_;
    }

    // Waiting for the client: the connection table may close it to make room.
    void wait_for_client() {
        waiting_ = true;
        ConnectionTable::waiting(slot_);
    }

    void begin() {
        if constexpr (kTls) {
            lowest().expires_after(server_->options.header_timeout);  // for the handshake
            idle_ = true;
            wait_for_client();
            read_record_header();
        } else {
            wait_for_request();
        }
    }

    // TLS: nothing of OpenSSL exists until the client's first handshake record is
    // in, held in a buffer that grows as its bytes arrive. A flood of connections
    // that send nothing, or part of a ClientHello, costs a few hundred bytes each.
    void read_record_header() {
        asio::async_read(tcp_, asio::buffer(record_header_),
                         [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                             self->waiting_ = false;
                             if (ec) return self->close_now();
                             if (self->record_header_[0] != kTlsHandshakeRecord) return self->close_now();
                             std::size_t length = (std::size_t(self->record_header_[3]) << 8) | self->record_header_[4];
                             if (length == 0 || length > kTlsMaxRecord) return self->close_now();
                             self->hello_total_ = kTlsRecordHeader + length;
                             self->hello_.assign(reinterpret_cast<const char*>(self->record_header_.data()),
                                                 kTlsRecordHeader);
                             self->hello_have_ = kTlsRecordHeader;
                             self->read_hello();
                         });
    }

    void read_hello() {
        if (hello_have_ == hello_total_) return start_handshake();
        hello_.resize(std::min(hello_total_, std::max<std::size_t>(512, 2 * hello_have_)));
        wait_for_client();
        tcp_.async_read_some(asio::buffer(hello_.data() + hello_have_, hello_.size() - hello_have_),
                             [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
                                 self->waiting_ = false;
                                 if (ec) return self->close_now();
                                 self->hello_have_ += n;
                                 self->read_hello();
                             });
    }

    void start_handshake() {
        if constexpr (kTls) {
            hello_.resize(hello_have_);
            idle_ = false;
            tls_.emplace(std::move(tcp_), *ctx_);
            wait_for_client();
            tls_->async_handshake(asio::ssl::stream_base::server, asio::buffer(hello_),
                                  [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                                      self->waiting_ = false;
                                      std::string().swap(self->hello_);
                                      if (ec) return self->close_now();
                                      self->client_subject_ = peer_subject(self->tls_->native_handle());
                                      self->wait_for_request();
                                  });
        }
    }

    // Before a request (the first, or the next on a keep-alive connection): the
    // buffer is allocated once its first bytes arrive.
    void wait_for_request() {
        if (server_->stopping) return close_now();
        idle_ = true;
        wait_for_client();
        lowest().expires_after(server_->options.header_timeout);  // the keep-alive wait and the header
        if (buffer_.size() > 0) return read_header();  // pipelined: the next request is here
        // After a large request, give its buffer back rather than keep it per connection.
        buffer_.shrink_to_fit();
        stream().async_read_some(asio::buffer(first_bytes_), [self = this->shared_from_this()](beast::error_code ec,
                                                                                                std::size_t n) {
            if (ec) {
                self->idle_ = self->waiting_ = false;
                return self->close_now();
            }
            auto room = self->buffer_.prepare(n);
            asio::buffer_copy(room, asio::buffer(self->first_bytes_.data(), n));
            self->buffer_.commit(n);
            self->read_header();
        });
    }

    void read_header() {
        parser_ = std::make_unique<http::request_parser<BudgetedBody>>();
        parser_->body_limit(server_->options.body_limit);
        parser_->header_limit(static_cast<std::uint32_t>(server_->options.header_limit));
        // The body's memory is taken as its bytes arrive, from the listener's budget.
        parser_->get().body().admit = [this](std::size_t n) {
            ConnectionTable::waiting(slot_);  // progress: not the longest waiting any more
            return share_.take(n);
        };
        http::async_read_header(stream(), buffer_, *parser_,
                                [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                                    self->on_header(ec);
                                });
    }

    void on_header(beast::error_code ec) {
        idle_ = waiting_ = false;
        if (closed_by_client(ec)) return close_now();
        if (ec == http::error::header_limit) return refuse(431, "request header too large");
        // Beast checks Content-Length against the body limit while reading the header.
        if (ec == http::error::body_limit) return refuse(413, "request body too large");
        auto& req = parser_->get();
        if (ec) {
            auto framing = framing_parse_error(ec, req.count(http::field::content_length) > 0,
                                               req.count(http::field::transfer_encoding) > 0);
            if (framing.status) return refuse(framing.status, framing.message);
            return refuse(400, "malformed HTTP request: " + ec.message());
        }
        std::vector<std::string_view> transfer_encodings, content_lengths;
        for (const auto& field : req) {
            auto value = field.value();
            if (field.name() == http::field::transfer_encoding) transfer_encodings.emplace_back(value.data(), value.size());
            else if (field.name() == http::field::content_length) content_lengths.emplace_back(value.data(), value.size());
        }
        auto framing = check_request_framing(transfer_encodings, content_lengths);
        if (framing.status) return refuse(framing.status, framing.message);
        auto length = parser_->content_length();
        if (length && *length > server_->options.body_limit) return refuse(413, "request body too large");
        if (beast::iequals(req[http::field::expect], "100-continue")) {
            auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, req.version());
            http::async_write(stream(), *cont, [self = this->shared_from_this(), cont](beast::error_code ec, std::size_t) {
                if (ec) return self->close_now();
                self->read_body();
            });
            return;
        }
        read_body();
    }

    // The whole body within body_timeout, on a timer of its own: the stream's timeout
    // would close the socket, and the client should learn why its request failed.
    void read_body() {
        if (parser_->is_done()) return handle();
        wait_for_client();
        lowest().expires_never();
        if (!body_timer_) body_timer_ = std::make_unique<asio::steady_timer>(lowest_executor());
        reading_body_ = true;
        body_deadline_passed_ = false;
        body_timer_->expires_after(server_->options.body_timeout);
        body_timer_->async_wait([self = this->shared_from_this()](beast::error_code ec) {
            if (ec || !self->reading_body_) return;
            self->body_deadline_passed_ = true;
            self->lowest().socket().cancel(ec);
        });
        http::async_read(stream(), buffer_, *parser_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
            self->reading_body_ = self->waiting_ = false;
            self->body_timer_->cancel();
            if (self->body_deadline_passed_)
                return self->refuse(408, "request body not received within " +
                                             seconds_text(self->server_->options.body_timeout));
            if (ec == http::error::body_limit) return self->refuse(413, "request body too large");
            if (ec == boost::system::errc::not_enough_memory)
                return self->refuse(503, "too many large request bodies at once; retry");
            if (closed_by_client(ec)) return self->close_now();
            if (ec) return self->refuse(400, "malformed HTTP request: " + ec.message());
            self->handle();
        });
    }

    void handle() {
        ConnectionTable::busy(slot_);
        auto message = parser_->release();
        parser_.reset();
        HttpRequest req;
        req.method = std::string(message.method_string());
        req.target = std::string(message.target());
        for (const auto& field : message) req.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
        req.body = std::move(message.body().bytes);
        req.client_subject = client_subject_;
        {
            boost::system::error_code peer_ec;
            auto peer = lowest().socket().remote_endpoint(peer_ec);
            if constexpr (std::is_same_v<Protocol, tcp>) {
                if (!peer_ec) req.remote_addr = peer.address().to_string() + ":" + std::to_string(peer.port());
            } else {
                req.remote_addr = "@";  // as Go names a unix socket's peer
            }
        }
        req.received = std::chrono::steady_clock::now();
        ++server_->in_flight;
        bool keep_alive = message.keep_alive();
        unsigned version = message.version();
        // From any thread. Until it answers, nothing else touches this connection (no read
        // is pending, idle_ and waiting_ are false), so the answer is written right on the
        // answering thread, a worker's usually: the bytes leave without waking a network
        // thread, and only the write's completion (then the next read) runs on the strand.
        Respond respond = [self = this->shared_from_this(), keep_alive, version](HttpResponse resp) {
            --self->server_->in_flight;
            self->share_.release();
            self->write(std::move(resp), keep_alive && !self->server_->stopping, version);
        };
        try {
            server_->handler(std::move(req), std::move(respond));
        } catch (const std::exception&) {
            // Handlers answer their own errors. Should one throw before answering, the
            // connection closes when the last copy of `respond` is gone.
        }
    }

    // The listener's own refusal; the connection closes after it.
    void refuse(int status, std::string_view message) {
        ConnectionTable::busy(slot_);
        share_.release();
        write(server_->failure(status, message), false, 11);
    }

    void write(HttpResponse resp, bool keep_alive, unsigned version) {
        auto out = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(resp.status), version);
        out->set(http::field::server, "gavel");
        out->set(http::field::content_type, resp.content_type);
        for (auto& [k, v] : resp.headers) out->set(k, v);
        out->body() = std::move(resp.body);
        out->keep_alive(keep_alive);
        out->prepare_payload();
        lowest().expires_after(server_->options.body_timeout);
        http::async_write(stream(), *out, [self = this->shared_from_this(), out](beast::error_code ec, std::size_t) {
            if (ec) return self->close_now();
            if (!out->keep_alive()) return self->close_gracefully();
            self->wait_for_request();
        });
    }

    // After a final response: TLS close_notify, then half-close and discard what the
    // client still sends for a moment, so that it reads our answer instead of a reset.
    void close_gracefully() {
        if constexpr (kTls) {
            lowest().expires_after(std::chrono::seconds(1));
            tls_->async_shutdown([self = this->shared_from_this()](beast::error_code) { self->linger(); });
        } else {
            linger();
        }
    }

    void linger() {
        auto& tcp = lowest();
        beast::error_code ignored;
        tcp.socket().shutdown(asio::socket_base::shutdown_send, ignored);
        tcp.expires_after(std::chrono::seconds(1));
        buffer_.clear();
        buffer_.shrink_to_fit();
        drain();
    }

    void drain() {
        lowest().async_read_some(buffer_.prepare(kDrainChunk), [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec) return self->close_now();
            self->drain();
        });
    }

    void close_now() {
        beast::error_code ignored;
        lowest().socket().close(ignored);
    }

    std::shared_ptr<Server::Impl> server_;
    std::shared_ptr<asio::ssl::context> ctx_;  // before the streams: a TLS stream refers to it
    PlainStream tcp_;                          // TLS: moved into tls_ once the handshake starts
    asio::any_io_executor executor_{tcp_.get_executor()};
    std::optional<TlsStream> tls_;
    // TLS before the handshake: the first record, as it arrives.
    std::array<unsigned char, kTlsRecordHeader> record_header_{};
    std::string hello_;
    std::size_t hello_have_ = 0;
    std::size_t hello_total_ = 0;
    // A request's first bytes land here, so that buffer_ exists only while a request does.
    std::array<char, 8> first_bytes_{};
    beast::flat_buffer buffer_;
    std::unique_ptr<http::request_parser<BudgetedBody>> parser_;  // while a request is read
    BodyBudget::Share share_;
    std::unique_ptr<asio::steady_timer> body_timer_;  // made for the first body
    bool reading_body_ = false;
    bool body_deadline_passed_ = false;
    std::string client_subject_;
    bool idle_ = false;     // no request in progress (shutdown closes the connection)
    bool waiting_ = false;  // a read from the client is pending (the table may close the connection)
    ConnectionTable::Slot slot_;
    static constexpr std::size_t kDrainChunk = 4096;
};

void Server::Impl::accept() {
    if (local_acceptor) accept_on(*local_acceptor);
    else accept_on(acceptor);
}

template <class Acceptor>
void Server::Impl::accept_on(Acceptor& acc) {
    acc.async_accept(asio::make_strand(io), [self = shared_from_this()](beast::error_code ec, typename Acceptor::protocol_type::socket socket) {
        if (self->stopping) return;
        if (ec) {
            // Out of file descriptors (EMFILE, ENFILE) or similar: back off instead of
            // spinning on accept; the pending connections wait in the kernel's backlog.
            if (ec != asio::error::operation_aborted && self->accept_error_log.allow())
                log_line("warn", "accept failed; retrying", {{"listener", runtime::Value::string(self->options.name)},
                                                             {"error", runtime::Value::string(ec.message())}});
            auto timer = std::make_shared<asio::steady_timer>(self->control, std::chrono::milliseconds(50));
            timer->async_wait([self, timer](beast::error_code) {
                if (!self->stopping) self->accept();
            });
            return;
        }
        self->admit(std::move(socket));
        self->accept();
    });
}

template <class Socket>
void Server::Impl::admit(Socket socket) {
    using Protocol = typename Socket::protocol_type;
    beast::error_code ec;
    std::size_t cap = options.max_connections;
    if (cap && connections.size() >= cap) {
        // Make room: the connection that has waited longest for its client closes.
        if (auto oldest = connections.longest_waiting()) {
            oldest->close_if_waiting();
            ++evicted;
        } else {
            socket.close(ec);
            ++refused;
        }
        if (cap_log.allow())
            log_line("warn", "connection limit reached",
                     {{"listener", runtime::Value::string(options.name)},
                      {"max_connections", runtime::Value::integer(static_cast<std::int64_t>(cap))},
                      {"closed_waiting", runtime::Value::integer(static_cast<std::int64_t>(evicted.load()))},
                      {"refused", runtime::Value::integer(static_cast<std::int64_t>(refused.load()))}});
        if (!socket.is_open()) return;
    }
    if constexpr (std::is_same_v<Protocol, tcp>) socket.set_option(tcp::no_delay(true), ec);
    if (tls) {
        std::make_shared<Session<Protocol, true>>(std::move(socket), tls->current(), shared_from_this())->start();
    } else {
        std::make_shared<Session<Protocol, false>>(std::move(socket), nullptr, shared_from_this())->start();
    }
}

void Server::Impl::begin_shutdown() {
    beast::error_code ignored;
    acceptor.close(ignored);
    if (local_acceptor) local_acceptor->close(ignored);
    for (auto& c : connections.all()) c->stop_if_idle();
}

Server::Server(ServerOptions options, Handler handler, std::shared_ptr<TlsContexts> tls)
    : impl_(std::make_shared<Impl>()) {
    impl_->options = std::move(options);
    impl_->handler = std::move(handler);
    impl_->tls = std::move(tls);
    impl_->body_budget = std::make_unique<BodyBudget>(impl_->options.body_budget ? impl_->options.body_budget
                                                                               : 32 * impl_->options.body_limit);
    beast::error_code ec;
    if (!impl_->options.unix_path.empty()) {
        // As OPA: a socket file left over from an earlier run is removed first.
        const std::string& path = impl_->options.unix_path;
        if (path.front() != '@') ::unlink(path.c_str());
        std::string native = path.front() == '@' ? std::string(1, '\0') + path.substr(1) : path;  // abstract namespace
        Impl::local::endpoint endpoint(native);
        auto& acc = impl_->local_acceptor.emplace(impl_->io);
        acc.open(endpoint.protocol(), ec);
        if (!ec) acc.bind(endpoint, ec);
        if (!ec) acc.listen(asio::socket_base::max_listen_connections, ec);
        if (!ec && path.front() != '@' && ::chmod(path.c_str(), impl_->options.unix_mode) != 0)
            ec = beast::error_code(errno, boost::system::generic_category());
        if (ec) throw std::runtime_error("cannot listen on unix://" + path + " (" + impl_->options.name + "): " + ec.message());
        return;
    }
    auto address = asio::ip::make_address(impl_->options.address, ec);
    if (ec) throw std::runtime_error("invalid address " + impl_->options.address + ": " + ec.message());
    tcp::endpoint endpoint(address, impl_->options.port);
    auto& acc = impl_->acceptor;
    acc.open(endpoint.protocol(), ec);
    if (!ec) acc.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acc.bind(endpoint, ec);
    if (!ec) acc.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
        throw std::runtime_error("cannot listen on " + impl_->options.address + ":" +
                                 std::to_string(impl_->options.port) + " (" + impl_->options.name + "): " + ec.message());
    impl_->bound_port = acc.local_endpoint().port();
}

Server::~Server() { stop(); }

uint16_t Server::port() const { return impl_->bound_port; }

std::size_t Server::in_flight() const { return impl_->in_flight.load(); }

std::size_t Server::connections() const { return impl_->connections.size(); }

std::uint64_t Server::refused_connections() const { return impl_->refused.load(); }

std::uint64_t Server::evicted_connections() const { return impl_->evicted.load(); }

void Server::start() {
    impl_->keep_running.emplace(asio::make_work_guard(impl_->io));
    impl_->accept();
    unsigned n = impl_->options.threads ? impl_->options.threads : std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < n; ++i) threads_.emplace_back([impl = impl_] { impl->io.run(); });
}

void Server::stop_accepting() {
    impl_->stopping = true;  // at once: answers written from now on close their connection
    asio::post(impl_->control, [impl = impl_] { impl->begin_shutdown(); });
}

bool Server::drained() const {
    if (!impl_->stopping) return false;
    return impl_->connections.size() == 0;
}

void Server::stop() {
    impl_->keep_running.reset();
    impl_->io.stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
}

}  // namespace gavel::webhook
