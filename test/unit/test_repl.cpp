// The REPL's pieces: statement classification, query rewriting into the
// current package, OPA's table layout, and completion over a Session.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "cli/repl/completion.hpp"
#include "cli/repl/query_rewrite.hpp"
#include "cli/repl/session.hpp"
#include "cli/repl/statement.hpp"
#include "cli/repl/table.hpp"

using namespace gavel::cli::repl;

TEST_CASE("repl: statements are classified by their tokens") {
    CHECK(classify("input.request.kind").kind == StatementKind::Query);
    CHECK(classify("x := 1; y := 2").kind == StatementKind::Query);
    CHECK(classify("[a, b] := [1, 2]").kind == StatementKind::Query);
    CHECK(classify("every x in [1] { x > 0 }").kind == StatementKind::Query);
    CHECK(classify("x = {1, 2}").kind == StatementKind::Query);
    CHECK(classify("input").kind == StatementKind::Query);
    CHECK(classify("  # only a comment").kind == StatementKind::Empty);

    auto a = classify("i := 0");
    CHECK(a.kind == StatementKind::Assignment);
    CHECK(a.name == "i");
    CHECK(classify("f(x) := x + 1").kind == StatementKind::Assignment);

    auto r = classify("deny contains msg if { msg := \"no\" }");
    CHECK(r.kind == StatementKind::Rule);
    CHECK(r.name == "deny");
    CHECK(classify("deny[msg] {\n msg := 1\n}").kind == StatementKind::Rule);  // v0
    CHECK(classify("default allow := false").name == "allow");
    CHECK(classify("p = 5 { true }").kind == StatementKind::Rule);

    CHECK(classify("package a.b").kind == StatementKind::Package);
    CHECK(classify("package a.b").name == "a.b");
    CHECK(classify("import input.request as req").kind == StatementKind::Import);

    auto c = classify("unset pi");
    CHECK(c.kind == StatementKind::Command);
    CHECK(c.args == std::vector<std::string>{"pi"});
    CHECK(classify("input other.json").kind == StatementKind::Command);
    CHECK(classify("input == 1").kind == StatementKind::Query);
    CHECK(classify("quit").name == "exit");
}

TEST_CASE("repl: open brackets and raw strings continue a statement") {
    CHECK(needs_more_input("p if {"));
    CHECK(needs_more_input("[1,\n 2"));
    CHECK(needs_more_input("x := `raw"));
    CHECK_FALSE(needs_more_input("\"{\""));
    CHECK_FALSE(needs_more_input("x := 1 # {"));
    CHECK_FALSE(needs_more_input("p if {\n true\n}"));
}

TEST_CASE("repl: a statement's continuation line by line agrees with a scan of the whole") {
    const std::vector<std::vector<std::string>> statements = {
        {"p if {", " true", "}"},
        {"x := `raw", "still { raw", "end` + [", "1]"},
        {"a := [1, # ] a comment", "\"]\", `", "`]"},
        {"]]] [", "]"},
        {"x := {", "\"a\": [", "1, 2", "]", "}"},
    };
    for (const auto& lines : statements) {
        Continuation at;
        std::string whole;
        for (const auto& line : lines) {
            whole += (whole.empty() ? "" : "\n") + line;
            at = continue_statement(at, line);
            CAPTURE(whole);
            CHECK(at.needs_more() == needs_more_input(whole));
        }
    }
    // The depth carries over from line to line.
    Continuation deep;
    for (int i = 0; i < 100000; ++i) deep = continue_statement(deep, "[");
    CHECK(deep.open_brackets == 100000);
}

TEST_CASE("repl: names of the current package are spelled out and mapped back") {
    std::map<std::string, std::string> names = {{"i", "data.repl.i"}, {"req", "input.request"}};
    std::string q = "input.x[i]; req.i == some_fn(i)";
    RewrittenQuery r = rewrite_query(q, names);
    CHECK(r.text == "input.x[data.repl.i]; input.request.i == some_fn(data.repl.i)");
    // The second expression starts at column 23 of the rewritten text.
    CHECK(r.original_span(q, 1, 23, std::string("input.request.i == some_fn(data.repl.i)").size(), "?") ==
          "req.i == some_fn(i)");
    uint32_t line = 1, col = 23;
    r.map_position(q, line, col);
    CHECK(col == 13);
    // Locals shadow rules.
    CHECK(rewrite_query("some i; x := [1][i]", names).text == "some i; x := [1][i]");
    CHECK(rewrite_query("i := 2; i", names).text == "i := 2; i");
}

