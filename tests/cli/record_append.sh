#!/bin/sh
# tests/cli/record_append.sh: --append starts a new file with the header,
# adds later observations without a second header, and refuses a file
# that is not a dataset.
CP=${CP:-bin/counterpoint}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
f=$out/d.csv
"$CP" record -u -I 100000 -e page-faults --observation one --append -o "$f" -- true || exit 1
"$CP" record -u -I 100000 -e page-faults --observation two --append -o "$f" -- true || exit 1
[ "$(grep -c '^observation,' "$f")" = 1 ] || { echo "header count"; cat "$f"; exit 1; }
[ "$(cut -d, -f1 "$f" | tr '\n' ' ')" = "observation one two " ] || { cat "$f"; exit 1; }
# without --append the file is replaced
"$CP" record -u -I 100000 -e page-faults --observation three -o "$f" -- true || exit 1
[ "$(cut -d, -f1 "$f" | tr '\n' ' ')" = "observation three " ] || { cat "$f"; exit 1; }
exit 0
