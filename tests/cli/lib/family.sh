# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/lib/family.sh: the end-to-end test every processor model
# family gets, as models/haswell/mmu.udd gets it (tests/cli/explore*.sh):
# the simulator, speaking that processor's events (sim --cpu), runs a
# machine with a known feature set over the default sweep; the true model
# must fit every observation, and explore must claim exactly what these
# counters can show: the features it must find are required, no feature
# the machine has is claimed impossible, and nothing outside the truth is
# required.  Sourced by tests/cli/family_*.sh, which set CP and tmp.

# family CPU MODEL SEED TRUTH EXPECTED_REQUIRED
family() {
	cpu=$1; model=$2; seed=$3; truth=$4; want=$5
	data=$tmp/$cpu-$seed.csv
	"$CP" sim --cpu "$cpu" --sweep --intervals 50 --interval-uops 20000 \
		--warmup 100000 --features "$truth" --seed "$seed" -o "$data" ||
		fail "$cpu: sim --features $truth"
	with=; [ "$truth" = none ] || with="--with $truth"
	# shellcheck disable=SC2086
	"$CP" check "$model" "$data" $with >"$tmp/check" 2>&1 ||
		{ cat "$tmp/check"; fail "$cpu: the true model {$truth} is refuted"; }
	"$CP" explore "$model" "$data" >"$tmp/explore" 2>&1
	rc=$?
	[ "$rc" = 0 ] || { cat "$tmp/explore"; fail "$cpu {$truth}: explore exited $rc"; }
	req=$(sed -n 's/^required features (proven: every model without one is refuted[^)]*): //p' "$tmp/explore")
	imp=$(sed -n 's/^impossible features (proven: every model with one is refuted[^)]*): //p' "$tmp/explore")
	[ "$req" = "$want" ] ||
		{ cat "$tmp/explore"; fail "$cpu {$truth}: required '$req', expected '$want'"; }
	for f in $(echo "$imp" | tr ',' ' '); do
		[ "$f" = none ] && continue
		case ",$truth," in *",$f,"*)
			fail "$cpu {$truth}: $f, which the machine has, is claimed impossible";;
		esac
	done
	[ "$req" = none ] && return 0
	for f in $(echo "$req" | tr ',' ' '); do
		case ",$truth," in *",$f,"*) ;; *)
			fail "$cpu {$truth}: $f is claimed required but the machine lacks it";;
		esac
	done
}
