#!/bin/sh
# tests/check-symbols.sh OBJDIR: every global symbol a module defines must
# carry the module's prefix (docs/architecture.md's table), so no module leaks names.
dir=$1; bad=0
check() {  # $1 = folder, $2 = allowed prefix regex
	for o in "$dir/$1"/*.o; do
		[ -f "$o" ] || continue
		nm -g --defined-only "$o" | awk '{print $3}' | grep -Ev "^($2)" |
		while read -r s; do echo "check-symbols: $o exports '$s' outside '$2'"; done
	done
}
out=$( {
	check common 'cp_'
	check dsl 'udd_'
	check gen/dsl 'udd_'
	check geometry 'cone_'
	check stats 'stats_|region_'
	check solver 'feas_'
	check pipeline 'pipe_'
	check explore 'explore_'
	check report 'report_'
	check hw 'hec_'
	check hw/sim 'mmu_'
	check cli 'cli_|main$'
} )
if [ -n "$out" ]; then echo "$out"; exit 1; fi
exit 0
