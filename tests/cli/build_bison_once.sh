#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/build_bison_once.sh: bison's two outputs come from one run of
# one rule, so `make -j2` on a clean tree cannot run two bisons writing the
# same files at once (it failed about one build in four).  make -n on a
# copy of the Makefile lists the recipes a clean build would run.
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
mkdir -p "$out/dsl"
cp Makefile "$out/" && cp dsl/parser.y dsl/lexer.l "$out/dsl/" || exit 1
for j in 1 2; do
	n=$(cd "$out" && make -n -j$j build/gen/dsl/parser.c build/gen/dsl/parser.h \
		build/gen/dsl/lexer.c 2>&1 | grep -c '^bison ')
	[ "$n" = 1 ] || { echo "make -j$j would run bison $n times"; exit 1; }
done
exit 0
