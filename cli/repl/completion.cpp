#include "cli/repl/completion.hpp"

#include <algorithm>
#include <set>

#include "cli/repl/session.hpp"
#include "cli/repl/statement.hpp"
#include "runtime/json.hpp"
#include "runtime/value.hpp"

namespace gavel::cli::repl {

using runtime::Value;

namespace {

bool is_identifier(std::string_view s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// A path being typed: `input.request.ob`, `data.pods["ns-`, `input.x.items[0].na`.
struct PathWord {
    std::string root;                 // "input", "data", or another name
    std::vector<std::string> keys;    // the complete parts after the root ...
    std::vector<std::int64_t> index;  // ... with their array index (-1: an object key)
    std::string stem;                 // the text before the part being completed (no `.` or `["`)
    std::string partial;              // the part being completed, as typed so far
    bool ok = false;                  // false: not a path, or nothing left to complete
};

PathWord parse_path(std::string_view w) {
    PathWord p;
    std::size_t i = 0;
    auto ident = [&] {
        std::size_t start = i;
        while (i < w.size() && (std::isalnum(static_cast<unsigned char>(w[i])) || w[i] == '_')) ++i;
        return std::string(w.substr(start, i - start));
    };
    auto finish = [&](std::size_t part_start, std::string partial) {
        p.stem = std::string(w.substr(0, part_start));
        p.partial = std::move(partial);
        p.ok = true;
        return p;
    };
    p.root = ident();
    if (p.root.empty()) return p;
    while (i < w.size()) {
        std::size_t part_start = i;
        if (w[i] == '.') {
            ++i;
            std::string key = ident();
            if (i == w.size()) return finish(part_start, key);
            p.keys.push_back(key);
            p.index.push_back(-1);
        } else if (w[i] == '[' && i + 1 < w.size() && w[i + 1] == '"') {
            i += 2;
            std::string key;
            while (i < w.size() && w[i] != '"') key.push_back(w[i++]);
            if (i == w.size()) return finish(part_start, key);
            if (++i >= w.size() || w[i] != ']') return p;
            ++i;
            p.keys.push_back(key);
            p.index.push_back(-1);
        } else if (w[i] == '[') {
            ++i;
            std::size_t start = i;
            while (i < w.size() && std::isdigit(static_cast<unsigned char>(w[i]))) ++i;
            if (i == start || i >= w.size() || w[i] != ']' || i - start > 15) return p;
            p.keys.push_back(std::string(w.substr(start, i - start)));
            p.index.push_back(std::stoll(p.keys.back()));
            ++i;
        } else {
            return p;
        }
    }
    return p;
}

// The keys starting with `partial` of the object at the path, written as the next part
// of the path (`.key`, or `["key"]` when the key is no name). Filtered before anything
// is copied: a data document may have hundreds of thousands of keys.
void object_keys(const Value& root, const PathWord& p, std::set<std::string>& out) {
    const Value* v = &root;
    for (std::size_t k = 0; k < p.keys.size() && v; ++k) {
        if (p.index[k] >= 0) {
            auto items = v->array_elements();
            auto at = static_cast<std::size_t>(p.index[k]);
            v = at < items.size() ? &items[at] : nullptr;
        } else {
            v = v->find(std::string_view(p.keys[k]));
        }
    }
    if (!v || !v->is_object()) return;
    for (const auto& entry : v->object_entries()) {
        if (!entry.key.is_string()) continue;
        std::string_view key = entry.key.as_string();
        if (key.substr(0, p.partial.size()) != p.partial) continue;
        if (is_identifier(key)) {
            out.insert(p.stem + "." + std::string(key));
        } else {
            std::string quoted;
            runtime::append_json_string(quoted, key);
            out.insert(p.stem + "[" + quoted + "]");
        }
    }
}

}  // namespace

std::vector<std::string> complete(const Session& session, std::string_view word, bool at_line_start) {
    std::set<std::string> out;
    auto add_if_prefix = [&](const std::string& candidate) {
        if (candidate.size() >= word.size() && candidate.compare(0, word.size(), word) == 0) out.insert(candidate);
    };
    if (word.find_first_of(".[") != std::string_view::npos) {
        // A path: complete its last part from what lies at the parts before it. Brackets
        // before it (`[x | x := input.`, `not[`) are kept as they are.
        std::size_t lead = 0;
        while (lead < word.size() && word[lead] == '[') ++lead;
        PathWord p = parse_path(word.substr(lead));
        std::string before(word.substr(0, lead));
        std::set<std::string> paths;
        if (p.ok && p.root == "input") {
            if (const Value* in = session.input()) object_keys(*in, p, paths);
        } else if (p.ok && p.root == "data") {
            object_keys(session.base_data(), p, paths);
            // Packages and rules: data.a.b.p is reachable through data, data.a, data.a.b.
            const std::string prefix = p.stem + "." + p.partial;
            for (const auto& rule : session.rules()) {
                std::string full = rule.package + "." + rule.name;
                if (full.compare(0, prefix.size(), prefix) != 0) continue;
                paths.insert(full.substr(0, full.find('.', prefix.size())));
            }
        } else if (p.ok) {
            // Dotted builtin names: strings.replace_n, time.now_ns ...
            for (const auto& name : session.builtin_names()) add_if_prefix(name);
            return {out.begin(), out.end()};
        }
        for (const auto& path : paths) out.insert(before + path);
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
