#include "runtime/value.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "runtime/byte_compare.hpp"

using namespace gavel::runtime;

namespace {

Value S(std::string_view s) { return Value::string(s); }
Value I(std::int64_t i) { return Value::integer(i); }
Value N(std::string_view text) {
    NumberResult r = Number::parse(text);
    REQUIRE(r.ok);
    return Value::number(r.value);
}

}  // namespace

TEST_CASE("value: layout and kinds") {
    CHECK(sizeof(Value) == 16);
    CHECK(Value().kind() == Kind::Null);
    CHECK(Value::boolean(true).kind() == Kind::Boolean);
    CHECK(I(1).kind() == Kind::Number);
    CHECK(N("1.5").kind() == Kind::Number);
    CHECK(N("123456789012345678901234567890").kind() == Kind::Number);
    CHECK(S("x").kind() == Kind::String);
    CHECK(S("").kind() == Kind::String);
    CHECK(Value::empty_array().kind() == Kind::Array);
    CHECK(Value::empty_set().kind() == Kind::Set);
    CHECK(Value::empty_object().kind() == Kind::Object);
}

TEST_CASE("value: type names as OPA") {
    CHECK(Value().type_name() == "null");
    CHECK(Value::boolean(false).type_name() == "boolean");
    CHECK(I(3).type_name() == "number");
    CHECK(S("a").type_name() == "string");
    CHECK(Value::array({I(1)}).type_name() == "array");
    CHECK(Value::set({I(1)}).type_name() == "set");
    CHECK(Value::object({{S("a"), I(1)}}).type_name() == "object");
}

TEST_CASE("value: accessors") {
    CHECK(Value::boolean(true).as_bool());
    CHECK_FALSE(Value::boolean(false).as_bool());
    CHECK(S("hello").as_string() == "hello");
    CHECK(S("hello").size() == 5);
    std::string with_nul("a\0b", 3);
    CHECK(S(with_nul).as_string() == with_nul);
    std::int64_t i = 0;
    CHECK(I(-5).as_int64(i));
    CHECK(i == -5);
    CHECK(N("3.0").as_int64(i));
    CHECK(i == 3);
    CHECK_FALSE(N("3.5").as_int64(i));
    CHECK(N("1.5").as_number().to_double() == 1.5);
    Value a = Value::array({I(1), S("x"), Value()});
    REQUIRE(a.array_elements().size() == 3);
    CHECK(a.array_elements()[1].as_string() == "x");
    // Wrong-kind access is empty, not UB.
    CHECK(I(1).as_string().empty());
    CHECK(S("x").array_elements().empty());
    CHECK(a.find(S("x")) == nullptr);
    CHECK_FALSE(a.contains(I(1)));
}

TEST_CASE("value: ordering across kinds") {
    std::vector<Value> ordered = {
        Value(),
        Value::boolean(false),
        Value::boolean(true),
        I(-1),
        N("1.5"),
        N("123456789012345678901234567890"),
        S(""),
        S("a"),
        Value::empty_array(),
        Value::array({I(1)}),
        Value::empty_object(),
        Value::object({{S("a"), I(1)}}),
        Value::empty_set(),
        Value::set({I(1)}),
    };
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        for (std::size_t j = 0; j < ordered.size(); ++j) {
            int c = compare(ordered[i], ordered[j]);
            if (i < j) CHECK_MESSAGE(c < 0, i, " vs ", j);
            else if (i > j) CHECK_MESSAGE(c > 0, i, " vs ", j);
            else CHECK(c == 0);
        }
    }
    std::vector<Value> shuffled(ordered.rbegin(), ordered.rend());
    std::sort(shuffled.begin(), shuffled.end());
    CHECK(shuffled == ordered);
}

