// Bundle manifests (.manifest) in loaded directories: per-module dialect
// (rego_version, file_rego_versions), data placed relative to the bundle root,
// only data.json/data.yaml as data, malformed manifests as errors.
#include "engine/bundle/manifest_file.hpp"
#include "engine/bundle_manifest.hpp"
#include "engine/engine.hpp"
#include "runtime/json.hpp"
#include "engine/loader.hpp"

#include <doctest/doctest.h>

#include "test/unit/temp_tree.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

using namespace gavel::runtime;
using namespace gavel::engine;
using gavel::Engine;
namespace lang = gavel::lang;
namespace fs = std::filesystem;
using gavel::test::TempTree;

namespace {

std::string all_errors(const lang::Diagnostics& ds) {
    std::string out;
    for (const auto& d : ds) out += describe(d) + "\n";
    return out;
}

// The dialect the loader chose per policy, keyed by the path below the tree.
std::map<std::string, std::string> dialects(const LoadResult& r, const TempTree& t) {
    std::map<std::string, std::string> out;
    for (const auto& p : r.policies)
        out[fs::path(p.file).lexically_relative(t.root).generic_string()] =
            !p.v0_compatible ? "default" : (*p.v0_compatible ? "v0" : "v1");
    return out;
}

const char* kV0Policy = "package old\nallow { input.x == 1 }\n";
const char* kV1Policy = "package new\nallow if input.x == 1\n";

}  // namespace

TEST_CASE("file_rego_versions globs: -d reads a manifest as -b does, and both as OPA 1.7.1's -b") {
    // The module is legacy/a.rego below the manifest; OPA matches each key, a gobwas glob
    // without separators, against "/legacy/a.rego" (recorded with opa eval -b).
    const std::vector<std::pair<std::string, bool>> cases = {
        {"/legacy/*.rego", true},     {"legacy/*.rego", false}, {"*.rego", true},
        {"/legacy/a.rego", true},     {"**/a.rego", true},      {"mt/legacy/*.rego", false},
        {"/mt/legacy/*.rego", false}, {"legacy/**", false},     {"/{legacy,old}/[a-c].rego", true},
    };
    for (const auto& [key, v0] : cases) {
        CAPTURE(key);
        const std::string text = R"({"rego_version": 1, "file_rego_versions": {")" + key + R"(": 0}})";
        // -b
        std::string error;
        auto m = gavel::engine::bundle::parse_manifest(text, error);
        REQUIRE_MESSAGE(m, error);
        CHECK(m->v0_for("/legacy/a.rego") == std::optional<bool>(v0));
        CHECK(m->v0_for("legacy/a.rego") == std::optional<bool>(v0));
        // -d
        TempTree t;
        t.write("mt/.manifest", text);
        t.write("mt/legacy/a.rego", kV0Policy);
        LoadResult r = load_paths({t.path("mt")});
        REQUIRE_MESSAGE(r.ok(), all_errors(r.errors));
        CHECK(dialects(r, t).at("mt/legacy/a.rego") == (v0 ? "v0" : "v1"));
    }
}

