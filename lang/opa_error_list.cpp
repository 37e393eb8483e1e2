#include "lang/opa_error_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "lang/go_quote.hpp"
#include "lang/lexical.hpp"
#include "lang/opa_scanner.hpp"
#include "support/utf8.hpp"

namespace gavel::lang::opa {

namespace {

// ---- terms, as far as the parser's decisions and messages look at them ----

enum class Kind : uint8_t {
    Null,
    Boolean,
    Number,
    String,
    Var,
    Ref,
    Call,
    Array,
    Object,
    Set,
    ArrayComprehension,
    ObjectComprehension,
    SetComprehension
};

struct Loc {
    int offset = 0;
    int row = 1;
    int col = 0;
};

struct Term;
using TermP = std::shared_ptr<Term>;

struct Term {
    Kind kind = Kind::Null;
    std::string text;          // a var's name, a string's value, a number's literal, "true"/"false"
    std::vector<TermP> elems;  // ref parts; call operator and operands; elements; object keys and values in turn
    Loc loc;
    int depth = 1;  // levels of terms in terms: what walking it recursively costs
};

TermP make(Kind kind, Loc loc, std::string text = {}, std::vector<TermP> elems = {}) {
    auto t = std::make_shared<Term>();
    t->kind = kind;
    t->loc = loc;
    t->text = std::move(text);
    t->elems = std::move(elems);
    for (const TermP& e : t->elems) t->depth = std::max(t->depth, e->depth + 1);
    return t;
}

std::string_view value_name(Kind k) {
    switch (k) {
        case Kind::Null: return "null";
        case Kind::Boolean: return "boolean";
        case Kind::Number: return "number";
        case Kind::String: return "string";
        case Kind::Var: return "var";
        case Kind::Ref: return "ref";
        case Kind::Call: return "call";
        case Kind::Array: return "array";
        case Kind::Object: return "object";
        case Kind::Set: return "set";
        case Kind::ArrayComprehension: return "arraycomprehension";
        case Kind::ObjectComprehension: return "objectcomprehension";
        case Kind::SetComprehension: return "setcomprehension";
    }
    return "term";
}

bool is_var(const TermP& t, std::string_view name) { return t && t->kind == Kind::Var && t->text == name; }

constexpr std::string_view kKeywordsV1[] = {"not",  "package", "import", "as", "default",  "else", "with", "null",
                                            "true", "false",   "some",   "if", "contains", "in",   "every"};
bool is_keyword_v1(std::string_view s) {
    return std::find(std::begin(kKeywordsV1), std::end(kKeywordsV1), s) != std::end(kKeywordsV1);
}
bool is_keyword_v0(std::string_view s) {
    return is_keyword_v1(s) && s != "if" && s != "contains" && s != "in" && s != "every";
}

bool is_var_name(std::string_view s) {
    if (s.empty() || !lexical::is_ident_start(s[0])) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return lexical::is_ident_char(c); });
}

std::string to_string(const TermP& t);

std::string join(const std::vector<TermP>& ts, std::size_t from, std::size_t step = 1) {
    std::string out;
    for (std::size_t i = from; i < ts.size(); i += step) {
        if (i > from) out += ", ";
        out += to_string(ts[i]);
    }
    return out;
}

// A term as OPA's String() prints it (the parts its messages show: rule heads, import paths).
std::string to_string(const TermP& t) {
    if (!t) return "<nil>";
    switch (t->kind) {
        case Kind::Null: return "null";
        case Kind::Boolean:
        case Kind::Number: return t->text;
        case Kind::String: return go_quote(t->text);
        case Kind::Var: return t->text.starts_with('$') ? "_" : t->text;
        case Kind::Ref: {
            if (t->elems.empty()) return {};
            if (t->elems.size() == 1 && t->elems[0]->kind == Kind::Var) return to_string(t->elems[0]);
            std::string out = to_string(t->elems[0]);
            for (std::size_t i = 1; i < t->elems.size(); ++i) {
                const TermP& e = t->elems[i];
                if (e->kind == Kind::String && is_var_name(e->text) && !is_keyword_v1(e->text)) {
                    out += "." + e->text;
                } else if (e->kind == Kind::String && std::none_of(e->text.begin(), e->text.end(), [](char c) {
                               return static_cast<unsigned char>(c) < 0x20 || c == '\\';
                           })) {
                    out += "[\"" + e->text + "\"]";  // as OPA: quoted, not escaped, without controls or backslashes
                } else {
                    out += "[" + to_string(e) + "]";
                }
            }
            return out;
        }
        case Kind::Call:
            if (t->elems.empty()) return {};
            return to_string(t->elems[0]) + "(" + join(t->elems, 1) + ")";
        case Kind::Array: return "[" + join(t->elems, 0) + "]";
        case Kind::Set: return t->elems.empty() ? "set()" : "{" + join(t->elems, 0) + "}";
        case Kind::Object: {
            std::string out = "{";
            for (std::size_t i = 0; i + 1 < t->elems.size(); i += 2) {
                if (i > 0) out += ", ";
                out += to_string(t->elems[i]) + ": " + to_string(t->elems[i + 1]);
            }
            return out + "}";
        }
        // Bodies are not kept: OPA's messages show comprehensions only in rule heads nobody writes.
        case Kind::ArrayComprehension: return "[" + join(t->elems, 0) + " | ...]";
        case Kind::SetComprehension: return "{" + join(t->elems, 0) + " | ...}";
        case Kind::ObjectComprehension: return "{" + to_string(t->elems[0]) + ": " + to_string(t->elems[1]) + " | ...}";
    }
    return {};
}

// OPA's IsGround: no variables outside a ref's head (comprehension bodies count as not ground).
bool is_ground(const TermP& t) {
    switch (t->kind) {
        case Kind::Var: return false;
        case Kind::Ref:
            return std::all_of(t->elems.begin() + 1, t->elems.end(), [](const TermP& e) { return is_ground(e); });
        case Kind::ArrayComprehension:
        case Kind::ObjectComprehension:
        case Kind::SetComprehension: return false;
        default: return std::all_of(t->elems.begin(), t->elems.end(), [](const TermP& e) { return is_ground(e); });
    }
}

