// Builtins stop at the evaluation's deadline and memory limit (WorkBudget,
// runtime/work_budget.hpp): each returns cancelled() when its budget says stop,
// and the evaluation ends with the evaluator's own eval_cancel_error, never an
// undefined result. Budgets here are small and pre-expired, so that the tests
// run fast: no timing is asserted.

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "runtime/file_read.hpp"
#include "runtime/json.hpp"
#include "runtime/memory_meter.hpp"
#include "runtime/value_format.hpp"
#include "runtime/work_budget.hpp"
#include "stdlib/registry.hpp"
#include "stdlib/unicode_text.hpp"
#include "stdlib/walk.hpp"

namespace {

using gavel::runtime::Value;
using gavel::stdlib::BuiltinContext;
using gavel::stdlib::BuiltinResult;
using Status = BuiltinResult::Status;

// Byte sources standing in for the gavel binary's allocation counter.
thread_local std::int64_t t_held = 0;
std::int64_t fixed_source() noexcept { return t_held; }               // holds what the test says
std::int64_t growing_source() noexcept { return t_held += 1 << 20; }  // 1 MiB more at each read

struct SourceGuard {
    gavel::runtime::ThreadBytesSource saved = gavel::runtime::thread_bytes_source();
    explicit SourceGuard(gavel::runtime::ThreadBytesSource s) {
        t_held = 0;
        gavel::runtime::set_thread_bytes_source(s);
    }
    ~SourceGuard() { gavel::runtime::set_thread_bytes_source(saved); }
};

Value J(std::string_view text) {
    auto r = gavel::runtime::parse_json(text);
    REQUIRE_MESSAGE(r.ok, text);
    return r.value;
}

BuiltinResult call(const std::string& name, std::vector<Value> args, BuiltinContext& ctx) {
    const auto* b = gavel::stdlib::standard_registry().find(name);
    REQUIRE_MESSAGE(b != nullptr, name);
    REQUIRE(b->arity == args.size());
    return b->impl(args, ctx);
}

std::string run(const std::string& name, std::vector<Value> args) {
    BuiltinContext ctx;
    auto r = call(name, std::move(args), ctx);
    switch (r.status) {
        case Status::Value: return gavel::runtime::to_json(r.value);
        case Status::Undefined: return "undefined";
        case Status::TypeError: return "type: " + r.message;
        case Status::BuiltinError: return "error: " + r.message;
        case Status::Conflict: return "conflict: " + r.message;
        case Status::Cancelled: return "cancelled";
    }
    return "?";
}

// A context whose query was cancelled: a builtin stops at its first check.
struct CancelledContext {
    std::atomic<bool> flag{true};
    BuiltinContext ctx;
    CancelledContext() { ctx.cancel = &flag; }
};

// A context with a memory limit of `limit` bytes over a fixed byte source:
// only what a builtin asks before allocating (affords) can cross it.
struct LimitedContext {
    SourceGuard guard{&fixed_source};
    BuiltinContext ctx;
    explicit LimitedContext(std::uint64_t limit) { ctx.memory.start(limit); }
};

Value S(std::string_view s) { return Value::string(s); }

// A value whose text is 2^levels times the leaf's, held in `levels` nodes.
Value shared_tree(int levels, bool objects) {
    Value v = objects ? J(R"({"k":"xxxxxxxxxxxxxxxx"})") : S("xxxxxxxxxxxxxxxx");
    for (int i = 0; i < levels; ++i) v = objects ? Value::object({{S("a"), v}, {S("b"), v}}) : Value::array({v, v});
    return v;
}

// {"k0": 0} ... {"k<n-1>": n-1}
Value many_objects(int n) {
    gavel::runtime::ArrayBuilder b;
    for (int i = 0; i < n; ++i) b.push_back(Value::object({{S('k' + std::to_string(i)), Value::integer(i)}}));
    return b.build();
}

// Every node points at every other.
Value complete_graph(int n) {
    gavel::runtime::ObjectBuilder g;
    for (int i = 0; i < n; ++i) {
        gavel::runtime::ArrayBuilder next;
        for (int j = 0; j < n; ++j)
            if (j != i) next.push_back(S(std::to_string(j)));
        g.insert(S(std::to_string(i)), next.build());
    }
    return g.build();
}

gavel::EvalResult eval_query(const std::string& policy, const std::string& query, const gavel::EvalOptions& options) {
    gavel::Engine engine;
    REQUIRE(engine.add_policy("p.rego", policy).empty());
    auto q = engine.prepare(query);
    REQUIRE(q.ok());
    return q.value->eval(options);
}

}  // namespace

