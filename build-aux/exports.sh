#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# build-aux/exports.sh NODE "HEADERS" OBJECTS...: the shared library's
# version script.  Exported are the global symbols the objects define that
# the public HEADERS declare (every identifier of theirs that is such a
# symbol); everything else is local, so module-internal functions shared
# between a module's files stay out of the ABI.
node=$1; hdrs=$2; shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
for h in $hdrs; do ${CC:-cc} -fpreprocessed -dD -E -P "$h"; done | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u > "$tmp/idents"
nm -g --defined-only "$@" | awk 'NF == 3 && $2 ~ /[TDRBVW]/ { print $3 }' | sort -u > "$tmp/syms"
echo "$node {"
echo "global:"
comm -12 "$tmp/idents" "$tmp/syms" | sed 's/^/\t/; s/$/;/'
echo "local:"
echo "	*;"
echo "};"
