#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/standalone.sh: the project stands alone.  Every relative link in
# its Markdown resolves to a file in the repository, and no tracked file
# names a path outside it (an absolute path under a home or work folder, a
# parent folder's notes) or a design note that is not in docs/.
fail=0
git ls-files >/dev/null 2>&1 || { echo "not a git checkout"; exit 77; }
missing=$(for md in $(git ls-files '*.md'); do
	dir=$(dirname "$md")
	# [text](target) with a relative target (no scheme, no #anchor-only)
	grep -o '](\([^)#][^)]*\))' "$md" | sed 's/^](//; s/)$//; s/#.*//' |
	grep -v '^[a-z]*:' | while read -r t; do
		[ -n "$t" ] && [ ! -e "$dir/$t" ] && echo "standalone.sh: $md links to missing '$t'"
	done
done)
[ -n "$missing" ] && { echo "$missing"; fail=1; }
hits=$(git ls-files | grep -v '^tests/cli/standalone.sh$' |
	xargs grep -n -I -E '(^|[[:space:]"=`(])/(work|root|home)/|\.\./shared|\b(DESIGN|HASWELL|LIBRARIES|STYLE)\.md' 2>/dev/null)
if [ -n "$hits" ]; then echo "$hits" | sed 's/^/standalone.sh: outside reference: /'; fail=1; fi
exit $fail