// ---- the budget itself -------------------------------------------------------------------

TEST_CASE("work budget: spend() asks once per 64 Ki units, and says stop once cancelled") {
    std::atomic<bool> cancelled{false};
    gavel::runtime::WorkBudget budget;
    budget.cancel = &cancelled;
    CHECK_FALSE(budget.spend(1000));
    cancelled = true;
    CHECK_FALSE(budget.spend(1000));  // not asked yet
    CHECK(budget.spend(1 << 16));     // crosses a check
}

TEST_CASE("work budget: affords() refuses what would cross the memory limit, which then counts as crossed") {
    SourceGuard guard(&fixed_source);
    gavel::runtime::WorkBudget budget;
    budget.memory.start(1 << 20);
    CHECK(budget.affords(1 << 19));
    CHECK_FALSE(budget.memory.exceeded());
    t_held = 1 << 19;
    CHECK(budget.affords(1 << 19));  // exactly at the limit
    CHECK_FALSE(budget.affords(1 + (1 << 19)));
    CHECK(budget.memory.exceeded());  // the evaluation ends, and says why
    CHECK_FALSE(budget.affords(0));
    gavel::runtime::WorkBudget unlimited;  // no limit: anything goes
    CHECK(unlimited.affords(std::size_t{1} << 40));
}

TEST_CASE("work budget: room() grows a text only within the memory limit") {
    SourceGuard guard(&fixed_source);
    gavel::runtime::WorkBudget budget;
    budget.memory.start(1 << 20);
    std::string text;
    CHECK(budget.room(text, 1000));
    CHECK(text.capacity() >= 1000);
    CHECK_FALSE(budget.room(text, 2 << 20));
    CHECK(text.capacity() < (1 << 20));  // nothing was allocated
}

TEST_CASE("work budget: a budgeted sort and set build stop when cancelled, and agree with the plain ones") {
    std::vector<Value> xs;
    for (int i = 0; i < 100000; ++i) xs.push_back(Value::integer((i * 7919) % 100003));
    gavel::runtime::SetBuilder plain, budgeted;
    for (const auto& x : xs) {
        plain.insert(x);
        budgeted.insert(x);
    }
    gavel::runtime::WorkBudget open;
    auto set = budgeted.build(open);
    REQUIRE(set.has_value());
    CHECK(*set == plain.build());
    std::atomic<bool> cancelled{true};
    gavel::runtime::WorkBudget stopped;
    stopped.cancel = &cancelled;
    auto sorted = xs;
    CHECK_FALSE(gavel::runtime::budgeted_sort(sorted.begin(), sorted.end(), std::less<Value>(), stopped));
    gavel::runtime::SetBuilder again;
    for (const auto& x : xs) again.insert(x);
    CHECK_FALSE(again.build(stopped).has_value());
}

TEST_CASE("work budget: a builder's list grows only within the memory limit") {
    LimitedContext limited(64 << 10);  // 64 KiB: about 4 Ki values
    gavel::runtime::ArrayBuilder b;
    int added = 0;
    while (added < 100000 && b.push_back(Value::integer(added), limited.ctx)) ++added;
    CHECK(added < 100000);
    CHECK(limited.ctx.memory.exceeded());
}

// ---- object.union_n ----------------------------------------------------------------------

