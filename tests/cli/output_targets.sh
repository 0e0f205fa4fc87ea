#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/output_targets.sh: what -o does with each kind of target (here
# through `counterpoint sim`; every command writes through the same code):
# a regular file keeps its mode and hard links, a symlink stays a link to
# the file written, a FIFO and a character device are written in place,
# /dev/stdout is the open descriptor itself, a directory is refused.  Device nodes are our own (root can make them),
# never the system's.
CP=${CP:-bin/counterpoint}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
sim() { "$CP" sim --intervals 2 --interval-uops 200 --seed 3 "$@"; }
sim -o "$out/want.csv" || exit 1

# mode and hard links
sim -o "$out/f.csv" && chmod 600 "$out/f.csv" && ln "$out/f.csv" "$out/g.csv" || exit 1
: > "$out/f.csv"
sim -o "$out/f.csv" || exit 1
cmp -s "$out/g.csv" "$out/want.csv" || { echo "hard link cut"; exit 1; }
[ "$(stat -c %a "$out/f.csv")" = 600 ] || { echo "mode $(stat -c %a "$out/f.csv")"; exit 1; }

# a hard-linked target without room for the new content (a file size
# limit here, as a full disk) keeps its old content under both names
cp "$out/want.csv" "$out/f.csv" && [ "$(stat -c %h "$out/g.csv")" = 2 ] || exit 1
(trap '' XFSZ; ulimit -f 4 && exec "$CP" sim --intervals 300 --interval-uops 200 \
	-o "$out/f.csv") 2>"$out/err"; rc=$?
[ "$rc" = 2 ] || { echo "full: status $rc"; exit 1; }
cmp -s "$out/f.csv" "$out/want.csv" && cmp -s "$out/g.csv" "$out/want.csv" ||
	{ echo "a failed write changed the hard-linked target"; exit 1; }
grep -q "File too large" "$out/err" || { cat "$out/err"; exit 1; }
ls "$out" | grep -q '\.tmp\.' && { echo "temporary file left"; ls "$out"; exit 1; }

# a symlink is followed and stays
ln -s f.csv "$out/l.csv" && rm "$out/g.csv" && : > "$out/f.csv" || exit 1
sim -o "$out/l.csv" || exit 1
[ -L "$out/l.csv" ] || { echo "symlink replaced"; exit 1; }
cmp -s "$out/f.csv" "$out/want.csv" || { echo "symlink target not written"; exit 1; }

# a FIFO is written in place
mkfifo "$out/p" || exit 1
cat "$out/p" > "$out/from-pipe.csv" &
sim -o "$out/p" || exit 1
wait
[ -p "$out/p" ] || { echo "FIFO replaced"; exit 1; }
cmp -s "$out/from-pipe.csv" "$out/want.csv" || { echo "FIFO not written"; exit 1; }

# /dev/stdout is the open descriptor itself: a pipe gets the data, a file
# opened for appending is appended to
sim -o /dev/stdout | cat > "$out/from-stdout.csv" || exit 1
cmp -s "$out/from-stdout.csv" "$out/want.csv" || { echo "/dev/stdout into a pipe"; exit 1; }
echo "first line" > "$out/log"
sim -o /dev/stdout >> "$out/log" || exit 1
{ echo "first line"; cat "$out/want.csv"; } | cmp -s - "$out/log" || { echo "/dev/stdout appended"; exit 1; }

# a directory is refused, untouched
sim -o "$out" 2>"$out/err"; rc=$?
[ "$rc" = 2 ] || { echo "directory: status $rc"; exit 1; }
[ "$(cat "$out/err")" = "counterpoint sim: $out: cannot write to a directory" ] ||
	{ cat "$out/err"; exit 1; }

# character devices, when we may make them: written, never replaced
if mknod "$out/null" c 1 3 2>/dev/null && mknod "$out/full" c 1 7; then
	sim -o "$out/null" || exit 1
	[ -c "$out/null" ] || { echo "device replaced"; exit 1; }
	sim -o "$out/full" 2>"$out/err"; rc=$?
	[ "$rc" = 2 ] && [ -c "$out/full" ] || { echo "full: status $rc"; exit 1; }
	grep -q "No space left on device" "$out/err" || { cat "$out/err"; exit 1; }
fi
exit 0
