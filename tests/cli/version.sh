#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/version.sh: one version everywhere (docs/manual/versions.md):
# cp_version() (what --version prints first), CITATION.cff, and, when the
# checkout is at a release tag vX.Y.Z, that tag; otherwise the commit
# the binary was built from is the checkout's (not an earlier build's).
v=$("$CP" --version | sed -n '1s/^counterpoint \([0-9][0-9.]*\).*/\1/p')
[ -n "$v" ] || { echo "version.sh: --version prints no release"; exit 1; }
c=$(sed -n 's/^version: //p' CITATION.cff)
[ "$v" = "$c" ] || { echo "version.sh: --version says $v, CITATION.cff $c"; exit 1; }
t=$(git describe --tags --exact-match 2>/dev/null)
case $t in
v*) [ "$t" = "v$v" ] || { echo "version.sh: checkout at tag $t, version $v"; exit 1; } ;;
"") h=$(git rev-parse --short HEAD 2>/dev/null)
    [ -z "$h" ] || "$CP" --version | head -1 | grep -q "$h" ||
	{ echo "version.sh: --version names another commit than $h: $("$CP" --version | head -1)"; exit 1; } ;;
esac
exit 0
