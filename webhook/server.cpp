#include "webhook/server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/x509.h>

#include <atomic>
#include <list>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

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

HttpResponse plain_error(int status, std::string_view message) { return plain_error(status, "invalid_parameter", message); }

}  // namespace

struct SessionBase {
    virtual ~SessionBase() = default;
    virtual void stop_if_idle() = 0;
};

struct Server::Impl : std::enable_shared_from_this<Impl> {
    ServerOptions options;
    Handler handler;
    std::shared_ptr<TlsContexts> tls;
    asio::io_context io;
    // Keeps the threads running while connections wait for a worker's answer
    // and nothing else is pending; released by stop().
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
    tcp::acceptor acceptor{io};
    uint16_t bound_port = 0;
    std::atomic<bool> stopping{false};
    std::atomic<std::size_t> in_flight{0};
    std::size_t body_budget = 0;
    std::atomic<std::size_t> body_held{0};

    mutable std::mutex sessions_mutex;
    std::list<std::weak_ptr<SessionBase>> sessions;

    asio::strand<asio::io_context::executor_type> control{asio::make_strand(io)};

    void accept();
    void begin_shutdown();
    void session_closed(std::list<std::weak_ptr<SessionBase>>::iterator it);

    std::list<std::weak_ptr<SessionBase>>::iterator register_session() {
        std::lock_guard lock(sessions_mutex);
        return sessions.insert(sessions.end(), std::weak_ptr<SessionBase>{});
    }

    // Takes `n` bytes of the body budget; one request is always let in, however large.
    bool reserve_body(std::size_t n) {
        std::size_t held = body_held.load();
        do {
            if (held != 0 && held + n > body_budget) return false;
        } while (!body_held.compare_exchange_weak(held, held + n));
        return true;
    }
    void release_body(std::size_t n) { body_held -= n; }
};

// One connection. Stream is beast::tcp_stream or beast::ssl_stream<beast::tcp_stream>.
template <class Stream>
class Session : public SessionBase, public std::enable_shared_from_this<Session<Stream>> {
public:
    static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

    Session(tcp::socket socket, std::shared_ptr<asio::ssl::context> ctx, std::shared_ptr<Server::Impl> server)
        : server_(std::move(server)), ctx_(std::move(ctx)), stream_(make_stream(std::move(socket))) {
        slot_ = server_->register_session();
    }
    ~Session() override {
        release_body();
        server_->session_closed(slot_);
    }

    void start() {
        {
            std::lock_guard lock(server_->sessions_mutex);
            *slot_ = this->weak_from_this();
        }
        asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] { self->begin(); });
    }

    void stop_if_idle() override {
        asio::post(stream_.get_executor(), [self = this->shared_from_this()] {
            if (self->idle_) beast::get_lowest_layer(self->stream_).cancel();
        });
    }

