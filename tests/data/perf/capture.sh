#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
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
# every variant of the output (LOCPATH: a directory of locales made with
# localedef -i en_US -f UTF-8, and de_DE)
perf stat -o std-total.txt -e $SW5,cycles -- python3 workload.py
perf stat -I 200 -o std-interval.txt -e page-faults,context-switches,task-clock -- python3 workload.py
perf stat -r 5 -o std-repeat.txt -e $SW5 -- python3 workload.py
LC_ALL=en_US.UTF-8 perf stat -o std-en_US.txt -e $SW5 -- python3 workload.py 0 400
LC_ALL=de_DE.UTF-8 perf stat -r 3 -o std-de_DE-repeat.txt -e $SW5 -- python3 workload.py 0 300
perf stat -a -A -o std-per-cpu.txt -e page-faults,task-clock -- python3 workload.py
perf stat -a --per-core -I 300 -o std-per-core-interval.txt -e page-faults,task-clock -- python3 workload.py
perf stat -a --per-socket -o std-per-socket.txt -e page-faults,context-switches,task-clock -- python3 workload.py
perf stat -I 200 --summary -o std-interval-summary.txt -e page-faults,context-switches,task-clock -- python3 workload.py
LC_ALL=de_DE.UTF-8 perf stat -I 200 -x ';' -o csv-semicolon-de.csv -e page-faults,context-switches,task-clock -- python3 workload.py
perf stat -I 200 -x '|' -o csv-pipe.csv -e page-faults,context-switches,task-clock -- python3 workload.py
perf stat -I 200 --summary -x, -o csv-interval-summary.csv -e page-faults,context-switches,task-clock -- python3 workload.py
perf stat -I 200 --summary -j -o json-interval-summary.json -e page-faults,context-switches,task-clock -- python3 workload.py
perf stat -x, -o csv-repeated-event.csv -e page-faults,context-switches,page-faults,task-clock -- python3 workload.py
perf stat -r 5 -x, -o csv-repeat5.csv -e $SW5 -- python3 workload.py
perf stat -r 4 -j -o json-repeat4.json -e $SW5 -- python3 workload.py
# repeated runs of one workload
for i in 1 2 3 4 5; do perf stat -x, -o runs/run-$i.csv -e $SW5 -- python3 workload.py; done
for i in 1 2 3; do perf stat -I 250 -x, -o runs/interval-run-$i.csv -e $SW5 -- python3 workload.py 0 20; done
for i in 1 2 3; do echo "=== run $i of 3: python3 workload.py"
	perf stat -x, -e $SW5 -- sh -c 'python3 workload.py; echo workload finished'
done > runs/harness-runs.log 2>&1
for i in 1 2 3; do echo "### run $i"; perf stat -e $SW5 -- python3 workload.py; done \
	> runs/std-runs.log 2>&1
perf stat --summary -x, -o csv-summary-total.csv -e $SW5 -- python3 workload.py
