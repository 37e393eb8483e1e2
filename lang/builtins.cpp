#include "lang/builtins.hpp"

#include <algorithm>
#include <stdexcept>

#include "lang/builtin_table.hpp"

namespace gavel::lang {

namespace {

template <class F>
void for_each_word(std::string_view text, char separator, F&& f) {
    while (!text.empty()) {
        auto at = text.find(separator);
        std::string_view word = text.substr(0, at);
        if (!word.empty()) f(word);
        text = at == std::string_view::npos ? std::string_view{} : text.substr(at + 1);
    }
}

std::vector<BuiltinDecl> parse_table() {
    std::vector<BuiltinDecl> out;
    for (const auto& entry : builtin_table()) {
        std::string error;
        auto decl = make_builtin_decl(entry.name, entry.signature, entry.categories, entry.flags, error);
        if (!decl) throw std::logic_error("builtin table: " + error);  // a bug in the table, found by its unit test
        out.push_back(std::move(*decl));
    }
    std::sort(out.begin(), out.end(), [](const BuiltinDecl& a, const BuiltinDecl& b) { return a.name < b.name; });
    return out;
}

}  // namespace

std::optional<BuiltinDecl> make_builtin_decl(std::string_view name, std::string_view signature,
                                             std::string_view categories, std::string_view flags, std::string& error) {
    BuiltinDecl d;
    d.name = std::string(name);
    auto sig = parse_signature(signature, error);
    if (!sig) {
        error = d.name + ": " + error;
        return std::nullopt;
    }
    d.signature = std::move(*sig);
    d.arity = d.signature.args.size();
    for_each_word(categories, ',', [&](std::string_view c) { d.categories.emplace_back(c); });
    bool ok = true;
    for_each_word(flags, ' ', [&](std::string_view flag) {
        if (flag == "deprecated") d.deprecated = true;
        else if (flag == "nondeterministic") d.nondeterministic = true;
        else if (flag == "native") d.native = true;
        else if (flag == "relation") d.relation = true;
        else if (flag == "hidden") d.hidden = true;
        else if (flag.rfind("infix=", 0) == 0) d.infix = std::string(flag.substr(6));
        else if (ok) {
            error = d.name + ": unknown flag " + std::string(flag);
            ok = false;
        }
    });
    if (!ok) return std::nullopt;
    return d;
}

std::span<const BuiltinDecl> builtin_decls() {
    static const std::vector<BuiltinDecl> decls = parse_table();
    return decls;
}

const BuiltinDecl* find_builtin_decl(std::string_view name) {
    auto decls = builtin_decls();
    auto it = std::lower_bound(decls.begin(), decls.end(), name,
                               [](const BuiltinDecl& d, std::string_view n) { return d.name < n; });
    return it != decls.end() && it->name == name ? &*it : nullptr;
}

}  // namespace gavel::lang
