#pragma once
// The HTTP(S) client front ends use (the server's bundle, decision-log and
// status plugins): the one stdlib's http.send uses, on Boost.Beast and OpenSSL.
// One request per call, one deadline, response bodies up to 64 MiB.

#include "stdlib/http_client.hpp"

namespace gavel::engine::http {

using stdlib::http::Failure;
using stdlib::http::perform;
using stdlib::http::Request;
using stdlib::http::Response;
using stdlib::http::TlsOptions;

}  // namespace gavel::engine::http
