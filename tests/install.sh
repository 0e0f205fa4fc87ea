#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/install.sh: `make install` into a temporary DESTDIR and prefix, and
# what a user of the installed tree relies on:
#  - the files: the command, both libraries (soname libcounterpoint.so.0),
#    the public headers under include/counterpoint/, counterpoint.pc, the
#    man pages, the bash completion;
#  - each installed header compiles on its own with `pkg-config --cflags`
#    and carries a COUNTERPOINT_ include guard;
#  - the man pages have no groff warnings, one per command;
#  - the completion completes commands, options and a model's features;
#  - docs/manual/library.md's C example, built with pkg-config against the
#    shared and against the static library, prints `counterpoint check`'s
#    verdicts and violated constraints on bundled data;
#  - the Python package is installed beside the library, and imported
#    from there with nothing set it loads that library and gives check's
#    verdicts;
#  - `make uninstall` removes every file install made.
# Run from the repository root after `make`; exit 0 pass, 77 skip.
top=$(pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "install.sh: $*"; exit 1; }
command -v pkg-config >/dev/null || { echo "pkg-config not installed"; exit 77; }
unset MAKEFLAGS MFLAGS MAKELEVEL
dest=$tmp/dest; prefix=/opt/cp
${MAKE:-make} -s install DESTDIR="$dest" PREFIX="$prefix" >"$tmp/make.out" 2>&1 ||
	{ cat "$tmp/make.out"; fail "make install failed"; }
root=$dest$prefix

# ---- the files ----
for f in bin/counterpoint lib/libcounterpoint.a lib/libcounterpoint.so \
	 lib/libcounterpoint.so.0 lib/pkgconfig/counterpoint.pc \
	 include/counterpoint/pipeline/pipeline.h include/counterpoint/common/cp.h \
	 share/man/man1/counterpoint.1 share/man/man1/counterpoint-check.1 \
	 share/bash-completion/completions/counterpoint; do
	[ -e "$root/$f" ] || fail "$f not installed"
