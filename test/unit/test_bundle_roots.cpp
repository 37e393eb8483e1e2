// engine/bundle: many roots checked and placed in near-linear time (RootTrie,
// check_manifest_roots, DataTreeBuilder, place_bundle_data), with the answers
// of the pairwise definitions they replace, compared on random manifests.
#include <doctest/doctest.h>

#include <random>

#include "engine/bundle/data_placement.hpp"
#include "engine/bundle/merge_data.hpp"
#include "engine/bundle/roots.hpp"
#include "engine/engine.hpp"
#include "runtime/json.hpp"

using namespace gavel;
using namespace gavel::engine::bundle;
using runtime::Value;

namespace {

Value json(std::string_view text) { return runtime::parse_json(text).value; }

// OPA's validateAndInjectDefaults loop, as the reference.
std::optional<std::string> pairwise_manifest_check(const std::vector<std::string>& roots) {
    for (std::size_t i = 0; i + 1 < roots.size(); ++i)
        for (std::size_t j = i + 1; j < roots.size(); ++j)
            if (root_paths_overlap(roots[i], roots[j]))
                return "manifest has overlapped roots: '" + roots[i] + "' and '" + roots[j] + "'";
    return std::nullopt;
}

// Paths over a small alphabet, so that random ones often nest or repeat; "" now and then.
std::string random_path(std::mt19937& rng, bool allow_empty) {
    static const char* kSegments[] = {"a", "b", "c", "ab", ""};
    if (allow_empty && rng() % 25 == 0) return "";
    std::string out;
    int depth = 1 + static_cast<int>(rng() % 3);
    for (int d = 0; d < depth; ++d) {
        if (d) out += '/';
        out += kSegments[rng() % (d == 0 ? 4 : 5)];  // inner segments may be empty ("a//b")
    }
    return out;
}

std::vector<std::string> random_roots(std::mt19937& rng, std::size_t n) {
    std::vector<std::string> roots;
    for (std::size_t i = 0; i < n; ++i) roots.push_back(random_path(rng, true));
    return roots;
}

}  // namespace

TEST_CASE("roots: the first overlapping pair is the one OPA's pairwise loop reports") {
    CHECK(*check_manifest_roots({"a", "a/b"}) == "manifest has overlapped roots: 'a' and 'a/b'");
    CHECK(*check_manifest_roots({"x", "b/1", "a", "b", "a/1"}) == "manifest has overlapped roots: 'b/1' and 'b'");
    CHECK(*check_manifest_roots({"x", "a", "b", "b/1", "a/1"}) == "manifest has overlapped roots: 'a' and 'a/1'");
    CHECK(*check_manifest_roots({"x", "y", ""}) == "manifest has overlapped roots: 'x' and ''");
    CHECK(*check_manifest_roots({"x", "", "y"}) == "manifest has overlapped roots: 'x' and ''");
    CHECK(*check_manifest_roots({"x", "x"}) == "manifest has overlapped roots: 'x' and 'x'");
    CHECK(!check_manifest_roots({"a/b", "a/c", "ab"}));
    CHECK(!check_manifest_roots({""}));
    std::mt19937 rng(7);
    for (int trial = 0; trial < 3000; ++trial) {
        auto roots = random_roots(rng, 1 + rng() % 8);
        CAPTURE(go_string_list(roots));
        CHECK(check_manifest_roots(roots) == pairwise_manifest_check(roots));
    }
}

TEST_CASE("roots: RootTrie answers as RootPathsContain and RootPathsOverlap") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 500; ++trial) {
        auto roots = random_roots(rng, rng() % 6);
        RootTrie trie(roots);
        for (int q = 0; q < 20; ++q) {
            std::string path = random_path(rng, true);
            CAPTURE(go_string_list(roots));
            CAPTURE(path);
            CHECK(trie.contains(path) == root_paths_contain(roots, path));
            bool overlaps = false;
            for (const auto& r : roots) overlaps = overlaps || root_paths_overlap(r, path);
            CHECK(trie.overlaps(path) == overlaps);
        }
    }
}

TEST_CASE("roots: modules and data outside the roots, OPA's messages") {
    RootTrie roots({"a/b", "c"});
    CHECK(!check_module_root(roots, "a/b/x", "package a.b.x", "m.rego"));
    CHECK(*check_module_root(roots, "a", "package a", "m.rego") ==
          "manifest roots [a/b c] do not permit 'package a' in module 'm.rego'");
    CHECK(*check_data_roots(RootTrie({"a"}), json(R"({"b": 1})")) ==
          "manifest roots [a] do not permit data at path '/b' (hint: check bundle directory structure)");
    CHECK(!check_data_roots(roots, json(R"({"a": {"b": {"c": 1}}, "c": 2})")));
    CHECK(*check_data_roots(roots, json(R"({"a": {"x": 1}})")) ==
          "manifest roots [a/b c] do not permit data at path '/a/x' (hint: check bundle directory structure)");
    // OPA walks an object whose path has a segment that begins some root, even off the roots' paths.
    CHECK(*check_data_roots(roots, json(R"({"x": {"c": 1}})")) ==
          "manifest roots [a/b c] do not permit data at path '/x' (hint: check bundle directory structure)");
    CHECK(*check_data_roots(roots, json(R"({"c": {"c": 1}, "a": {"c": {"z": 1}}})")) ==
          "manifest roots [a/b c] do not permit data at path '/a/c/z' (hint: check bundle directory structure)");
}

