/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/evname.c: perf's spellings of one event.  perf prints an event as
 * it was typed (lowercase vendor names, modifiers, raw codes, PMU terms),
 * so a model's counter matches a dataset's event by a canonical form,
 * never by the letters alone. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hw/hec.h"

size_t hec_event_name_base(const char *name)
{
	static const char mods[] = "ukhIGHpPSDWe";
	size_t n = strlen(name), i = n;

	while (i > 0 && strchr(mods, name[i - 1]))
		i--;
	if (i == n || i == 0)
		return n;
	if (name[i - 1] == ':' && i > 1)
		return i - 1;
	if (name[i - 1] == '/' && memchr(name, '/', i - 1))
		return i;     /* keep the closing slash: cpu/event=0x8/ */
	return n;
}

/* A number as perf's terms and raw codes write it (0x.., decimal; hex
 * for raw), or -1. */
static int term_number(const char *s, size_t n, int hex, uint64_t *v)
{
	char buf[32], *end;

	if (!n || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!isxdigit((unsigned char)buf[0]))
		return -1;
	*v = strtoull(buf, &end, hex ? 16 : 0);
	return *end ? -1 : 0;
}

static int term_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The canonical form of the n bytes of name (no modifiers) into out
 * (size bytes): lowercase; a raw code rHEX as r%llx; PMU terms
 * "pmu/a=1,b=0x2/" with numbers in hex and the terms sorted; a PMU with
 * one symbolic term ("cpu/foo/") as that term alone.  0, or -1 when it
 * does not fit (then names compare by their letters). */
static int canonical(const char *name, size_t n, char *out, size_t size)
{
	const char *slash = memchr(name, '/', n);
	uint64_t v;
	size_t i;

	if (n + 1 > size)
		return -1;
	for (i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)name[i]);
	out[n] = 0;
	if (out[0] == 'r' && !term_number(out + 1, n - 1, 1, &v)) {
		snprintf(out, size, "r%llx", (unsigned long long)v);
		return 0;
	}
	if (slash && n > 2 && out[n - 1] == '/') {
		/* pmu/terms/ */
		char terms[256], *t[32], *p, rebuilt[512];
		size_t pmu = (size_t)(slash - name), nt = 0, len;

		len = n - pmu - 2;
		if (len >= sizeof terms)
			return -1;
		memcpy(terms, out + pmu + 1, len);
		terms[len] = 0;
		for (p = strtok(terms, ","); p && nt < 32; p = strtok(NULL, ","))
			t[nt++] = p;
		if (p)
			return -1;
		if (nt == 1 && !strchr(t[0], '=')) {
			/* cpu/dtlb_load_misses.walk_completed/ */
			memmove(out, t[0], strlen(t[0]) + 1);
			return 0;
		}
		qsort(t, nt, sizeof *t, term_cmp);
		len = (size_t)snprintf(rebuilt, sizeof rebuilt, "%.*s/", (int)pmu, out);
		for (i = 0; i < nt && len < sizeof rebuilt; i++) {
			char *eq = strchr(t[i], '=');

			if (eq && !term_number(eq + 1, strlen(eq + 1), 0, &v))
				len += (size_t)snprintf(rebuilt + len, sizeof rebuilt - len,
					"%s%.*s=%#llx", i ? "," : "", (int)(eq - t[i]), t[i],
					(unsigned long long)v);
			else
				len += (size_t)snprintf(rebuilt + len, sizeof rebuilt - len,
					"%s%s", i ? "," : "", t[i]);
		}
		if (len + 2 > sizeof rebuilt || len + 2 > size)
			return -1;
		memcpy(out, rebuilt, len);
		out[len] = '/';
		out[len + 1] = 0;
	}
	return 0;
}

/* name's first n bytes against want's first m, by canonical forms */
static int same_event(const char *name, size_t n, const char *want, size_t m)
{
	char a[512], b[512];

	if (canonical(name, n, a, sizeof a) || canonical(want, m, b, sizeof b))
		return n == m && !strncasecmp(name, want, n);
	return !strcmp(a, b);
}

int hec_event_name_matches(const char *name, const char *want)
{
	size_t m = strlen(want);
	size_t nb = hec_event_name_base(name), mb = hec_event_name_base(want);

	if (mb < m)   /* want names its modifiers: those, exactly */
		return same_event(name, nb, want, mb) &&
		       !strcmp(name + nb, want + mb);
	return same_event(name, nb, want, m);
}
