// lang/yaml_events and lang/yaml_node: libyaml's events with go-yaml's error
// wording (v2 and v3 name different lines), and the bounded node tree.

#include <doctest/doctest.h>

#include <string>

#include "lang/yaml_node.hpp"

using namespace gavel::lang::yaml;

namespace {

std::string error_of(std::string_view text, ErrorDialect dialect) {
    Documents d = read_documents(text, dialect);
    return d.ok ? "ok" : d.error;
}

}  // namespace

TEST_CASE("yaml events: go-yaml v2 and v3 name the line of a parse error differently") {
    // A scanner error: v2 counts the problem's line from 1, v3 the context's first.
    CHECK(error_of("a: 1\n\tb: 2\n", ErrorDialect::GoYamlV2) ==
          "yaml: line 2: found a tab character that violates indentation");
    CHECK(error_of("a: 1\n\tb: 2\n", ErrorDialect::GoYamlV3) ==
          "yaml: line 2: found a tab character that violates indentation");
    // A parser error: v2 the problem's line as libyaml counts it (from 0), v3 the context's.
    CHECK(error_of("a: 1\nb: [1, 2\nc: 3\n", ErrorDialect::GoYamlV2) ==
          "yaml: line 2: did not find expected ',' or ']'");
    CHECK(error_of("a: 1\nb: [1, 2\nc: 3\n", ErrorDialect::GoYamlV3) ==
          "yaml: line 1: did not find expected ',' or ']'");
    // Line 0 is not named.
    CHECK(error_of("a: b: c\n", ErrorDialect::GoYamlV2) == "yaml: mapping values are not allowed in this context");
}

TEST_CASE("yaml node tree: shape, styles, aliases shared") {
    Documents d = read_documents("a: &x [1, 'q', ~]\nb: *x\nc: |\n  text\n\"\": !!str 5\n");
    REQUIRE(d.ok);
    REQUIRE(d.documents.size() == 1);
    const Node& root = *d.documents[0];
    REQUIRE(root.is_mapping());
    const Node* a = root.get("a");
    REQUIRE(a);
    CHECK(a->is_sequence());
    CHECK(a->items[0]->plain());
    CHECK(a->items[1]->style == ScalarStyle::SingleQuoted);
    CHECK(a->items[2]->is_null());
    CHECK(root.get("b") == a);  // the alias is its anchor's node
    CHECK(root.get("c")->text == "text\n");
    CHECK(root.get("")->tag == "tag:yaml.org,2002:str");
    CHECK_FALSE(root.get("")->plain());
    CHECK(root.get("missing") == nullptr);
    // Several documents; an empty one is an empty plain scalar (null).
    Documents s = read_documents("--- 1\n---\n--- [2]\n");
    REQUIRE(s.ok);
    REQUIRE(s.documents.size() == 3);
    CHECK(s.documents[1]->is_null());
    CHECK(read_documents("--- 1\n--- [\n", ErrorDialect::GoYamlV2, {}, 1).ok);  // the first document only
}

TEST_CASE("yaml node tree: anchors and limits") {
    CHECK(error_of("a: *nope\n", ErrorDialect::GoYamlV2) == "yaml: unknown anchor 'nope' referenced");
    CHECK(error_of("a: &x [*x]\n", ErrorDialect::GoYamlV2) == "yaml: anchor 'x' value contains itself");
    NodeLimits small;
    small.max_depth = 3;
    CHECK(read_documents("[[[1]]]", ErrorDialect::GoYamlV2, small).error ==
          "YAML nesting too deep: more than 3 levels");
    // An alias counts as deep as what it stands for.
    CHECK_FALSE(read_documents("a: &x [[1]]\nb: [*x]\n", ErrorDialect::GoYamlV2, small).ok);
    // Billion laughs: aliases count as the nodes they stand for.
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    char prev = 'a';
    for (char c = 'b'; c <= 'i'; ++c) {
        bomb += std::string(1, c) + ": &" + c + " [";
        for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", *" : "*") + prev;
        bomb += "]\n";
        prev = c;
    }
    Documents b = read_documents(bomb);
    CHECK_FALSE(b.ok);
    CHECK(b.error.find("too large") != std::string::npos);
}
