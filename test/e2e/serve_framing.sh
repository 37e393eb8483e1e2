#!/usr/bin/env bash
# Request framing as OPA's server (Go net/http) has it, so that no second request
# can be smuggled behind a body: a Transfer-Encoding other than one `chunked` is
# 501 and the connection closes (before: `chunked, identity` let the bytes after
# the header through as a request of their own); differing or malformed
# Content-Lengths are 400. The statuses are those OPA 1.7.1 answers (recorded).
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve
# raw PORT FORMAT: sends printf FORMAT on one connection; prints the answers' statuses and "closed" or "open".
raw() { printf "$2" | python3 "$fx/clients.py" raw "$1" | sed -n 1p; }
# raw_body PORT FORMAT: the same; prints the first answer's body.
raw_body() { printf "$2" | python3 "$fx/clients.py" raw "$1" | tail -n +2; }

start_server framing --policies "$fx/policies" --insecure-http || exit 1
rest=$framing_rest_port
adm=$framing_port
smuggled='GET /v1/data HTTP/1.1\r\nHost: x\r\n\r\n'
post='POST /v1/data HTTP/1.1\r\nHost: x\r\n'

# What OPA answers: 501 for each of these, and it closes the connection.
expect_eq "Transfer-Encoding: chunked, identity -> 501, nothing smuggled" \
    "$(raw "$rest" "${post}Transfer-Encoding: chunked, identity\r\n\r\n5\r\nhello\r\n0\r\n\r\n$smuggled")" "501 closed"
expect_eq "Transfer-Encoding: identity -> 501" "$(raw "$rest" "${post}Transfer-Encoding: identity\r\n\r\n$smuggled")" "501 closed"
expect_eq "Transfer-Encoding: gzip, chunked -> 501" "$(raw "$rest" "${post}Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n")" "501 closed"
expect_eq "two Transfer-Encoding fields -> 501" \
    "$(raw "$rest" "${post}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")" "501 closed"
expect_eq "Transfer-Encoding: chunked, then identity -> 501" \
    "$(raw "$rest" "${post}Transfer-Encoding: identity\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n$smuggled")" "501 closed"
expect_eq "an empty Transfer-Encoding -> 501" "$(raw "$rest" "${post}Transfer-Encoding: \r\n\r\n$smuggled")" "501 closed"
raw_body "$rest" "${post}Transfer-Encoding: identity\r\n\r\n" > "$work/r.json"
expect_eq "  ... OPA's error shape, without echoing the encoding" "$(cat "$work/r.json")" \
    '{"code":"invalid_parameter","message":"unsupported transfer encoding"}'
# 400s, and the connection closes.
expect_eq "Content-Length 2 and 3 -> 400" "$(raw "$rest" "${post}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{} ")" "400 closed"
expect_eq "Content-Length: 2, 2 -> 400" "$(raw "$rest" "${post}Content-Length: 2, 2\r\n\r\n{}")" "400 closed"
expect_eq "Content-Length: +2 -> 400" "$(raw "$rest" "${post}Content-Length: +2\r\n\r\n{}")" "400 closed"
# OPA reads these with the Transfer-Encoding and drops the Content-Length; RFC 9112 lets a
# server refuse them instead, which gavel does (no reading of the framing is left ambiguous).
expect_eq "Content-Length with Transfer-Encoding -> 400" \
    "$(raw "$rest" "${post}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")" "400 closed"
# What stays accepted, as OPA accepts it.
expect_eq "Transfer-Encoding: chunked -> 200, kept alive" \
    "$(raw "$rest" "${post}Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")" "200 open"
expect_eq "Transfer-Encoding: ' Chunked ' -> 200" \
    "$(raw "$rest" "${post}Transfer-Encoding:  Chunked \r\n\r\n2\r\n{}\r\n0\r\n\r\n")" "200 open"
expect_eq "the same Content-Length twice -> 200" "$(raw "$rest" "${post}Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}")" "200 open"
expect_eq "two requests on one connection -> 200 200" "$(raw "$rest" "${post}Content-Length: 2\r\n\r\n{}$smuggled")" "200 200 open"

# The admission listener refuses alike, with an AdmissionReview-shaped body.
adm_post='POST /validate/kubernetes/validating HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n'
expect_eq "admission: 501" "$(raw "$adm" "$adm_post")" "501 closed"
raw_body "$adm" "$adm_post" > "$work/r.json"
expect_eq "  ... as an AdmissionReview" "$(json_get "$work/r.json" '[input.kind, input.response.allowed, input.response.status.message]')" \
    '["AdmissionReview",false,"policy evaluation failed: unsupported transfer encoding"]'
expect_eq "still deciding" "$(curl -sS -o /dev/null -w '%{http_code}' --data-binary @"$fx/reviews/pod-good.json" \
    "http://127.0.0.1:$adm/validate/kubernetes/validating")" 200
stop_server "$framing_pid"

finish
