// What a client can make a listener hold, without sockets: the body budget and
// the body type that asks it as bytes arrive, the framing rules against request
// smuggling, the connection table's choice of whom to close at the cap, and the
// open file limit.

#include <doctest/doctest.h>

#include <sys/resource.h>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>

#include <string>

#include "webhook/body_budget.hpp"
#include "webhook/budgeted_body.hpp"
#include "webhook/connection_table.hpp"
#include "webhook/fd_limit.hpp"
#include "webhook/request_framing.hpp"

namespace wh = gavel::webhook;
namespace http = boost::beast::http;

TEST_CASE("body budget: bytes taken as they come; one request alone always proceeds") {
    wh::BodyBudget budget(100);
    wh::BodyBudget::Share a(budget), b(budget);
    CHECK(a.take(150));  // alone: beyond the limit, yet let in
    CHECK_FALSE(b.take(1));
    CHECK(budget.held() == 150);
    a.release();
    CHECK(budget.held() == 0);
    CHECK(a.take(60));
    CHECK(b.take(40));
    CHECK_FALSE(b.take(1));  // 101 > 100, and `a` holds bytes
    CHECK(b.held() == 40);
    {
        wh::BodyBudget::Share c(budget);
        CHECK_FALSE(c.take(1));
    }
    b.release();
    CHECK(b.take(40));
    CHECK(budget.held() == 100);
    a.release();
    b.release();
    CHECK(budget.held() == 0);
}

namespace {

// Feeds `text` to a request parser whose body asks `share` for its bytes.
struct Parse {
    http::request_parser<wh::BudgetedBody> parser;
    boost::beast::error_code ec;
    std::size_t asked = 0;

    Parse(wh::BodyBudget::Share& share, const std::string& text) {
        parser.body_limit(1u << 30);
        parser.eager(true);
        parser.get().body().admit = [&share, this](std::size_t n) {
            asked += n;
            return share.take(n);
        };
        parser.put(boost::asio::buffer(text), ec);
    }
};

}  // namespace

