#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/sim_inputs.sh: what sim reads and names.  A trace is opened
# and read once (a FIFO, a pipe, --sweep's four page sizes, an .xz file
# decompressed once); lackey lines of any length, strict records;
# --config lines of any length, a NUL byte, a directory or /dev/zero an
# error at file:line, a check error at the line that set the value; names
# that load back as given (quotes, blanks, commas, any length), names no
# dataset holds refused, as are --intervals 0 and outputs that are inputs.
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "sim_inputs.sh: $*"; exit 1; }
sim() { timeout 60 "$CP" sim --intervals 2 --interval-uops 500 --warmup 1000 "$@"; }
xz -dc datasets/awk.lackey.xz | head -n 5000 > "$tmp/t.lackey" || fail "no xz"
sim --workload trace:"$tmp/t.lackey" -o "$tmp/want.csv" || fail "plain trace: $?"
sed 's/^trace-t-/trace-S-/' "$tmp/want.csv" > "$tmp/want-S.csv"

# a FIFO (opened twice, the second open waited for a writer forever)
mkfifo "$tmp/S" || fail mkfifo
cat "$tmp/t.lackey" > "$tmp/S" &
sim --workload trace:"$tmp/S" -o "$tmp/fifo.csv" || fail "FIFO: $?"
wait
cmp -s "$tmp/fifo.csv" "$tmp/want-S.csv" || fail "the FIFO's dataset differs"
# a pipe (read twice, the second read found nothing)
cat "$tmp/t.lackey" | sim --workload trace:/dev/stdin --name t -o "$tmp/pipe.csv" ||
	fail "pipe: $?"
sed 's/^trace-t-4k,/t,/' "$tmp/want.csv" | cmp -s - "$tmp/pipe.csv" || fail "the pipe's dataset differs"
cat "$tmp/t.lackey" | sim --workload trace:/dev/stdin --sweep -o "$tmp/sweep.csv" ||
	fail "pipe, --sweep: $?"
grep -c '^trace-stdin-' "$tmp/sweep.csv" | grep -qx 224 || fail "--sweep of a pipe: not 4 observations"
# .xz: xz runs once, its failure said in words
mkdir "$tmp/bin" && xz -z -c "$tmp/t.lackey" > "$tmp/t.lackey.xz" || fail "xz -z"
cat > "$tmp/bin/xz" <<EOF
#!/bin/sh
echo run >> "$tmp/xz-runs"
exec $(command -v xz) "\$@"
EOF
chmod +x "$tmp/bin/xz"
PATH="$tmp/bin:$PATH" sim --workload trace:"$tmp/t.lackey.xz" --sweep -o "$tmp/xz.csv" ||
	fail "xz: $?"
[ "$(wc -l < "$tmp/xz-runs")" = 1 ] || fail "xz ran $(wc -l < "$tmp/xz-runs") times"
printf 'not xz' > "$tmp/bad.xz"
sim --workload trace:"$tmp/bad.xz" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "^counterpoint sim: cannot decompress '$tmp/bad.xz' (xz exited with status 1)$" "$tmp/err" ||
	fail "bad .xz: status $rc: $(cat "$tmp/err")"

# lackey: a real trace's long command line, strict records
{ printf '==123== Command: ./prog'; i=0; while [ $i -lt 40 ]; do printf ' --an-option-%d' $i; i=$((i + 1)); done
  printf '\n'; cat "$tmp/t.lackey"; } > "$tmp/long.lackey"
sim --workload trace:"$tmp/long.lackey" --name t -o "$tmp/long.csv" || fail "a 700-byte ==PID== line: $?"
for rec in ' L -1,8' ' L 1000,zz' ' L 1000,0' ' S ,8' ' L 10000000000000000,8' ' X 1000,8'; do
	{ echo ' L 1000,8'; echo "$rec"; } > "$tmp/bad.lackey"
	sim --workload trace:"$tmp/bad.lackey" 2>"$tmp/err"; rc=$?
	[ $rc = 2 ] && grep -q "^counterpoint sim: $tmp/bad.lackey:2: " "$tmp/err" ||
		fail "lackey record '$rec' accepted (status $rc): $(cat "$tmp/err")"
done

# --config
{ printf '# '; i=0; while [ $i -lt 60 ]; do printf 'a comment '; i=$((i + 1)); done
  printf ' stlb_entries = 512\n'; } > "$tmp/long.cfg"
"$CP" sim --config "$tmp/long.cfg" --print-config | grep -q '^stlb_entries *= 1024 ' ||
	fail "the tail of a long comment set a parameter"
printf 'stlb_entries = 512\0\n' > "$tmp/nul.cfg"
for c in "$tmp/nul.cfg:1:19: not a text file (NUL byte)" \
	 "/dev/zero:1:1: not a text file (NUL byte)" \
	 "cannot read '$tmp': Is a directory"; do
	f=${c%%:*}; case $c in cannot*) f=$tmp ;; esac
	timeout 10 "$CP" sim --config "$f" --print-config >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "counterpoint sim: $c" ] ||
		fail "--config $f: status $rc: $(cat "$tmp/err")"
done
printf 'walkers = 2\n\nstlb_ways = 8\nstlb_entries = 1000\n' > "$tmp/bad.cfg"
"$CP" sim --config "$tmp/bad.cfg" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ "$(cat "$tmp/err")" = "counterpoint sim: $tmp/bad.cfg:4: stlb: 1000 entries in 8 ways do not make a power of two of sets" ] ||
	fail "a check error without its line: $(cat "$tmp/err")"

# names: what is written loads back as it was given
long=$(printf '%0300d' 7)
for n in '"x' ' pad ' 'a,b' 'tab	' "$long" 'ünï'; do
	sim --name "$n" -o "$tmp/n.csv" || fail "--name '$n': $?"
	"$CP" region "$tmp/n.csv" --json > "$tmp/n.json" || fail "--name '$n' does not load"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["observations"][0]["name"] != sys.argv[2])' \
		"$tmp/n.json" "$n" || fail "--name '$n' came back as something else"
done
for n in '' "$(printf 'a\nb')"; do
	sim --name "$n" -o "$tmp/n.csv" 2>/dev/null && fail "--name '$n' accepted"
done
sim --intervals 0 -o "$tmp/zero.csv" 2>/dev/null && fail "--intervals 0 accepted"
[ -e "$tmp/zero.csv" ] && fail "--intervals 0 wrote a file"

# outputs that are inputs, or each other
cp "$tmp/t.lackey" "$tmp/keep.lackey"
for args in "--truth $tmp/s.csv -o $tmp/s.csv" "--config $tmp/long.cfg -o $tmp/long.cfg" \
	    "--workload trace:$tmp/keep.lackey -o $tmp/keep.lackey"; do
	# shellcheck disable=SC2086
	sim $args 2>"$tmp/err"; rc=$?
	[ $rc = 2 ] && grep -q "are the same file" "$tmp/err" || fail "$args: status $rc"
done
cmp -s "$tmp/t.lackey" "$tmp/keep.lackey" || fail "the trace was overwritten"
exit 0
