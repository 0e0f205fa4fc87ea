#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/spdx.sh: every source file the repository tracks names its
# licence in an SPDX line within its first three lines.
command -v git >/dev/null 2>&1 && [ -d .git ] || [ -f .git ] || {
	echo "not a git checkout"; exit 77; }
missing=$(git ls-files -- '*.c' '*.h' '*.l' '*.y' '*.sh' '*.py' Makefile .ci/run |
	while read -r f; do
		[ -f "$f" ] || continue
		head -n 3 "$f" | grep -q 'SPDX-License-Identifier: GPL-3.0-or-later' ||
			echo "$f"
	done)
[ -z "$missing" ] || { echo "no SPDX line in:"; echo "$missing"; exit 1; }
exit 0
