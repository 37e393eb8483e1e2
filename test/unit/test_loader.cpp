// The loader on temporary trees: placement of data by directory, merging,
// conflicts, errors, ordering, as OPA's loader does.
#include "runtime/json.hpp"
#include "engine/loader.hpp"

#include <doctest/doctest.h>

#include "test/unit/temp_tree.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace gavel::runtime;
using namespace gavel::engine;
namespace fs = std::filesystem;
using gavel::test::TempTree;

namespace {

std::string data_json(const LoadResult& r) { return to_json(r.data); }

std::string all_errors(const LoadResult& r) {
    std::string out;
    for (const auto& d : r.errors) out += describe(d) + "\n";
    return out;
}

}  // namespace

TEST_CASE("loader: data lands at its directory path, whatever the file's name") {
    TempTree t;
    t.write("data.json", R"({"top": 1})");
    t.write("a/b/data.json", R"({"x": 1})");
    t.write("a/b/more.yaml", "yy: 2\n");
    t.write("a/other.yml", "z: [1, 2]\n");
    t.write("a/notes.txt", "ignored");
    t.write("c/list.json", "[1, 2]");  // non-objects are fine below the root
    LoadResult r = load_paths({t.root.string()});
    REQUIRE_MESSAGE(r.ok(), all_errors(r));
    CHECK(data_json(r) == R"({"a":{"b":{"x":1,"yy":2},"z":[1,2]},"c":[1,2],"top":1})");
    CHECK(r.policies.empty());
    // Walk order: entries sorted by name, depth first.
    REQUIRE(r.data_files.size() == 5);
    CHECK(r.data_files[0] == t.path("a/b/data.json"));
    CHECK(r.data_files[1] == t.path("a/b/more.yaml"));
    CHECK(r.data_files[2] == t.path("a/other.yml"));
    CHECK(r.data_files[3] == t.path("c/list.json"));
    CHECK(r.data_files[4] == t.path("data.json"));
}

TEST_CASE("loader: policies are named by path, in walk order") {
    TempTree t;
    t.write("z.rego", "package z\n");
    t.write("lib/a.rego", "package lib.a\n");
    t.write("lib/b.rego", "package lib.b\n");
    LoadResult r = load_paths({t.root.string() + "/"});
    REQUIRE_MESSAGE(r.ok(), all_errors(r));
    REQUIRE(r.policies.size() == 3);
    // Joined and cleaned like Go's filepath.Join: no doubled or trailing slash.
    CHECK(r.policies[0].file == t.path("lib/a.rego"));
    CHECK(r.policies[1].file == t.path("lib/b.rego"));
    CHECK(r.policies[2].file == t.path("z.rego"));
    CHECK(r.policies[0].text == "package lib.a\n");
    CHECK(data_json(r) == "{}");

    // A file named directly keeps the name it was given.
    LoadResult direct = load_paths({t.path("lib/../z.rego")});
    REQUIRE(direct.policies.size() == 1);
    CHECK(direct.policies[0].file == t.path("lib/../z.rego"));
}

TEST_CASE("loader: a data file named directly merges at the root") {
    TempTree t;
    t.write("deep/dir/input.json", R"({"k": "v"})");
    t.write("deep/dir/list.json", "[1]");
    LoadResult r = load_paths({t.path("deep/dir/input.json")});
    REQUIRE_MESSAGE(r.ok(), all_errors(r));
    CHECK(data_json(r) == R"({"k":"v"})");

    LoadResult bad = load_paths({t.path("deep/dir/list.json")});
    REQUIRE(bad.errors.size() == 1);
    CHECK(describe(*bad.errors.begin()) == t.path("deep/dir/list.json") + ": document must be of type object");

    // The same at the root of a directory walk.
    TempTree t2;
    t2.write("scalar.json", "1");
    LoadResult bad2 = load_paths({t2.root.string()});
    REQUIRE(bad2.errors.size() == 1);
    CHECK(describe(*bad2.errors.begin()) == t2.path("scalar.json") + ": document must be of type object");
}

TEST_CASE("loader: objects merge across files and directories") {
    TempTree t;
    t.write("a/data.json", R"({"x": {"y": 1}, "b": {"from_a": true}})");
    t.write("a/b/data.json", R"({"z": 2})");
    t.write("a/more.json", R"({"x": {"w": 3}})");
    LoadResult r = load_paths({t.root.string()});
    REQUIRE_MESSAGE(r.ok(), all_errors(r));
    CHECK(data_json(r) == R"({"a":{"b":{"from_a":true,"z":2},"x":{"w":3,"y":1}}})");
}

TEST_CASE("loader: conflicting values name both files") {
    TempTree t;
    t.write("a/one.json", R"({"x": {"y": 1}})");
    t.write("a/two.json", R"({"x": {"y": 1}})");  // equal values still conflict, as in OPA
    LoadResult r = load_paths({t.root.string()});
    REQUIRE(r.errors.size() == 1);
    CHECK(describe(*r.errors.begin()) ==
          t.path("a/two.json") + ": merge error: data.a.x.y is also defined by " + t.path("a/one.json"));

    // A value where a directory puts an object.
    TempTree t2;
    t2.write("data.json", R"({"a": 1})");
    t2.write("a/data.json", R"({"b": 2})");
    LoadResult r2 = load_paths({t2.root.string()});
    REQUIRE(r2.errors.size() == 1);
    CHECK(describe(*r2.errors.begin()) ==
          t2.path("data.json") + ": merge error: data.a is also defined by " + t2.path("a/data.json"));

    // Two -d paths loading the same thing.
    TempTree t3;
    t3.write("d.json", R"({"k": 1})");
    LoadResult r3 = load_paths({t3.path("d.json"), t3.path("d.json")});
    REQUIRE(r3.errors.size() == 1);
    CHECK(describe(*r3.errors.begin()) ==
          t3.path("d.json") + ": merge error: data.k is defined twice in " + t3.path("d.json"));
}

