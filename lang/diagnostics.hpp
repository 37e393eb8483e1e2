#pragma once
// Errors are values: a Diagnostic names where (file:line:col), what kind
// (OPA's error code) and what went wrong. Diagnostics own copies of what they
// show, so they outlive the source they were made from.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lang/json_tree.hpp"
#include "lang/location.hpp"

namespace gavel::lang {

// OPA's error codes, spelled as OPA spells them.
namespace codes {
inline constexpr std::string_view parse_error = "rego_parse_error";
inline constexpr std::string_view compile_error = "rego_compile_error";
inline constexpr std::string_view type_error = "rego_type_error";
inline constexpr std::string_view unsafe_var_error = "rego_unsafe_var_error";
inline constexpr std::string_view recursion_error = "rego_recursion_error";
}  // namespace codes

struct Diagnostic {
    std::string code;
    std::string message;
    std::string file;
    uint32_t line = 0;
    uint32_t col = 0;
    std::string source_line;  // the line the error points into, for the caret display
    // OPA's details object, when the error has one (type errors); its text form
    // is already in `message`, on lines of their own after the first.
    std::shared_ptr<const JsonTree> details;
    // gavel's advice beside OPA's message ("this is pre-1.0 Rego: ..."): shown to people
    // after the message (headline, pretty), never in OPA's JSON shapes (summary, opa_text).
    std::string hint;

    static Diagnostic at(const Location& loc, std::string_view code, std::string message);

    // "file:line:col: code: message"
    std::string headline() const;
    // The message's first line: what OPA's JSON has as "message" (the rest are detail lines).
    std::string_view summary() const;
    // headline, then the source line and a caret under the column.
    std::string pretty() const;
};

// What of a source line an error shows: long lines (generated or minified
// policies) are cut to at most `width` bytes around the column, with "..."
// where they were cut, so the caret stays in view. `caret` is the column's
// byte offset in `text`.
struct LineExcerpt {
    std::string text;
    std::size_t caret = 0;
};
LineExcerpt excerpt_line(std::string_view line, uint32_t col, std::size_t width = 160);

class Diagnostics {
public:
    void add(Diagnostic d) { items_.push_back(std::move(d)); }
    void add(const Location& loc, std::string_view code, std::string message) {
        items_.push_back(Diagnostic::at(loc, code, std::move(message)));
    }
    void append(const Diagnostics& other) { items_.insert(items_.end(), other.items_.begin(), other.items_.end()); }
    // Drops the diagnostics after the first n (a parse that reads a statement again).
    void truncate(std::size_t n) {
        if (n < items_.size()) items_.resize(n);
    }

    bool empty() const { return items_.empty(); }
    std::size_t size() const { return items_.size(); }
    const std::vector<Diagnostic>& items() const { return items_; }
    Diagnostic& back() { return items_.back(); }
    auto begin() const { return items_.begin(); }
    auto end() const { return items_.end(); }

    // Every diagnostic, pretty, one after another; "N errors occurred" leads when N > 1.
    std::string format() const;
    // As OPA's Errors.Error() prints them: "1 error occurred: file:row: code: message",
    // or "N errors occurred:" and one such line each (no column, no source line).
    std::string opa_text() const;

private:
    std::vector<Diagnostic> items_;
};

}  // namespace gavel::lang
