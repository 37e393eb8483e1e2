#!/usr/bin/env bash
# The embedding API as a user gets it: `meson install` into a scratch root, then
# examples/embed/main.cpp compiled outside the tree with `pkg-config --cflags --libs gavel`
# alone, and run. Usage: embed_installed.sh BUILD_DIR
source "$(dirname "$0")/lib.sh"
build=$(realpath "$1")
command -v pkg-config > /dev/null || { echo "SKIP: no pkg-config"; exit 77; }
if ! meson install -C "$build" --no-rebuild --destdir "$work/root" --quiet > "$work/install.log" 2>&1; then
    echo "FAIL meson install"; cat "$work/install.log"; exit 1
fi
pc=$(find "$work/root" -name gavel.pc | head -1)
[[ -n $pc ]] || { echo "FAIL no gavel.pc installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$work/root
flags=$(pkg-config --cflags --libs gavel) || { echo "FAIL pkg-config gavel"; exit 1; }
echo "pkg-config --cflags --libs gavel: $flags"
# Only the installed copy: the example is copied out of the tree, and no -I points into it.
cp "$root/examples/embed/main.cpp" "$work/embed.cpp"
if ! c++ -O1 "$work/embed.cpp" $flags -o "$work/embed" 2> "$work/cc.log"; then
    echo "FAIL the example does not build against the installed copy"; grep -v "warning: Using" "$work/cc.log" | head -30; exit 1
fi
out=$("$work/embed" 2>&1)
echo "$out"
if echo "$out" | grep -q "image 'nginx' comes from untrusted registry"; then echo "ok   built and ran against the installed library"; exit 0; fi
echo "FAIL unexpected output"; exit 1
