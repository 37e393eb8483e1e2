#pragma once
// A JSON document written like Go's json.MarshalIndent(v, "", "  "): fields in
// the order they are added (Go writes struct fields in declaration order), and
// <, > and & inside strings as \u003c, \u003e, \u0026 (Go's HTML escaping,
// which OPA leaves on).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/json.hpp"
#include "runtime/value.hpp"
#include "support/json_string.hpp"

namespace gavel::cli::test_runner {

class JsonNode {
public:
    static JsonNode object() { return JsonNode(Kind::Object); }
    static JsonNode array() { return JsonNode(Kind::Array); }
    static JsonNode string(std::string_view s) {
        JsonNode n(Kind::Raw);
        n.raw_ = quote(s);
        return n;
    }
    static JsonNode raw(std::string text) {  // a number, true/false, or JSON text written elsewhere
        JsonNode n(Kind::Raw);
        n.raw_ = std::move(text);
        return n;
    }
    static JsonNode integer(long long v) { return raw(std::to_string(v)); }
    static JsonNode boolean(bool b) { return raw(b ? "true" : "false"); }

    JsonNode& add(std::string key, JsonNode v) {
        fields_.emplace_back(std::move(key), std::move(v));
        return *this;
    }
    JsonNode& push(JsonNode v) {
        items_.push_back(std::move(v));
        return *this;
    }

    std::string text() const {
        std::string out;
        write(out, 0);
        return out;
    }

    static std::string quote(std::string_view s) {
        std::string out;
        support::append_json_string(out, s, {.escape_html = true});
        return out;
    }

private:
    enum class Kind { Object, Array, Raw };
    explicit JsonNode(Kind k) : kind_(k) {}

    static void newline(std::string& out, int level) {
        out += '\n';
        out.append(static_cast<std::size_t>(level) * 2, ' ');
    }

    void write(std::string& out, int level) const {
        switch (kind_) {
            case Kind::Raw: out += raw_; return;
            case Kind::Object:
                if (fields_.empty()) {
                    out += "{}";
                    return;
                }
                out += '{';
                for (std::size_t i = 0; i < fields_.size(); ++i) {
                    if (i) out += ',';
                    newline(out, level + 1);
                    out += quote(fields_[i].first);
                    out += ": ";
                    fields_[i].second.write(out, level + 1);
                }
                newline(out, level);
                out += '}';
                return;
            case Kind::Array:
                if (items_.empty()) {
                    out += "[]";
                    return;
                }
                out += '[';
                for (std::size_t i = 0; i < items_.size(); ++i) {
                    if (i) out += ',';
                    newline(out, level + 1);
                    items_[i].write(out, level + 1);
                }
                newline(out, level);
                out += ']';
                return;
        }
    }

    Kind kind_;
    std::string raw_;
    std::vector<std::pair<std::string, JsonNode>> fields_;
    std::vector<JsonNode> items_;
};

}  // namespace gavel::cli::test_runner
