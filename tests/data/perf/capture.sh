#!/bin/sh
# tests/data/perf/capture.sh: re-creates the perf stat captures in this
# folder (run from this folder, as root or with perf_event_paranoid <= 0 for
# the -a captures).  Each command is also listed in README.md.
set -e
SW=page-faults,minor-faults,major-faults,context-switches,task-clock,cpu-clock
SW5=page-faults,minor-faults,major-faults,context-switches,task-clock
perf stat -I 100 -x, -o sw.csv -e $SW -- python3 workload.py
perf stat -I 100 -x, -o unsupported.csv \
	-e page-faults,context-switches,task-clock,cycles,instructions,dTLB-load-misses \
	-- python3 workload.py
perf stat -I 200 -x, -o per-cpu.csv -a -A -e page-faults,context-switches,task-clock \
	-- python3 workload.py
python3 workload.py 2 20 & pid=$!
sleep 1
perf stat -I 100 -x, -o per-thread.csv --per-thread -p $pid \
	-e page-faults,context-switches,task-clock
wait
perf stat -j -I 100 -o sw.json -e page-faults,context-switches,task-clock,cycles \
	-- python3 workload.py
perf stat -j -I 200 -o per-cpu.json -a -A -e page-faults,task-clock \
	-- python3 workload.py
# whole runs (no -I), repeats (-r: a variance column), user-only events
perf stat -x, -o total.csv -e $SW5 -- python3 workload.py
perf stat -r 3 -x, -o repeat.csv -e $SW5 -- python3 workload.py
perf stat -r 2 -I 200 -x, -o repeat-interval.csv -e $SW5 -- python3 workload.py
perf stat -j -o total.json -e $SW5 -- python3 workload.py
perf stat -r 3 -j -o repeat.json -e $SW5 -- python3 workload.py
perf stat -x, -o total-per-cpu.csv -a -A -e page-faults,task-clock -- python3 workload.py
perf stat -I 100 -x, -o user-only.csv -e page-faults:u,minor-faults:u,major-faults:u \
	-- python3 workload.py
