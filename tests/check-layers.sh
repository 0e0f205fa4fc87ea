#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/check-layers.sh [ROOT]: modules depend downward only.  Each module
# has a layer; a file of a module may include its own module's headers and
# those of modules in lower layers, never a header of its own layer's other
# modules or of a higher one.  The table is docs/internals/architecture.md's.
#   0 common
#   1 dsl, hw, hw/sim    (hw and hw/sim stand alone: libc, libpfm4, common)
#   2 geometry, stats
#   3 solver
#   4 pipeline
#   5 explore
#   6 report, capi   (capi: the plain-typed entry points for foreign callers)
#   7 cli
# bench/ and tests/ may include anything.  Exit 1 with one line per
# offending include.
root=${1:-.}
layer() {
	case $1 in
	common) echo 0 ;;
	dsl|hw|hw/sim) echo 1 ;;
	geometry|stats) echo 2 ;;
	solver) echo 3 ;;
	pipeline) echo 4 ;;
	explore) echo 5 ;;
	report|capi) echo 6 ;;
	cli) echo 7 ;;
	*) echo "" ;;
	esac
}
bad=$(
	cd "$root" || exit 2
	for m in common dsl hw hw/sim geometry stats solver pipeline explore report capi cli; do
		[ -d "$m" ] || continue
		lm=$(layer "$m")
		for f in "$m"/*.c "$m"/*.h "$m"/*.l "$m"/*.y; do
			[ -f "$f" ] || continue
			grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
			while IFS= read -r line; do
				hdr=$(printf '%s\n' "$line" | sed 's/^[^"]*"\([^"]*\)".*/\1/')
				dep=${hdr%/*}
				[ "$dep" = "$hdr" ] && continue     # same folder ("x.h")
				[ "$dep" = "$m" ] && continue
				ld=$(layer "$dep")
				[ -n "$ld" ] || continue            # generated or system-like
				if [ "$ld" -ge "$lm" ]; then
					echo "check-layers: $f:${line%%:*}: $m (layer $lm) includes $hdr ($dep, layer $ld)"
				fi
			done
		done
	done
)
if [ -n "$bad" ]; then echo "$bad"; exit 1; fi
exit 0