// A quoted string literal's value, as OPA's parseString reads it; nullopt where JSON refuses it.
std::optional<std::string> decode_json_string(std::string_view lit) {
    if (lit.size() < 2 || lit.front() != '"' || lit.back() != '"') return std::nullopt;
    std::string_view body = lit.substr(1, lit.size() - 2);
    // Newest OPA takes a literal with nothing to unescape as it stands (control characters too).
    if (body.find('\\') == std::string_view::npos) return std::string(body);
    std::string out;
    for (std::size_t i = 0; i < body.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(body[i]);
        if (c < 0x20 || c == '"') return std::nullopt;
        if (c != '\\') {
            out.push_back(static_cast<char>(c));
            continue;
        }
        if (++i >= body.size()) return std::nullopt;
        switch (body[i]) {
            case '"': out.push_back('"'); break;
            case '\\': out.push_back('\\'); break;
            case '/': out.push_back('/'); break;
            case 'b': out.push_back('\b'); break;
            case 'f': out.push_back('\f'); break;
            case 'n': out.push_back('\n'); break;
            case 'r': out.push_back('\r'); break;
            case 't': out.push_back('\t'); break;
            case 'u': {
                if (i + 4 >= body.size()) return std::nullopt;
                uint32_t cp = 0;
                for (std::size_t k = 1; k <= 4; ++k) {
                    char h = body[i + k];
                    cp <<= 4;
                    if (h >= '0' && h <= '9') cp |= static_cast<uint32_t>(h - '0');
                    else if (h >= 'a' && h <= 'f') cp |= static_cast<uint32_t>(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F') cp |= static_cast<uint32_t>(h - 'A' + 10);
                    else return std::nullopt;
                }
                i += 4;
                support::utf8::append_rune(out, static_cast<char32_t>(cp));
                break;
            }
            default: return std::nullopt;
        }
    }
    return out;
}

// Whether Go's big.Float reads the number literal (digits[.digits][e[+-]digits]): it refuses an
// exponent beyond int64, or a binary exponent (mantissa bits + exponent - fraction digits) beyond int32.
bool go_float_reads(std::string_view lit) {
    std::size_t e = lit.find_first_of("eE");
    std::string_view mantissa = lit.substr(0, e);
    std::int64_t exponent = 0;
    if (e != std::string_view::npos) {
        std::size_t i = e + 1;
        bool negative = i < lit.size() && lit[i] == '-';
        if (i < lit.size() && (lit[i] == '+' || lit[i] == '-')) ++i;
        for (; i < lit.size(); ++i) {
            int d = lit[i] - '0';
            if (exponent > (std::numeric_limits<std::int64_t>::max() - d) / 10) return false;
            exponent = exponent * 10 + d;
        }
        if (negative) exponent = -exponent;
    }
    std::int64_t fraction_digits = 0, significant = 0;
    bool point = false;
    double lead = 0;  // the first significant digits, as d.ddd
    for (char c : mantissa) {
        if (c == '.') {
            point = true;
            continue;
        }
        if (point) ++fraction_digits;
        if (significant == 0 && c == '0') continue;
        if (significant < 15) lead = lead * 10 + (c - '0');
        ++significant;
    }
    if (significant == 0) return true;  // zero: no exponent to apply
    double log10_value = static_cast<double>(significant - 1) + std::log10(lead) -
                         static_cast<double>(std::min<std::int64_t>(significant, 15) - 1);
    double bits = std::floor(log10_value * 3.321928094887362) + 1;
    double exp2 = bits + static_cast<double>(exponent) - static_cast<double>(fraction_digits);
    return exp2 >= static_cast<double>(std::numeric_limits<std::int32_t>::min()) &&
           exp2 <= static_cast<double>(std::numeric_limits<std::int32_t>::max());
}

// ---- the parser's state: saved and restored by pointer, as OPA's parser does ----

struct State {
    Scanner s;
    bool skipped_nl = false;
    Tok tok = Tok::Illegal;
    std::string_view lit;
    Loc loc;
    std::vector<ParseError> errors;
    std::vector<std::string> hints;
    int wildcard = 0;
    explicit State(std::string_view text) : s(text) {}
};
using StateP = std::shared_ptr<State>;

struct Expr {
    bool set_literal = false;  // a lone set term (`{ true }` read as a literal)
    bool every_var = false;    // a lone var `every` (v0 without the keyword)
};

struct Head {
    std::vector<TermP> ref;
    bool has_args = false;  // a function head, even `f()`
    std::vector<TermP> args;
    TermP key;
    TermP value;
};

class Parser {
public:
    Parser(std::string_view text, const ErrorListOptions& options)
        : s_(std::make_shared<State>(text)), options_(options) {
        if (options.v0) s_->s.future_keywords = 0;
    }

    std::optional<std::vector<ParseError>> run() {
        scan();
        while (s_->tok != Tok::Eof && !aborted_) {
            // No attempt goes back before this statement: the terms read before it are no longer needed.
            std::erase_if(cache_, [this](const CacheItem& c) { return c.offset < s_->loc.offset; });
            StateP saved = save();
            if (parse_package()) continue;
            if (!s_->errors.empty()) break;
            restore(saved);
            saved = save();
            if (std::optional<TermP> path = parse_import()) {
                check_import_root(*path);
                continue;
            }
            if (!s_->errors.empty()) break;
            restore(saved);
            if (!options_.skip_rules) {
                saved = save();
                if (parse_rules()) continue;
                if (!s_->errors.empty()) break;
                restore(saved);
            }
            if (parse_query(true, Tok::Eof)) continue;
            break;
        }
        if (aborted_) return std::nullopt;
        return s_->errors;
    }

private:
    StateP s_;
    ErrorListOptions options_;
    struct CacheItem {
        int offset;
        TermP term;
        StateP post;
    };
    std::vector<CacheItem> cache_;  // offsets strictly increasing from the bottom
    int depth_ = 0;
    bool aborted_ = false;
    bool alias_ = false;  // the import just read has an alias

    // ---- state, scanning, errors ----

    StateP save() const { return std::make_shared<State>(*s_); }
    void restore(StateP s) { s_ = std::move(s); }

    struct Depth {
        Parser& p;
        bool ok;
        // An abandoned reading fails every call from then on: it unwinds at once.
        explicit Depth(Parser& parser)
            : p(parser), ok(++parser.depth_ <= parser.options_.max_depth && !parser.aborted_) {
            if (parser.depth_ > parser.options_.max_depth) p.aborted_ = true;
        }
        ~Depth() { --p.depth_; }
    };

    void scan() { do_scan(true); }
    void scan_ws() { do_scan(false); }

    void do_scan(bool skip_ws) {
        State& st = *s_;
        if (st.tok != Tok::Whitespace) st.skipped_nl = false;
        while (true) {
            Scanned t = st.s.scan();
            st.tok = t.tok;
            st.lit = t.lit;
            st.loc = Loc{t.pos.offset, t.pos.row, t.pos.col};
            for (std::string_view e : t.errors) error(st.loc, std::string(e));
            if (!t.errors.empty()) st.tok = Tok::Illegal;
            if (st.tok == Tok::Whitespace) {
                if (st.lit == "\n") st.skipped_nl = true;
                if (skip_ws) continue;
            }
            if (st.tok != Tok::Comment) break;
        }
    }

    void error(Loc loc, std::string message) {
        State& st = *s_;
        if (st.hints.size() == 1) {
            message += " (hint: " + st.hints[0] + ")";
        } else if (!st.hints.empty()) {
            message += " (hints: ";
            for (std::size_t i = 0; i < st.hints.size(); ++i) message += (i ? ", " : "") + st.hints[i];
            message += ")";
        }
        st.errors.push_back(ParseError{loc.offset, loc.row, loc.col, std::move(message)});
        st.hints.clear();
        // Every saved state copies the list: past this many, gavel's grammar alone reports.
        if (st.errors.size() > kMaxErrors) aborted_ = true;
    }

    void illegal(std::string_view note = {}) {
        Tok tok = s_->tok;
        if (tok == Tok::Illegal) {
            error(s_->loc, "illegal token");
            return;
        }
        std::string message = fmt::format("unexpected {} {}", token_name(tok), is_keyword(tok) ? "keyword" : "token");
        if (!note.empty()) message += fmt::format(": {}", note);
        error(s_->loc, std::move(message));
    }

    bool allowed_ref_keyword(Tok tok) const { return is_keyword(tok); }

    // A keyword followed by `.` or `[` starts a ref: read it as an identifier.
    bool scan_ahead_ref() {
        if (!allowed_ref_keyword(s_->tok)) return false;
        Tok next = peek_ws();
        if (next == Tok::Dot || next == Tok::LBrack) {
            s_->tok = Tok::Ident;
            return true;
        }
        return false;
    }

    // The next token (whitespace included), the state left as it was.
    Tok peek_ws() {
        StateP saved = save();
        scan_ws();
        Tok next = s_->tok;
        restore(saved);
        return next;
    }

    bool ident_or_allowed_keyword() {
        if (s_->tok == Tok::Ident) return true;
        if (allowed_ref_keyword(s_->tok)) {
            s_->tok = Tok::Ident;
            return true;
        }
        return false;
    }

    // ---- statements ----

    bool parse_package() {
        if (s_->tok != Tok::Package) return false;
        scan_ws();
        if (s_->tok == Tok::Dot || s_->tok == Tok::LBrack) return false;  // `package.x`: a ref
        if (s_->tok == Tok::Whitespace) scan();
        if (!ident_or_allowed_keyword()) {
            illegal();
            return false;
        }
        TermP term = parse_term();
        bool path = false;
        if (term) {
            if (term->kind == Kind::Var) {
                path = true;
            } else if (term->kind == Kind::Ref) {
                const auto& v = term->elems;
                if (v[0]->kind != Kind::Var) {
                    error(v[0]->loc, fmt::format("unexpected {} token: expecting var", value_name(v[0]->kind)));
                    return false;
                }
                for (std::size_t i = 1; i < v.size(); ++i) {
                    if (v[i]->kind != Kind::String) {
                        error(v[i]->loc, fmt::format("unexpected {} token: expecting string", value_name(v[i]->kind)));
                        return false;
                    }
                }
                path = true;
            } else {
                illegal();
                return false;
            }
        }
        if (!path) {
            if (s_->errors.empty()) error(s_->loc, "expected path");
            return false;
        }
        return true;
    }

    // nullopt: no import here (or a failed one, with errors); else the import's path.
    std::optional<TermP> parse_import() {
        if (s_->tok != Tok::Import) return std::nullopt;
        scan_ws();
        if (s_->tok == Tok::Dot || s_->tok == Tok::LBrack) return std::nullopt;  // `import.x`: a ref
        if (s_->tok == Tok::Whitespace) scan();
        if (!ident_or_allowed_keyword()) {
            illegal();
            return std::nullopt;
        }
        // The path is read without the future keywords (`import future.keywords.in`), by a parser of its own.
        StateP outer = s_;
        const uint8_t known = s_->s.future_keywords;
        std::vector<CacheItem> cache = std::move(cache_);
        cache_.clear();
        s_ = save();
        s_->s.future_keywords = 0;
        TermP term = parse_term();
        cache_ = std::move(cache);
        TermP path;
        if (term) {
            if (term->kind == Kind::Var) {
                path = make(Kind::Ref, term->loc, {}, {term});
            } else if (term->kind == Kind::Ref) {
                for (std::size_t i = 1; i < term->elems.size(); ++i) {
                    if (term->elems[i]->kind != Kind::String) {
                        s_ = outer;
                        error(term->elems[i]->loc,
                              fmt::format("unexpected {} token: expecting string", value_name(term->elems[i]->kind)));
                        return std::nullopt;
                    }
                }
                path = term;
            }
        }
        s_->s.future_keywords = known;
        if (!path) {
            error(s_->loc, "expected path");
            return std::nullopt;
        }
        const TermP& root = path->elems[0];
        if (!is_var(root, "data") && !is_var(root, "input") && !is_var(root, "future") && !is_var(root, "rego")) {
            s_->hints.push_back("if this is unexpected, try updating OPA");
            error(path->loc, fmt::format("unexpected import path, must begin with one of: {{data, future, input, "
                                         "rego}}, got: {}",
                                         to_string(root)));
            return std::nullopt;
        }
        if (s_->tok == Tok::As) {
            scan();
            if (s_->tok != Tok::Ident) {
                illegal("expected var");
                return std::nullopt;
            }
            if (TermP alias = parse_term(); alias && alias->kind == Kind::Var) {
                alias_ = true;
                return path;
            }
            illegal("expected var");
            return std::nullopt;
        }
        alias_ = false;
        const TermP& last = path->elems.back();
        if (path->elems.size() == 1 || !is_var(root, "future")) {
            if (options_.v0 ? is_keyword_v0(last->text) : is_keyword_v1(last->text)) {
                error(last->loc,
                      fmt::format("unexpected import path, must not end with a keyword, got: {}", last->text));
                s_->hints.push_back("import a different path or use an alias");
            }
        }
        return path;
    }

    // What OPA checks of `import rego...` and `import future...` once the import parsed.
    void check_import_root(const TermP& path) {
        const auto& v = path->elems;
        auto is_string = [&](std::size_t i, std::string_view s) {
            return v.size() > i && v[i]->kind == Kind::String && v[i]->text == s;
        };
        if (is_var(v[0], "rego")) {
            if (v.size() != 2 || !is_string(1, "v1")) {
                error(path->loc, fmt::format("invalid import `{}`, must be `rego.v1`", to_string(path)));
                return;
            }
            if (!options_.v0) return;  // a no-op in v1
            if (alias_) {
                error(path->loc, "`rego` imports cannot be aliased");
                return;
            }
            s_->s.future_keywords = Scanner::AllFuture;
            return;
        }
        if (!is_var(v[0], "future")) return;
        if (!is_string(1, "keywords")) {
            error(path->loc, "invalid import, must be `future.keywords`");
            return;
        }
        if (alias_) {
            error(path->loc, "`future` imports cannot be aliased");
            return;
        }
        if (v.size() == 3) {
            if (v[2]->kind != Kind::String) {
                error(path->loc, "invalid import, must be `future.keywords.x`, e.g. `import future.keywords.in`");
                return;
            }
            const std::string& kw = v[2]->text;
            if (kw == "in") s_->s.future_keywords |= Scanner::In;
            else if (kw == "every") s_->s.future_keywords |= Scanner::Every | Scanner::In;  // every needs in
            else if (kw == "contains") s_->s.future_keywords |= Scanner::Contains;
            else if (kw == "if") s_->s.future_keywords |= Scanner::If;
            else error(path->loc, "unexpected keyword, must be one of [contains every if in]");
            return;
        }
        s_->s.future_keywords = Scanner::AllFuture;
    }

    // Whether `attempt` succeeds on a parser that knows every future keyword (OPA's futureParser,
    // which only decides whether to hint at an import); this parser's state is left as it was.
    template <class Attempt>
    bool succeeds_with_future_keywords(Attempt attempt) {
        StateP outer = s_;
        std::vector<CacheItem> cache = std::move(cache_);
        cache_.clear();
        s_ = save();
        s_->s.future_keywords = Scanner::AllFuture;
        bool ok = attempt();
        cache_ = std::move(cache);
        s_ = std::move(outer);
        return ok;
    }

    bool knows_every_future_keyword() const { return s_->s.future_keywords == Scanner::AllFuture; }

    // ---- rules ----

    bool parse_rules() {
        Loc rule_loc = s_->loc;
        scan_ahead_ref();
        bool is_default = false;
        if (s_->tok == Tok::Default) {
            scan();
            is_default = true;
            scan_ahead_ref();
        }
        if (s_->tok != Tok::Ident) return false;
        bool uses_contains = false;
        std::optional<Head> parsed = parse_head(is_default, uses_contains);
        if (!parsed) return false;
        Head& head = *parsed;
        if (is_default) {
            if (!validate_default_value(head, rule_loc)) return false;
            if (!head.args.empty() && !validate_default_args(head, rule_loc)) return false;
            return true;
        }
        bool has_if = s_->tok == Tok::If;
        if (has_if && !uses_contains && head.ref.size() == 2) {
            const TermP& v = head.ref[1];
            if ((!is_ground(v) || v->kind == Kind::Ref) && head.args.empty()) head.key = v;
            if (!head.value) head.value = make(Kind::Boolean, rule_loc, "true");
        }
        if (!has_if && !uses_contains && head.args.empty() && head.ref.size() == 2) {
            head.key = head.ref[1];
            if (!head.value) head.ref.resize(1);
        }
        bool body_read = false;
        if (has_if) {
            scan();
            StateP saved = save();
            if (std::optional<Expr> expr = parse_literal(); expr && !expr->set_literal) {
                body_read = true;
            } else {
                restore(saved);  // not a literal: `{ body }` follows
            }
        }
        if (!body_read) {
            if (has_if || s_->tok == Tok::LBrace) {
                scan();
                if (!parse_body(Tok::RBrace)) return false;
                scan();
            } else if (uses_contains) {
                return true;
            } else {
                return false;
            }
        }
        bool has_else = false;
        if (s_->tok == Tok::Else && !scan_ahead_ref()) {
            if (head.ref.size() > 1 &&
                !std::all_of(head.ref.begin() + 1, head.ref.end(), [](const TermP& t) { return is_ground(t); })) {
                error(s_->loc, "else keyword cannot be used on rules with variables in head");
                return false;
            }
            if (head.key) {
                error(s_->loc, "else keyword cannot be used on multi-value rules");
                return false;
            }
            if (!parse_else()) return false;
            has_else = true;
        }
        while (s_->tok == Tok::LBrace) {
            if (has_else) {
                error(s_->loc, "expected else keyword");
                return false;
            }
            scan();
            if (!parse_body(Tok::RBrace)) return false;
            scan();
        }
        return true;
    }

    bool parse_else() {
        // Each else clause is read by a call of its own: bounded like every nesting.
        Depth d(*this);
        if (!d.ok) return false;
        scan();
        switch (s_->tok) {
            case Tok::LBrace:
            case Tok::If: break;
            case Tok::Assign:
            case Tok::Unify:
                scan();
                if (!parse_term_infix_call()) return false;
                break;
            default: illegal("expected else value term or rule body"); return false;
        }
        bool has_if = s_->tok == Tok::If;
        bool has_brace = s_->tok == Tok::LBrace;
        if (!has_if && !has_brace) return true;
        if (has_if) scan();
        if (s_->tok == Tok::LBrace) {
            scan();
            if (!parse_body(Tok::RBrace)) return false;
            scan();
        } else if (s_->tok != Tok::Eof) {
            if (!parse_literal()) return false;
        } else {
            illegal("rule body expected");
            return false;
        }
        if (s_->tok == Tok::Else) return parse_else();
        return true;
    }

    std::optional<Head> parse_head(bool is_default, bool& uses_contains) {
        uses_contains = false;
        Head head;
        TermP term = parse_var();
        TermP ref = parse_term_finish(term, true);
        if (!ref) {
            illegal("expected rule head name");
            return std::nullopt;
        }
        switch (ref->kind) {
            case Kind::Var: head.ref = {ref}; break;
            case Kind::Ref: head.ref = ref->elems; break;
            case Kind::Call: {
                const TermP& op = ref->elems[0];
                if (op->kind == Kind::Var) {
                    head.ref = {op};
                } else if (op->kind == Kind::Ref) {
                    if (op->elems[0]->kind != Kind::Var) {
                        illegal(fmt::format("rule head ref {} invalid", to_string(op)));
                        return std::nullopt;
                    }
                    head.ref = op->elems;
                }
                head.has_args = true;
                head.args.assign(ref->elems.begin() + 1, ref->elems.end());
                break;
            }
            default: return std::nullopt;
        }
        std::string name = to_string(make(Kind::Ref, ref->loc, {}, head.ref));
        switch (s_->tok) {
            case Tok::Contains:
                if (head.has_args)
                    illegal(
                        fmt::format("the contains keyword can only be used with multi-value rule definitions "
                                    "(e.g., {} contains <VALUE> {{ ... }})",
                                    name));
                scan();
                head.key = parse_term_infix_call();
                if (!head.key)
                    illegal(fmt::format("expected rule key term (e.g., {} contains <VALUE> {{ ... }})", name));
                uses_contains = true;
                return head;
            case Tok::Unify:
                scan();
                head.value = parse_term_infix_call();
                if (!head.value)
                    illegal(fmt::format("expected rule value term (e.g., {}[<nil>] = <VALUE> {{ ... }})", name));
                break;
            case Tok::Assign:
                scan();
                head.value = parse_term_infix_call();
                if (!head.value) {
                    if (!head.args.empty())
                        illegal(fmt::format("expected function value term (e.g., {}(...) := <VALUE> {{ ... }})", name));
                    else if (is_default)
                        illegal(fmt::format("expected default rule value term (e.g., default {} := <VALUE>)", name));
                    else illegal(fmt::format("expected rule value term (e.g., {} := <VALUE> {{ ... }})", name));
                }
                break;
            default: break;
        }
        if (!head.value && !head.key && (head.ref.size() != 2 || !head.args.empty()))
            head.value = make(Kind::Boolean, ref->loc, "true");
        return head;
    }

    bool validate_default_value(const Head& head, Loc rule_loc) {
        if (!head.value) {
            error(rule_loc, "illegal default rule (must have a value)");
            return false;
        }
        bool valid = true;
        // Depth-first as OPA's visitor: a ref, var or call is refused and not entered; closures are skipped.
        std::vector<const Term*> todo{head.value.get()};
        while (!todo.empty()) {
            const Term* t = todo.back();
            todo.pop_back();
            switch (t->kind) {
                case Kind::ArrayComprehension:
                case Kind::ObjectComprehension:
                case Kind::SetComprehension: continue;
                case Kind::Ref:
                case Kind::Var:
                case Kind::Call:
                    error(rule_loc, fmt::format("illegal default rule (value cannot contain {})", value_name(t->kind)));
                    valid = false;
                    continue;
                default:
                    for (auto e = t->elems.rbegin(); e != t->elems.rend(); ++e) todo.push_back(e->get());
            }
        }
        return valid;
    }

    bool validate_default_args(const Head& head, Loc rule_loc) {
        bool valid = true;
        std::vector<std::string> seen;
        for (const TermP& a : head.args) {
            if (a->kind != Kind::Var) {
                error(rule_loc, fmt::format("illegal default rule (arguments cannot contain {})", value_name(a->kind)));
                valid = false;
                continue;
            }
            if (std::find(seen.begin(), seen.end(), a->text) != seen.end()) {
                error(rule_loc, fmt::format("illegal default rule (arguments cannot be repeated {})", to_string(a)));
                valid = false;
                continue;
            }
            seen.push_back(a->text);
        }
        return valid;
    }

    // ---- bodies and literals ----

    bool parse_body(Tok end) {
        Depth d(*this);
        if (!d.ok) return false;
        return parse_query(false, end);
    }

    bool parse_query(bool require_semi, Tok end) {
        if (s_->tok == end) {
            error(s_->loc, "found empty body");
            return false;
        }
        while (true) {
            if (!parse_literal()) return false;
            if (s_->tok == Tok::Semicolon) {
                scan();
                continue;
            }
            if (s_->tok == end || require_semi) return true;
            if (!s_->skipped_nl) {
                // One error is enough: OPA piles no second one on it here.
                if (s_->errors.empty()) illegal(fmt::format("expected \\n or ; or {}", token_name(end)));
                return false;
            }
        }
    }

    std::optional<Expr> parse_literal() {
        if (aborted_) return std::nullopt;
        if (allowed_ref_keyword(s_->tok)) {
            Tok next = peek_ws();
            if (next == Tok::Dot || next == Tok::LBrack) {
                s_->tok = Tok::Ident;
                return parse_literal_expr();
            }
        }
        bool negated = false;
        if (s_->tok == Tok::Not) {
            Tok next = peek_ws();
            if (next != Tok::Dot && next != Tok::LBrack) {
                scan();
                negated = true;
            }
        }
        switch (s_->tok) {
            case Tok::Some:
                if (negated) {
                    illegal("illegal negation of 'some'");
                    return std::nullopt;
                }
                return parse_some();
            case Tok::Every:
                if (negated) {
                    illegal("illegal negation of 'every'");
                    return std::nullopt;
                }
                return parse_every();
            default: return parse_literal_expr();
        }
    }

    std::optional<Expr> parse_literal_expr() {
        StateP before = save();
        std::optional<Expr> expr = parse_expr();
        if (!expr) return std::nullopt;
        if (s_->tok == Tok::With && !parse_with()) return std::nullopt;
        if (expr->every_var) {
            // `every x in xs { ... }` where `every` is no keyword yet: the next error hints at the import.
            StateP after = s_;
            restore(before);
            bool hint = succeeds_with_future_keywords([this] { return parse_every().has_value(); });
            restore(after);
            if (hint) s_->hints.push_back("`import future.keywords.every` for `every x in xs { ... }` expressions");
        }
        return expr;
    }

    std::optional<Expr> parse_expr() {
        TermP lhs = parse_term_infix_call();
        if (!lhs) return std::nullopt;
        if (parse_term_op({Tok::Assign, Tok::Unify})) {
            if (parse_term_infix_call()) return Expr{};
            return std::nullopt;
        }
        return Expr{lhs->kind == Kind::Set, is_var(lhs, "every")};
    }

    bool parse_with() {
        while (true) {
            scan();
            if (s_->tok != Tok::Ident) {
                illegal("expected ident");
                return false;
            }
            TermP target = parse_term();
            if (!target) return false;
            if (target->kind != Kind::Ref && target->kind != Kind::Var) illegal("expected with target path");
            if (s_->tok != Tok::As) {
                illegal("expected as keyword");
                return false;
            }
            scan();
            if (!parse_term_infix_call()) return false;
            if (s_->tok != Tok::With) return true;
        }
    }

    static std::string call_name(const TermP& call) { return to_string(call->elems[0]); }

    std::optional<Expr> parse_some() {
        StateP saved = save();
        scan();
        if (TermP term = parse_term_infix_call(); term && term->kind == Kind::Call) {
            std::string name = call_name(term);
            if (name == "internal.member_2" || name == "internal.member_3") {
                if (term->elems.size() != (name == "internal.member_2" ? 3u : 4u)) {
                    illegal("illegal domain");
                    return std::nullopt;
                }
            } else {
                illegal("expected `x in xs` or `x, y in xs` expression");
                return std::nullopt;
            }
            if (s_->tok == Tok::With && !parse_with()) return std::nullopt;
            return Expr{};
        }
        // `some x, y`: a list of variables; `some x in xs` before `in` is a keyword gets a hint.
        restore(saved);
        if (!knows_every_future_keyword()) {
            StateP before = save();
            scan();
            bool hint = succeeds_with_future_keywords([this] {
                TermP t = parse_term_infix_call();
                if (!t || t->kind != Kind::Call) return false;
                std::string name = call_name(t);
                return name == "internal.member_2" || name == "internal.member_3";
            });
            restore(before);
            if (hint) s_->hints.push_back("`import future.keywords.in` for `some x in xs` expressions");
        }
        while (true) {
            scan();
            if (s_->tok != Tok::Ident) {
                illegal("expected var");
                return std::nullopt;
            }
            parse_var();
            scan();
            if (s_->tok != Tok::Comma) break;
        }
        return Expr{};
    }

    std::optional<Expr> parse_every() {
        scan();
        TermP term = parse_term_infix_call();
        if (!term) return std::nullopt;
        const char* shape = "expected `x[, y] in xs { ... }` expression";
        if (term->kind != Kind::Call) {
            illegal(shape);
            return std::nullopt;
        }
        std::string name = call_name(term);
        TermP value;
        if (name == "internal.member_2") {
            if (term->elems.size() != 3) {
                illegal("illegal domain");
                return std::nullopt;
            }
            value = term->elems[1];
        } else if (name == "internal.member_3") {
            if (term->elems.size() != 4) {
                illegal("illegal domain");
                return std::nullopt;
            }
            value = term->elems[2];
            if (term->elems[1]->kind != Kind::Var) {
                illegal("expected key to be a variable");
                return std::nullopt;
            }
        } else {
            illegal(shape);
            return std::nullopt;
        }
        if (value->kind != Kind::Var) {
            illegal("expected value to be a variable");
            return std::nullopt;
        }
        if (s_->tok == Tok::LBrace) {
            scan();
            if (!parse_body(Tok::RBrace)) return std::nullopt;
            scan();
            if (s_->tok == Tok::With && !parse_with()) return std::nullopt;
            return Expr{};
        }
        illegal("missing body");
        return std::nullopt;
    }

    // ---- terms and operators ----

    TermP parse_term_infix_call(bool key_value = true) {
        Depth d(*this);
        if (!d.ok) return nullptr;
        return parse_term_in(nullptr, key_value);
    }
    TermP parse_term_infix_call_in_list() { return parse_term_infix_call(false); }

    TermP call_term(TermP op, std::vector<TermP> operands, Loc loc) {
        operands.insert(operands.begin(), std::move(op));
        return make(Kind::Call, loc, {}, std::move(operands));
    }

    TermP member_op(bool with_key) {
        Loc loc = s_->loc;
        return make(Kind::Ref, loc, {},
                    {make(Kind::Var, loc, "internal"), make(Kind::String, loc, with_key ? "member_3" : "member_2")});
    }

    TermP parse_term_in(TermP lhs, bool key_value) {
        Depth d(*this);
        if (!d.ok) return nullptr;
        if (!lhs) lhs = parse_term_relation();
        if (!lhs) return nullptr;
        if (key_value && s_->tok == Tok::Comma) {  // `k, v in xs`
            StateP saved = save();
            scan();
            if (TermP mhs = parse_term_relation()) {
                if (s_->tok == Tok::In) {
                    TermP op = member_op(true);
                    scan();
                    if (TermP rhs = parse_term_relation()) {
                        TermP call = call_term(op, {lhs, mhs, rhs}, lhs->loc);
                        if (s_->tok == Tok::In) return parse_term_in(call, key_value);
                        return call;
                    }
                }
            }
            restore(saved);
        }
        scan_ahead_ref();
        if (s_->tok == Tok::In) {
            TermP op = member_op(false);
            scan();
            if (TermP rhs = parse_term_relation()) {
                TermP call = call_term(op, {lhs, rhs}, lhs->loc);
                if (s_->tok == Tok::In) return parse_term_in(call, key_value);
                return call;
            }
        }
        return lhs;
    }

    // An infix operator term for one of `ops` at the current token (consumed), or null.
    TermP parse_term_op(std::initializer_list<Tok> ops) {
        if (std::find(ops.begin(), ops.end(), s_->tok) == ops.end()) return nullptr;
        Loc loc = s_->loc;
        TermP op = make(Kind::Ref, loc, {}, {make(Kind::Var, loc, std::string(token_name(s_->tok)))});
        scan();
        return op;
    }

    // One precedence level of binary operators, left-associative: `next` reads its operands.
    template <class Next>
    TermP parse_binary(std::initializer_list<Tok> ops, Next next) {
        Depth d(*this);
        if (!d.ok) return nullptr;
        TermP lhs = next();
        if (!lhs) return nullptr;
        while (true) {
            TermP op = parse_term_op(ops);
            if (!op) return lhs;
            TermP rhs = next();
            if (!rhs) return lhs;
            lhs = call_term(op, {lhs, rhs}, lhs->loc);
            // OPA recurses once per chained operator: a loop needs no stack, and the chain's
            // term is bounded like nesting.
            if (lhs->depth > options_.max_depth) {
                aborted_ = true;
                return nullptr;
            }
            if (std::find(ops.begin(), ops.end(), s_->tok) == ops.end()) return lhs;
        }
    }

    TermP parse_term_relation() {
        return parse_binary({Tok::Equal, Tok::Neq, Tok::Lt, Tok::Gt, Tok::Lte, Tok::Gte},
                            [this] { return parse_term_or(); });
    }
    TermP parse_term_or() {
        return parse_binary({Tok::Or}, [this] { return parse_term_and(); });
    }
    TermP parse_term_and() {
        return parse_binary({Tok::And}, [this] { return parse_term_arith(); });
    }
    TermP parse_term_arith() {
        return parse_binary({Tok::Add, Tok::Sub}, [this] { return parse_term_factor(); });
    }
    TermP parse_term_factor() {
        return parse_binary({Tok::Mul, Tok::Quo, Tok::Rem}, [this] { return parse_term(); });
    }

    TermP parse_term() {
        Depth d(*this);
        if (!d.ok) return nullptr;
        // A term read before at this offset: its result and the state after it.
        int at = s_->loc.offset;
        for (auto it = cache_.rbegin(); it != cache_.rend() && it->offset >= at; ++it) {
            if (it->offset == at) {
                restore(it->post);
                return it->term;
            }
        }
        TermP term;
        switch (s_->tok) {
            case Tok::Null: term = make(Kind::Null, s_->loc); break;
            case Tok::True: term = make(Kind::Boolean, s_->loc, "true"); break;
            case Tok::False: term = make(Kind::Boolean, s_->loc, "false"); break;
            case Tok::Sub:
            case Tok::Dot:
            case Tok::Number: term = parse_number(); break;
            case Tok::String: term = parse_string(); break;
            case Tok::Ident:
            case Tok::Contains: term = parse_var(); break;
            case Tok::LBrack: term = parse_array(); break;
            case Tok::LBrace: term = parse_set_or_object(); break;
            case Tok::LParen:
                scan();
                if (TermP r = parse_term_infix_call()) {
                    if (s_->tok == Tok::RParen) term = r;
                    else error(s_->loc, "non-terminated expression");
                }
                break;
            default: illegal(); break;
        }
        term = parse_term_finish(term, false);
        push_cache(term, at);
        return term;
    }

    void push_cache(TermP term, int offset) {
        while (!cache_.empty() && cache_.back().offset >= offset) cache_.pop_back();
        // One statement of more terms than this is read by gavel's grammar alone: memory stays bounded.
        if (cache_.size() >= kMaxCachedTerms) {
            aborted_ = true;
            return;
        }
        cache_.push_back(CacheItem{offset, std::move(term), save()});
    }
    static constexpr std::size_t kMaxCachedTerms = 1u << 16;
    static constexpr std::size_t kMaxErrors = 256;

    TermP parse_term_finish(TermP head, bool skip_ws) {
        if (!head) return nullptr;
        do_scan(skip_ws);
        switch (s_->tok) {
            case Tok::LParen:
            case Tok::Dot:
            case Tok::LBrack: return parse_ref(head);
            case Tok::Whitespace: scan(); [[fallthrough]];
            default:
                if (is_var(head, "data") || is_var(head, "input")) return make(Kind::Ref, head->loc, {}, {head});
                return head;
        }
    }

    TermP parse_number() {
        std::string prefix;
        Loc loc = s_->loc;
        if (s_->tok == Tok::Sub) {
            prefix = "-";
            scan();
            if (s_->tok != Tok::Number && s_->tok != Tok::Dot) {
                illegal("expected number");
                return nullptr;
            }
        }
        if (s_->tok == Tok::Dot) {
            prefix += ".";
            scan();
            if (s_->tok != Tok::Number) {
                illegal("expected number");
                return nullptr;
            }
        }
        std::string_view lit = s_->lit;
        bool decimal_prefix = !prefix.empty() && prefix.back() == '.';
        if (!decimal_prefix && lit.size() > 1 && lit[0] == '0') {
            bool fraction = lit[1] == '.';
            bool scientific = lit.size() > 2 && (lit[1] == 'e' || lit[1] == 'E');
            if (!fraction && !scientific) {
                illegal("expected number without leading zero");
                return nullptr;
            }
        }
        // The scanner's number is digits[.digits][e[+-]digits]; after a `.` prefix, a second point is no float.
        if (decimal_prefix && lit.find('.') != std::string_view::npos) {
            illegal("invalid float");
            return nullptr;
        }
        std::string digits = decimal_prefix ? "0." + std::string(lit) : std::string(lit);
        if (!go_float_reads(digits)) {
            illegal("invalid float");
            return nullptr;
        }
        if (lexical::number_too_big(digits)) {
            error(s_->loc, "number too big");
            return nullptr;
        }
        return make(Kind::Number, loc, prefix + std::string(lit));
    }

    TermP parse_string() {
        std::string_view lit = s_->lit;
        if (!lit.empty() && lit[0] == '"') {
            std::optional<std::string> value = decode_json_string(lit);
            if (!value) {
                error(s_->loc, fmt::format("illegal string literal: {}", lit));
                return nullptr;
            }
            return make(Kind::String, s_->loc, std::move(*value));
        }
        if (lit.size() < 2) return nullptr;
        return make(Kind::String, s_->loc, std::string(lit.substr(1, lit.size() - 2)));
    }

    TermP parse_var() {
        std::string name(s_->lit);
        if (name == "_") name = "$" + std::to_string(s_->wildcard++);
        return make(Kind::Var, s_->loc, std::move(name));
    }

    TermP parse_call(TermP op) {
        Depth d(*this);
        if (!d.ok) return nullptr;
        Loc loc = op->loc;
        scan();  // over `(`
        if (s_->tok == Tok::RParen) {
            scan_ws();
            if (op->kind == Kind::Ref && op->elems.size() == 1 && is_var(op->elems[0], "set"))
                return make(Kind::Set, loc);
            return make(Kind::Call, loc, {}, {op});
        }
        if (auto r = parse_term_list(Tok::RParen, {op})) {
            scan_ws();
            return make(Kind::Call, loc, {}, std::move(*r));
        }
        return nullptr;
    }

    TermP parse_ref(TermP head) {
        Depth d(*this);
        if (!d.ok) return nullptr;
        Loc loc = head->loc;
        switch (head->kind) {
            case Kind::Var:
            case Kind::Array:
            case Kind::Object:
            case Kind::Set:
            case Kind::ArrayComprehension:
            case Kind::ObjectComprehension:
            case Kind::SetComprehension:
            case Kind::Call: break;
            default: error(loc, fmt::format("illegal ref (head cannot be {})", value_name(head->kind)));
        }
        std::vector<TermP> ref{head};
        while (true) {
            switch (s_->tok) {
                case Tok::Dot:
                    scan_ws();
                    if (s_->tok != Tok::Ident && !allowed_ref_keyword(s_->tok)) {
                        illegal("expected identifier");
                        return nullptr;
                    }
                    ref.push_back(make(Kind::String, s_->loc, std::string(s_->lit)));
                    scan_ws();
                    break;
                case Tok::LParen: {
                    TermP term = parse_call(make(Kind::Ref, loc, {}, ref));
                    if (term) {
                        if (s_->tok == Tok::Whitespace) {
                            scan();
                            return term;
                        }
                        if (s_->tok == Tok::Dot || s_->tok == Tok::LBrack) term = parse_ref(term);
                    }
                    return term;
                }
                case Tok::LBrack: {
                    scan();
                    TermP term = parse_term_infix_call();
                    if (!term) return nullptr;
                    if (s_->tok != Tok::RBrack) {
                        illegal("expected [");  // sic: OPA names the opening bracket
                        return nullptr;
                    }
                    ref.push_back(term);
                    scan_ws();
                    break;
                }
                case Tok::Whitespace: scan(); return make(Kind::Ref, loc, {}, std::move(ref));
                default: return make(Kind::Ref, loc, {}, std::move(ref));
            }
        }
    }

    TermP parse_array() {
        Depth d(*this);
        if (!d.ok) return nullptr;
        Loc loc = s_->loc;
        scan();
        if (s_->tok == Tok::RBrack) return make(Kind::Array, loc);
        bool potential_comprehension = true;
        if (s_->tok == Tok::Comma) {  // `[, x]`: a leading comma is allowed
            potential_comprehension = false;
            scan();
        }
        StateP saved = save();
        // One term first: `[x | ...]` is a comprehension before it is an `or` call.
        TermP head = parse_term();
        if (!head) return nullptr;
        switch (s_->tok) {
            case Tok::RBrack: return make(Kind::Array, loc, {}, {head});
            case Tok::Comma: {
                scan();
                if (auto terms = parse_term_list(Tok::RBrack, {head}))
                    return make(Kind::Array, loc, {}, std::move(*terms));
                return nullptr;
            }
            case Tok::Or:
                if (potential_comprehension) {
                    scan();
                    if (parse_body(Tok::RBrack)) return make(Kind::ArrayComprehension, loc, {}, {head});
                    if (s_->tok != Tok::Comma) return nullptr;
                }
                break;
            default: break;
        }
        restore(saved);
        if (auto terms = parse_term_list(Tok::RBrack, {})) return make(Kind::Array, loc, {}, std::move(*terms));
        return nullptr;
    }

    TermP parse_set_or_object() {
        Depth d(*this);
        if (!d.ok) return nullptr;
        Loc loc = s_->loc;
        scan();
        if (s_->tok == Tok::RBrace) return make(Kind::Object, loc);
        bool potential_comprehension = true;
        if (s_->tok == Tok::Comma) {
            potential_comprehension = false;
            scan();
        }
        StateP saved = save();
        TermP head = parse_term();
        if (!head) return nullptr;
        switch (s_->tok) {
            case Tok::Or:
                if (potential_comprehension) return parse_set(saved, head, true, loc);
                break;
            case Tok::RBrace:
            case Tok::Comma: return parse_set(saved, head, potential_comprehension, loc);
            case Tok::Colon: return parse_object(head, potential_comprehension, loc);
            default: break;
        }
        restore(saved);
        head = parse_term_infix_call_in_list();
        if (!head) return nullptr;
        switch (s_->tok) {
            case Tok::RBrace:
            case Tok::Comma: return parse_set(saved, head, false, loc);
            case Tok::Colon: return parse_object(head, potential_comprehension, loc);  // `{a + 1: b | ...}`
            default: break;
        }
        illegal("non-terminated set");
        return nullptr;
    }

    TermP parse_set(const StateP& saved, TermP head, bool potential_comprehension, Loc loc) {
        Depth d(*this);
        if (!d.ok) return nullptr;
        switch (s_->tok) {
            case Tok::RBrace: return make(Kind::Set, loc, {}, {head});
            case Tok::Comma: {
                scan();
                if (auto terms = parse_term_list(Tok::RBrace, {head}))
                    return make(Kind::Set, loc, {}, std::move(*terms));
                return nullptr;
            }
            case Tok::Or:
                if (potential_comprehension) {
                    scan();
                    if (parse_body(Tok::RBrace)) return make(Kind::SetComprehension, loc, {}, {head});
                    if (s_->tok != Tok::Comma) return nullptr;
                }
                restore(saved);
                if (auto terms = parse_term_list(Tok::RBrace, {})) return make(Kind::Set, loc, {}, std::move(*terms));
                return nullptr;
            default: return nullptr;
        }
    }

    TermP parse_object(TermP key, bool potential_comprehension, Loc loc) {
        Depth d(*this);
        if (!d.ok) return nullptr;
        scan();  // over `:`
        StateP saved = save();
        // The value as one term first: `{k: v | ...}` may be a comprehension.
        TermP value = parse_term();
        if (!value) return nullptr;
        bool potential_relation = true;
        if (potential_comprehension) {
            switch (s_->tok) {
                case Tok::RBrace:
                case Tok::Comma: potential_relation = false; [[fallthrough]];
                case Tok::Or:
                    if (TermP t = parse_object_finish(key, value, true, loc)) return t;
                    break;
                default: break;
            }
        }
        restore(saved);
        if (potential_relation) {
            TermP v = parse_term_infix_call_in_list();
            if (!v) return nullptr;
            if (s_->tok == Tok::RBrace || s_->tok == Tok::Comma) return parse_object_finish(key, v, false, loc);
        }
        illegal("non-terminated object");
        return nullptr;
    }

    TermP parse_object_finish(TermP key, TermP value, bool potential_comprehension, Loc loc) {
        Depth d(*this);
        if (!d.ok) return nullptr;
        switch (s_->tok) {
            case Tok::RBrace: return make(Kind::Object, loc, {}, {key, value});
            case Tok::Or:
                if (potential_comprehension) {
                    scan();
                    if (parse_body(Tok::RBrace)) return make(Kind::ObjectComprehension, loc, {}, {key, value});
                } else {
                    illegal("non-terminated object");
                }
                return nullptr;
            case Tok::Comma: {
                scan();
                if (auto pairs = parse_term_pair_list(Tok::RBrace, {key, value}))
                    return make(Kind::Object, loc, {}, std::move(*pairs));
                return nullptr;
            }
            default: return nullptr;
        }
    }

    std::string expected_comma_or(Tok end) const { return fmt::format("expected \",\" or \"{}\"", token_name(end)); }

    std::optional<std::vector<TermP>> parse_term_list(Tok end, std::vector<TermP> r) {
        if (s_->tok == end) return r;
        while (true) {
            TermP term = parse_term_infix_call_in_list();
            if (!term) return std::nullopt;
            r.push_back(term);
            if (s_->tok == end) return r;
            if (s_->tok != Tok::Comma) {
                illegal(expected_comma_or(end));
                return std::nullopt;
            }
            scan();
            if (s_->tok == end) return r;
        }
    }

    std::optional<std::vector<TermP>> parse_term_pair_list(Tok end, std::vector<TermP> r) {
        if (s_->tok == end) return r;
        while (true) {
            TermP key = parse_term_infix_call_in_list();
            if (!key) return std::nullopt;
            if (s_->tok != Tok::Colon) {
                illegal("expected \":\"");
                return std::nullopt;
            }
            scan();
            TermP value = parse_term_infix_call_in_list();
            if (!value) return std::nullopt;
            r.push_back(key);
            r.push_back(value);
            if (s_->tok == end) return r;
            if (s_->tok != Tok::Comma) {
                illegal(expected_comma_or(end));
                return std::nullopt;
            }
            scan();
            if (s_->tok == end) return r;
        }
    }
};

}  // namespace

std::optional<std::vector<ParseError>> parse_error_list(std::string_view text, const ErrorListOptions& options) {
    Parser parser(text, options);
    return parser.run();
}

}  // namespace gavel::lang::opa
