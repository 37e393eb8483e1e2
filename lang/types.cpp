// The signature notation of types.hpp: a recursive-descent parser.

#include "lang/types.hpp"

#include <fmt/format.h>

#include <cctype>

namespace gavel::lang {

namespace {

struct Parser {
    std::string_view s;
    std::size_t i = 0;
    std::string error;

    void skip() {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    }
    bool eat(std::string_view tok) {
        skip();
        if (s.substr(i, tok.size()) != tok) return false;
        i += tok.size();
        return true;
    }
    bool expect(std::string_view tok) {
        if (eat(tok)) return true;
        if (error.empty()) error = fmt::format("expected '{}' at offset {} of \"{}\"", tok, i, s);
        return false;
    }
    std::string word() {
        skip();
        std::size_t start = i;
        while (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
        return std::string(s.substr(start, i - start));
    }

    // An argument's `name:` prefix, if there is one (else nothing is consumed).
    std::string name() {
        skip();
        std::size_t end = i;
        while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_' || s[end] == ' '))
            ++end;
        if (end == i || end >= s.size() || s[end] != ':') return {};
        std::string_view n = s.substr(i, end - i);
        while (!n.empty() && n.back() == ' ') n.remove_suffix(1);
        i = end + 1;
        return std::string(n);
    }

    std::optional<Type> type() {
        auto first = primary();
        if (!first) return std::nullopt;
        skip();
        if (i >= s.size() || s[i] != '|') return first;
        Type u;
        u.kind = Type::Kind::Any;
        u.of.push_back(std::move(*first));
        while (eat("|")) {
            auto next = primary();
            if (!next) return std::nullopt;
            u.of.push_back(std::move(*next));
        }
        return u;
    }

    std::optional<Type> primary() {
        Type t;
        if (eat("[")) {  // static array
            t.kind = Type::Kind::Array;
            if (eat("]")) return t;
            do {
                if (eat("...")) {
                    auto d = type();
                    if (!d) return std::nullopt;
                    t.dynamic = std::make_shared<Type>(std::move(*d));
                    break;
                }
                auto e = type();
                if (!e) return std::nullopt;
                t.items.push_back(std::move(*e));
            } while (eat(","));
            if (!expect("]")) return std::nullopt;
            return t;
        }
        if (eat("{")) {  // static object
            t.kind = Type::Kind::Object;
            if (eat("}")) return t;
            do {
                if (eat("*")) {
                    auto k = type();
                    if (!k || !expect(":")) return std::nullopt;
                    auto v = type();
                    if (!v) return std::nullopt;
                    t.dynamic_key = std::make_shared<Type>(std::move(*k));
                    t.dynamic = std::make_shared<Type>(std::move(*v));
                    break;
                }
                if (!expect("\"")) return std::nullopt;
                std::size_t end = s.find('"', i);
                if (end == std::string_view::npos) {
                    error = "unterminated key in \"" + std::string(s) + "\"";
                    return std::nullopt;
                }
                std::string key(s.substr(i, end - i));
                i = end + 1;
                if (!expect(":")) return std::nullopt;
                auto v = type();
                if (!v) return std::nullopt;
                t.fields.emplace_back(std::move(key), std::move(*v));
            } while (eat(","));
            if (!expect("}")) return std::nullopt;
            return t;
        }
        std::string w = word();
        if (w == "anyof") {
            t.kind = Type::Kind::Any;
            if (!expect("(")) return std::nullopt;
            do {
                auto m = type();
                if (!m) return std::nullopt;
                t.of.push_back(std::move(*m));
            } while (eat(","));
            if (!expect(")")) return std::nullopt;
            return t;
        }
        if (w == "any") t.kind = Type::Kind::Any;
        else if (w == "null") t.kind = Type::Kind::Null;
        else if (w == "boolean") t.kind = Type::Kind::Boolean;
        else if (w == "number") t.kind = Type::Kind::Number;
        else if (w == "string") t.kind = Type::Kind::String;
        else if (w == "array" || w == "set") {
            t.kind = w == "array" ? Type::Kind::Array : Type::Kind::Set;
            if (!expect("[")) return std::nullopt;
            auto e = type();
            if (!e || !expect("]")) return std::nullopt;
            t.dynamic = std::make_shared<Type>(std::move(*e));
        } else if (w == "object") {
            t.kind = Type::Kind::Object;
            if (!expect("[")) return std::nullopt;
            auto k = type();
            if (!k || !expect(":")) return std::nullopt;
            auto v = type();
            if (!v || !expect("]")) return std::nullopt;
            t.dynamic_key = std::make_shared<Type>(std::move(*k));
            t.dynamic = std::make_shared<Type>(std::move(*v));
        } else {
            error = fmt::format("unknown type '{}' at offset {} of \"{}\"", w, i, s);
            return std::nullopt;
        }
        return t;
    }
};

}  // namespace

std::optional<Signature> parse_signature(std::string_view text, std::string& error) {
    Parser p{text, 0, {}};
    Signature sig;
    if (!p.expect("(")) {
        error = p.error;
        return std::nullopt;
    }
    if (p.eat("...")) {
        auto v = p.type();
        if (!v || !p.expect(")")) {
            error = p.error;
            return std::nullopt;
        }
        sig.variadic = std::move(*v);
    } else if (!p.eat(")")) {
        do {
            std::string name = p.name();
            auto a = p.type();
            if (!a) {
                error = p.error;
                return std::nullopt;
            }
            sig.args.push_back(std::move(*a));
            sig.arg_names.push_back(std::move(name));
        } while (p.eat(","));
        if (!p.expect(")")) {
            error = p.error;
            return std::nullopt;
        }
    }
    if (p.eat("=>")) {
        sig.result_name = p.name();
        auto r = p.type();
        if (!r) {
            error = p.error;
            return std::nullopt;
        }
        sig.result = std::move(*r);
    }
    p.skip();
    if (p.i != text.size()) {
        error = fmt::format("unexpected text at offset {} of \"{}\"", p.i, text);
        return std::nullopt;
    }
    return sig;
}

}  // namespace gavel::lang

namespace gavel::lang {

std::string to_string(const Type& t) {
    auto list = [](const std::vector<Type>& ts) {
        std::string out;
        for (std::size_t i = 0; i < ts.size(); ++i) out += (i ? ", " : "") + to_string(ts[i]);
        return out;
    };
    switch (t.kind) {
        case Type::Kind::Any: return t.of.empty() ? "any" : "any<" + list(t.of) + ">";
        case Type::Kind::Null: return "null";
        case Type::Kind::Boolean: return "boolean";
        case Type::Kind::Number: return "number";
        case Type::Kind::String: return "string";
        case Type::Kind::Set: return "set[" + (t.dynamic ? to_string(*t.dynamic) : "any") + "]";
        case Type::Kind::Array: {
            std::string out = "array";
            if (!t.items.empty()) out += '<' + list(t.items) + ">";
            if (t.dynamic) out += '[' + to_string(*t.dynamic) + "]";
            return out;
        }
        case Type::Kind::Object: {
            std::string out = "object";
            if (!t.fields.empty()) {
                out += "<";
                for (std::size_t i = 0; i < t.fields.size(); ++i)
                    out += (i ? ", " : "") + t.fields[i].first + ": " + to_string(t.fields[i].second);
                out += ">";
            }
            if (t.dynamic)
                out += '[' + (t.dynamic_key ? to_string(*t.dynamic_key) : "any") + ": " + to_string(*t.dynamic) + "]";
            return out;
        }
    }
    return "any";
}

}  // namespace gavel::lang