TEST_CASE("loader: parse errors name the file and line:col") {
    TempTree t;
    t.write("bad.json", "{\n  \"a\": 1,\n  \"b\": ]\n}\n");
    t.write("bad.yaml", "a: [1, 2\nb: 3\n");
    LoadResult r = load_paths({t.root.string()});
    REQUIRE(r.errors.size() == 2);
    auto it = r.errors.begin();
    CHECK(it->file == t.path("bad.json"));
    CHECK(it->line == 3);
    CHECK(it->col > 0);
    CHECK(it->code.empty());
    CHECK(it->message.rfind(t.path("bad.json") + ": invalid JSON", 0) == 0);
    CHECK(it->message.find("line 3") != std::string::npos);
    ++it;
    CHECK(it->file == t.path("bad.yaml"));
    // OPA's loader: go-yaml's text under its own words, and no location of its own.
    CHECK(it->line == 0);
    CHECK(it->message ==
          t.path("bad.yaml") + ": error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'");
}

TEST_CASE("loader: missing paths and unknown files") {
    TempTree t;
    LoadResult r = load_paths({t.path("nope")});
    REQUIRE(r.errors.size() == 1);
    CHECK(describe(*r.errors.begin()) == "stat " + t.path("nope") + ": no such file or directory");

    // A file named directly with an unknown extension is tried as Rego, JSON, YAML.
    t.write("policy.txt", "package from.txt\n\np := 1\n");
    t.write("data.conf", R"({"conf": true})");
    t.write("seq.cfg", "- 1\n- 2\n");
    LoadResult any = load_paths({t.path("policy.txt"), t.path("data.conf")});
    REQUIRE_MESSAGE(any.ok(), all_errors(any));
    REQUIRE(any.policies.size() == 1);
    CHECK(any.policies[0].file == t.path("policy.txt"));
    CHECK(data_json(any) == R"({"conf":true})");
    LoadResult seq = load_paths({t.path("seq.cfg")});
    REQUIRE(seq.errors.size() == 1);
    CHECK(describe(*seq.errors.begin()) == t.path("seq.cfg") + ": document must be of type object");
}

TEST_CASE("loader: a prefix places content below data.<prefix>") {
    TempTree t;
    t.write("x/data.json", R"({"k": 1})");
    t.write("v.json", R"({"v": 2})");
    LoadResult r = load_paths({"pre.fix:" + t.root.string()});
    REQUIRE_MESSAGE(r.ok(), all_errors(r));
    // v.json is at the walk root, so it merges at data.pre.fix itself.
    CHECK(data_json(r) == R"({"pre":{"fix":{"v":2,"x":{"k":1}}}})");
    LoadResult list = load_paths({"a:" + t.path("x/data.json")});
    CHECK(data_json(list) == R"({"a":{"k":1}})");
}

TEST_CASE("loader: YAML data uses the first document only") {
    TempTree t;
    t.write("cfg/data.yaml", "a: 1\n---\nb: 2\n");
    LoadResult r = load_paths({t.root.string()});
    REQUIRE_MESSAGE(r.ok(), all_errors(r));
    CHECK(data_json(r) == R"({"cfg":{"a":1}})");
}

TEST_CASE("loader: symbolic link loops are reported, not followed forever") {
    TempTree t;
    t.write("d/data.json", R"({"k": 1})");
    std::error_code ec;
    fs::create_directory_symlink(t.path("d"), t.path("d/loop"), ec);
    if (ec) return;  // no symlinks here
    LoadResult r = load_paths({t.root.string()});
    REQUIRE(r.errors.size() == 1);
    CHECK(describe(*r.errors.begin()) ==
          t.path("d/loop") + ": directory cycle: leads back to " + t.path("d") + ", not walked again");
}

TEST_CASE("loader: data path notation") {
    CHECK(data_path_text({}) == "data");
    CHECK(data_path_text({"a", "b_1"}) == "data.a.b_1");
    CHECK(data_path_text({"a-b", "c"}) == R"(data["a-b"].c)");
    CHECK(data_path_text({"1x"}) == R"(data["1x"])");
}

TEST_CASE("loader: describe prints coded diagnostics like OPA") {
    gavel::lang::Diagnostic d;
    d.code = "rego_parse_error";
    d.message = "unexpected eof token";
    d.file = "p.rego";
    d.line = 3;
    d.col = 5;
    d.source_line = "\tx := ";
    CHECK(describe(d) == "p.rego:3: rego_parse_error: unexpected eof token\n\tx := \n\t   ^");
    d.file.clear();
    d.source_line.clear();
    CHECK(describe(d) == "3:5: rego_parse_error: unexpected eof token");
}
