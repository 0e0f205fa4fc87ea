#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/record_pmu_terms.sh: perf's PMU syntax in record -e, commas
# and all: software/config=2,config1=0/ is page-faults (type 1, config 2),
# so in one group with page-faults it counts the same faults: the same
# total over the run (the program has ended at the last read), though an
# interval's two reads may fall either side of a fault the running program
# takes meanwhile (a group read of software events is not atomic).  The
# dataset names it as given (quoted: it has a comma).  A model's counter line may name it too.
CP=${CP:-bin/counterpoint}
[ -r /sys/bus/event_source/devices/software/type ] || { echo "no software PMU in sysfs"; exit 77; }
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$CP" record -u -I 10 -e '{page-faults,software/config=2,config1=0/}' -o "$out/d.csv" -- \
	"$CP" bench-workload linear --footprint 16M --accesses 1 -q 2>"$out/err" ||
	{ cat "$out/err"; exit 1; }
awk -F, 'NR == 1 { next }
$3 == "page-faults" { pf[$2] = $4; next }
$3 == "\"software/config=2" && $4 == "config1=0/\"" { sw[$2] = $5; n++; next }
{ print "unexpected row: " $0; bad = 1 }
END {
	for (i in pf) { tp += pf[i]; ts += sw[i] }
	if (tp != ts) { print "total: " tp " != " ts; bad = 1 }
	if (n < 1 || bad) exit 1
}' "$out/d.csv" || { cat "$out/d.csv"; exit 1; }
# the same event through a model's counter line
cat > "$out/m.udd" <<'M'
counter pf "page-faults";
counter sw "software/config=2,config1=0/";
uop fault { incr pf, sw; done; }
M
"$CP" record --dry-run --model "$out/m.udd" >"$out/dry" || exit 1
grep -q '^software/config=2,config1=0/	group=0 type=1 config=0x2 pmu=software software$' "$out/dry" ||
	{ cat "$out/dry"; exit 1; }
exit 0
