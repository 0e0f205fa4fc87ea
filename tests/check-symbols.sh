#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/check-symbols.sh OBJDIR [SHARED "HEADERS"]: every global symbol a
# module defines must carry the module's prefix (docs/internals/architecture.md's
# table), so no module leaks names.  With SHARED (libcounterpoint.so):
# every symbol it exports (nm -D) carries a module's prefix and is
# declared in one of the public HEADERS, and every function those
# headers declare is exported.
dir=$1; so=$2; hdrs=$3; bad=0
prefixes='cp_|udd_|cone_|stats_|region_|feas_|pipe_|explore_|hec_|mmu_|report_|counterpoint_'
check_shared() {
	tmp=$(mktemp -d) || return
	# shellcheck disable=SC2086
	for h in $hdrs; do ${CC:-cc} -fpreprocessed -dD -E -P "$h"; done |
		grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u > "$tmp/idents"
	nm -D --defined-only "$so" | awk 'NF == 3 && $2 != "A" { print $3 }' |
		sed 's/@.*//' | sort -u > "$tmp/exported"
	grep -Ev "^($prefixes)" "$tmp/exported" |
		while read -r s; do echo "check-symbols: $so exports '$s' outside '$prefixes'"; done
	comm -23 "$tmp/exported" "$tmp/idents" |
		while read -r s; do echo "check-symbols: $so exports '$s', which no public header declares"; done
	# functions the headers declare: "name(" after a type, at line start
	# or after a '*'; each must be in the library's dynamic table
	for h in $hdrs; do ${CC:-cc} -fpreprocessed -dD -E -P "$h"; done |
		grep -oE "^[a-z][^()#=]*[ *]($prefixes)[a-z0-9_]*\(" |
		sed -E 's/.*[ *]([a-z0-9_]+)\($/\1/' | sort -u > "$tmp/declared"
	comm -23 "$tmp/declared" "$tmp/exported" |
		while read -r s; do echo "check-symbols: '$s' is declared in a public header but $so does not export it"; done
	rm -rf "$tmp"
}
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
	check capi 'counterpoint_'
	check cli 'cli_|main$'
	[ -n "$so" ] && check_shared
} )
if [ -n "$out" ]; then echo "$out"; exit 1; fi
exit 0