TEST_CASE("value: ordering within kinds") {
    CHECK(S("a") < S("b"));
    CHECK(S("a") < S("ab"));
    CHECK(S("B") < S("a"));         // bytewise
    CHECK(S("z") < S("\xc3\xa9"));  // UTF-8 bytes above ASCII
    CHECK(I(2) < N("10"));
    CHECK(N("-0.5") < I(0));
    // Arrays: element-wise, then length.
    CHECK(Value::array({I(1), I(2)}) < Value::array({I(1), I(3)}));
    CHECK(Value::array({I(1), I(2)}) < Value::array({I(1), I(2), I(0)}));
    CHECK(Value::array({I(2)}) > Value::array({I(1), I(9)}));
    // Objects: sorted keys pairwise (key, then value), then size.
    Value o1 = Value::object({{S("a"), I(1)}, {S("b"), I(2)}});
    Value o2 = Value::object({{S("a"), I(1)}, {S("c"), I(0)}});
    Value o3 = Value::object({{S("a"), I(2)}});
    CHECK(o1 < o2);                               // key "b" < "c"
    CHECK(o1 < o3);                               // value 1 < 2 at key "a"
    CHECK(Value::object({{S("a"), I(1)}}) < o1);  // prefix, fewer entries
    // Sets: sorted elements pairwise, then size.
    CHECK(Value::set({I(3), I(1)}) < Value::set({I(2)}));
    CHECK(Value::set({I(1)}) < Value::set({I(2), I(1)}));
}

TEST_CASE("value: equality 1 == 1.0 and hash consistency") {
    CHECK(I(1) == N("1.0"));
    CHECK(I(1).hash() == N("1.0").hash());
    CHECK(I(100) == N("1e2"));
    CHECK(I(100).hash() == N("1e2").hash());
    CHECK(Value::from_double(1.0) == I(1));
    CHECK(N("1.5") == Value::from_double(1.5));
    CHECK(N("1.5").hash() == Value::from_double(1.5).hash());
    CHECK(I(1) != I(2));
    CHECK(I(1) != S("1"));
    CHECK(I(1).hash() != S("1").hash());
    CHECK(Value::array({I(1), N("2.0")}) == Value::array({N("1.0"), I(2)}));
    CHECK(Value::array({I(1), N("2.0")}).hash() == Value::array({N("1.0"), I(2)}).hash());
    CHECK(Value::set({I(1), I(2)}) == Value::set({N("2.0"), N("1.0")}));
    CHECK(Value::set({I(1), I(2)}) == Value::set({I(2), N("1.0"), N("1e0")}));
    CHECK(Value::set({I(1), I(2)}).hash() == Value::set({N("2.0"), N("1.0")}).hash());
    CHECK(Value::object({{I(1), S("a")}}) == Value::object({{N("1.0"), S("a")}}));
    CHECK(Value::object({{I(1), S("a")}}).hash() == Value::object({{N("1.0"), S("a")}}).hash());
    // As OPA's set: a number written as an integer is compared only with numbers written so;
    // others equal any number of their value. So 1 after 1.0 is a second element, 1.0 after 1
    // is none, and a lookup of 1 does not find 1.0.
    CHECK(Value::set({N("1.0"), I(1)}).size() == 2);
    CHECK(Value::set({I(1), N("1.0")}).size() == 1);
    CHECK_FALSE(Value::set({N("1.0")}).contains(I(1)));
    CHECK(Value::set({I(1)}).contains(N("1.0")));
    CHECK(Value::set({N("1.0"), I(1)}).contains(I(1)));
    // A set and an array with the same elements differ.
    CHECK(Value::set({I(1)}) != Value::array({I(1)}));
    CHECK(Value::set({I(1)}).hash() != Value::array({I(1)}).hash());
    CHECK(Value::empty_set() != Value::empty_array());
    CHECK(Value::boolean(false) != Value());
    std::unordered_set<Value> hs{I(1), N("1.0"), S("1"), Value::array({I(1)})};
    CHECK(hs.size() == 3);
    CHECK(hs.count(N("1e0")) == 1);
}

TEST_CASE("value: sets are canonical and support contains") {
    Value s = Value::set({S("b"), I(3), S("a"), I(3), N("3.0"), Value()});
    auto el = s.set_elements();
    REQUIRE(el.size() == 4);
    CHECK(el[0].is_null());
    CHECK(el[1] == I(3));
    CHECK(el[2].as_string() == "a");
    CHECK(el[3].as_string() == "b");
    CHECK(s.contains(S("a")));
    CHECK(s.contains(N("3.0")));
    CHECK_FALSE(s.contains(S("c")));
    CHECK_FALSE(s.contains(I(4)));
    CHECK(s.size() == 4);
}

