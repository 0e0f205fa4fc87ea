#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/readme.sh: every example in README.md runs as written.
# Each ```sh block (but the install block, `make deps && make test`,
# which is what .ci/run runs) is run command by command in a scratch
# directory holding the repository's models/ and tests/ and with bin/ on
# the PATH; a command may end with status 0 or 1 (a negative result),
# never 2 or 3.  Each ```text block shows output: every line of it must
# be a line the commands of the block before it printed.  README stays
# within 150 lines.
top=$(pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "readme.sh: $*"; exit 1; }
[ -x bin/counterpoint ] || fail "bin/counterpoint not built"
lines=$(wc -l < README.md)
[ "$lines" -le 150 ] || fail "README.md has $lines lines (at most 150)"
ln -s "$top/models" "$tmp/models"
ln -s "$top/tests" "$tmp/tests"
PATH=$top/bin:$PATH; export PATH

# split README into numbered blocks: $tmp/b.N.sh and $tmp/b.N.text
awk -v dir="$tmp" '
	/^```sh$/   { n++; f = dir "/b." n ".sh"; printf "" > f; next }
	/^```text$/ { n++; f = dir "/b." n ".text"; printf "" > f; next }
	/^```/      { f = ""; next }
	f != ""     { print >> f }
' README.md
ls "$tmp"/b.*.sh >/dev/null 2>&1 || fail "README has no sh block"

n=1; ran=0; shown=0
while [ -f "$tmp/b.$n.sh" ] || [ -f "$tmp/b.$n.text" ]; do
	if [ -f "$tmp/b.$n.sh" ]; then
		if grep -q '^make deps' "$tmp/b.$n.sh"; then
			n=$((n + 1)); continue
		fi
		: > "$tmp/out"
		# join continuation lines, then one command per line
		sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$tmp/b.$n.sh" |
		grep -v '^[[:space:]]*\(#.*\)\{0,1\}$' > "$tmp/cmds"
		while IFS= read -r cmd; do
			(cd "$tmp" && sh -c "$cmd") >> "$tmp/out" 2>"$tmp/err" </dev/null
			rc=$?
			[ $rc -le 1 ] || { cat "$tmp/err"; fail "block $n: '$cmd' exited with $rc"; }
			ran=$((ran + 1))
		done < "$tmp/cmds"
	else
		while IFS= read -r line; do
			grep -qxF -- "$line" "$tmp/out" ||
				fail "block $n shows a line the commands before it did not print: $line"
		done < "$tmp/b.$n.text"
		shown=$((shown + 1))
	fi
	n=$((n + 1))
done
[ $ran -ge 10 ] || fail "only $ran README commands ran"
[ $shown -ge 2 ] || fail "only $shown output blocks compared"
exit 0
