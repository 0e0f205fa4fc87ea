#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/gem5_check.sh: the gem5 example of docs/manual/recording.md runs as
# documented.  The indented block of its "gem5 statistics" section is a
# transcript: each "$ " line a command, run in order in one shell (in a
# scratch folder that sees tests/ and models/), the other lines what the
# commands print, stdout and stderr together.  The transcript made here
# must equal the documented one.
top=$(pwd)
CP=${CP:-$top/bin/counterpoint}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
awk '/^## gem5 statistics/ { on = 1; next }
	on && /^## / { exit }
	on && /^    \$ / { block = 1 }
	block && /^    / { print substr($0, 5); next }
	block && /^$/ { print ""; next }
	block { exit }' docs/manual/recording.md >"$out/doc"
# a blank line ends the transcript unless more of it follows
sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$out/doc" >"$out/want"
[ -s "$out/want" ] || { echo "docs/manual/recording.md has no gem5 transcript"; exit 1; }
mkdir "$out/run" "$out/bin"
ln -s "$top/tests" "$out/run/tests"
ln -s "$top/models" "$out/run/models"
ln -s "$CP" "$out/bin/counterpoint"
n=0
grep '^\$ ' "$out/want" | while IFS= read -r line; do
	n=$((n + 1))
	printf '%s\n' "${line#\$ }" >"$out/cmd.$n"
	printf "printf '%%s\\\\n' '\$ '\"\$(cat %s)\"; . %s 2>&1\n" \
		"$out/cmd.$n" "$out/cmd.$n"
done >"$out/script"
(cd "$out/run" && PATH="$out/bin:$PATH" sh "$out/script") >"$out/got"
if ! cmp -s "$out/want" "$out/got"; then
	echo "the gem5 transcript of docs/manual/recording.md differs from a run:"
	diff -u "$out/want" "$out/got"
	exit 1
fi
grep -q 'INFEASIBLE' "$out/got" || { echo "no refutation in the transcript"; exit 1; }
exit 0
