#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/suggest_evidence.sh [-v] [F[:G,...]...]: does `counterpoint
# suggest` rediscover a feature's μpaths?  For each feature F of
# models/haswell/mmu.udd (default: merge abort replay pde_early bypass
# merge:abort abort:merge), simulate three workloads with F on (and the
# features G after a colon; seeds and workloads the repository uses
# nowhere else), run suggest on the model with the true features but F
# (--with G), and check that the first suggestion explains every
# observation and that each of its new signatures is one the true model
# has (`paths --with F,G`).  Prints one table row per case
# (docs/manual/suggest.md), and the commands with -v; exit 1 when a row fails.
CP=${CP:-bin/counterpoint}
M=${M:-models/haswell/mmu.udd}
verbose=0
[ "$1" = -v ] && { verbose=1; shift; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0

# The workloads of a feature: where its μpaths are taken often enough,
# and few enough kinds of them that two new μpaths can carry them.
workloads() {
	case $1 in
	merge)  # merging needs several loads to one page in flight
		echo "linear:footprint=64M,stride=64,dir=up,stores=0.3 7714"
		echo "linear:footprint=512M,stride=128,dir=down,stores=0.1 7715"
		echo "random:footprint=4G,stores=0.25 7716" ;;
	replay)  # walks of one kind (small page tables), so one replayed μpath a uop
		echo "linear:footprint=64M,stride=4096,dir=up,stores=0.2 7721"
		echo "linear:footprint=128M,stride=4096,dir=down,stores=0.3 7722"
		echo "linear:footprint=96M,stride=8192,dir=up,stores=0.1 7723" ;;
	*)
		echo "random:footprint=4G,stores=0.25 7711"
		echo "linear:footprint=256M,stride=4096,dir=down,stores=0.1 7712"
		echo "random:footprint=16G,stores=0.4 7713" ;;
	esac
}

for spec in ${*:-merge abort replay pde_early bypass merge:abort abort:merge}; do
	f=${spec%%:*}
	with=
	case $spec in *:*) with=${spec#*:} ;; esac
	true=$f${with:+,$with}
	data=$tmp/$f.csv
	cmds=
	first=1
	workloads "$f" > "$tmp/w"
	while read -r w seed; do
		c="$CP sim --features $true --pages 4k --intervals 60 --interval-uops 20000 --workload $w --seed $seed"
		cmds="$cmds$c
"
		if [ $first = 1 ]; then
			$c > "$data" || exit 2
			first=0
		else
			$c | tail -n +2 >> "$data" || exit 2
		fi
	done < "$tmp/w"
	$CP paths "$M" --with "$true" --json > "$tmp/true.json" || exit 2
	t0=$(date +%s.%N)
	$CP suggest "$M" "$data" --with "$with" --json -v > "$tmp/s.json" 2> "$tmp/s.err"
	rc=$?
	t1=$(date +%s.%N)
	[ $rc -le 1 ] || { cat "$tmp/s.err"; exit 2; }
	row=$(python3 - "$tmp/s.json" "$tmp/true.json" "$f" "$with" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
f = sys.argv[3] + (f" (--with {sys.argv[4]})" if sys.argv[4] else "")
names = [c["name"] for c in t["counters"]]
true = {(u, tuple(x["vector"])) for x in t["signatures"] for u in x["paths_by_uop"]}
ours = [c["name"] for c in s["counters"]]
for p in s["suggestions"][0]["signatures"] if s["suggestions"] else []:
    p["counts"] = {n: v for n, v in zip(ours, p["vector"]) if v}
if not s["suggestions"]:
    print(f"| {f} | {s['usable']} | {s['refuting']} | (none) | no | no |"); sys.exit(1)
x = s["suggestions"][0]
every = x["explains"] == x["of"] == s["usable"]
ok = all((p["uop"], tuple(p["counts"].get(n, 0) for n in names)) in true
         for p in x["signatures"])
paths = "; ".join(p["uop"] + ": " + ", ".join(k if v == 1 else f"{k}*{v}"
                  for k, v in p["counts"].items()) for p in x["signatures"])
print(f"| {f} | {s['usable']} | {s['refuting']} | {paths} | "
      f"{'yes' if every else 'no'} ({x['explains']}/{x['of']}) | {'yes' if ok else 'no'} |")
sys.exit(0 if every and ok else 1)
PY
) || status=1
	printf '%s %.1f s |\n' "$row" "$(echo "$t1 - $t0" | bc)"
	if [ $verbose = 1 ]; then
		printf '%s' "$cmds" | sed 's/^/    /'
		echo "    $CP suggest $M DATA${with:+ --with $with}"
		sed 's/^/    /' "$tmp/s.err"
	fi
done
exit $status