private:
    Stream make_stream(tcp::socket socket) {
        if constexpr (kTls) return Stream(std::move(socket), *ctx_);
        else return Stream(std::move(socket));
    }

    void begin() {
        if constexpr (kTls) {
            beast::get_lowest_layer(stream_).expires_after(server_->options.header_timeout);
            stream_.async_handshake(asio::ssl::stream_base::server,
                                    [self = this->shared_from_this()](beast::error_code ec) {
                                        if (ec) return self->close_now();
                                        self->client_subject_ = peer_subject(self->stream_.native_handle());
                                        self->read_header();
                                    });
        } else {
            read_header();
        }
    }

    void read_header() {
        if (server_->stopping) return close_now();
        // After a large request, give its buffer back rather than keep it per connection.
        if (buffer_.capacity() > kKeptBuffer) buffer_.shrink_to_fit();
        idle_ = true;
        parser_.emplace();
        parser_->body_limit(server_->options.body_limit);
        parser_->header_limit(static_cast<std::uint32_t>(server_->options.header_limit));
        beast::get_lowest_layer(stream_).expires_after(server_->options.header_timeout);
        http::async_read_header(stream_, buffer_, *parser_,
                                [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                                    self->on_header(ec);
                                });
    }

    void on_header(beast::error_code ec) {
        idle_ = false;
        if (ec == http::error::end_of_stream || ec == asio::error::operation_aborted || ec == beast::error::timeout ||
            ec == asio::error::eof || ec == asio::ssl::error::stream_truncated || ec == asio::error::connection_reset)
            return close_now();
        if (ec == http::error::header_limit) return reply_and_close(plain_error(431, "request header too large"));
        // Beast checks Content-Length against the body limit while reading the header.
        if (ec == http::error::body_limit) return reply_and_close(plain_error(413, "request body too large"));
        if (ec) return reply_and_close(plain_error(400, "malformed HTTP request: " + ec.message()));
        auto length = parser_->content_length();
        if (length && *length > server_->options.body_limit)
            return reply_and_close(plain_error(413, "request body too large"));
        // A chunked body may grow to the limit: it holds that much of the budget.
        std::size_t body = length ? static_cast<std::size_t>(*length) : parser_->chunked() ? server_->options.body_limit : 0;
        if (body) {
            if (!server_->reserve_body(body)) {
                auto busy = plain_error(503, "unavailable", "too many large request bodies at once; retry");
                busy.headers.emplace_back("Retry-After", "1");
                return reply_and_close(std::move(busy));
            }
            body_held_ = body;
        }
        const auto& req = parser_->get();
        if (beast::iequals(req[http::field::expect], "100-continue")) {
            auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, req.version());
            http::async_write(stream_, *cont, [self = this->shared_from_this(), cont](beast::error_code ec, std::size_t) {
                if (ec) return self->close_now();
                self->read_body();
            });
            return;
        }
        read_body();
    }

    void read_body() {
        if (parser_->is_done()) return handle();
        beast::get_lowest_layer(stream_).expires_after(server_->options.body_timeout);
        http::async_read(stream_, buffer_, *parser_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec == http::error::body_limit) return self->reply_and_close(plain_error(413, "request body too large"));
            if (ec == beast::error::timeout || ec == http::error::end_of_stream || ec == asio::error::eof ||
                ec == asio::error::operation_aborted || ec == asio::error::connection_reset)
                return self->close_now();
            if (ec) return self->reply_and_close(plain_error(400, "malformed HTTP request: " + ec.message()));
            self->handle();
        });
    }

    void handle() {
        auto message = parser_->release();
        HttpRequest req;
        req.method = std::string(message.method_string());
        req.target = std::string(message.target());
        for (const auto& field : message) req.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
        req.body = std::move(message.body());
        req.client_subject = client_subject_;
        {
            boost::system::error_code peer_ec;
            auto peer = beast::get_lowest_layer(stream_).socket().remote_endpoint(peer_ec);
            if (!peer_ec) req.remote_addr = peer.address().to_string() + ":" + std::to_string(peer.port());
        }
        req.received = std::chrono::steady_clock::now();
        ++server_->in_flight;
        bool keep_alive = message.keep_alive();
        unsigned version = message.version();
        // From any thread. Until it answers, nothing else touches this connection (no read
        // is pending, idle_ is false), so the answer is written right on the answering
        // thread, a worker's usually: the bytes leave without waking a network thread,
        // and only the write's completion (then the next read) runs on the strand.
        Respond respond = [self = this->shared_from_this(), keep_alive, version](HttpResponse resp) {
            --self->server_->in_flight;
            self->release_body();
            self->write(std::move(resp), keep_alive && !self->server_->stopping, version);
        };
        try {
            server_->handler(std::move(req), std::move(respond));
        } catch (const std::exception&) {
            // Handlers answer their own errors. Should one throw before answering, the
            // connection closes when the last copy of `respond` is gone.
        }
    }

    void release_body() {
        server_->release_body(body_held_);
        body_held_ = 0;
    }

    void reply_and_close(HttpResponse resp) {
        release_body();
        write(std::move(resp), false, 11);
    }

    void write(HttpResponse resp, bool keep_alive, unsigned version) {
        auto out = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(resp.status), version);
        out->set(http::field::server, "gavel");
        out->set(http::field::content_type, resp.content_type);
        for (auto& [k, v] : resp.headers) out->set(k, v);
        out->body() = std::move(resp.body);
        out->keep_alive(keep_alive);
        out->prepare_payload();
        beast::get_lowest_layer(stream_).expires_after(server_->options.body_timeout);
        http::async_write(stream_, *out, [self = this->shared_from_this(), out](beast::error_code ec, std::size_t) {
            if (ec) return self->close_now();
            if (!out->keep_alive()) return self->close_gracefully();
            self->read_header();
        });
    }

    // After a final response: TLS close_notify, then half-close and discard what the
    // client still sends for a moment, so that it reads our answer instead of a reset.
    void close_gracefully() {
        if constexpr (kTls) {
            beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(1));
            stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) { self->linger(); });
        } else {
            linger();
        }
    }

    void linger() {
        auto& lowest = beast::get_lowest_layer(stream_);
        beast::error_code ignored;
        lowest.socket().shutdown(tcp::socket::shutdown_send, ignored);
        lowest.expires_after(std::chrono::seconds(1));
        drain();
    }

    void drain() {
        beast::get_lowest_layer(stream_).async_read_some(
            asio::buffer(scratch_), [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                if (ec) return self->close_now();
                self->drain();
            });
    }

    void close_now() {
        beast::error_code ignored;
        beast::get_lowest_layer(stream_).socket().close(ignored);
    }

    std::shared_ptr<Server::Impl> server_;
    std::shared_ptr<asio::ssl::context> ctx_;  // before stream_: the stream refers to it
    Stream stream_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    std::string client_subject_;
    bool idle_ = false;
    std::array<char, 4096> scratch_{};
    std::size_t body_held_ = 0;  // bytes of the server's body budget this request holds
    static constexpr std::size_t kKeptBuffer = 64u << 10;
    std::list<std::weak_ptr<SessionBase>>::iterator slot_;
};

