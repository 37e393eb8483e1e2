// The builtin table: every declaration parses, every implemented builtin is
// declared, the declared types print exactly as OPA's capabilities.json
// declares them, and embedders register builtins with the same shape.

#include <doctest/doctest.h>

#include "conformance_suite.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "engine/engine.hpp"
#include "runtime/json.hpp"
#include "stdlib/capabilities.hpp"
#include "stdlib/registry.hpp"
#include "lang/builtins.hpp"

namespace {

using gavel::runtime::Value;

Value opa_capabilities() {
    std::ifstream in(std::string(GAVEL_CONFORMANCE_DIR) + "/capabilities.json");
    REQUIRE(in.good());
    std::stringstream ss;
    ss << in.rdbuf();
    auto parsed = gavel::runtime::parse_json(ss.str());
    REQUIRE(parsed.ok);
    return parsed.value;
}

std::map<std::string, Value> by_name(const Value& caps) {
    std::map<std::string, Value> out;
    for (const auto& b : caps.find(Value::string("builtins"))->array_elements())
        out.emplace(std::string(b.find(Value::string("name"))->as_string()), b);
    return out;
}

std::string decl_of(std::string_view signature) {
    std::string error;
    auto sig = gavel::lang::parse_signature(signature, error);
    if (!sig) return "error: " + error;
    return gavel::runtime::to_json(gavel::stdlib::signature_decl(*sig));
}

}  // namespace

TEST_CASE("builtin table: signatures parse and print OPA's declaration shapes") {
    CHECK(decl_of("(number) => number") ==
          R"({"args":[{"type":"number"}],"result":{"type":"number"},"type":"function"})");
    CHECK(decl_of("() => number") == R"({"result":{"type":"number"},"type":"function"})");
    CHECK(decl_of("(...any)") == R"({"type":"function","variadic":{"type":"any"}})");
    CHECK(
        decl_of("(string | set[any]) => [array[any], any]") ==
        R"({"args":[{"of":[{"type":"string"},{"of":{"type":"any"},"type":"set"}],"type":"any"}],)"
        R"("result":{"static":[{"dynamic":{"type":"any"},"type":"array"},{"type":"any"}],"type":"array"},"type":"function"})");
    CHECK(
        decl_of(R"((object[string: any], {"op": string, *any: any}) => boolean)") ==
        R"({"args":[{"dynamic":{"key":{"type":"string"},"value":{"type":"any"}},"type":"object"},)"
        R"({"dynamic":{"key":{"type":"any"},"value":{"type":"any"}},"static":[{"key":"op","value":{"type":"string"}}],"type":"object"}],)"
        R"("result":{"type":"boolean"},"type":"function"})");
    CHECK(
        decl_of("(array[anyof(string)]) => number") ==
        R"({"args":[{"dynamic":{"of":[{"type":"string"}],"type":"any"},"type":"array"}],"result":{"type":"number"},"type":"function"})");
    CHECK(decl_of("(numbr) => number").find("unknown type 'numbr'") != std::string::npos);
    CHECK(decl_of("(number => number").find("expected ')'") != std::string::npos);
    CHECK(decl_of("(array[number) => number").find("expected ']'") != std::string::npos);
}

TEST_CASE("builtin table: every implemented builtin is declared, arity from its signature") {
    REQUIRE(gavel::lang::builtin_decls().size() >= 206);        // throws on a malformed table entry
    const auto& registry = gavel::stdlib::standard_registry();  // throws on a missing or mismatched declaration
    for (const auto* b : registry.all()) {
        INFO(b->name);
        REQUIRE(b->decl != nullptr);
        if (!b->decl->variadic()) CHECK(b->arity == b->decl->signature.args.size());
    }
    // Deprecated and nondeterministic flags come from the table.
    CHECK(registry.find("re_match")->decl->deprecated);
    CHECK(registry.find("rand.intn")->decl->nondeterministic);
    CHECK(registry.find("count")->decl->categories == std::vector<std::string>{"aggregates"});
    CHECK(gavel::lang::find_builtin_decl("walk")->relation);
    CHECK(gavel::lang::find_builtin_decl("plus")->infix == "+");
    CHECK(gavel::lang::find_builtin_decl("no.such.builtin") == nullptr);
}

TEST_CASE("gavel capabilities: the builtins of OPA's capabilities.json, with the same declarations") {
    if (!conformance_suite_present()) return;  // capabilities.json sits beside the suite
    auto opa = by_name(opa_capabilities());
    gavel::Engine engine;
    auto ours = by_name(engine.capabilities());
    std::string missing, different;
    for (const auto& [name, entry] : opa) {
        auto it = ours.find(name);
        if (it == ours.end()) {
            missing += " " + name;
            continue;
        }
        if (it->second != entry)
            different += "\n" + name + ": ours " + gavel::runtime::to_json(it->second) + "\n   opa " +
                         gavel::runtime::to_json(entry);
    }
    INFO("missing:" << missing);
    INFO("different:" << different);
    CHECK(missing.empty());
    CHECK(different.empty());
    CHECK(ours.size() >= opa.size());
}

TEST_CASE("embedders register builtins with a declaration; the planner checks its arity") {
    gavel::Engine engine;
    gavel::BuiltinDeclaration decl;
    decl.name = "acme.scale";
    decl.signature = "(number, number) => number";
    decl.categories = {"acme"};
    auto error = engine.register_builtin(decl, [](gavel::BuiltinCall& call) -> std::optional<Value> {
        int64_t a = 0, b = 0;
        if (!call.args[0].as_int64(a) || !call.args[1].as_int64(b)) {
            call.error = "operands must be integers";
            return std::nullopt;
        }
        return Value::integer(a * b);
    });
    REQUIRE_FALSE(error);
    REQUIRE(engine.add_policy("p.rego", "package t\nx := acme.scale(6, 7)").empty());
    auto q = engine.prepare("data.t.x");
    REQUIRE(q.ok());
    auto r = q.value->eval();
    REQUIRE(r.rows.size() == 1);
    CHECK(gavel::runtime::to_json(r.rows[0].expressions[0].value) == "42");

    // The signature's arity is enforced at compile time.
    REQUIRE(engine.add_policy("p.rego", "package t\nx := acme.scale(6)").empty());
    auto bad = engine.prepare("data.t.x");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.diagnostics.format().find("acme.scale: arity mismatch") != std::string::npos);

    // capabilities() lists it with its types.
    auto ours = by_name(engine.capabilities());
    REQUIRE(ours.count("acme.scale"));
    CHECK(
        gavel::runtime::to_json(ours["acme.scale"]) ==
        R"({"decl":{"args":[{"type":"number"},{"type":"number"}],"result":{"type":"number"},"type":"function"},"name":"acme.scale"})");

    // A malformed signature registers nothing.
    gavel::BuiltinDeclaration broken{"acme.broken", "(number", {}, false};
    auto e = engine.register_builtin(broken, [](gavel::BuiltinCall&) -> std::optional<Value> { return Value::null(); });
    REQUIRE(e);
    CHECK(e->find("acme.broken: expected") != std::string::npos);
    CHECK(by_name(engine.capabilities()).count("acme.broken") == 0);
}
