#include "test/conformance/compare.hpp"

#include <algorithm>

#include "runtime/json.hpp"

namespace gavel::conformance {

using runtime::ArrayBuilder;
using runtime::ObjectBuilder;
using runtime::SetBuilder;

Value json_form(const Value& v) {
    switch (v.kind()) {
        case runtime::Kind::Null:
        case runtime::Kind::Boolean:
        case runtime::Kind::Number:
        case runtime::Kind::String: return v;
        default: break;
    }
    auto parsed = runtime::parse_json(runtime::to_json(v));
    // to_json always writes valid JSON; a failure here would be a limit (depth),
    // and then the value itself is the best we have.
    return parsed.ok ? parsed.value : v;
}

Value sorted_if_array(const Value& v) {
    if (!v.is_array()) return v;
    std::vector<Value> items(v.array_elements().begin(), v.array_elements().end());
    std::stable_sort(items.begin(), items.end(), [](const Value& a, const Value& b) { return a < b; });
    ArrayBuilder b(items.size());
    for (auto& x : items) b.push_back(std::move(x));
    return b.build();
}

Value actual_rows(const ResultRows& rows, bool ignore_generated_vars, bool sort_bindings) {
    SetBuilder set(rows.size());
    for (const auto& row : rows) {
        ObjectBuilder obj(row.bindings.size());
        for (const auto& [name, value] : row.bindings) {
            if (ignore_generated_vars && name.starts_with("__localq")) continue;
            Value j = json_form(value);
            obj.insert(Value::string(name), sort_bindings ? sorted_if_array(j) : std::move(j));
        }
        set.insert(obj.build());
    }
    return set.build();
}

Value expected_rows(const std::vector<Value>& rows, bool sort_bindings) {
    SetBuilder set(rows.size());
    for (const auto& row : rows) {
        if (!sort_bindings) {
            set.insert(row);
            continue;
        }
        ObjectBuilder obj(row.size());
        for (const auto& e : row.object_entries()) obj.insert(e.key, sorted_if_array(e.value));
        set.insert(obj.build());
    }
    return set.build();
}

namespace {

std::string quoted(const std::string& s) {
    std::string out;
    runtime::append_json_string(out, s);
    return out;
}

}  // namespace

Verdict judge(const Case& c, const EvalResult& result) {
    std::vector<std::string> problems;
    const bool want_error = c.want_error_code || c.want_error;
    Value actual;
    bool have_actual = false;
    auto actual_text = [&]() {
        if (!have_actual) {
            actual = actual_rows(result.rows, c.ignore_generated_vars, c.sort_bindings);
            have_actual = true;
        }
        return actual.size() == 0 ? std::string("undefined") : runtime::to_json(actual);
    };

    if (result.error) {
        const std::string text = result.error->to_string();
        if (!want_error) {
            problems.push_back("unexpected error: " + text);
        } else {
            if (c.want_error_code && result.error->code != *c.want_error_code)
                problems.push_back("want error code " + *c.want_error_code + ", got error: " + text);
            if (c.want_error && text.find(*c.want_error) == std::string::npos)
                problems.push_back("want error containing " + quoted(*c.want_error) + ", got error: " + text);
        }
    } else if (want_error) {
        std::string what = "want error";
        if (c.want_error_code) what += " code " + *c.want_error_code;
        if (c.want_error) what += std::string(c.want_error_code ? " and" : "") + " containing " + quoted(*c.want_error);
        problems.push_back(what + ", got no error; result: " + actual_text());
    }

    // An unexpected error already explains everything; comparing rows after it adds noise.
    const bool unexpected_error = result.error && !want_error;
    if (c.want_result && !unexpected_error) {
        Value expected = expected_rows(*c.want_result, c.sort_bindings);
        const std::string got = actual_text();
        if (expected != actual) {
            std::string want = expected.size() == 0 ? "undefined" : runtime::to_json(expected);
            problems.push_back("want result: " + want + "\n got result: " + got);
        }
    }
    if (c.want_defined && !unexpected_error) {
        const bool defined = !result.rows.empty();
        if (defined != *c.want_defined)
            problems.push_back(std::string("want ") + (*c.want_defined ? "defined" : "undefined") + ", got " +
                               (defined ? "defined: " + actual_text() : std::string("undefined")));
    }

    Verdict v;
    v.pass = problems.empty();
    for (std::size_t i = 0; i < problems.size(); ++i) v.why += (i ? "\n" : "") + problems[i];
    return v;
}

}  // namespace gavel::conformance
