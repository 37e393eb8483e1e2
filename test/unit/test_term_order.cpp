// lang/term_order: OPA's ast.Compare, the one order of terms `opa parse`'s
// sets and objects and partial evaluation's sets and objects share.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/partial/terms.hpp"
#include "lang/parse.hpp"
#include "lang/term_order.hpp"

using namespace gavel::lang;

namespace {

// The term `x := <text>` assigns (parsed as Rego).
TermPtr term(const std::string& text) {
    auto r = parse_module("m.rego", "package p\nx := " + text + "\n");
    REQUIRE(r.ok());
    return r.module->rules.at(0).head.value;
}

}  // namespace

TEST_CASE("term order: kinds in OPA's order, template strings between strings and vars") {
    // OPA's valueSortOrder: null, boolean, number, string, template string, var, ref,
    // array, object, set, array/object/set comprehension, call.
    const std::vector<std::string> ascending = {"null",         "false",           "true",        "-1",         "2",
                                                "\"a\"",        "$\"{1}\"",        "[1]",         "{\"k\": 1}", "{1}",
                                                "[y | y := 1]", "{y: 1 | y := 1}", "{y | y := 1}"};
    for (std::size_t i = 0; i + 1 < ascending.size(); ++i) {
        CAPTURE(ascending[i]);
        CHECK(compare_terms(term(ascending[i]), term(ascending[i + 1])) < 0);
        CHECK(compare_terms(term(ascending[i + 1]), term(ascending[i])) > 0);
    }
    Location nowhere;
    CHECK(compare_terms(term("\"z\""), make_var("a", nowhere)) < 0);
    CHECK(compare_terms(make_var("a", nowhere), term("input.a")) < 0);
    CHECK(compare_terms(TermPtr{}, term("null")) < 0);
}

TEST_CASE("term order: numbers by value, whatever their spelling") {
    CHECK(compare_numbers("1", "1.0") == 0);
    CHECK(compare_numbers("10e-1", "1") == 0);
    CHECK(compare_numbers("0.1", "0.10") == 0);
    CHECK(compare_numbers("-0", "0") == 0);
    CHECK(compare_numbers("-2", "1") < 0);
    CHECK(compare_numbers("9", "10") < 0);
    CHECK(compare_numbers("1e400", "1e401") < 0);
    CHECK(compare_numbers("100000000000000000001", "100000000000000000000") > 0);
}

TEST_CASE("term order: sets keep the first of equal elements, objects the last value of a key") {
    // As OPA's set: 1 after 1.0 is another element (an integer matches only integers),
    // 1.0 after 1 a repeat; equal numbers sort in the order written.
    TermPtr set = term("{3, 1.0, 1, \"a\", 3.0}");
    auto elems = sorted_set_elems(*set);
    REQUIRE(elems.size() == 4);
    CHECK(elems[0]->text == "1.0");
    CHECK(elems[1]->text == "1");
    CHECK(elems[2]->text == "3");
    CHECK(elems[3]->text == "a");
    TermPtr object = term("{\"b\": 1, \"a\": 2, \"a\": 3}");
    auto items = sorted_object_items(*object);
    REQUIRE(items.size() == 2);
    CHECK(items[0].first->text == "a");
    CHECK(items[0].second->text == "3");
}

TEST_CASE("term order: partial evaluation's sets use the same order") {
    // Partial evaluation had its own port, with template strings last.
    TermPtr set = gavel::partial::make_set({make_var("v", Location{}), term("$\"{1}\""), term("\"s\"")});
    REQUIRE(set->elems.size() == 3);
    CHECK(set->elems[0]->kind == TermKind::String);
    CHECK(set->elems[1]->kind == TermKind::Template);
    CHECK(set->elems[2]->kind == TermKind::Var);
}
