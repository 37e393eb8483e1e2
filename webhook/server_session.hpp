#pragma once
// One HTTP connection of a Server: Session<Protocol, kTls>. Included only by the
// server_session_{plain,tls}.cpp files, which instantiate it (see server_impl.hpp).

#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/x509.h>

#include <array>
#include <string>
#include <type_traits>

#include "webhook/budgeted_body.hpp"
#include "webhook/request_framing.hpp"
#include "webhook/server_impl.hpp"

namespace gavel::webhook::session_detail {

namespace beast = boost::beast;
namespace http = beast::http;

// The subject of the verified peer certificate in RFC 2253 form, or empty.
inline std::string peer_subject(SSL* ssl) {
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

inline std::string seconds_text(std::chrono::milliseconds d) {
    auto ms = d.count();
    if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
    return std::to_string(ms) + "ms";
}

inline bool closed_by_client(const beast::error_code& ec) {
    return ec == http::error::end_of_stream || ec == asio::error::operation_aborted || ec == beast::error::timeout ||
           ec == asio::error::eof || ec == asio::ssl::error::stream_truncated || ec == asio::error::connection_reset ||
           ec == asio::error::bad_descriptor;
}

inline constexpr unsigned char kTlsHandshakeRecord = 0x16;
inline constexpr std::size_t kTlsRecordHeader = 5;
inline constexpr std::size_t kTlsMaxRecord = 16384 + 2048;  // plaintext limit plus what compression/AEAD may add

}  // namespace gavel::webhook::session_detail

namespace gavel::webhook {

namespace beast = boost::beast;
namespace http = beast::http;
using namespace session_detail;  // NOLINT: the helpers above, in this header only

// One connection over TCP or a unix socket (Protocol), plain (beast::basic_stream)
// or TLS (beast::ssl_stream over it).
template <class Protocol, bool kTls>
class Session : public Connection, public std::enable_shared_from_this<Session<Protocol, kTls>> {
    using PlainStream = beast::basic_stream<Protocol, ConnectionExecutor>;
    using Timer = asio::basic_waitable_timer<std::chrono::steady_clock, asio::wait_traits<std::chrono::steady_clock>,
                                             ConnectionExecutor>;
    using TlsStream = beast::ssl_stream<PlainStream>;
    using Stream = std::conditional_t<kTls, TlsStream, PlainStream>;

public:
    Session(ConnectionSocket<Protocol> socket, std::shared_ptr<asio::ssl::context> ctx,
            std::shared_ptr<Server::Impl> server)
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
    ConnectionExecutor lowest_executor() { return executor_; }
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
        asio::async_read(
            tcp_, asio::buffer(record_header_), [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                self->waiting_ = false;
                if (ec) return self->close_now();
                if (self->record_header_[0] != kTlsHandshakeRecord) return self->close_now();
                std::size_t length = (std::size_t(self->record_header_[3]) << 8) | self->record_header_[4];
                if (length == 0 || length > kTlsMaxRecord) return self->close_now();
                self->hello_total_ = kTlsRecordHeader + length;
                self->hello_.assign(reinterpret_cast<const char*>(self->record_header_.data()), kTlsRecordHeader);
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
        if (buffer_.size() > 0) return read_header();             // pipelined: the next request is here
        // After a large request, give its buffer back rather than keep it per connection.
        buffer_.shrink_to_fit();
        stream().async_read_some(asio::buffer(first_bytes_),
                                 [self = this->shared_from_this()](beast::error_code ec, std::size_t n) {
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
        http::async_read_header(
            stream(), buffer_, *parser_,
            [self = this->shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
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
            if (field.name() == http::field::transfer_encoding)
                transfer_encodings.emplace_back(value.data(), value.size());
            else if (field.name() == http::field::content_length)
                content_lengths.emplace_back(value.data(), value.size());
        }
        auto framing = check_request_framing(transfer_encodings, content_lengths);
        if (framing.status) return refuse(framing.status, framing.message);
        auto length = parser_->content_length();
        if (length && *length > server_->options.body_limit) return refuse(413, "request body too large");
        if (beast::iequals(req[http::field::expect], "100-continue")) {
            auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, req.version());
            http::async_write(stream(), *cont,
                              [self = this->shared_from_this(), cont](beast::error_code ec, std::size_t) {
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
        // Beast reads what the buffer has room for, at least 512 bytes: room for the body, up
        // to a TLS record's worth, turns a 13 KB review's 26 reads (system calls in plain
        // HTTP, TLS engine round trips over TLS) into one or two.
        auto length = parser_->content_length_remaining();
        buffer_.reserve(buffer_.size() + std::min<std::size_t>(length.value_or(kBodyReadChunk), kBodyReadChunk));
        wait_for_client();
        lowest().expires_never();
        if (!body_timer_) body_timer_ = std::make_unique<Timer>(lowest_executor());
        reading_body_ = true;
        body_deadline_passed_ = false;
        body_timer_->expires_after(server_->options.body_timeout);
        body_timer_->async_wait([self = this->shared_from_this()](beast::error_code ec) {
            if (ec || !self->reading_body_) return;
            self->body_deadline_passed_ = true;
            self->lowest().socket().cancel(ec);
        });
        http::async_read(
            stream(), buffer_, *parser_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                self->reading_body_ = self->waiting_ = false;
                self->body_timer_->cancel();
                if (self->body_deadline_passed_)
                    return self->refuse(
                        408, "request body not received within " + seconds_text(self->server_->options.body_timeout));
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
        for (const auto& field : message)
            req.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
        req.body = std::move(message.body().bytes);
        req.client_subject = client_subject_;
        if (remote_addr_.empty()) {  // once per connection: a system call
            boost::system::error_code peer_ec;
            auto peer = lowest().socket().remote_endpoint(peer_ec);
            if constexpr (std::is_same_v<Protocol, tcp>) {
                if (!peer_ec) remote_addr_ = peer.address().to_string() + ":" + std::to_string(peer.port());
            } else {
                remote_addr_ = "@";  // as Go names a unix socket's peer
            }
        }
        req.remote_addr = remote_addr_;
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
        lowest().async_read_some(buffer_.prepare(kDrainChunk),
                                 [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
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
    ConnectionExecutor executor_{tcp_.get_executor()};
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
    std::unique_ptr<Timer> body_timer_;  // made for the first body
    bool reading_body_ = false;
    bool body_deadline_passed_ = false;
    std::string client_subject_;
    std::string remote_addr_;  // the peer's address, known after the first request
    bool idle_ = false;        // no request in progress (shutdown closes the connection)
    bool waiting_ = false;     // a read from the client is pending (the table may close the connection)
    ConnectionTable::Slot slot_;
    static constexpr std::size_t kDrainChunk = 4096;
    static constexpr std::size_t kBodyReadChunk = 16384;  // a TLS record's plaintext
};

template <class Protocol, bool kTls>
void start_session(ConnectionSocket<Protocol> socket, std::shared_ptr<asio::ssl::context> ctx,
                   std::shared_ptr<Server::Impl> server) {
    std::make_shared<Session<Protocol, kTls>>(std::move(socket), std::move(ctx), std::move(server))->start();
}

}  // namespace gavel::webhook