TEST_CASE("object.union_n: later objects win and nested objects merge, as OPA's (its answers recorded)") {
    CHECK(run("object.union_n", {J(R"([{"a":{"b":2}},{"a":4},{"a":{"c":3}}])")}) == R"({"a":{"c":3}})");
    CHECK(run("object.union_n", {J(R"([{"a":{"b":{"x":1}}},{"a":{"b":5}},{"a":{"c":1}}])")}) ==
          R"({"a":{"b":5,"c":1}})");
    CHECK(run("object.union_n", {J(R"([{"a":{"b":1}},{"a":{"c":2}},{"a":{"b":{"d":1}}}])")}) ==
          R"({"a":{"b":{"d":1},"c":2}})");
    CHECK(run("object.union_n", {J(R"([{"a":{"b":{"x":1,"y":2}}},{"a":{"b":{"y":3}}},{"a":{}},{"a":{"b":{}}}])")}) ==
          R"({"a":{"b":{"x":1,"y":3}}})");
    CHECK(run("object.union_n", {J(R"([{},{"a":1},{}])")}) == R"({"a":1})");
    CHECK(run("object.union_n", {J(R"([{"a":{}},{"a":{}}])")}) == R"({"a":{}})");
    CHECK(run("object.union_n", {J(R"([{"a":1},{"a":{"x":1}},{"a":{"y":2}}])")}) == R"({"a":{"x":1,"y":2}})");
    // OPA looks from the last element: the error names the last non-object.
    CHECK(run("object.union_n", {J(R"([1,{},"x"])")}) ==
          "type: operand 1 must be array of objects but got array containing string");
    // Many objects, each key once.
    BuiltinContext ctx;
    auto r = call("object.union_n", {many_objects(20000)}, ctx);
    REQUIRE(r.status == Status::Value);
    CHECK(r.value.size() == 20000);
    CHECK(*r.value.find(S("k19999")) == Value::integer(19999));
}

TEST_CASE("object.union_n: stops when the query is cancelled") {
    CancelledContext c;
    CHECK(call("object.union_n", {many_objects(70000)}, c.ctx).status == Status::Cancelled);
}

// ---- graph.reachable_paths ---------------------------------------------------------------

TEST_CASE("graph.reachable_paths: answers unchanged, cycles end a path, a long chain needs no deep stack") {
    CHECK(run("graph.reachable_paths", {J(R"({"a":["b"],"b":["c"],"c":["a"]})"), J(R"(["a"])")}) ==
          R"([["a","b","c"]])");
    CHECK(run("graph.reachable_paths", {J(R"({"a":["b","c"],"b":["c"],"c":[]})"), J(R"(["a"])")}) ==
          R"([["a","b","c"],["a","c"]])");
    CHECK(run("graph.reachable_paths", {J(R"({"a":["a"]})"), J(R"(["a"])")}) == R"([["a","a"]])");
    CHECK(run("graph.reachable_paths", {J(R"({"a":[],"b":["x"]})"), J(R"(["a","b","z"])")}) == R"([["a"],["b"]])");
    // 200,000 nodes in a line: one path, found without recursion.
    gavel::runtime::ObjectBuilder chain;
    const int n = 200000;
    for (int i = 0; i < n; ++i)
        chain.insert(S(std::to_string(i)), i + 1 < n ? Value::array({S(std::to_string(i + 1))}) : Value::empty_array());
    BuiltinContext ctx;
    auto r = call("graph.reachable_paths", {chain.build(), Value::array({S("0")})}, ctx);
    REQUIRE(r.status == Status::Value);
    REQUIRE(r.value.size() == 1);
    CHECK(r.value.set_elements()[0].size() == static_cast<std::size_t>(n));
}

TEST_CASE("graph.reachable_paths: a dense graph stops at the deadline or the memory limit, not after a step cap") {
    CancelledContext c;
    CHECK(call("graph.reachable_paths", {complete_graph(12), Value::array({S("0")})}, c.ctx).status ==
          Status::Cancelled);
    SourceGuard guard(&growing_source);
    BuiltinContext ctx;
    ctx.memory.start(64 << 20);
    CHECK(call("graph.reachable_paths", {complete_graph(12), Value::array({S("0")})}, ctx).status == Status::Cancelled);
    CHECK(ctx.memory.exceeded());
}

// ---- replace, strings.replace_n, regex.replace ---------------------------------------------