TEST_CASE("value: objects with any key kind, sorted, with find") {
    Value o = Value::object({
        {S("b"), I(2)},
        {I(1), S("a")},
        {Value::array({I(1)}), I(2)},
        {S("a"), I(1)},
        {Value::set({}), Value()},
    });
    auto e = o.object_entries();
    REQUIRE(e.size() == 5);
    CHECK(e[0].key == I(1));
    CHECK(e[1].key.as_string() == "a");
    CHECK(e[2].key.as_string() == "b");
    CHECK(e[3].key.is_array());
    CHECK(e[4].key.is_set());
    REQUIRE(o.find("a") != nullptr);
    CHECK(*o.find("a") == I(1));
    REQUIRE(o.find(S("b")) != nullptr);
    CHECK(*o.find(S("b")) == I(2));
    REQUIRE(o.find(N("1.0")) != nullptr);
    CHECK(o.find(N("1.0"))->as_string() == "a");
    REQUIRE(o.find(Value::array({I(1)})) != nullptr);
    CHECK(*o.find(Value::array({I(1)})) == I(2));
    CHECK(o.find("c") == nullptr);
    CHECK(o.find(I(2)) == nullptr);
    CHECK(Value::empty_object().find("a") == nullptr);
}

TEST_CASE("value: object builder duplicates and conflicts") {
    {
        ObjectBuilder b;
        b.insert(S("a"), I(1));
        b.insert(S("a"), I(2));
        Value o = b.build();
        REQUIRE(o.size() == 1);
        CHECK(*o.find("a") == I(2));  // last wins (JSON)
    }
    {
        ObjectBuilder b;
        b.insert(S("a"), I(1));
        b.insert(S("a"), I(2));
        Value o = b.build(DuplicateKeys::FirstWins);
        CHECK(*o.find("a") == I(1));
    }
    {
        ObjectBuilder b;
        b.insert(S("x"), I(0));
        b.insert(S("a"), I(1));
        b.insert(S("a"), N("1.0"));  // equal value: no conflict
        auto r = b.build_checked();
        CHECK_FALSE(r.conflict);
        CHECK(r.value.size() == 2);
    }
    {
        ObjectBuilder b;
        b.insert(S("k"), I(1));
        b.insert(S("z"), I(1));
        b.insert(S("k"), S("other"));
        auto r = b.build_checked();
        CHECK(r.conflict);
        CHECK(r.key.as_string() == "k");
        CHECK(r.first == I(1));
        CHECK(r.second.as_string() == "other");
    }
}

// As OPA's object (ast/term.go object.insert and object.get), number keys compare as its set
// does: a key written as an integer matches only keys written so, any other number every key
// of its value, the one inserted last. (OPA 1.7.1: {1e0: "a", 1: "b"} has two keys,
// {1: "a", 1e0: "b"} one, and {1e0: "a"}[1] is undefined.)
TEST_CASE("value: number keys are inserted and found as OPA's object does") {
    Value two = Value::object({{N("1e0"), S("a")}, {I(1), S("b")}});
    REQUIRE(two.size() == 2);
    CHECK(two.object_entries()[0].key.as_number().to_string() == "1e0");
    CHECK(*two.find(I(1)) == S("b"));
    CHECK(*two.find(N("1.0")) == S("b"));  // the key inserted last
    Value one = Value::object({{I(1), S("a")}, {N("1e0"), S("b")}});
    REQUIRE(one.size() == 1);
    CHECK(one.object_entries()[0].key.as_number().to_string() == "1");
    CHECK(*one.find(I(1)) == S("b"));
    CHECK(Value::object({{N("1e0"), S("a")}}).find(I(1)) == nullptr);
    CHECK(*Value::object({{I(1), S("a")}}).find(N("1e0")) == S("a"));
    Value three = Value::object({{N("1e0"), S("a")}, {I(1), S("b")}, {N("1.0"), S("c")}});
    REQUIRE(three.size() == 2);
    CHECK(*three.find(I(1)) == S("c"));
    // Conflicts as a comprehension finds them: a key that matches one inserted before.
    {
        ObjectBuilder b;
        b.insert(N("1e0"), I(0));
        b.insert(I(1), I(1));
        auto r = b.build_checked();
        CHECK_FALSE(r.conflict);
        CHECK(r.value.size() == 2);
    }
    {
        ObjectBuilder b;
        b.insert(I(1), I(0));
        b.insert(N("1e0"), I(1));
        CHECK(b.build_checked().conflict);
    }
}

