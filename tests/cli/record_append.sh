#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/record_append.sh: --append starts a new file with the header,
# adds later observations without a second header, and refuses a file
# that is not a dataset or already has the observation.
CP=${CP:-bin/counterpoint}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
f=$out/d.csv
"$CP" record -u -I 100000 -e page-faults --observation one --append -o "$f" -- true || exit 1
"$CP" record -u -I 100000 -e page-faults --observation two --append -o "$f" -- true || exit 1
[ "$(grep -c '^observation,' "$f")" = 1 ] || { echo "header count"; cat "$f"; exit 1; }
[ "$(cut -d, -f1 "$f" | tr '\n' ' ')" = "observation one two " ] || { cat "$f"; exit 1; }
# an observation the file already has is refused before the command runs,
# and the file is left as it was (check would reject the dataset)
cp "$f" "$out/before.csv"
"$CP" record -u -I 100000 -e page-faults --observation two --append -o "$f" -- \
	touch "$out/ran" 2>"$out/err"; rc=$?
[ "$rc" = 2 ] || { echo "duplicate observation: status $rc"; cat "$out/err"; exit 1; }
[ "$(cat "$out/err")" = "counterpoint record: '$f' already has observation 'two' (name this run with --observation NAME)" ] ||
	{ cat "$out/err"; exit 1; }
[ ! -e "$out/ran" ] || { echo "the command ran"; exit 1; }
cmp -s "$f" "$out/before.csv" || { echo "file changed"; exit 1; }
# a file that does not load as a dataset is refused with the loader's words
printf 'observation,interval,event,value,enabled_ns,running_ns\nx,0,page-faults,12\n' > "$out/bad.csv"
"$CP" record -u -I 100000 -e page-faults --observation y --append -o "$out/bad.csv" -- true 2>"$out/err"; rc=$?
[ "$rc" = 2 ] && grep -q "^counterpoint record: $out/bad.csv:2: " "$out/err" ||
	{ echo "bad dataset: status $rc"; cat "$out/err"; exit 1; }
# a file holding only the header takes rows
printf 'observation,interval,event,value,enabled_ns,running_ns\n' > "$out/h.csv"
"$CP" record -u -I 100000 -e page-faults --observation h --append -o "$out/h.csv" -- true || exit 1
[ "$(cut -d, -f1 "$out/h.csv" | tr '\n' ' ')" = "observation h " ] || { cat "$out/h.csv"; exit 1; }
# without --append the file is replaced
"$CP" record -u -I 100000 -e page-faults --observation three -o "$f" -- true || exit 1
[ "$(cut -d, -f1 "$f" | tr '\n' ' ')" = "observation three " ] || { cat "$f"; exit 1; }
exit 0