TEST_CASE("replace, strings.replace_n and regex.replace refuse a result that would cross the memory limit") {
    const Value text = S(std::string(100000, 'a'));
    const Value ten = S(std::string(10, 'a'));
    {
        LimitedContext limited(4 << 20);  // the result is 1 MB: fits
        auto r = call("replace", {text, S("a"), ten}, limited.ctx);
        REQUIRE(r.status == Status::Value);
        CHECK(r.value.size() == 1000000);
    }
    {
        LimitedContext limited(512 << 10);
        CHECK(call("replace", {text, S("a"), ten}, limited.ctx).status == Status::Cancelled);
        CHECK(limited.ctx.memory.exceeded());
    }
    {
        LimitedContext limited(512 << 10);
        CHECK(call("strings.replace_n", {Value::object({{S("a"), ten}, {S("b"), S("c")}}), text}, limited.ctx).status ==
              Status::Cancelled);
        CHECK(limited.ctx.memory.exceeded());
    }
    {
        LimitedContext limited(512 << 10);
        CHECK(call("regex.replace", {text, S("a"), ten}, limited.ctx).status == Status::Cancelled);
        CHECK(limited.ctx.memory.exceeded());
    }
    {
        LimitedContext limited(512 << 10);  // $0 expansion grows the text too
        CHECK(call("regex.replace", {text, S("a"), S("$0$0$0$0$0$0$0$0$0$0")}, limited.ctx).status ==
              Status::Cancelled);
    }
    // Unlimited, the answers are the usual ones.
    CHECK(run("replace", {S("abab"), S("ab"), S("x")}) == R"("xx")");
    CHECK(run("strings.replace_n", {J(R"({"a":"1","b":"2"})"), S("abc")}) == R"("12c")");
    CHECK(run("regex.replace", {S("abab"), S("(a)b"), S("[$1]")}) == R"("[a][a]")");
}

TEST_CASE("replace and regex.replace stop when the query is cancelled") {
    const Value text = S(std::string(200000, 'a'));
    CancelledContext c1;
    CHECK(call("replace", {text, S("a"), S("bb")}, c1.ctx).status == Status::Cancelled);
    CancelledContext c2;
    CHECK(call("regex.replace", {text, S("a"), S("bb")}, c2.ctx).status == Status::Cancelled);
    CancelledContext c3;
    CHECK(call("strings.replace_n", {J(R"({"a":"bb","c":"d"})"), text}, c3.ctx).status == Status::Cancelled);
}

// ---- files a policy names -------------------------------------------------------------------

TEST_CASE(
    "bounded file reading: a regular file is read; a device, a FIFO, a directory, a missing or too large file are "
    "errors at once") {
    char dir_template[] = "/tmp/gavel-bounded-XXXXXX";
    REQUIRE(mkdtemp(dir_template) != nullptr);
    const std::string dir = dir_template;
    const std::string file = dir + "/cert.pem", big = dir + "/big.pem", fifo = dir + "/fifo";
    std::ofstream(file) << "-----BEGIN CERTIFICATE-----\n";
    std::ofstream(big) << std::string(2 << 20, 'x');
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);

    using gavel::runtime::NonRegular;
    using gavel::runtime::read_whole_file;
    auto ok = read_whole_file(file, 1024, NonRegular::Refuse);
    REQUIRE(ok.ok);
    CHECK(ok.text == "-----BEGIN CERTIFICATE-----\n");
    CHECK(read_whole_file("/dev/zero", 1 << 20, NonRegular::Refuse).message == "read /dev/zero: not a regular file");
    CHECK(read_whole_file(fifo, 1 << 20, NonRegular::Refuse).message == "read " + fifo + ": not a regular file");
    CHECK(read_whole_file(dir, 1 << 20, NonRegular::Refuse).message == "read " + dir + ": is a directory");
    CHECK(read_whole_file(dir + "/none", 1 << 20, NonRegular::Refuse).message ==
          "open " + dir + "/none: no such file or directory");
    CHECK(read_whole_file(file, 10, NonRegular::Refuse).message ==
          "read " + file + ": file too large: 28 bytes (limit 10)");
    std::atomic<bool> cancelled{true};
    gavel::runtime::WorkBudget budget;
    budget.cancel = &cancelled;
    CHECK(read_whole_file(big, 4 << 20, NonRegular::Refuse, &budget).stopped);  // asked as it reads
    CHECK(read_whole_file(big, 4 << 20, NonRegular::Refuse).text.size() == (2u << 20));

    std::remove(fifo.c_str());
    std::remove(file.c_str());
    std::remove(big.c_str());
    rmdir(dir.c_str());
}

