#!/bin/sh
# Installs the build tree into a temporary prefix, then configures, builds and
# runs a consumer project that uses find_package(meshgen CONFIG) and
# meshgen_add_mesh(), with nothing from the source tree on its paths.
set -eu
build=$1
src=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/consumer" -B "$tmp/build" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/build" >/dev/null
out=$("$tmp/build/consumer")
echo "$out"
[ "$out" = "device at (1,2): 6" ]
