# The gavel container image: one static binary on an empty base.
#   docker build -t gavel:0.1.0 .
#   docker build --build-arg BUILD_IMAGE=registry.local/debian:bookworm .   (no Docker Hub)
# Stage 1 builds with Debian bookworm's packages only (scripts/install-deps.sh);
# stage 2 is `scratch` plus what scripts/image-rootfs.sh lays out: the stripped
# binary, CA certificates (for http.send over HTTPS) and a passwd entry for the
# non-root user. gavel needs no shared library, no shell and no
# /usr/share/zoneinfo (its time zones are embedded). test/e2e/static_chroot.sh
# runs that same file system in a chroot, so CI tests the final stage without a
# container runtime.
ARG BUILD_IMAGE=debian:bookworm
FROM ${BUILD_IMAGE} AS build
ENV DEBIAN_FRONTEND=noninteractive
WORKDIR /src
COPY scripts/install-deps.sh scripts/fetch-simdjson-source.sh scripts/
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends ca-certificates git && scripts/install-deps.sh
# The whole tree, .git included: `gavel version` reports the commit it was built from.
COPY . .
RUN scripts/build.sh /build -Dbenchmarks=false -Dstatic=true -Dbuildtype=release -- cli/gavel \
 && scripts/image-rootfs.sh /rootfs /build/cli/gavel

FROM scratch
COPY --from=build /rootfs /
# OpenSSL's compiled-in default is /usr/lib/ssl/cert.pem; point it at the bundle.
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
USER 65532:65532
EXPOSE 8443 8282
ENTRYPOINT ["/gavel"]
CMD ["serve", "--policies", "/policies"]
