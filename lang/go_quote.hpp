#pragma once
// A string as Go's strconv.Quote (fmt's %q) writes it: what OPA prints for
// string terms (`opa fmt`, `opa parse`, its error messages). \a \b \f \n \r \t
// \v \" \\ escapes, other ASCII controls and bytes that are not UTF-8 as \xNN,
// non-printable code points as \uNNNN or \UNNNNNNNN, everything else as is.

#include <string>
#include <string_view>

namespace gavel::lang {

std::string go_quote(std::string_view s);
void append_go_quoted(std::string& out, std::string_view s);

}  // namespace gavel::lang
