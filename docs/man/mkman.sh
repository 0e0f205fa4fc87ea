#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# docs/man/mkman.sh BIN OUTDIR: the manual pages, made from the command's
# own help.  counterpoint(1) from `BIN --help`, counterpoint-CMD(1) from
# `BIN help CMD` for every command `--help` lists.  The --help texts in
# cli/*.c are the one source: a page cannot drift from the options the
# command accepts, and nothing generated is committed.
#
# The help texts follow one layout (cli/*.c): "usage:" lines, paragraphs,
# a "options:" (or "commands:") block of "  TERM   description" items with
# continuation lines indented to the description column, then paragraphs
# ("exit status: ..." becomes EXIT STATUS).
set -e
bin=$1; out=$2
[ -x "$bin" ] && [ -n "$out" ] || { echo "usage: mkman.sh BIN OUTDIR" >&2; exit 2; }
mkdir -p "$out"
LC_ALL=C.UTF-8; export LC_ALL
version=$("$bin" --version | sed -n '1s/^counterpoint //p')
main=$("$bin" --help)

# "name<TAB>summary" for every command of the main help
cmds=$(printf '%s\n' "$main" | awk '
	/^commands:/ { on = 1; next }
	on && /^$/ { exit }
	on && /^  [a-z]/ {
		name = $1; if (name == "help") next
		sub(/^  [^ ]+ +/, ""); print name "\t" $0 }')

# help text on stdin -> roff on stdout.  page: "counterpoint" or
# "counterpoint-CMD"; summary: the NAME line; see: SEE ALSO entries.
to_roff() {
	awk -v page="$1" -v summary="$2" -v version="$version" -v see="$3" '
	function esc(s) {
		gsub(/\\/, "\\e", s)
		if (s ~ /^[.\047]/) s = "\\&" s
		return s
	}
	function optesc(s) { s = esc(s); gsub(/-/, "\\-", s); return s }
	function indent(s) { match(s, /^ */); return RLENGTH }
	function trim(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); return s }
	# the description column of an item block: the smallest indent of a
	# continuation line, else the first run of two spaces after the term
	function column(first, last,    i, c, best, s) {
		best = 0
		for (i = first; i <= last; i++) {
			s = line[i]
			if (s == "" || indent(s) < 4) continue
			if (substr(trim(s), 1, 1) == "-") continue
			c = indent(s); if (!best || c < best) best = c
		}
		if (best) return best
		for (i = first; i <= last; i++)
			if (match(line[i], /^ +[^ ]+( [^ ]+)*   */)) {
				c = RLENGTH; if (!best || c < best) best = c
			}
		return best
	}
	{ line[++n] = $0 }
	END {
		up = toupper(page)
		printf ".TH %s 1 \"\" \"counterpoint %s\" \"counterpoint manual\"\n", up, version
		printf ".SH NAME\n%s \\- %s\n", page, esc(summary)
		print ".SH SYNOPSIS"
		i = 1
		while (i <= n && line[i] != "") {
			s = line[i]
			if (i == 1) sub(/^usage: */, "", s)
			s = trim(s)
			if (i > 1 && s ~ /^counterpoint /) print ".br"
			print esc(s)
			i++
		}
		section = "DESCRIPTION"; started = 0
		while (i <= n) {
			while (i <= n && line[i] == "") i++
			if (i > n) break
			if (line[i] ~ /^[a-z]+:$/) {          # options: / commands:
				head = line[i]; sub(/:$/, "", head)
				printf ".SH %s\n", toupper(head)
				first = ++i
				while (i <= n && line[i] != "") i++
				last = i - 1; col = column(first, last)
				for (j = first; j <= last; j++) {
					s = line[j]
					if (indent(s) < col && trim(substr(s, 1, col)) != "") {
						term = trim(substr(s, 1, col)); desc = trim(substr(s, col + 1))
						print ".TP"
						if (head == "commands" && term !~ / /)
							printf ".BR counterpoint\\-%s (1)\n", optesc(term)
						else
							printf "\\fB%s\\fR\n", optesc(term)
						if (desc != "") print esc(desc)
					} else {
						print esc(trim(s))
					}
				}
				section = "NOTES"; started = 0
				continue
			}
			if (tolower(line[i]) ~ /^exit status:/) {
				print ".SH EXIT STATUS"
				s = line[i]; sub(/^[Ee]xit status: */, "", s); line[i] = s
				section = "NOTES"; started = 1
			} else if (!started) {
				printf ".SH %s\n", section; started = 1
			} else {
				print ".PP"
			}
			# an indented line stands alone (a format, an example)
			for (brk = 0; i <= n && line[i] != ""; i++) {
				s = line[i]
				if (indent(s) >= 2) { print ".br"; s = "\\ \\ " esc(trim(s)); brk = 1 }
				else { if (brk) print ".br"; brk = 0; s = esc(s) }
				print s
			}
		}
		print ".SH SEE ALSO"
		print see
	}'
}

printf '%s\n' "$main" | to_roff counterpoint \
	"test what you believe about a processor against its hardware event counters" \
	"$(printf '%s\n' "$cmds" | awk -F '\t' '{ n = $1; gsub(/-/, "\\-", n)
		printf "%s.BR counterpoint\\-%s (1)", (NR > 1 ? ",\n" : ""), n }')" \
	> "$out/counterpoint.1"
printf '%s\n' "$cmds" | while IFS="$(printf '\t')" read -r name summary; do
	"$bin" help "$name" | to_roff "counterpoint-$name" "$summary" ".BR counterpoint (1)" \
		> "$out/counterpoint-$name.1"
done
