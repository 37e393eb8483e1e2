#!/usr/bin/env bash
# Lays out the container image's file system (the Dockerfile's final stage) in ROOTFS:
# the static gavel, stripped, at /gavel; the CA bundle (http.send over HTTPS); a
# passwd and group entry for the non-root user 65532; a world-writable /tmp. Nothing
# else: no shell, no libc, no /usr/share/zoneinfo (the time zones are embedded).
# The Dockerfile runs it, and test/e2e/static_chroot.sh runs gavel in what it makes.
# Usage: image-rootfs.sh ROOTFS GAVEL
set -euo pipefail
rootfs=$1
gavel=$2
# A static binary asks for no program interpreter and no shared library.
if readelf -l "$gavel" | grep -q 'program interpreter' || readelf -d "$gavel" | grep -q '(NEEDED)'; then
  echo "image-rootfs.sh: $gavel is not statically linked (build with -Dstatic=true)" >&2
  exit 1
fi
mkdir -p "$rootfs/etc/ssl/certs" "$rootfs/tmp"
strip -o "$rootfs/gavel" "$gavel"
cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/"
echo 'gavel:x:65532:65532:gavel:/nonexistent:/sbin/nologin' > "$rootfs/etc/passwd"
echo 'gavel:x:65532:' > "$rootfs/etc/group"
chmod 1777 "$rootfs/tmp"