TEST_CASE("budgeted body: a declared length takes nothing of the budget; bytes received do") {
    wh::BodyBudget budget(64u << 10);
    wh::BodyBudget::Share other(budget);
    REQUIRE(other.take(1));  // someone else holds bytes: the budget binds

    SUBCASE("a large declared length, few bytes sent") {
        wh::BodyBudget::Share share(budget);
        Parse p(share, "POST / HTTP/1.1\r\nContent-Length: 100000000\r\n\r\n0123456789");
        CHECK_FALSE(p.ec);
        CHECK(p.parser.get().body().bytes == "0123456789");
        CHECK(p.parser.get().body().bytes.capacity() < 8192);
        CHECK(share.held() == 10);
    }
    SUBCASE("small bodies grow to their declared length, not beyond") {
        wh::BodyBudget::Share share(budget);
        std::string body(5000, 'x');
        Parse p(share, "POST / HTTP/1.1\r\nContent-Length: 5000\r\n\r\n" + body);
        CHECK_FALSE(p.ec);
        CHECK(p.parser.is_done());
        CHECK(p.parser.get().body().bytes == body);
        CHECK(p.parser.get().body().bytes.capacity() == 5000);
        CHECK(share.held() == 5000);
    }
    SUBCASE("past 64 KiB received, one allocation of the declared length") {
        wh::BodyBudget big(1u << 30);
        wh::BodyBudget::Share share(big);
        std::string part(wh::BudgetedBody::reader::kSmall + 1, 'x');
        Parse p(share, "POST / HTTP/1.1\r\nContent-Length: 10000000\r\n\r\n" + part);
        CHECK_FALSE(p.ec);
        CHECK(p.parser.get().body().bytes.capacity() == 10000000);
        CHECK(share.held() == part.size());
    }
    SUBCASE("bytes beyond the budget: refused with not_enough_memory") {
        wh::BodyBudget::Share share(budget);
        std::string body(100000, 'x');
        Parse p(share, "POST / HTTP/1.1\r\nContent-Length: 100000\r\n\r\n" + body);
        CHECK(p.ec == boost::system::errc::not_enough_memory);
        CHECK(budget.held() <= budget.limit());
    }
    SUBCASE("chunked bodies count their decoded bytes") {
        wh::BodyBudget::Share share(budget);
        std::string chunk(5000, 'x');
        Parse p(share, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1388\r\n" + chunk + "\r\n0\r\n\r\n");
        CHECK_FALSE(p.ec);
        CHECK(p.parser.get().body().bytes == chunk);
        CHECK(share.held() == 5000);
    }
}

TEST_CASE("request framing: Go net/http's rules for Transfer-Encoding and Content-Length") {
    using V = std::vector<std::string_view>;
    auto status = [](V te, V cl) { return wh::check_request_framing(te, cl).status; };
    CHECK(status({}, {}) == 0);
    CHECK(status({"chunked"}, {}) == 0);
    CHECK(status({" Chunked "}, {}) == 0);
    CHECK(status({"chunked, identity"}, {}) == 501);  // a second, smuggled request would follow
    CHECK(status({"identity"}, {}) == 501);
    CHECK(status({"gzip, chunked"}, {}) == 501);
    CHECK(status({"chunked", "chunked"}, {}) == 501);
    CHECK(status({""}, {}) == 501);
    CHECK(wh::check_request_framing({"identity"}, {}).message == "unsupported transfer encoding");
    CHECK(status({}, {"12"}) == 0);
    CHECK(status({}, {"2", " 2"}) == 0);  // repeated, equal: accepted as Go does
    CHECK(status({}, {"2", "3"}) == 400);
    CHECK(status({}, {"2, 2"}) == 400);
    CHECK(status({}, {"+2"}) == 400);
    CHECK(status({}, {""}) == 400);

    // Beast's own refusals, by the fields that came before.
    CHECK(wh::framing_parse_error(http::error::bad_transfer_encoding, false, true).status == 501);  // second TE field
    CHECK(wh::framing_parse_error(http::error::bad_transfer_encoding, true, false).status == 400);  // CL, then TE
    CHECK(wh::framing_parse_error(http::error::bad_content_length, false, true).status == 400);     // TE, then CL
    CHECK(wh::framing_parse_error(http::error::bad_content_length, true, false).status == 400);
    CHECK(wh::framing_parse_error(http::error::bad_method, false, false).status == 0);
}

namespace {

struct FakeConnection : wh::Connection {
    int closed = 0;
    int stopped = 0;
    void close_if_waiting() override { ++closed; }
    void stop_if_idle() override { ++stopped; }
};

}  // namespace

TEST_CASE("connection table: at the cap, the connection waiting longest makes room; busy ones never") {
    using clock = std::chrono::steady_clock;
    wh::ConnectionTable table;
    auto t0 = clock::now();
    auto a = std::make_shared<FakeConnection>(), b = std::make_shared<FakeConnection>(),
         c = std::make_shared<FakeConnection>();
    auto sa = table.add(), sb = table.add(), sc = table.add();
    table.attach(sa, a);
    table.attach(sb, b);
    table.attach(sc, c);
    CHECK(table.size() == 3);
    CHECK(table.longest_waiting() == nullptr);  // all busy: a new connection is refused

    wh::ConnectionTable::waiting(sa, t0 + std::chrono::seconds(2));
    wh::ConnectionTable::waiting(sb, t0 + std::chrono::seconds(1));  // waiting longest
    wh::ConnectionTable::waiting(sc, t0 + std::chrono::seconds(3));
    CHECK(table.longest_waiting() == b);
    CHECK(table.longest_waiting() == a);  // b was picked already
    wh::ConnectionTable::busy(sc);        // c's request arrived
    CHECK(table.longest_waiting() == nullptr);
    wh::ConnectionTable::waiting(sb, t0 + std::chrono::seconds(5));  // b waits again (its close did not happen)
    CHECK(table.longest_waiting() == b);

    // A connection already gone is skipped.
    auto sd = table.add();
    wh::ConnectionTable::waiting(sd, t0);
    wh::ConnectionTable::waiting(sa, t0 + std::chrono::seconds(6));
    CHECK(table.longest_waiting() == a);

    CHECK(table.all().size() == 3);
    table.remove(sd);
    table.remove(sa);
    CHECK(table.size() == 2);
}

TEST_CASE("connection table: the end of a burst is reported once, for the memory release") {
    wh::ConnectionTable table;
    std::vector<wh::ConnectionTable::Slot> slots;
    for (int i = 0; i < 200; ++i) slots.push_back(table.add());
    int reports = 0;
    for (int i = 0; i < 100; ++i) reports += table.remove(slots[i]);
    CHECK(reports == 1);  // 200 -> 100
    for (int i = 100; i < 164; ++i) reports += table.remove(slots[i]);
    CHECK(reports == 2);  // 100 -> 36: half the peak, and at least 64 below it
    for (int i = 164; i < 200; ++i) reports += table.remove(slots[i]);
    CHECK(reports == 2);  // 36 -> 0: too small a burst
}

TEST_CASE("fd limit: the soft limit is raised to the hard one") {
    rlimit original{};
    REQUIRE(getrlimit(RLIMIT_NOFILE, &original) == 0);
    if (original.rlim_max == RLIM_INFINITY || original.rlim_max < 128) return;  // nothing to observe
    rlimit lowered = original;
    lowered.rlim_cur = 64;
    REQUIRE(setrlimit(RLIMIT_NOFILE, &lowered) == 0);
    auto r = wh::raise_fd_limit();
    rlimit now{};
    getrlimit(RLIMIT_NOFILE, &now);
    CHECK(r.error.empty());
    CHECK(r.before == 64);
    CHECK(r.after == original.rlim_max);
    CHECK(now.rlim_cur == original.rlim_max);
    auto again = wh::raise_fd_limit();  // already at the hard limit: unchanged
    CHECK(again.before == again.after);
    setrlimit(RLIMIT_NOFILE, &original);
}