TEST_CASE("repl: tables as OPA's REPL draws them") {
    CHECK(render_table({"i", "data.servers[i].protocols[j]"}, {{"0", "\"https\""}}) ==
          "+---+------------------------------+\n"
          "| i | data.servers[i].protocols[j] |\n"
          "+---+------------------------------+\n"
          "| 0 | \"https\"                      |\n"
          "+---+------------------------------+\n");
    // Headers are centred; cells wider than 30 columns wrap at spaces.
    CHECK(render_table({"m"}, {{"\"image 'mysql' comes from untrusted registry\""}}) ==
          "+---------------------------+\n"
          "|             m             |\n"
          "+---------------------------+\n"
          "| \"image 'mysql' comes from |\n"
          "| untrusted registry\"       |\n"
          "+---------------------------+\n");
}

TEST_CASE("repl: a session evaluates in its package and completes paths") {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("gavel_test_repl_" + std::to_string(getpid()));
    fs::create_directories(dir / "policies" / "registries");
    std::ofstream(dir / "policies" / "admission.rego")
        << "package kubernetes.admission\n\ndeny contains \"no\" if input.request.kind.kind == \"Pod\"\n";
    std::ofstream(dir / "policies" / "registries" / "data.json") << R"({"trusted": ["hooli.com"]})";
    std::ofstream(dir / "input.json")
        << R"({"request": {"kind": {"kind": "Pod"}, "object": {"spec": {"containers": [{"image": "a"}, {"image": "b"}]},)"
           R"( "metadata": {"labels": {"app.kubernetes.io/name": "x", "apple": "y"}}}}})";
    // Set member by member: from a designated initializer GCC 12 -O3 takes
    // bundle_options.ignore (a std::function) for uninitialized (-Wmaybe-uninitialized).
    SessionOptions options;
    options.data_paths = {(dir / "policies").string()};
    options.input_path = (dir / "input.json").string();
    Session s(options);
    REQUIRE(s.startup_errors().empty());
    CHECK(s.execute("input.request.kind.kind") == "\"Pod\"\n");
    CHECK(s.execute("n := count(input.request.object.spec.containers)") ==
          "Rule 'n' defined in package repl. Type 'show' to see rules.\n");
    CHECK(s.execute("n + 1") == "3\n");
    CHECK(s.execute("input.nope") == "undefined\n");
    // As OPA's REPL: the query as written is compiled first, and its errors are shown.
    CHECK(s.execute("nope") == "1 error occurred: 1:1: rego_unsafe_var_error: var nope is unsafe\n");

    CHECK(complete(s, "input.request.ob", false) == std::vector<std::string>{"input.request.object"});
    CHECK(complete(s, "data.kubernetes.admission.d", false) ==
          std::vector<std::string>{"data.kubernetes.admission.deny"});
    CHECK(complete(s, "data.registries.", false) == std::vector<std::string>{"data.registries.trusted"});
    // Keys that are no names complete in brackets; array elements are walked through.
    CHECK(complete(s, "input.request.object.metadata.labels.ap", false) ==
          std::vector<std::string>{"input.request.object.metadata.labels.apple",
                                   "input.request.object.metadata.labels[\"app.kubernetes.io/name\"]"});
    CHECK(complete(s, "input.request.object.metadata.labels[\"app.k", false) ==
          std::vector<std::string>{"input.request.object.metadata.labels[\"app.kubernetes.io/name\"]"});
    CHECK(complete(s, "input.request.object.spec.containers[1].im", false) ==
          std::vector<std::string>{"input.request.object.spec.containers[1].image"});
    CHECK(complete(s, "[input.request.ki", false) == std::vector<std::string>{"[input.request.kind"});
    CHECK(complete(s, "strings.repl", false) == std::vector<std::string>{"strings.replace_n"});
    auto words = complete(s, "unse", true);
    CHECK(std::find(words.begin(), words.end(), "unset") != words.end());
    auto builtins = complete(s, "starts", false);
    CHECK(std::find(builtins.begin(), builtins.end(), "startswith") != builtins.end());
    CHECK(complete(s, "n", false).front() == "n");  // the rule typed above
    fs::remove_all(dir);
}
