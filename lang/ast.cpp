#include "lang/ast.hpp"

namespace gavel::lang {

std::string Term::ref_dotted() const {
    if (kind != TermKind::Ref || elems.empty() || elems[0]->kind != TermKind::Var) return {};
    std::string out = elems[0]->text;
    for (std::size_t i = 1; i < elems.size(); ++i) {
        if (elems[i]->kind != TermKind::String) return {};
        out += '.';
        out += elems[i]->text;
    }
    return out;
}

std::string Term::call_name() const {
    if (kind != TermKind::Call || elems.empty()) return {};
    return elems[0]->ref_dotted();
}

TermPtr make_term(TermKind kind, const Location& loc) {
    auto t = std::make_shared<Term>();
    t->kind = kind;
    t->loc = loc;
    return t;
}

TermPtr make_var(std::string name, const Location& loc) {
    auto t = make_term(TermKind::Var, loc);
    t->text = std::move(name);
    return t;
}

TermPtr make_string(std::string value, const Location& loc) {
    auto t = make_term(TermKind::String, loc);
    t->text = std::move(value);
    return t;
}

TermPtr make_ref(std::vector<TermPtr> parts, const Location& loc) {
    auto t = make_term(TermKind::Ref, loc);
    t->elems = std::move(parts);
    return t;
}

TermPtr make_call(std::string_view op, std::vector<TermPtr> args, const Location& loc, bool infix) {
    auto t = make_term(TermKind::Call, loc);
    std::vector<TermPtr> parts;
    std::size_t start = 0;
    // Dotted operator names (internal.member_2) become a Var head and string parts.
    while (true) {
        std::size_t dot = op.find('.', start);
        std::string piece(op.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        parts.push_back(parts.empty() ? make_var(std::move(piece), loc) : make_string(std::move(piece), loc));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    t->elems.reserve(args.size() + 1);
    t->elems.push_back(make_ref(std::move(parts), loc));
    for (auto& a : args) t->elems.push_back(std::move(a));
    t->boolean = infix;
    return t;
}

}  // namespace gavel::lang
