#pragma once
// HTML escaping as Go has it, for every layer: html.EscapeString (the server's redirect page)
// and text/template's html function (strings.render_template), which differ only in NUL.

#include <string>
#include <string_view>

namespace gavel::support {

enum class HtmlNul : bool { Keep, Replace };

// Go's html.EscapeString (`<`, `>`, `&`, `'`, `"`); with HtmlNul::Replace Go's
// template.HTMLEscapeString, which also writes NUL as U+FFFD.
std::string html_escape(std::string_view s, HtmlNul nul = HtmlNul::Keep);

}  // namespace gavel::support