TEST_CASE("http.send: a certificate file that is /dev/zero is a clear error, not a read that never ends") {
    auto r = run("http.send", {J(R"({"method":"get","url":"https://example.com","tls_client_cert_file":"/dev/zero",
                                     "tls_client_key_file":"/dev/zero","raise_error":false})")});
    CHECK(
        r ==
        R"({"error":{"code":"eval_http_send_internal_error","message":"read /dev/zero: not a regular file"},"status_code":0})");
    CHECK(run("http.send", {J(R"({"method":"get","url":"https://example.com","tls_client_cert_file":"/tmp"})")}) ==
          "error: read /tmp: is a directory");
}

// ---- outputs far larger than their operands --------------------------------------------------

TEST_CASE("sprintf, concat, json.marshal, yaml.marshal: an output past the memory limit is refused") {
    LimitedContext a(1 << 20);
    std::string wide;
    for (int i = 0; i < 10; ++i) wide += "%1000000d";
    CHECK(call("sprintf", {S(wide), J("[1,2,3,4,5,6,7,8,9,10]")}, a.ctx).status == Status::Cancelled);
    CHECK(a.ctx.memory.exceeded());
    LimitedContext b(1 << 20);
    gavel::runtime::ArrayBuilder parts;
    for (int i = 0; i < 1000; ++i) parts.push_back(S("x"));
    CHECK(call("concat", {S(std::string(10000, '-')), parts.build()}, b.ctx).status == Status::Cancelled);
    LimitedContext c(1 << 20);
    CHECK(call("json.marshal", {shared_tree(30, false)}, c.ctx).status == Status::Cancelled);
    LimitedContext d(1 << 20);
    CHECK(call("json.marshal_with_options", {shared_tree(8, false), J(R"({"indent":"----------"})")}, d.ctx).status ==
          Status::Value);  // small enough
    LimitedContext e(1 << 20);
    CHECK(call("json.marshal_with_options",
               {shared_tree(8, false), Value::object({{S("indent"), S(std::string(10000, '-'))}})}, e.ctx)
              .status == Status::Cancelled);
    LimitedContext f(1 << 20);
    CHECK(call("yaml.marshal", {shared_tree(30, true)}, f.ctx).status == Status::Cancelled);
    LimitedContext g(1 << 20);
    CHECK(call("sprintf", {S("%v"), Value::array({shared_tree(30, true)})}, g.ctx).status == Status::Cancelled);
    LimitedContext h(1 << 20);  // the object operand goes through its JSON text
    CHECK(call("json.match_schema", {shared_tree(30, true), J(R"({"type":"object"})")}, h.ctx).status ==
          Status::Cancelled);
    LimitedContext i(1 << 20);  // JSON texts of operands: a JWT's payload, a request's body
    CHECK(call("io.jwt.encode_sign",
               {J(R"({"alg":"HS256"})"), Value::object({{S("p"), shared_tree(30, false)}}),
                J(R"({"kty":"oct","k":"AAAA"})")},
               i.ctx)
              .status == Status::Cancelled);
    LimitedContext k(1 << 20);
    CHECK(call("http.send",
               {Value::object({{S("method"), S("post")},
                               {S("url"), S("http://127.0.0.1:1/")},
                               {S("body"), shared_tree(30, false)}})},
               k.ctx)
              .status == Status::Cancelled);
    // Within the limit, the answers are the usual ones.
    CHECK(run("io.jwt.encode_sign", {J(R"({"alg":"HS256"})"), J(R"({"p":"<&>"})"), J(R"({"kty":"oct","k":"AAAA"})")}) ==
          R"("eyJhbGciOiJIUzI1NiJ9.eyJwIjoiXHUwMDNjXHUwMDI2XHUwMDNlIn0.XzjIrNhrr2PcCSgsETVrwmhJCmZBASMhy-ijSo0l4_0")");
    CHECK(run("sprintf", {S("%5d|%v"), J(R"([42, {"a": [1]}])")}) == R"("   42|{\"a\": [1]}")");
    CHECK(run("json.marshal", {shared_tree(1, false)}) == R"("[\"xxxxxxxxxxxxxxxx\",\"xxxxxxxxxxxxxxxx\"]")");
    CHECK(gavel::format_value(shared_tree(1, true)) ==
          R"({"a": {"k": "xxxxxxxxxxxxxxxx"}, "b": {"k": "xxxxxxxxxxxxxxxx"}})");
}

TEST_CASE("walk, sort, split, indexof_n, cidr_expand, cidr_contains_matches, union: stop when the query is cancelled") {
    {
        CancelledContext c;
        std::size_t emitted = 0;
        auto r = gavel::stdlib::walk_relation(std::vector<Value>{shared_tree(30, false)}, c.ctx, [&](const Value&) {
            ++emitted;
            return true;
        });
        CHECK(r.status == Status::Cancelled);
        CHECK(emitted < (1u << 20));
    }
    gavel::runtime::ArrayBuilder numbers;
    for (int i = 200000; i > 0; --i) numbers.push_back(Value::integer(i));
    const Value descending = numbers.build();
    CancelledContext c1;
    CHECK(call("sort", {descending}, c1.ctx).status == Status::Cancelled);
    CHECK(run("sort", {J("[3,1,2]")}) == "[1,2,3]");
    CHECK(run("sort", {J("[3,1,2]")}) ==
          run("sort", {Value::set({Value::integer(2), Value::integer(3), Value::integer(1)})}));
    CancelledContext c2;
    CHECK(call("split", {S(std::string(200000, ',')), S(",")}, c2.ctx).status == Status::Cancelled);
    CancelledContext c3;
    CHECK(call("indexof_n", {S(std::string(100000, 'a')), S(std::string(1000, 'a'))}, c3.ctx).status ==
          Status::Cancelled);
    CHECK(run("indexof_n", {S("aaaa"), S("aa")}) == "[0,1,2]");
    CancelledContext c4;
    CHECK(call("net.cidr_expand", {S("10.0.0.0/8")}, c4.ctx).status == Status::Cancelled);
    gavel::runtime::ArrayBuilder cidrs;
    for (int i = 0; i < 300; ++i) cidrs.push_back(S("10.0.0.0/8"));
    const Value many_cidrs = cidrs.build();
    CancelledContext c5;
    CHECK(call("net.cidr_contains_matches", {many_cidrs, many_cidrs}, c5.ctx).status == Status::Cancelled);
    gavel::runtime::SetBuilder sets;
    for (int s = 0; s < 3; ++s) {
        gavel::runtime::SetBuilder one;
        for (int i = 0; i < 100000; ++i) one.insert(Value::integer(i * 3 + s));
        sets.insert(one.build());
    }
    CancelledContext c6;
    CHECK(call("union", {sets.build()}, c6.ctx).status == Status::Cancelled);
    CHECK(run("or", {Value::set({Value::integer(1), Value::integer(3)}),
                     Value::set({Value::integer(2), Value::integer(3)})}) == "[1,2,3]");
}

TEST_CASE("json.match_schema and json.verify_schema: validating and compiling are work asked of the budget") {
    std::string items = "[";
    for (int i = 0; i < 100000; ++i) items += (i ? ",1" : "1");
    items += "]";
    CancelledContext c1;
    CHECK(call("json.match_schema", {S(items), S(R"({"items":{"type":"number"}})")}, c1.ctx).status ==
          Status::Cancelled);
    // Each value is work (its canonical text, and the check that it is unique): enough of them
    // to reach the budget's next check.
    std::string big_enum = R"({"enum":[)";
    for (int i = 0; i < 100000; ++i) (big_enum += i ? "," : "") += std::to_string(i);
    big_enum += "]}";
    CancelledContext c2;
    CHECK(call("json.verify_schema", {S(big_enum)}, c2.ctx).status == Status::Cancelled);
    CHECK(run("json.verify_schema", {S(big_enum)}) == "[true,null]");
    CHECK(run("json.match_schema", {S("[1,2]"), S(R"({"items":{"type":"number"}})")}) == "[true,[]]");
}

TEST_CASE("object.subset: an array searched within another (quadratic at worst) stops when the query is cancelled") {
    gavel::runtime::ArrayBuilder hay, needle;
    for (int i = 0; i < 20000; ++i) hay.push_back(Value::integer(0));
    for (int i = 0; i < 1000; ++i) needle.push_back(Value::integer(0));
    needle.push_back(Value::integer(1));
    const Value h = hay.build(), n = needle.build();
    CancelledContext c;
    CHECK(call("object.subset", {h, n}, c.ctx).status == Status::Cancelled);
    CancelledContext d;
    CHECK(call("object.subset", {Value::object({{S("a"), h}}), Value::object({{S("a"), n}})}, d.ctx).status ==
          Status::Cancelled);
    CHECK(run("object.subset", {J("[1,2,3,4]"), J("[2,3]")}) == "true");
    CHECK(run("object.subset", {J("[1,2,3,4]"), J("[2,4]")}) == "false");
    CHECK(run("object.subset", {J(R"({"a":{"b":[1,2,3]},"c":1})"), J(R"({"a":{"b":[2,3]}})")}) == "true");
    CHECK(run("object.subset", {J(R"({"a":{"b":[1,2,3]}})"), J(R"({"a":{"b":[3,2]}})")}) == "false");
}

TEST_CASE("text::find is string_view::find in linear time") {
    const std::string hay = "abracadabra, abracadabra";
    for (std::string needle :
         {"", "a", "abra", "cad", "ra,", "zzz", "abracadabra, abracadabra", "abracadabra, abracadabrax"})
        for (std::size_t from = 0; from <= hay.size() + 1; ++from)
            CHECK_MESSAGE(gavel::stdlib::text::find(hay, needle, from) == std::string_view(hay).find(needle, from),
                          needle << " from " << from);
    // The case that is quadratic for string_view::find: answered at once.
    const std::string a(1 << 20, 'a');
    std::string needle(1 << 19, 'a');
    needle += 'b';
    CHECK(gavel::stdlib::text::find(a, needle) == std::string_view::npos);
}

// ---- through the evaluator -------------------------------------------------------------------

TEST_CASE("a builtin stopped by the memory limit ends the evaluation with the evaluator's error, never undefined") {
    SourceGuard guard(&fixed_source);
    gavel::EvalOptions options;
    options.max_memory = 1 << 20;
    const std::string policy =
        "package p\n\n"
        "s := concat(\"\", [x | some i in numbers.range(1, 20000); x := \"ab\"])\n"
        "r := replace(s, \"a\", concat(\"\", [x | some i in numbers.range(1, 100); x := \"a\"]))\n"
        "n := count(r) if true\n"
        "default allow := true\n"
        "allow := false if count(r) > 0\n";
    for (const char* query : {"data.p.n", "data.p.allow"}) {
        auto r = eval_query(policy, query, options);
        REQUIRE_MESSAGE(r.error, query);
        CHECK(r.error->code == "eval_cancel_error");
        CHECK(r.error->message == "evaluation exceeded its memory limit (1048576 bytes)");
    }
    options.max_memory = 0;  // no limit: the answer
    auto r = eval_query(policy, "data.p.n", options);
    REQUIRE(r.ok());
    CHECK(gavel::runtime::to_json(r.rows.at(0).expressions.at(0).value) == "2020000");
}

TEST_CASE("a relation stopped inside (walk) ends the evaluation with eval_cancel_error") {
    std::atomic<bool> cancelled{true};
    gavel::EvalOptions options;
    options.cancel = &cancelled;
    const std::string policy =
        "package p\n\n"
        "t0 := \"xxxxxxxxxxxxxxxx\"\n"
        "t1 := object.get({\"k\": [t0, t0, t0, t0]}, \"k\", 0)\n"
        "t2 := object.get({\"k\": [t1, t1, t1, t1]}, \"k\", 0)\n"
        "t3 := object.get({\"k\": [t2, t2, t2, t2]}, \"k\", 0)\n"
        "t4 := object.get({\"k\": [t3, t3, t3, t3]}, \"k\", 0)\n"
        "t5 := object.get({\"k\": [t4, t4, t4, t4]}, \"k\", 0)\n"
        "t6 := object.get({\"k\": [t5, t5, t5, t5]}, \"k\", 0)\n"
        "t7 := object.get({\"k\": [t6, t6, t6, t6]}, \"k\", 0)\n"
        "t8 := object.get({\"k\": [t7, t7, t7, t7]}, \"k\", 0)\n"
        "t9 := object.get({\"k\": [t8, t8, t8, t8]}, \"k\", 0)\n"
        "n := count([p | walk(t9, [p, _])])\n";
    auto r = eval_query(policy, "data.p.n", options);
    REQUIRE(r.error);
    CHECK(r.error->code == "eval_cancel_error");
}