done
soname=$(readelf -d "$root/lib/libcounterpoint.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libcounterpoint.so.0 ] || fail "soname is '$soname'"
ls "$root"/include/counterpoint/*/*_int.h "$root"/include/counterpoint/*/internal.h 2>/dev/null &&
	fail "internal headers installed"

PKG_CONFIG_PATH=$root/lib/pkgconfig; export PKG_CONFIG_PATH
PKG_CONFIG_SYSROOT_DIR=$dest; export PKG_CONFIG_SYSROOT_DIR
[ "$(pkg-config --modversion counterpoint)" = "$("$root/bin/counterpoint" --version | sed -n "1s/^counterpoint \([^ ]*\).*/\1/p")" ] ||
	fail "counterpoint.pc's version is not the command's"
cflags=$(pkg-config --cflags counterpoint) || fail "pkg-config --cflags failed"
pkg-config --static --libs counterpoint | grep -q -- -lglpk || fail "Libs.private lacks glpk"

# ---- headers: standalone, guarded ----
n=0
for h in $(cd "$root/include/counterpoint" && find . -name '*.h' | sed 's|^\./||'); do
	n=$((n + 1))
	grep -q "^#ifndef COUNTERPOINT_[A-Z0-9_]*_H$" "$root/include/counterpoint/$h" ||
		fail "$h has no COUNTERPOINT_ include guard"
	printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$h" "$h" > "$tmp/h.c"
	# shellcheck disable=SC2086
	${CC:-cc} -std=c11 -Wall -Wextra -Werror -pedantic $cflags -c -o "$tmp/h.o" "$tmp/h.c" 2>"$tmp/h.err" ||
		{ cat "$tmp/h.err"; fail "$h does not compile on its own"; }
done
[ "$n" -ge 10 ] || fail "only $n headers installed"

# ---- man pages ----
cmds=$("$root/bin/counterpoint" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit }
	on && /^  [a-z]/ && $1 != "help" { print $1 }')
for c in $cmds; do
	[ -f "$root/share/man/man1/counterpoint-$c.1" ] || fail "no man page for $c"
done
if command -v groff >/dev/null; then
	for m in "$root"/share/man/man1/*.1; do
		w=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$m" 2>&1)
		[ -z "$w" ] || fail "$(basename "$m"): $w"
	done
	# every option of check's --help is on its page
	LC_ALL=C.UTF-8 groff -man -Tutf8 "$root/share/man/man1/counterpoint-check.1" 2>/dev/null |
		sed 's/.\x08//g' > "$tmp/check.man"
	for o in --with --region --confidence --batches --counters --strict --json --threads --max-facets --output; do
		grep -q -- "$o" "$tmp/check.man" || fail "counterpoint-check.1 lacks $o"
	done
fi

# ---- bash completion ----
if command -v bash >/dev/null; then
	cat > "$tmp/comp.bash" <<'EOF'
. "$1"
bin=$2
comp() {  # words...; the last one is being completed
	COMP_WORDS=("$bin" "$@"); COMP_CWORD=$#
	_counterpoint
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '; echo
}
comp ch
comp help ex
comp check --thr
comp paths models/haswell/mmu.udd --with pre
comp paths models/haswell/mmu.udd --with merge,ab
comp explore models/haswell/mmu.udd data.csv --candidates mer
comp region data.csv --model models/haswell/mmu.udd --with byp
comp check models/haswell/mmu.udd data.csv --region el
comp check hasw
comp check haswell/mmu data.csv --with pde_
comp sim --features merge,pre
comp import g
EOF
	bash "$tmp/comp.bash" "$root/share/bash-completion/completions/counterpoint" \
		"$root/bin/counterpoint" > "$tmp/comp.out" 2>&1
	cat > "$tmp/comp.want" <<'EOF'
check 
explore 
--threads 
prefetch prefetch_dtlb_miss prefetch_stlb_miss prefetch_stores 
merge,abort 
merge 
bypass 
ellipsoid 
haswell/mmu 
pde_early 
merge,prefetch merge,prefetch_dtlb_miss merge,prefetch_stlb_miss merge,prefetch_stores 
gem5 
EOF
	diff -u "$tmp/comp.want" "$tmp/comp.out" || fail "bash completion"
fi

# ---- the bundled models, by name, from the installed tree alone ----
"$root/bin/counterpoint" models > "$tmp/models" || fail "counterpoint models failed"
grep -q '^haswell/mmu ' "$tmp/models" || fail "haswell/mmu is not listed"
# (the first line names the file read: the installed one)
(cd "$tmp" && "$root/bin/counterpoint" cone haswell/mmu --with merge > cone.out 2>/dev/null) ||
	fail "cone haswell/mmu from the installed models failed"
grep -q "^model $root/share/counterpoint/models/haswell/mmu.udd," "$tmp/cone.out" ||
	fail "cone haswell/mmu did not read the installed model"
bin/counterpoint cone models/haswell/mmu.udd --with merge 2>/dev/null | sed 1d > "$tmp/cone.want"
sed 1d "$tmp/cone.out" | cmp -s - "$tmp/cone.want" || fail "the installed haswell/mmu is not the source's"
[ -f "$root/share/counterpoint/models/haswell/mmu.udd" ] || fail "models not installed"

# ---- the library example (docs/manual/library.md), shared and static ----
awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' "$top/docs/manual/library.md" > "$tmp/verdicts.c"
[ -s "$tmp/verdicts.c" ] || fail "no C example in docs/manual/library.md"
libs=$(pkg-config --libs counterpoint)
slibs=$(pkg-config --static --libs counterpoint | sed 's/-lcounterpoint/-l:libcounterpoint.a/')
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$tmp/v_shared" "$tmp/verdicts.c" $cflags $libs ||
	fail "the example does not build against the shared library"
# shellcheck disable=SC2086
${CC:-cc} -std=c11 -Wall -Wextra -Werror -o "$tmp/v_static" "$tmp/verdicts.c" $cflags $slibs ||
	fail "the example does not build against the static library"
readelf -d "$tmp/v_shared" | grep -q 'NEEDED.*\[libcounterpoint\.so\.0\]' ||
	fail "the shared build does not use libcounterpoint.so.0"
readelf -d "$tmp/v_static" | grep -q 'NEEDED.*libcounterpoint' &&
	fail "the static build needs libcounterpoint.so"
# check's verdict lines without their notes, and its violated constraints
# without the margins; then the example's output must be exactly that
for features in "" merge,abort; do
	"$root/bin/counterpoint" check models/haswell/mmu.udd datasets/sim-sweep-all.csv --violations 0 \
		${features:+--with $features} > "$tmp/check.out"
	[ $? -le 1 ] || fail "check failed"
	sed -n '/^$/q; s/^\([^ ].*\): \(feasible\|INFEASIBLE\|unusable\).*/\1: \2/p;
		s/^\(    violates .*\)   margin .*/\1/p' "$tmp/check.out" > "$tmp/want"
	grep -q INFEASIBLE "$tmp/want" && grep -q feasible "$tmp/want" ||
		fail "the bundled data should give both verdicts"
	for v in v_shared v_static; do
		LD_LIBRARY_PATH=$root/lib "$tmp/$v" models/haswell/mmu.udd "$features" \
			datasets/sim-sweep-all.csv > "$tmp/got" || fail "$v failed"
		diff -u "$tmp/want" "$tmp/got" || fail "$v's verdicts are not check's (features '$features')"
	done
done

LD_LIBRARY_PATH=$root/lib "$tmp/v_shared" models/haswell/mmu.udd nope datasets/sim-sweep-all.csv \
	2>"$tmp/err" && fail "an unknown feature was accepted"
grep -q "does not declare" "$tmp/err" || fail "unknown feature: $(cat "$tmp/err")"

# ---- the Python package, beside the library ----
pydir=$(ls -d "$root"/lib/python3*/*-packages 2>/dev/null | head -n 1)
if command -v python3 >/dev/null; then
	[ -f "$pydir/counterpoint/__init__.py" ] && [ -f "$pydir/counterpoint/py.typed" ] ||
		fail "the Python package is not installed under $root/lib"
	# from elsewhere, nothing set: it loads the library installed beside it
	got=$(cd "$tmp" && env -u COUNTERPOINT_LIB -u PKG_CONFIG_PATH PYTHONPATH="$pydir" \
		python3 -c 'import counterpoint as cp; print(cp.library_path)') ||
		fail "the installed package does not import"
	[ "$got" = "$root/lib/libcounterpoint.so.0" ] || fail "the installed package loaded $got"
	env -u COUNTERPOINT_LIB PYTHONPATH="$pydir" python3 - "$root/bin/counterpoint" <<'PY' ||
import json, subprocess, sys
import counterpoint as cp
out = subprocess.run([sys.argv[1], "check", "models/haswell/mmu.udd",
                      "datasets/sim-sweep-all.csv", "--json"], capture_output=True, text=True).stdout
want = [(o["name"], o["feasible"]) for o in json.loads(out)["observations"]]
got = [(v.observation, v.verdict == "feasible")
       for v in cp.Model("models/haswell/mmu.udd").check("datasets/sim-sweep-all.csv")]
sys.exit(want != got)
PY
		fail "the installed package's verdicts are not check's"
fi

# ---- uninstall ----
${MAKE:-make} -s uninstall DESTDIR="$dest" PREFIX="$prefix" >"$tmp/make.out" 2>&1 ||
	{ cat "$tmp/make.out"; fail "make uninstall failed"; }
left=$(find "$dest" ! -type d)
[ -z "$left" ] || fail "uninstall left: $left"
exit 0
