#pragma once
// Request bodies as OPA's server reads them: inflated when Content-Encoding
// says gzip (with OPA's limit on the inflated size), YAML when Content-Type
// mentions yaml, JSON otherwise (Go's decoder: the first value; Go's errors).

#include <cstddef>
#include <string>

#include "runtime/value.hpp"
#include "webhook/http_message.hpp"

namespace gavel::webhook::opa_api {

// util.ReadMaybeCompressedBody (gzip inflated up to `max_inflated` bytes, OPA's
// server.decoding.gzip.max_length); false with Go's error text.
bool read_body(const HttpRequest& req, std::size_t max_inflated, std::string& out, std::string& error);

bool is_yaml(const HttpRequest& req);

// A decoded body: `present` false for an empty body (Go's io.EOF, which OPA ignores).
struct DecodedBody {
    bool ok = false;
    bool present = false;
    runtime::Value value;
    std::string error;
};
// The body as one document (JSON or YAML by Content-Type), gzip-inflated.
DecodedBody decode_body(const HttpRequest& req, std::size_t max_inflated);

}  // namespace gavel::webhook::opa_api
