#include "webhook/request_framing.hpp"

#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>

namespace gavel::webhook {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

FramingVerdict unsupported() { return {501, "unsupported transfer encoding"}; }

}  // namespace

FramingVerdict check_request_framing(const std::vector<std::string_view>& transfer_encodings,
                                     const std::vector<std::string_view>& content_lengths) {
    if (!transfer_encodings.empty()) {
        if (transfer_encodings.size() != 1) return unsupported();
        auto value = trim(transfer_encodings.front());
        if (!boost::beast::iequals(boost::beast::string_view(value.data(), value.size()), "chunked"))
            return unsupported();
    }
    std::string_view first;
    for (std::size_t i = 0; i < content_lengths.size(); ++i) {
        auto value = trim(content_lengths[i]);
        if (value.empty() || value.find_first_not_of("0123456789") != std::string_view::npos)
            return {400, "invalid Content-Length"};
        if (i == 0) first = value;
        else if (value != first) return {400, "multiple Content-Length headers that differ"};
    }
    return {};
}

FramingVerdict framing_parse_error(const boost::beast::error_code& ec, bool had_content_length,
                                   bool had_transfer_encoding) {
    namespace http = boost::beast::http;
    if (ec == http::error::bad_transfer_encoding) {
        if (had_content_length) return {400, "Content-Length together with Transfer-Encoding"};
        return unsupported();  // a second Transfer-Encoding field
    }
    if (ec == http::error::bad_content_length) {
        if (had_transfer_encoding) return {400, "Content-Length together with Transfer-Encoding"};
        return {400, "invalid Content-Length"};
    }
    return {};
}

}  // namespace gavel::webhook
