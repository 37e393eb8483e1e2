// Stage check_recursion: rules that depend on themselves.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;

TEST_CASE("check_recursion: direct and indirect cycles name the path") {
    CHECK(errors_of("package p\np if { p }\n") ==
          "2:1 rego_recursion_error: rule data.p.p is recursive: data.p.p -> data.p.p\n");
    CHECK(errors_of("package p\np if { q }\nq if { p }\n") ==
          "2:1 rego_recursion_error: rule data.p.p is recursive: data.p.p -> data.p.q -> data.p.p\n"
          "3:1 rego_recursion_error: rule data.p.q is recursive: data.p.q -> data.p.p -> data.p.q\n");
}

TEST_CASE("check_recursion: functions and refs with variables that may reach the rule") {
    CHECK(errors_of("package p\nf(x) := f(x)\n").find("rego_recursion_error: rule data.p.f is recursive") !=
          std::string::npos);
    CHECK(errors_of("package p\nq[k] := 1 if { data.p[k] }\n").find("rego_recursion_error") != std::string::npos);
    CHECK(errors_of("package p\nq := 1\nr if { q }\n").empty());
}

TEST_CASE("check_recursion: `data` alone is the whole document, the rule included") {
    CHECK(errors_of("package p\nbad if { data }\nok := 1\n") ==
          "2:1 rego_recursion_error: rule data.p.bad is recursive: data.p.bad -> data.p.bad\n");
    CHECK(errors_of("package p\nf(x) := data\n").find("rule data.p.f is recursive: data.p.f -> data.p.f") !=
          std::string::npos);
    CHECK(errors_of("package p\nr := x if { x := input with input as data }\n").find("rego_recursion_error") !=
          std::string::npos);
    CHECK(errors_of("package p\nr := data.q\n").empty());
}

TEST_CASE("check_recursion: the parts of a ref head are the rule's terms too") {
    // OPA finds these whatever the body does (it moves the key into the body first).
    CHECK(errors_of("package p\nf[data] := true if { x := input.a }\n").find("rego_recursion_error") !=
          std::string::npos);
    CHECK(errors_of("package p\nf.a[data] := 1 if input.x\n").find("rego_recursion_error") != std::string::npos);
    CHECK(errors_of("package p\nf[data.q] := 1 if input.x\n").empty());
}