void Server::Impl::accept() {
    acceptor.async_accept(asio::make_strand(io), [self = shared_from_this()](beast::error_code ec, tcp::socket socket) {
        if (self->stopping) return;
        if (!ec) {
            socket.set_option(tcp::no_delay(true), ec);
            if (self->tls) {
                auto ctx = self->tls->current();
                std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(std::move(socket), std::move(ctx), self)
                    ->start();
            } else {
                std::make_shared<Session<beast::tcp_stream>>(std::move(socket), nullptr, self)->start();
            }
        }
        if (ec && ec != asio::error::operation_aborted) {
            // Out of file descriptors (or similar): back off instead of spinning on accept.
            auto timer = std::make_shared<asio::steady_timer>(self->control, std::chrono::milliseconds(50));
            timer->async_wait([self, timer](beast::error_code) {
                if (!self->stopping) self->accept();
            });
            return;
        }
        self->accept();
    });
}

void Server::Impl::begin_shutdown() {
    beast::error_code ignored;
    acceptor.close(ignored);
    std::vector<std::shared_ptr<SessionBase>> open;
    {
        std::lock_guard lock(sessions_mutex);
        for (auto& w : sessions)
            if (auto s = w.lock()) open.push_back(std::move(s));
    }
    for (auto& s : open) s->stop_if_idle();
}

void Server::Impl::session_closed(std::list<std::weak_ptr<SessionBase>>::iterator it) {
    std::lock_guard lock(sessions_mutex);
    sessions.erase(it);
}

Server::Server(ServerOptions options, Handler handler, std::shared_ptr<TlsContexts> tls)
    : impl_(std::make_shared<Impl>()) {
    impl_->options = std::move(options);
    impl_->handler = std::move(handler);
    impl_->tls = std::move(tls);
    impl_->body_budget = impl_->options.body_budget ? impl_->options.body_budget : 32 * impl_->options.body_limit;
    beast::error_code ec;
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
    std::lock_guard lock(impl_->sessions_mutex);
    return impl_->sessions.empty();
}

void Server::stop() {
    impl_->keep_running.reset();
    impl_->io.stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
}

}  // namespace gavel::webhook
