#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tier: full
# tests/cli/python_venv.sh: the Python package as a user installs it,
# offline.  In a fresh virtual environment (python3 -m venv
# --system-site-packages, for the system's setuptools, wheel and pandas):
#  - `pip install --no-index --no-build-isolation` of a copy of python/
#    installs counterpoint with its py.typed, at the library's version;
#  - the installed package finds the library through COUNTERPOINT_LIB,
#    and through pkg-config's libdir (a counterpoint.pc naming build/)
#    with no variable set, and says where it looked when neither is there;
#  - docs/manual/python.md's pandas example prints exactly the output the page
#    shows, and docs/examples/explore.py runs to its end;
#  - `make python`'s wheel installs the same way in a second environment.
# The interpreter: $PYTHON, else the first python3 with venv, pandas,
# setuptools and wheel; skipped (77) without one.
top=$(pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "python_venv.sh: $*"; exit 1; }
py=$PYTHON
if [ -z "$py" ]; then
	for p in python3 /usr/bin/python3; do
		if command -v "$p" >/dev/null 2>&1 &&
		   "$p" -c 'import ensurepip, venv, pandas, setuptools, wheel' 2>/dev/null; then
			py=$p; break
		fi
	done
fi
[ -n "$py" ] || { echo "no python3 with venv, pandas, setuptools and wheel"; exit 77; }
[ -f build/libcounterpoint.so.0 ] || fail "build/libcounterpoint.so.0 not built"
version=$(bin/counterpoint --version | sed -n '1s/^counterpoint \([0-9][0-9.]*\).*/\1/p')
unset COUNTERPOINT_LIB PKG_CONFIG_PATH PYTHONPATH

"$py" -m venv --system-site-packages "$tmp/v" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "python3 -m venv failed"; }
cp -r python "$tmp/src"
(cd "$tmp/src" && "$tmp/v/bin/pip" install -q --no-index --no-build-isolation .) \
	>"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "pip install failed"; }
"$tmp/v/bin/pip" show -f counterpoint > "$tmp/show" || fail "pip show failed"
grep -q "^Version: $version\$" "$tmp/show" || fail "installed version: $(grep Version "$tmp/show")"
grep -q "counterpoint/py.typed" "$tmp/show" || fail "py.typed not installed"

# where it finds the library: nowhere (said), COUNTERPOINT_LIB, pkg-config
cd "$tmp" || exit 1
"$tmp/v/bin/python" -c 'import counterpoint' 2>"$tmp/err" && fail "imported without a library"
grep -q "cannot load libcounterpoint.so.0: .*pkg-config.*COUNTERPOINT_LIB" "$tmp/err" ||
	{ cat "$tmp/err"; fail "the import error does not say where it looked"; }
mkdir "$tmp/pc"
printf 'prefix=%s\nlibdir=%s/build\n\nName: counterpoint\nDescription: t\nVersion: %s\nLibs: -L${libdir} -lcounterpoint\n' \
	"$top" "$top" "$version" > "$tmp/pc/counterpoint.pc"
if command -v pkg-config >/dev/null; then
	got=$(PKG_CONFIG_PATH=$tmp/pc "$tmp/v/bin/python" -c \
		'import counterpoint as cp; print(cp.library_path, cp.version(), cp.__version__)') ||
		fail "the package did not find the library by pkg-config"
	[ "$got" = "$top/build/libcounterpoint.so.0 $version $version" ] ||
		fail "by pkg-config: $got"
fi
COUNTERPOINT_LIB=$top/build/libcounterpoint.so.0; export COUNTERPOINT_LIB
cd "$top" || exit 1
"$tmp/v/bin/python" -c 'import counterpoint, sys; sys.exit(not counterpoint.__file__.startswith(sys.argv[1]))' \
	"$tmp/v/" || fail "the package imported is not the installed one"

# docs/manual/python.md's pandas example, and its output
awk '/^## pandas/ { on = 1 } on && /^```python$/ { code = 1; next }
	code && /^```$/ { exit } code' docs/manual/python.md > "$tmp/example.py"
awk '/^## pandas/ { on = 1 } on && /^```text$/ { out = 1; next }
	out && /^```$/ { exit } out' docs/manual/python.md > "$tmp/want"
[ -s "$tmp/example.py" ] && [ -s "$tmp/want" ] || fail "no pandas example in docs/manual/python.md"
"$tmp/v/bin/python" "$tmp/example.py" > "$tmp/got" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "the pandas example failed"; }
diff -u "$tmp/want" "$tmp/got" || fail "the pandas example's output is not the page's"
# and the notebook, as a script
"$tmp/v/bin/python" docs/examples/explore.py > "$tmp/nb" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "docs/examples/explore.py failed"; }
grep -q "^required: \['merge', 'pde_early', 'bypass', 'replay'\]$" "$tmp/nb" ||
	{ cat "$tmp/nb"; fail "docs/examples/explore.py: no required features"; }

# make python's wheel, in a second environment
unset MAKEFLAGS MFLAGS MAKELEVEL
${MAKE:-make} -s python PYTHON="$py" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "make python failed"; }
wheel=build/python/counterpoint-$version-py3-none-any.whl
[ -f "$wheel" ] || fail "make python made no $wheel"
ls -d python/build python/*.egg-info 2>/dev/null && fail "make python built in python/"
"$py" -m venv --system-site-packages "$tmp/w" >"$tmp/out" 2>&1 || fail "python3 -m venv failed"
"$tmp/w/bin/pip" install -q --no-index "$wheel" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "pip install of the wheel failed"; }
"$tmp/w/bin/python" "$tmp/example.py" > "$tmp/got" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "the pandas example failed with the wheel"; }
diff -u "$tmp/want" "$tmp/got" || fail "the wheel's output is not the page's"
exit 0
