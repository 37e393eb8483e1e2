// http.send against a tiny Beast server on loopback (one thread, one
// connection at a time): JSON and text bodies, POST bodies, headers,
// redirects, the per-query cache, timeouts, refused connections, and the
// "unallowed host" error when the engine does not allow the network.

#include <doctest/doctest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "engine/engine.hpp"
#include "runtime/json.hpp"

namespace {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

class LoopbackServer {
public:
    LoopbackServer() : acceptor_(ioc_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
        port_ = acceptor_.local_endpoint().port();
        thread_ = std::thread([this] { serve(); });
    }
    ~LoopbackServer() {
        stop_ = true;
        boost::system::error_code ec;
        tcp::socket poke(ioc_);
        poke.connect(acceptor_.local_endpoint(), ec);  // wakes the blocking accept
        thread_.join();
    }
    std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
    int requests() const { return requests_; }

private:
    void serve() {
        while (!stop_) {
            tcp::socket socket(ioc_);
            boost::system::error_code ec;
            acceptor_.accept(socket, ec);
            if (ec || stop_) break;
            boost::beast::flat_buffer buffer;
            bhttp::request<bhttp::string_body> req;
            bhttp::read(socket, buffer, req, ec);
            if (ec) continue;
            ++requests_;
            bhttp::response<bhttp::string_body> res{bhttp::status::ok, 11};
            const std::string target(req.target());
            if (target == "/json") {
                res.set(bhttp::field::content_type, "application/json");
                res.set("X-Echo", std::string(req[bhttp::field::user_agent].empty() ? "" : "ua"));
                std::string body = R"({"method":")" + std::string(req.method_string()) + R"(","custom":")" +
                                   std::string(req["X-Custom"]) + R"(","body":)" +
                                   (req.body().empty() ? std::string("null") : req.body()) + "}";
                res.body() = body;
            } else if (target == "/redirect") {
                res.result(bhttp::status::found);
                res.set(bhttp::field::location, "/json");
            } else if (target == "/slower") {
                std::this_thread::sleep_for(std::chrono::milliseconds(2000));
                res.body() = "much later";
            } else if (target == "/slow") {
                std::this_thread::sleep_for(std::chrono::milliseconds(600));
                res.body() = "late";
            } else {
                res.set(bhttp::field::content_type, "text/plain");
                res.body() = "hello " + target;
            }
            res.prepare_payload();
            bhttp::write(socket, res, ec);
            socket.shutdown(tcp::socket::shutdown_both, ec);
        }
    }

    asio::io_context ioc_;
    tcp::acceptor acceptor_;
    unsigned short port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> requests_{0};
    std::thread thread_;
};

struct Outcome {
    std::string value;  // compact JSON of x, "undefined", or "error: ..."
};

Outcome eval(const std::string& policy, bool allow_net, bool strict = true) {
    gavel::EngineOptions options;
    options.allow_net = allow_net;
    gavel::Engine engine(options);
    auto diags = engine.add_policy("p.rego", policy);
    REQUIRE_MESSAGE(diags.empty(), diags.format());
    auto q = engine.prepare("x = data.t.x");
    REQUIRE_MESSAGE(q.ok(), q.diagnostics.format());
    gavel::EvalOptions eo;
    eo.strict_builtin_errors = strict;
    auto r = q.value->eval(eo);
    if (r.error) return {"error: " + r.error->to_string()};
    if (r.rows.empty()) return {"undefined"};
    return {gavel::runtime::to_json(r.rows[0].bindings[0].second)};
}

std::string policy_for(const std::string& body) { return "package t\n" + body; }

}  // namespace

TEST_CASE("http.send: GET with a JSON response, headers lower-cased, status text") {
    LoopbackServer server;
    auto out = eval(policy_for(R"(x := r if {
  resp := http.send({"method": "get", "url": ")" +
                               server.url("/json") + R"(", "headers": {"X-Custom": "v1"}})
  r := [resp.status_code, resp.status, resp.body, resp.headers["content-type"]]
})"),
                    true);
    CHECK(out.value == R"([200,"200 OK",{"body":null,"custom":"v1","method":"GET"},["application/json"]])");
}

TEST_CASE("http.send: POST sends the body as JSON; text bodies stay raw") {
    LoopbackServer server;
    auto out = eval(policy_for(R"(x := [a.body.body, b.body, b.raw_body] if {
  a := http.send({"method": "POST", "url": ")" +
                               server.url("/json") + R"(", "body": {"k": [1, 2]}})
  b := http.send({"method": "GET", "url": ")" +
                               server.url("/plain") + R"("})
})"),
                    true);
    CHECK(out.value == R"([{"k":[1,2]},null,"hello /plain"])");
}

