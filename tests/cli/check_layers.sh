#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/check_layers.sh: the layer check passes on the tree and fails,
# naming the file, line and both modules, when a module includes a header
# of its own layer's sibling or of a layer above it.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "check_layers.sh: $*"; exit 1; }

sh tests/check-layers.sh . || fail "the tree breaks its layers"

mkdir -p "$tmp/geometry" "$tmp/stats" "$tmp/solver"
printf '#include "common/cp.h"\n#include "solver/feas.h"\n' > "$tmp/geometry/up.c"
printf '#include "geometry/cone.h"\n' > "$tmp/stats/side.c"
printf '#include "geometry/cone.h"\n#include "stats/region.h"\n' > "$tmp/solver/down.c"
out=$(sh tests/check-layers.sh "$tmp"); rc=$?
[ "$rc" = 1 ] || fail "violations exit $rc, expected 1"
echo "$out" | grep -q '^check-layers: geometry/up.c:2: geometry (layer 2) includes solver/feas.h (solver, layer 3)$' ||
	fail "upward include not reported: $out"
echo "$out" | grep -q '^check-layers: stats/side.c:1: stats (layer 2) includes geometry/cone.h' ||
	fail "sibling include not reported: $out"
[ "$(echo "$out" | wc -l)" = 2 ] || fail "downward includes reported: $out"
exit 0
