#pragma once
// Where a request's body ends decides where the next request begins: two
// readings of the framing headers let a second, smuggled request through. These
// are Go net/http's rules (OPA's server), stricter than Beast's:
//   - Transfer-Encoding: exactly one field whose value is `chunked` (case
//     insensitive, spaces around allowed); anything else ("chunked, identity",
//     "gzip, chunked", "identity", two fields) -> 501, and the connection closes;
//   - Content-Length: digits only; several fields must agree ("2, 2" or 2 and 3
//     -> 400).
// Beast itself refuses Content-Length together with Transfer-Encoding (400; Go
// drops the Content-Length instead, RFC 9112 allows either) and differing
// Content-Lengths; see framing_parse_error for its errors' statuses.

#include <string>
#include <string_view>
#include <vector>

#include <boost/beast/core/error.hpp>

namespace gavel::webhook {

struct FramingVerdict {
    int status = 0;  // 0: acceptable; else the status to refuse with
    std::string message;
};

// The values of the request's Transfer-Encoding and Content-Length fields, in order.
FramingVerdict check_request_framing(const std::vector<std::string_view>& transfer_encodings,
                                     const std::vector<std::string_view>& content_lengths);

// The status for Beast's header parse error `ec` (status 0 when not about framing). Beast
// raises it on the framing field it could not take; the flags tell which fields came before.
FramingVerdict framing_parse_error(const boost::beast::error_code& ec, bool had_content_length,
                                   bool had_transfer_encoding);

}  // namespace gavel::webhook
