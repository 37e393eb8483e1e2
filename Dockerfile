# The gavel container image: one static binary on an empty base.
#   docker build -t gavel:0.1.0 .
# Stage 1 builds with Debian bookworm's packages only (scripts/install-deps.sh);
# stage 2 is `scratch` plus CA certificates (for http.send over HTTPS) and a
# passwd entry for the non-root user: gavel needs no shared library, no shell
# and no /usr/share/zoneinfo (its time zones are embedded).
FROM debian:bookworm AS build
ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /src
COPY scripts/install-deps.sh scripts/fetch-simdjson-source.sh scripts/
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates git && scripts/install-deps.sh
COPY . .
RUN scripts/build.sh /build -Dbenchmarks=false -Dstatic=true -Dbuildtype=release \
 && file /build/cli/gavel | grep -q 'static' \
 && strip -o /gavel /build/cli/gavel
RUN mkdir -p /rootfs/etc/ssl/certs /rootfs/tmp \
 && cp /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/ \
 && echo 'gavel:x:65532:65532:gavel:/nonexistent:/sbin/nologin' > /rootfs/etc/passwd \
 && echo 'gavel:x:65532:' > /rootfs/etc/group \
 && chmod 1777 /rootfs/tmp

FROM scratch
COPY --from=build /rootfs /
COPY --from=build /gavel /gavel
# OpenSSL's compiled-in default is /usr/lib/ssl/cert.pem; point it at the bundle.
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
USER 65532:65532
EXPOSE 8443 8282
ENTRYPOINT ["/gavel"]
CMD ["serve", "--policies", "/policies"]
