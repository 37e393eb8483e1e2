#!/usr/bin/env bash
# Puts simdjson.cpp and simdjson.h from Debian's simdjson source package (the
# version of the installed libsimdjson-dev) into DIR, for -Dstatic=true: bookworm
# ships libsimdjson.so only. apt-get source runs with a private copy of the
# machine's apt sources with deb-src added, so the system's configuration is
# left as it is. Usage: fetch-simdjson-source.sh DIR
set -euo pipefail
dest=${1:?usage: fetch-simdjson-source.sh DIR}
version=$(dpkg-query -W -f='${source:Version}' libsimdjson-dev)
if [[ -f "$dest/simdjson.cpp" && "$(cat "$dest/VERSION" 2>/dev/null)" == "$version" ]]; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/parts" "$work/lists/partial"
shopt -s nullglob
for f in /etc/apt/sources.list.d/*.sources; do
  sed -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb deb-src/' "$f" >"$work/parts/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [[ -f $f ]] && sed -nE 's/^deb[[:space:]]/deb-src /p' "$f" >>"$work/parts/from-lists.list"
done
apt=(apt-get -qq -o "Dir::Etc::SourceParts=$work/parts" -o Dir::Etc::SourceList=/dev/null
     -o "Dir::State::Lists=$work/lists" -o APT::Sandbox::User=root)
"${apt[@]}" update
(cd "$work" && "${apt[@]}" source --download-only "simdjson=$version" >/dev/null)
dpkg-source --no-check -x "$work"/simdjson_*.dsc "$work/src" >/dev/null
mkdir -p "$dest"
cp "$work/src/singleheader/simdjson.cpp" "$work/src/singleheader/simdjson.h" "$work/src/LICENSE" "$dest/"
echo "$version" >"$dest/VERSION"
echo "simdjson $version source in $dest"