TEST_CASE("data: DataTreeBuilder merges as merge_data does, one document after another") {
    CHECK(runtime::to_json(DataTreeBuilder().build()) == "{}");
    DataTreeBuilder b;
    CHECK(b.insert({"a", "b"}, json(R"({"x": 1})")));
    CHECK(b.insert({}, json(R"({"a": {"c": 2}, "d": 3})")));
    CHECK(b.insert({"a"}, json(R"({"b": {"y": 4}})")));
    CHECK(runtime::to_json(b.build()) == R"({"a":{"b":{"x":1,"y":4},"c":2},"d":3})");
    CHECK(!b.insert({"d"}, json(R"({"z": 1})")));  // 3 is not an object
    DataTreeBuilder c;
    CHECK(c.insert({"a"}, json("1")));
    CHECK(!c.insert({"a"}, json("1")));  // two values at one key, equal or not
    CHECK(!c.insert({"a", "b"}, json("{}")));

    std::mt19937 rng(3);
    const char* kDocs[] = {R"({"a": 1})", R"({"b": {"c": 2}})", R"({"b": {"d": 3}})", "{}", "5", R"({"a": {"e": 1}})",
                           "[1]"};
    for (int trial = 0; trial < 2000; ++trial) {
        DataTreeBuilder builder;
        Value reference = Value::empty_object();
        int files = 1 + static_cast<int>(rng() % 5);
        for (int f = 0; f < files; ++f) {
            std::vector<std::string> key;
            for (int d = static_cast<int>(rng() % 3); d > 0; --d) key.push_back(rng() % 2 ? "a" : "b");
            Value doc = json(kDocs[rng() % 7]);
            if (key.empty() && !doc.is_object()) continue;  // refused before merging (root value must be object)
            Value tree = doc;
            for (auto it = key.rbegin(); it != key.rend(); ++it) tree = Value::object({{Value::string(*it), tree}});
            Value merged;
            bool expected = merge_data(reference, tree, merged);
            CHECK(builder.insert(key, doc) == expected);
            if (!expected) break;
            reference = merged;
            CHECK(runtime::to_json(builder.build()) == runtime::to_json(reference));
        }
    }
}

TEST_CASE("data placement: as erasing every owned root, then writing root by root") {
    std::string error;
    auto placed = place_bundle_data(json(R"({"a": {"b": 1, "c": 2}, "x": 1, "old": {"k": 1}})"), {"old", "a/b"},
                                    {"a/b", "n/m"}, json(R"({"a": {"b": {"v": 1}}, "n": {"m": 2}})"), error);
    REQUIRE(placed);
    CHECK(runtime::to_json(*placed) == R"({"a":{"b":{"v":1},"c":2},"n":{"m":2},"x":1})");
    CHECK(!place_bundle_data(json(R"({"a": 1, "b": 2})"), {"c/d"}, {"c/d", "b/x", "a/y"},
                             json(R"({"a": {"y": 1}, "b": {"x": 1}})"), error));
    CHECK(error == "data.b is not an object");  // the first root (in manifest order) that fails

    // Against the engine's own set_data / remove_data, one root at a time.
    std::mt19937 rng(5);
    const char* kBases[] = {R"({"a": {"b": 1, "a": {"c": 2}}, "b": 3})", R"({"a": 1, "c": {"a": {}}})", "{}",
                            R"({"b": {"b": {"b": 1}}})"};
    const char* kBundles[] = {R"({"a": {"a": 5}, "b": {"c": 6}})", R"({"c": 1, "a": {"b": {"x": 1}}})", R"({"b": 7})",
                              "{}"};
    for (int trial = 0; trial < 2000; ++trial) {
        Value base = json(kBases[rng() % 4]);
        Value bundle = json(kBundles[rng() % 4]);
        std::vector<std::string> erased, roots;
        for (int i = static_cast<int>(rng() % 3); i > 0; --i) erased.push_back(random_path(rng, true));
        // The bundle's roots never overlap (the manifest check comes first).
        for (int i = static_cast<int>(rng() % 4); i > 0; --i) {
            auto r = random_path(rng, true);
            bool overlaps = false;
            for (const auto& o : roots) overlaps = overlaps || root_paths_overlap(o, r);
            if (!overlaps) roots.push_back(r);
        }
        for (const auto& r : roots) erased.push_back(r);
        Engine engine;
        engine.set_data(base);
        std::optional<std::string> expected_error;
        for (const auto& root : erased) {
            auto path = path_parts(root);
            if (path.empty()) engine.set_data(Value::empty_object());
            else engine.remove_data(path);
        }
        for (const auto& root : roots) {
            auto path = path_parts(root);
            const Value* v = &bundle;
            for (const auto& p : path) v = v && v->is_object() ? v->find(p) : nullptr;
            if (v) expected_error = engine.set_data(*v, path);
            if (expected_error) break;
        }
        CAPTURE(go_string_list(erased));
        CAPTURE(go_string_list(roots));
        std::string got_error;
        auto got = place_bundle_data(base, erased, roots, bundle, got_error);
        REQUIRE(got.has_value() == !expected_error);
        if (got) CHECK(runtime::to_json(*got) == runtime::to_json(engine.data()));
        else CHECK(got_error == *expected_error);
    }
}
