#include "webhook/server.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/string.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

#include "webhook/log.hpp"
#include "webhook/server_impl.hpp"
#include "webhook/tls.hpp"

namespace gavel::webhook {

namespace beast = boost::beast;

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

HttpResponse plain_error(int status, std::string_view code, std::string_view message) {
    std::string body = "{\"code\":\"";
    body += code;
    body += "\",\"message\":\"";
    body += message;
    body += "\"}";
    return HttpResponse::json(status, std::move(body));
}

}  // namespace

HttpResponse Server::Impl::failure(int status, std::string_view message) const {
    HttpResponse resp = options.failure_response
                            ? options.failure_response(status, message)
                            : plain_error(status, status == 503 ? "unavailable" : "invalid_parameter", message);
    if (status == 503) resp.headers.emplace_back("Retry-After", "1");
    return resp;
}

void Server::Impl::accept() {
    if (local_acceptor) accept_on(*local_acceptor);
    else accept_on(acceptor);
}

ConnectionExecutor Server::Impl::connection_executor() {
    std::size_t lane = next_lane++ % (lanes.size() + 1);
    return lane == 0 ? io.get_executor() : lanes[lane - 1]->get_executor();
}

template <class Acceptor>
void Server::Impl::accept_on(Acceptor& acc) {
    acc.async_accept(
        connection_executor(),
        [self = shared_from_this()](beast::error_code ec, ConnectionSocket<typename Acceptor::protocol_type> socket) {
            if (self->stopping) return;
            if (ec) {
                // Out of file descriptors (EMFILE, ENFILE) or similar: back off instead of
                // spinning on accept; the pending connections wait in the kernel's backlog.
                if (ec != asio::error::operation_aborted && self->accept_error_log.allow())
                    log_line("warn", "accept failed; retrying",
                             {{"listener", runtime::Value::string(self->options.name)},
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
        start_session<Protocol, true>(std::move(socket), tls->current(), shared_from_this());
    } else {
        start_session<Protocol, false>(std::move(socket), nullptr, shared_from_this());
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
        if (ec)
            throw std::runtime_error("cannot listen on unix://" + path + " (" + impl_->options.name +
                                     "): " + ec.message());
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
                                 std::to_string(impl_->options.port) + " (" + impl_->options.name +
                                 "): " + ec.message());
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
    // By default half the cores: the network threads only read, write and route, beside an
    // evaluation pool of one worker per core; one network thread per core as well left
    // twice as many busy threads as cores (on 2 cores, with wrk beside the server: ~35k ->
    // ~37k req/s for the plain admission policy, 40 -> 44k at 32 connections).
    unsigned n =
        impl_->options.threads ? impl_->options.threads : std::max(1u, std::thread::hardware_concurrency() / 2);
    for (unsigned i = 1; i < n; ++i) {
        auto& lane = *impl_->lanes.emplace_back(std::make_unique<asio::io_context>(1));
        impl_->lanes_running.push_back(asio::make_work_guard(lane));
    }
    impl_->accept();
    threads_.emplace_back([impl = impl_] { impl->io.run(); });
    for (auto& lane : impl_->lanes) threads_.emplace_back([impl = impl_, io = lane.get()] { io->run(); });
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
    impl_->lanes_running.clear();
    impl_->io.stop();
    for (auto& lane : impl_->lanes) lane->stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
}

}  // namespace gavel::webhook
