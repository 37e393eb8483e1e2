// Directory reloads of `gavel serve`: a read error fails the reload and keeps the
// last good set (it never loads as an empty directory), cycles do not stop it,
// and only content that holds still is taken (webhook/settled_read.hpp).
#include "webhook/directory_source.hpp"
#include "webhook/gatekeeper_policies.hpp"
#include "webhook/settled_read.hpp"
#include "test/unit/temp_tree.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

namespace wh = gavel::webhook;
using gavel::test::FdLimit;
using gavel::test::TempTree;
namespace fs = std::filesystem;

namespace {

struct Reloader {
    std::shared_ptr<wh::PolicyStore> store =
        std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{});
    std::shared_ptr<wh::Metrics> metrics = std::make_shared<wh::Metrics>();
    wh::DirectorySource source;
    explicit Reloader(const std::string& dir) : source({dir}, store, metrics) {}

    std::string errors_text;
    wh::DirectorySource::Poll poll(bool force = false) {
        gavel::lang::Diagnostics errors;
        auto result = source.poll(errors, force);
        errors_text.clear();
        for (const auto& d : errors) errors_text += d.message + "\n";
        return result;
    }
    std::size_t policies() const { return store->current()->policies.size(); }
};

const std::string kPolicy = "package p\n\ndeny contains \"no\" if true\n";

}  // namespace

TEST_CASE("directory reload: a directory it cannot list fails the reload; the last good policies stay") {
    TempTree t;
    t.write("p/a.rego", kPolicy);
    Reloader r(t.path("p"));
    REQUIRE(r.poll() == wh::DirectorySource::Poll::Reloaded);
    REQUIRE(r.policies() == 1);
    const auto good = r.store->current();

    t.write("p/b.rego", "package b\n");  // a change, so that the next poll reads again
    {
        FdLimit limit;  // as with a thousand idle connections
        CHECK(r.poll() == wh::DirectorySource::Poll::Failed);
    }
    CHECK(r.errors_text == "open " + t.path("p") + ": too many open files\n");
    CHECK(r.store->current() == good);
    CHECK(r.metrics->reloads(false) == 1);
    CHECK(r.metrics->reloads(true) == 1);
    {
        FdLimit limit;  // the same failure again: reported once
        CHECK(r.poll() == wh::DirectorySource::Poll::Unchanged);
    }
    CHECK(r.metrics->reloads(false) == 1);

    // Descriptors back: the change loads.
    CHECK(r.poll() == wh::DirectorySource::Poll::Reloaded);
    CHECK(r.policies() == 2);
}

TEST_CASE("directory reload: an unreadable file fails the reload, naming it") {
    TempTree t;
    t.write("p/a.rego", kPolicy);
    Reloader r(t.path("p"));
    REQUIRE(r.poll() == wh::DirectorySource::Poll::Reloaded);
    fs::create_symlink(t.path("p/gone.rego"), t.path("p/dangling.rego"));
    CHECK(r.poll() == wh::DirectorySource::Poll::Failed);
    CHECK(r.errors_text == "stat " + t.path("p/dangling.rego") + ": no such file or directory\n");
    CHECK(r.policies() == 1);
}

TEST_CASE("directory reload: a directory that really is empty loads as empty, also after a failed reading") {
    TempTree t;
    t.write("p/a.rego", kPolicy);
    Reloader r(t.path("p"));
    REQUIRE(r.poll() == wh::DirectorySource::Poll::Reloaded);
    fs::remove(t.path("p/a.rego"));
    {
        FdLimit limit;  // what this reading fails to see must not pass for the empty directory below
        CHECK(r.poll() == wh::DirectorySource::Poll::Failed);
    }
    CHECK(r.policies() == 1);
    CHECK(r.poll() == wh::DirectorySource::Poll::Reloaded);
    CHECK(r.policies() == 0);
}

TEST_CASE("directory reload: a link cycle is skipped, the rest loads and later changes too") {
    TempTree t;
    t.write("p/a.rego", kPolicy);
    fs::create_directory_symlink(t.path("p"), t.path("p/self"));
    Reloader r(t.path("p"));
    REQUIRE(r.poll() == wh::DirectorySource::Poll::Reloaded);
    CHECK(r.store->current()->policies.count(t.path("p/a.rego")) == 1);
    fs::create_directories(t.path("p/sub"));
    fs::create_directory_symlink(t.path("p"), t.path("p/sub/up"));
    t.write("p/sub/b.rego", "package b\n");
    CHECK(r.poll() == wh::DirectorySource::Poll::Reloaded);
    CHECK(r.policies() == 2);
}