TEST_CASE("value: builders move elements without copying") {
    ArrayBuilder ab(3);
    Value big = S(std::string(1000, 'x'));
    const detail::Node* node = big.node();
    ab.push_back(std::move(big));
    ab.push_back(I(2));
    Value arr = ab.build();
    REQUIRE(arr.size() == 2);
    CHECK(arr.array_elements()[0].node() == node);  // same string node, not a copy
    CHECK(ab.size() == 0);

    SetBuilder sb;
    for (int i = 100; i > 0; --i) sb.insert(I(i % 10));
    Value s = sb.build();
    CHECK(s.size() == 10);
    CHECK(s.set_elements().front() == I(0));
    CHECK(s.set_elements().back() == I(9));
}

TEST_CASE("value: copies share nodes and are released") {
    Value a = Value::array({S("shared string that lives on the heap")});
    Value b = a;
    CHECK(a.node() == b.node());
    CHECK(a.identical(b));
    CHECK(a.node()->refs.load() == 2);
    {
        Value c = b;
        CHECK(a.node()->refs.load() == 3);
    }
    CHECK(a.node()->refs.load() == 2);
    b = Value();
    CHECK(a.node()->refs.load() == 1);
}

TEST_CASE("value: shared across threads") {
    Value shared = Value::object({{S("k"), Value::array({S("v"), I(1)})}});
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([shared] {
            for (int i = 0; i < 10000; ++i) {
                Value copy = shared;
                Value inner = *copy.find("k");
                (void)inner.hash();
            }
        });
    for (auto& t : threads) t.join();
    CHECK(shared.node()->refs.load() == 1);
    CHECK(shared.find("k")->size() == 2);
}

TEST_CASE("sets of strings sort by bytes, shared prefixes, zero bytes and all") {
    // Against the generic order, on sets large enough for the prefix-skipping sort.
    std::mt19937 rng(7);
    const std::string prefixes[] = {"", "image 'registry.example.com/team/app-", std::string("a\0b", 3)};
    for (const auto& prefix : prefixes) {
        for (int round = 0; round < 20; ++round) {
            std::vector<Value> items;
            std::vector<std::string> expected;
            // Small sets, and sets large enough to be radix sorted by their heads.
            int n = 16 + static_cast<int>(rng() % (round < 10 ? 200 : 3000));
            for (int i = 0; i < n; ++i) {
                std::string s = prefix;
                int len = static_cast<int>(rng() % 12);
                for (int j = 0; j < len; ++j) s += static_cast<char>("\0\1az~\x7f\x80\xff"[rng() % 8]);
                items.push_back(Value::string(s));
                expected.push_back(s);
            }
            gavel::runtime::SetBuilder b;
            for (const auto& v : items) b.insert(v);
            Value set = b.build();
            std::sort(expected.begin(), expected.end());
            expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
            REQUIRE(set.size() == expected.size());
            for (std::size_t i = 0; i < expected.size(); ++i) CHECK(set.set_elements()[i].as_string() == expected[i]);
        }
    }
}

TEST_CASE("byte comparisons agree with std::string_view's order and equality at every length") {
    // Lengths around the word loop's edges, bytes above 0x7f (unsigned order), and a
    // difference at each position.
    std::string base;
    for (int i = 0; i < 40; ++i) base.push_back(static_cast<char>(i % 3 == 0 ? 0xe9 : 'a' + i % 26));
    auto sign = [](int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); };
    for (std::size_t n = 0; n <= base.size(); ++n) {
        std::string a = base.substr(0, n);
        for (std::size_t m = 0; m <= base.size(); m += 7) {
            std::string b = base.substr(0, m);
            CHECK(gavel::runtime::compare_bytes(a, b) == sign(std::string_view(a).compare(b)));
            CHECK(gavel::runtime::same_bytes(a, b) == (a == b));
        }
        for (std::size_t i = 0; i < n; ++i) {
            std::string b = a;
            b[i] = static_cast<char>(static_cast<unsigned char>(b[i]) ^ 0x80);
            CAPTURE(n);
            CAPTURE(i);
            CHECK(gavel::runtime::compare_bytes(a, b) == sign(std::string_view(a).compare(b)));
            CHECK(gavel::runtime::compare_bytes(b, a) == sign(std::string_view(b).compare(a)));
            CHECK_FALSE(gavel::runtime::same_bytes(a, b));
        }
    }
}
