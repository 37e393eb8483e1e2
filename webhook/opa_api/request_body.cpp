#include "webhook/opa_api/request_body.hpp"

#include <cstdint>

#include "engine/bundle/gzip_stream.hpp"
#include "runtime/yaml.hpp"
#include "runtime/go_json_decode.hpp"
#include "webhook/large_json.hpp"

namespace gavel::webhook::opa_api {

bool read_body(const HttpRequest& req, std::size_t max_inflated, std::string& out, std::string& error) {
    if (req.header("Content-Encoding").find("gzip") == std::string_view::npos) {
        out = req.body;
        return true;
    }
    const std::string& in = req.body;
    if (in.size() < 4) {
        error = "gzip: invalid header";
        return false;
    }
    // The last four bytes of a gzip stream: the inflated size (mod 2^32), checked first as OPA does.
    auto b = [&in](std::size_t i) {
        return static_cast<std::uint32_t>(static_cast<unsigned char>(in[in.size() - 4 + i]));
    };
    std::uint32_t size = b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24);
    if (size > max_inflated) {
        error = "gzip payload too large";
        return false;
    }
    if (static_cast<unsigned char>(in[0]) != 0x1f || static_cast<unsigned char>(in[1]) != 0x8b) {
        error = "gzip: invalid header";
        return false;
    }
    std::string inflated, why;
    if (!engine::bundle::gzip_decompress(in, size, inflated, why)) {
        error = "unexpected EOF";
        return false;
    }
    out = std::move(inflated);
    return true;
}

bool is_yaml(const HttpRequest& req) { return req.header("Content-Type").find("yaml") != std::string_view::npos; }

DecodedBody decode_body(const HttpRequest& req, std::size_t max_inflated) {
    DecodedBody out;
    std::string bytes;
    if (!read_body(req, max_inflated, bytes, out.error)) {
        out.error = "could not decompress the body: " + out.error;
        return out;
    }
    if (is_yaml(req)) {
        if (bytes.empty()) {
            out.ok = true;
            return out;
        }
        auto parsed = runtime::parse_json_or_yaml(bytes);
        if (!parsed.ok) {
            out.error = parsed.error.message;
            return out;
        }
        out.ok = out.present = true;
        out.value = std::move(parsed.value);
        return out;
    }
    runtime::GoDecoded d = runtime::go_decode(bytes, parse_json_document);
    if (!d.ok) {
        if (d.eof) {
            out.ok = true;  // nothing at all: OPA goes on without a value
            return out;
        }
        out.error = d.error;
        return out;
    }
    out.ok = out.present = true;
    out.value = std::move(d.value);
    return out;
}

}  // namespace gavel::webhook::opa_api
