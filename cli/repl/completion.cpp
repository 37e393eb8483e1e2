#include "cli/repl/completion.hpp"

#include <algorithm>
#include <set>

#include "cli/repl/session.hpp"
#include "cli/repl/statement.hpp"
#include "runtime/value.hpp"

namespace gavel::cli::repl {

using runtime::Value;

namespace {

bool is_identifier(std::string_view s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::vector<std::string> split_dots(std::string_view s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        auto at = s.find('.', start);
        out.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

// The string keys starting with `prefix` that can follow a dot, of the object at `path` below
// `root` (nothing when it is not an object). Filtered before anything is copied: a data
// document may have hundreds of thousands of keys.
void object_keys(const Value& root, const std::vector<std::string>& path, std::string_view prefix,
                 std::set<std::string>& out) {
    const Value* v = &root;
    for (const auto& seg : path) {
        if (!v->is_object()) return;
        v = v->find(std::string_view(seg));
        if (!v) return;
    }
    if (!v->is_object()) return;
    for (const auto& entry : v->object_entries()) {
        if (!entry.key.is_string()) continue;
        std::string_view key = entry.key.as_string();
        if (key.substr(0, prefix.size()) == prefix && is_identifier(key)) out.insert(std::string(key));
    }
}

}  // namespace

std::vector<std::string> complete(const Session& session, std::string_view word, bool at_line_start) {
    std::set<std::string> out;
    auto add_if_prefix = [&](const std::string& candidate) {
        if (candidate.size() >= word.size() && candidate.compare(0, word.size(), word) == 0) out.insert(candidate);
    };
    auto dot = word.rfind('.');
    if (dot != std::string_view::npos) {
        // A path: complete its last part from what lies at the parts before it.
        auto parts = split_dots(word.substr(0, dot));
        std::string_view stem = word.substr(0, dot + 1);
        std::string_view partial = word.substr(dot + 1);
        std::set<std::string> keys;
        std::vector<std::string> below(parts.begin() + 1, parts.end());
        if (parts[0] == "input") {
            if (session.input()) object_keys(*session.input(), below, partial, keys);
        } else if (parts[0] == "data") {
            object_keys(session.base_data(), below, partial, keys);
            // Packages and rules: data.a.b.p is reachable through data, data.a, data.a.b.
            const std::string prefix = word.substr(0, dot) == "data" ? "data." : std::string(word.substr(0, dot)) + ".";
            for (const auto& rule : session.rules()) {
                std::string full = rule.package + "." + rule.name;
                if (full.compare(0, prefix.size(), prefix) != 0) continue;
                std::string rest = full.substr(prefix.size());
                keys.insert(rest.substr(0, rest.find('.')));
            }
        } else {
            // Dotted builtin names: strings.replace_n, time.now_ns ...
            for (const auto& name : session.builtin_names()) add_if_prefix(name);
            return {out.begin(), out.end()};
        }
        for (const auto& k : keys)
            if (is_identifier(k)) add_if_prefix(std::string(stem) + k);
        return {out.begin(), out.end()};
    }
    if (at_line_start)
        for (const auto& c : command_names()) add_if_prefix(c);
    add_if_prefix("input");
    add_if_prefix("data");
    for (const auto& [name, target] : session.package_names()) add_if_prefix(name);
    for (const auto& name : session.builtin_names()) add_if_prefix(name);
    return {out.begin(), out.end()};
}

}  // namespace gavel::cli::repl