TEST_CASE("directory reload: files that never hold still are not loaded; at the first load that is an error") {
    TempTree t;
    t.write("p/a.rego", kPolicy);
    auto store = std::make_shared<wh::PolicyStore>(gavel::EngineOptions{}, std::vector<std::string>{});
    auto metrics = std::make_shared<wh::Metrics>();
    using std::chrono::milliseconds;
    wh::DirectorySource source({t.path("p")}, store, metrics, {milliseconds(1), milliseconds(500), milliseconds(1000)});
    // A writer rewriting the policy all the time, each time different.
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        for (int i = 0; !stop; ++i) {
            t.write("p/a.rego", kPolicy + "# " + std::to_string(i) + "\n");
            std::this_thread::sleep_for(milliseconds(1));
        }
    });
    gavel::lang::Diagnostics errors;
    auto result = source.poll(errors);
    stop = true;
    writer.join();
    CHECK(result == wh::DirectorySource::Poll::Failed);
    REQUIRE(errors.size() == 1);
    CHECK(errors.begin()->message == "the files kept changing for 1000 ms (written in place?): nothing was loaded");
    CHECK(store->current()->policies.empty());
    // Still now: loads.
    errors = {};
    CHECK(source.poll(errors) == wh::DirectorySource::Poll::Reloaded);
}

TEST_CASE("gatekeeper reload: a directory it cannot list fails the reload; the last good set stays") {
    TempTree t;
    fs::create_directories(t.path("gk"));
    auto metrics = std::make_shared<wh::Metrics>();
    wh::GatekeeperPolicies policies({t.path("gk")}, metrics);
    gavel::lang::Diagnostics errors;
    REQUIRE(policies.poll(errors) == wh::GatekeeperPolicies::Poll::Reloaded);
    const auto good = policies.current();
    t.write("gk/ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n");
    {
        FdLimit limit;
        CHECK(policies.poll(errors) == wh::GatekeeperPolicies::Poll::Failed);
    }
    REQUIRE(errors.size() == 1);
    CHECK(errors.begin()->message == "open " + t.path("gk") + ": too many open files");
    CHECK(policies.current() == good);
    CHECK(metrics->reloads(false) == 1);  // with the directory reloads
    errors = {};
    CHECK(policies.poll(errors) == wh::GatekeeperPolicies::Poll::Reloaded);
}

TEST_CASE("settled reading: taken once two readings agree and no file changed for the quiet period") {
    using std::chrono::milliseconds;
    const wh::SettleTiming fast{milliseconds(1), milliseconds(5), milliseconds(200)};
    const std::int64_t long_ago = 1;
    // Changing, then still: the first reading that agrees with the one before is taken.
    std::vector<std::string> hashes = {"b", "c", "c"};
    std::size_t reads = 0;
    CHECK(wh::wait_until_settled(
        {"a", long_ago},
        [&] {
            return wh::ReadingStamp{hashes.at(reads++), long_ago};
        },
        fast));
    CHECK(reads == 3);

    // Never still: given up within the limit.
    reads = 0;
    CHECK_FALSE(wh::wait_until_settled(
        {"x", long_ago},
        [&] {
            return wh::ReadingStamp{std::to_string(reads++), long_ago};
        },
        fast));

    // The same bytes, but a file is changed all the time (a slow writer between two
    // pieces would look so, were it faster than the quiet period): not taken.
    auto now_ns = [] {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    };
    CHECK_FALSE(wh::wait_until_settled(
        {"s", now_ns()},
        [&] {
            return wh::ReadingStamp{"s", now_ns() - 1000};
        },
        fast));

    // A change time in the future (a skewed clock) does not block for ever: the hashes decide.
    const std::int64_t future = now_ns() + std::int64_t(3600) * 1000000000;
    CHECK(wh::wait_until_settled(
        {"f", future},
        [&] {
            return wh::ReadingStamp{"f", future};
        },
        fast));
}
