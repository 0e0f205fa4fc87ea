#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/help_convention.sh: every command's --help follows the one
# convention: "usage: counterpoint CMD ..." first, an "options:" section,
# an "exit status:" paragraph, no line over 80 columns; `help CMD` prints
# the same text.
fail() { echo "help_convention.sh: $*"; exit 1; }
cmds=$($CP --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" && $1 != "help" {print $1}')
[ -n "$cmds" ] || fail "no commands listed by --help"
for c in $cmds; do
	h=$($CP "$c" --help) || fail "$c --help failed"
	echo "$h" | head -n 1 | grep -q "^usage: counterpoint $c" || fail "$c: no usage line first"
	echo "$h" | grep -q '^options:' || fail "$c: no 'options:' section"
	echo "$h" | grep -qi '^exit status' || fail "$c: no 'exit status' paragraph"
	long=$(echo "$h" | awk 'length > 80' | head -n 1)
	[ -z "$long" ] || fail "$c: a line over 80 columns: $long"
	[ "$($CP help "$c")" = "$h" ] || fail "$c: 'help $c' differs from '$c --help'"
done
exit 0
