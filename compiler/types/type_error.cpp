#include "compiler/types/type_error.hpp"

#include <algorithm>
#include <cctype>

#include "lang/term_string.hpp"
#include "compiler/types/error_details.hpp"

namespace gavel::compiler::types {

namespace {

// The first `n` parts of a ref as OPA prints Ref[:n] ("" for none).
std::string prefix_string(const lang::Term& ref, std::size_t n) {
    if (n == 0) return "";
    if (ref.kind != lang::TermKind::Ref) return lang::to_string(ref);
    n = std::min(n, ref.elems.size());
    std::vector<lang::TermPtr> parts(ref.elems.begin(), ref.elems.begin() + static_cast<std::ptrdiff_t>(n));
    return lang::to_string(*lang::make_ref(std::move(parts), ref.loc));
}

// Go's %v of a type: "<nil>" when there is none.
std::string shown(const TypePtr& t) { return t ? to_string(t) : "<nil>"; }

// OPA drops a trailing generated argument variable (`__local3__`) from a function's name.
bool names_generated_local(const std::string& s) {
    for (std::size_t at = s.find("__local"); at != std::string::npos; at = s.find("__local", at + 1)) {
        std::size_t i = at + 7, digits = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
        if (digits > 0 && s.compare(i, 2, "__") == 0) return true;
    }
    return false;
}

std::shared_ptr<const lang::JsonTree> with_detail(lang::JsonTree d) {
    return std::make_shared<const lang::JsonTree>(std::move(d));
}

std::string error_text(const TypeError& e) {
    std::string out = e.message;
    for (const auto& d : e.details) out += "\n\t" + d;
    return out;
}

}  // namespace

lang::Diagnostic TypeError::diagnostic() const {
    lang::Diagnostic d = lang::Diagnostic::at(loc, lang::codes::type_error, error_text(*this));
    d.details = detail;
    d.hint = hint;
    return d;
}

TypeError plain_error(const lang::Location& loc, std::string message) {
    TypeError error;
    error.loc = loc;
    error.message = std::move(message);
    return error;
}

TypeError arg_error(const lang::Location& loc, const std::string& name, const std::string& what,
                    const std::vector<TypePtr>& have, const Type& want, bool with_result) {
    std::string have_text = "(";
    bool nil = false;
    for (std::size_t i = 0; i < have.size(); ++i) {
        have_text += (i ? ", " : "") + to_string(have[i]);
        nil = nil || is_nil(have[i]);
    }
    have_text += ")";
    return TypeError{loc,
                     name + ": " + what,
                     {"have: " + have_text, "want: " + args_string(want, true, with_result)},
                     nil,
                     with_detail(arg_detail(have, want, with_result)),
                     {}};
}

TypeError match_error(const lang::Location& loc, const TypePtr& left, const TypePtr& right) {
    return TypeError{loc,
                     "match error",
                     {"left  : " + to_string(left), "right : " + to_string(right)},
                     is_nil(left) || is_nil(right),
                     with_detail(unification_detail(left, right)),
                     {}};
}

TypeError ref_error_invalid(const lang::Location& loc, const lang::Term& ref, std::size_t pos, const TypePtr& have,
                            const TypePtr& want, const std::vector<std::string>& one_of) {
    std::string text = lang::to_string(ref);
    std::string pad(prefix_string(ref, pos).size() + 1, ' ');
    std::vector<std::string> lines{text, pad + "^"};
    if (have) lines.push_back(pad + "have (type): " + to_string(have));
    else
        lines.push_back(
            pad + "have: " +
            (ref.kind == lang::TermKind::Ref && pos < ref.elems.size() ? lang::to_string(*ref.elems[pos]) : text));
    if (!one_of.empty()) {
        std::string list;
        for (std::size_t i = 0; i < one_of.size(); ++i) list += (i ? " " : "") + one_of[i];
        lines.push_back(pad + "want (one of): [" + list + "]");
    } else {
        lines.push_back(pad + "want (type): " + shown(want));
    }
    return TypeError{loc,
                     "undefined ref: " + text,
                     std::move(lines),
                     false,
                     with_detail(ref_invalid_detail(ref, pos, have, want, one_of)),
                     {}};
}

TypeError ref_error_unsupported(const lang::Location& loc, const lang::Term& ref, std::size_t reached,
                                const TypePtr& have) {
    std::string text = lang::to_string(ref);
    std::vector<std::string> lines{text, std::string(prefix_string(ref, reached).size(), '^'), "have: " + shown(have)};
    TypeError error{loc,
                    "undefined ref: " + text,
                    std::move(lines),
                    false,
                    with_detail(ref_unsupported_detail(ref, reached > 0 ? reached - 1 : 0, have)),
                    {}};
    if (is(have, Kind::Function)) {
        std::string function = text;
        if (ref.kind == lang::TermKind::Ref && !ref.elems.empty() &&
            names_generated_local(lang::to_string(*ref.elems.back())))
            function = prefix_string(ref, ref.elems.size() - 1);
        error.hint = "function " + function + " used as reference, not called";
    }
    return error;
}

void sort_errors(TypeErrors& errors) {
    auto compare_locations = [](const lang::Location& a, const lang::Location& b) {
        bool na = a.source == nullptr, nb = b.source == nullptr;
        if (na || nb) return na == nb ? 0 : na ? 1 : -1;
        if (int c = a.file().compare(b.file())) return c < 0 ? -1 : 1;
        if (a.line != b.line) return a.line < b.line ? -1 : 1;
        if (a.col != b.col) return a.col < b.col ? -1 : 1;
        return 0;
    };
    std::stable_sort(errors.begin(), errors.end(), [&](const TypeError& a, const TypeError& b) {
        if (int c = compare_locations(a.loc, b.loc)) return c < 0;
        return error_text(a) < error_text(b);
    });
}

}  // namespace gavel::compiler::types
