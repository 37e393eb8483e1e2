#!/usr/bin/env bash
# Installs the Debian packages gavel builds with; a no-op when all are present.
set -euo pipefail

packages=(
  g++ meson ninja-build pkg-config
  libboost-dev libssl-dev libsimdjson-dev libfmt-dev libyaml-dev
  libre2-dev zlib1g-dev libcli11-dev libedit-dev doctest-dev libbenchmark-dev
  tzdata  # embedded into gavel at build time (stdlib/zoneinfo_embedded)
  dpkg-dev  # dpkg-source: simdjson's source package for the static build
  tmux  # the REPL's e2e test drives a terminal session
  curl openssl  # gavel serve's e2e tests are HTTPS clients and make test certificates
  wrk  # test/bench/load_serve.sh, the webhook load test
  sqlite3  # examples/data-filtering/check.sh runs the SQL filters gavel makes
  clang-format  # scripts/check-format.sh, the `format` test
  ca-certificates  # the container image's CA bundle (scripts/image-rootfs.sh, the chroot test)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The static build (-Dstatic=true, scripts/build.sh's default for release builds)
# compiles simdjson from Debian's source package: bookworm has no libsimdjson.a.
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO=sudo
$SUDO "$(dirname "$0")/fetch-simdjson-source.sh" /usr/local/src/gavel-static/simdjson
