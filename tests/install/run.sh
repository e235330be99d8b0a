#!/bin/sh
# Installs the build tree into a temporary prefix, then configures, builds and
# runs a consumer project that uses find_package(meshgen CONFIG) and
# meshgen_add_mesh(), with nothing from the source tree on its paths. Then
# the installed meshgen generates the same mesh and a program is built from
# it with the installed pkg-config files alone.
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

gen="$tmp/gen"
mkdir "$gen"
"$tmp/prefix/bin/meshgen" generate "$src/consumer/mesh.yaml" \
  --inventory "synthetic:pack:2 core:4 pu:1" -o "$gen"
libdir=$(dirname "$(find "$tmp/prefix" -name meshgen-placement.pc)")
flags=$(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs meshgen-placement)
${CC:-cc} -std=c11 -Wall -Wextra -Werror -I "$gen" "$src/pkgconfig.c" "$gen/consumer_mesh.c" \
  $flags -o "$tmp/pkgconfig"
out=$("$tmp/pkgconfig")
echo "$out"
[ "$out" = "device at (1,2): 6
verify: ran" ]