TEST_CASE("manifest: rego_version sets the dialect of every module below it; file_rego_versions wins") {
    TempTree t;
    t.write("old/.manifest", R"({"rego_version": 0, "file_rego_versions": {"/modern/*.rego": 1}})");
    t.write("old/p.rego", kV0Policy);
    t.write("old/deep/q.rego", "package old.deep\nallow { true }\n");
    t.write("old/modern/r.rego", kV1Policy);
    t.write("new/s.rego", kV1Policy);
    t.write("mixed/.manifest", R"({"file_rego_versions": {"/legacy.rego": 0}})");
    t.write("mixed/legacy.rego", "package mixed.legacy\nallow { true }\n");
    t.write("mixed/current.rego", "package mixed.current\nallow if true\n");
    LoadResult r = load_paths({t.root.string()});
    REQUIRE_MESSAGE(r.ok(), all_errors(r.errors));
    CHECK(dialects(r, t) == std::map<std::string, std::string>{{"old/p.rego", "v0"},
                                                               {"old/deep/q.rego", "v0"},
                                                               {"old/modern/r.rego", "v1"},
                                                               {"new/s.rego", "default"},
                                                               {"mixed/legacy.rego", "v0"},
                                                               {"mixed/current.rego", "default"}});

    // The engine parses each module in its own dialect: all of them load in one v1 engine.
    Engine engine;
    auto errors = add_to_engine(engine, std::move(r));
    CHECK_MESSAGE(errors.empty(), all_errors(errors));
    auto query = engine.prepare("data.old.allow");
    REQUIRE(query.value);
    Value input = parse_json(R"({"x": 1})").value;
    auto result = query.value->eval({.input = &input});
    REQUIRE(result.rows.size() == 1);
    CHECK(to_json(result.rows[0].expressions.at(0).value) == "true");

    // Without the manifest the same v0 module is a parse error in v1 mode.
    fs::remove(t.path("old/.manifest"));
    Engine plain;
    CHECK_FALSE(load_into(plain, {t.path("old")}).empty());
}

TEST_CASE("manifest: a v0 bundle's module importing rego.v1 stays v1") {
    TempTree t;
    t.write("b/.manifest", R"({"rego_version": 0})");
    t.write("b/p.rego", "package p\nimport rego.v1\nallow if input.x == 1\n");
    Engine engine;
    auto errors = load_into(engine, {t.root.string()});
    CHECK_MESSAGE(errors.empty(), all_errors(errors));
}

TEST_CASE("manifest: data is placed relative to the bundle root, only data.json/yaml are data") {
    TempTree t;
    t.write("bundles/one/.manifest", R"({"rego_version": 1, "roots": ["kubernetes"]})");
    t.write("bundles/one/kubernetes/ingresses/data.json", R"({"prod": {"a": 1}})");
    t.write("bundles/one/pod.json", R"({"kind": "AdmissionReview"})");  // an input fixture, not data
    t.write("bundles/two/.manifest", "{}");
    t.write("bundles/two/kubernetes/ingresses/data.yaml", "dev:\n  b: 2\n");
    t.write("bundles/plain/x/data.json", R"({"y": 3})");  // no manifest: relative to the root given
    t.write("bundles/plain/other.json", R"({"z": 4})");
    LoadResult r = load_paths({t.path("bundles")});
    REQUIRE_MESSAGE(r.ok(), all_errors(r.errors));
    CHECK(to_json(r.data) ==
          R"({"kubernetes":{"ingresses":{"dev":{"b":2},"prod":{"a":1}}},"plain":{"x":{"y":3},"z":4}})");

    // The same placement as when the bundle directory itself is given, and below a prefix.
    LoadResult one = load_paths({t.path("bundles/one")});
    CHECK(to_json(one.data) == R"({"kubernetes":{"ingresses":{"prod":{"a":1}}}})");
    LoadResult prefixed = load_paths({"ext:" + t.path("bundles")});
    REQUIRE_MESSAGE(prefixed.ok(), all_errors(prefixed.errors));
    CHECK(to_json(*prefixed.data.find("ext")->find("kubernetes")) == R"({"ingresses":{"dev":{"b":2},"prod":{"a":1}}})");
}

TEST_CASE("manifest: malformed manifests are errors naming the file") {
    TempTree t;
    t.write("a/.manifest", R"({"rego_version": 2})");
    t.write("a/p.rego", kV1Policy);
    t.write("b/.manifest", "{not json");
    t.write("c/.manifest", R"({"file_rego_versions": {"x.rego": "zero"}, "roots": "k"})");
    LoadResult r = load_paths({t.root.string()});
    std::string errors = all_errors(r.errors);
    // OPA's bundle reader's words (engine/bundle/manifest_file.cpp), after the file's name.
    CHECK(errors.find(t.path("a/.manifest") + ": unknown bundle rego-version 2") != std::string::npos);
    CHECK(errors.find(t.path("b/.manifest") + ": bundle load failed on manifest decode:") != std::string::npos);
    CHECK(errors.find(t.path("c/.manifest") + ": bundle load failed on manifest decode: json: cannot unmarshal") !=
          std::string::npos);
}

TEST_CASE("find_bundle_manifest: nearest manifest at or below the directory named") {
    TempTree t;
    t.write("top/.manifest", R"({"rego_version": 1})");
    t.write("top/sub/.manifest", R"({"rego_version": 0})");
    t.write("top/sub/x/p.rego", kV0Policy);
    t.write("top/q.rego", kV1Policy);
    lang::Diagnostics errors;
    auto m = find_bundle_manifest(t.path("top/sub/x/p.rego"), t.path("top"), errors);
    REQUIRE(m);
    CHECK(m->root == t.path("top/sub"));
    CHECK(m->v0_compatible_for(t.path("top/sub/x/p.rego")) == std::optional<bool>(true));
    auto outer = find_bundle_manifest(t.path("top/q.rego"), t.path("top"), errors);
    REQUIRE(outer);
    CHECK(outer->v0_compatible_for(t.path("top/q.rego")) == std::optional<bool>(false));
    // A manifest above the directory named is not looked at.
    CHECK_FALSE(find_bundle_manifest(t.path("top/sub/x/p.rego"), t.path("top/sub/x"), errors));
    CHECK(errors.empty());
}