TEST_CASE("http.send: identical requests within one query are sent once") {
    LoopbackServer server;
    auto out = eval(policy_for(R"(x := [a.status_code, b.status_code] if {
  a := http.send({"method": "GET", "url": ")" +
                               server.url("/count") + R"("})
  b := http.send({"method": "GET", "url": ")" +
                               server.url("/count") + R"("})
})"),
                    true);
    CHECK(out.value == "[200,200]");
    CHECK(server.requests() == 1);
}

TEST_CASE("http.send: redirects are followed only when enabled") {
    LoopbackServer server;
    auto out = eval(policy_for(R"(x := [a.status_code, b.status_code, b.body.method] if {
  a := http.send({"method": "GET", "url": ")" +
                               server.url("/redirect") + R"("})
  b := http.send({"method": "GET", "url": ")" +
                               server.url("/redirect") + R"(", "enable_redirect": true})
})"),
                    true);
    CHECK(out.value == R"([302,200,"GET"])");
}

TEST_CASE("http.send: a timeout ends the request; raise_error false returns the error object") {
    LoopbackServer server;
    auto out =
        eval(policy_for(R"(x := [r.status_code, r.error.code, contains(r.error.message, "request timed out")] if {
  r := http.send({"method": "GET", "url": ")" +
                        server.url("/slow") + R"(", "timeout": "150ms", "raise_error": false})
})"),
             true);
    CHECK(out.value == R"([0,"eval_http_send_network_error",true])");
}

TEST_CASE("http.send: a refused connection is a builtin error (strict) or undefined") {
    // Bind a port, then close it: nothing listens there any more.
    unsigned short port;
    {
        asio::io_context ioc;
        tcp::acceptor a(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
        port = a.local_endpoint().port();
    }
    const std::string policy = policy_for(R"(x := r if r := http.send({"method": "GET", "url": "http://127.0.0.1:)" +
                                          std::to_string(port) + R"(/"}))");
    auto strict = eval(policy, true, true);
    INFO(strict.value);
    CHECK(strict.value.find("eval_builtin_error: http.send: Get \"http://127.0.0.1:") != std::string::npos);
    CHECK(strict.value.find("refused") != std::string::npos);
    CHECK(eval(policy, true, false).value == "undefined");
}

TEST_CASE("http.send: without allow_net every host is unallowed, and nothing is sent") {
    LoopbackServer server;
    const std::string call = R"(http.send({"method": "GET", "url": ")" + server.url("/json") + R"("}))";
    auto out = eval(policy_for("x := r if r := " + call), false);
    CHECK(out.value.find("eval_builtin_error: http.send: unallowed host: 127.0.0.1") != std::string::npos);
    auto soft = eval(policy_for(R"(x := r.error if r := http.send({"method": "GET", "url": ")" + server.url("/json") +
                                R"(", "raise_error": false}))"),
                     false);
    CHECK(soft.value == R"({"code":"eval_http_send_internal_error","message":"unallowed host: 127.0.0.1"})");
    CHECK(server.requests() == 0);
}

TEST_CASE("http.send: request objects are validated as OPA does") {
    auto missing = eval(policy_for(R"(x := r if r := http.send({"method": "GET"}))"), true);
    CHECK(missing.value.find(R"(eval_type_error: http.send: missing required request parameters(s): {"url"})") !=
          std::string::npos);
    auto unknown =
        eval(policy_for(R"(x := r if r := http.send({"method": "GET", "url": "http://x", "bogus": 1}))"), true);
    CHECK(unknown.value.find(R"(eval_type_error: http.send: invalid request parameters(s): {"bogus"})") !=
          std::string::npos);
}

TEST_CASE("http.send: the query's timeout bounds the request") {
    LoopbackServer server;
    gavel::EngineOptions options;
    options.allow_net = true;
    gavel::Engine engine(options);
    REQUIRE(engine
                .add_policy("p.rego", "package t\nx := http.send({\"method\": \"GET\", \"url\": \"" +
                                          server.url("/slower") + "\", \"timeout\": \"10s\"})")
                .empty());
    auto q = engine.prepare("data.t.x");
    REQUIRE(q.ok());
    gavel::EvalOptions eo;
    eo.strict_builtin_errors = true;
    eo.timeout = std::chrono::milliseconds(150);
    auto start = std::chrono::steady_clock::now();
    auto r = q.value->eval(eo);
    auto took = std::chrono::steady_clock::now() - start;
    REQUIRE(r.error);
    CHECK(took < std::chrono::milliseconds(1500));  // not the server's 2 s, nor the request's 10 s
}
