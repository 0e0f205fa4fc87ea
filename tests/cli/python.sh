#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/python.sh: the Python binding's unittest suite
# (python/tests/), over build/libcounterpoint.so.0.  The interpreter is
# $PYTHON, else the first python3 on the machine that has NumPy and pandas
# (so Dataset.from_arrays is tested on arrays, from_frame and the tables
# on DataFrames), else python3.
py=$PYTHON
if [ -z "$py" ]; then
	for p in python3 /usr/bin/python3; do
		if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy, pandas' 2>/dev/null; then
			py=$p; break
		fi
	done
fi
py=${py:-python3}
command -v "$py" >/dev/null 2>&1 || { echo "python3 not installed"; exit 77; }
[ -f build/libcounterpoint.so.0 ] || { echo "build/libcounterpoint.so.0 not built"; exit 1; }
COUNTERPOINT_LIB=$(pwd)/build/libcounterpoint.so.0 PYTHONPATH=$(pwd)/python \
	"$py" -m unittest discover -s python/tests 2>&1
