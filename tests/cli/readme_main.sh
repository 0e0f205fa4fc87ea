#!/bin/sh
# The README's first command (after `make deps && make`) runs end to end:
# sim -> check -> explore, and explore proves that merging is needed.
set -u
line=$(grep -m 1 '^make deps && make && bin/counterpoint sim' README.md) || {
	echo "README has no main command"; exit 1; }
cmd=${line#make deps && make && }
out=$(sh -c "$cmd" 2>&1)
echo "$out" | tail -n 5
echo "$out" | grep -q 'INFEASIBLE' || { echo "check did not refute m0"; exit 1; }
echo "$out" | grep -q 'violates load.retired_stlb_miss <= load.causes_walk' || {
	echo "the violated constraint is missing"; exit 1; }
echo "$out" | grep -q '^required features (proven: every model without one is refuted, at 99% over [^)]*): merge$' || {
	echo "explore did not find merge"; exit 1; }
echo "$out" | grep -q '^conclusion: ' || { echo "no conclusion"; exit 1; }
exit 0
