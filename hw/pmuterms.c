/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/pmuterms.c: perf's PMU syntax, `pmu/term=value,.../modifiers`
 * (cpu/event=0x08,umask=0x01/u, msr/tsc/), encoded from sysfs as perf
 * does: the PMU's type, its format/ files (which bits of config, config1
 * or config2 a term fills) and its events/ aliases (term lists). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "hw/hec.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

/* The first line of a small sysfs file, without its newline; -1 if it
 * cannot be read. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return 0;
}

/* "event, umask" (sorted) of the files in dir, into buf. */
static void list_dir(const char *dir, char *buf, size_t size)
{
	struct dirent **names = NULL;
	int i, n = scandir(dir, &names, NULL, alphasort);
	size_t len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && len + 1 < size) {
			int w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
					 names[i]->d_name);

			if (w > 0)
				len += (size_t)w < size - len ? (size_t)w : size - len - 1;
		}
		free(names[i]);
	}
	free(names);
}

/* A term's value: decimal or 0x hex, the whole text. */
static int parse_value(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

struct terms_ctx {
	const char *name;         /* the whole event name, for messages */
	const char *pmu;
	char dir[320];            /* SYSFS_PMUS/pmu */
	struct hec_encoding *out;
	struct cp_error *err;
};

/* Put value into the bits that format ("config:0-7,32-35", "config1:5")
 * names.  Bits are filled from the lowest given range up. */
static int apply_format(struct terms_ctx *c, const char *term,
			const char *format, uint64_t value)
{
	const char *colon = strchr(format, ':'), *p;
	uint64_t *field, rest = value;
	unsigned width = 0;

	if (!colon)
		goto bad;
	if ((size_t)(colon - format) == 6 && !strncmp(format, "config", 6))
		field = &c->out->config;
	else if ((size_t)(colon - format) == 7 && !strncmp(format, "config1", 7))
		field = &c->out->config1;
	else if ((size_t)(colon - format) == 7 && !strncmp(format, "config2", 7))
		field = &c->out->config2;
	else
		goto bad;
	for (p = colon + 1; *p;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo, b;

		if (end == p)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				goto bad;
		}
		if (lo > hi || hi > 63)
			goto bad;
		for (b = lo; b <= hi; b++) {
			*field |= (rest & 1) << b;
			rest >>= 1;
			width++;
		}
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (rest)
		return cp_error_set(c->err, CP_EINPUT, "cannot encode '%s': value "
				    "%llu of term '%s' does not fit its %u bit%s (%s)",
				    c->name, (unsigned long long)value, term, width,
				    width == 1 ? "" : "s", format);
	return 0;
bad:
	return cp_error_set(c->err, CP_EUNSUPPORTED, "cannot encode '%s': "
			    "cannot read %s/format/%s ('%s')", c->name, c->dir,
			    term, format);
}

static int apply_terms(struct terms_ctx *c, const char *terms, int depth);

/* One term: config=, config1=, config2=, a format term (value 1 when
 * none is given) or an events/ alias. */
static int apply_term(struct terms_ctx *c, const char *term, size_t len,
		      int depth)
{
	char key[128], path[512], line[512], list[512];
	const char *eq = memchr(term, '=', len);
	size_t klen = eq ? (size_t)(eq - term) : len;
	uint64_t value = 1;

	if (!klen || klen >= sizeof key)
		return cp_error_set(c->err, CP_EINPUT, "cannot encode '%s': empty "
				    "or overlong term", c->name);
	memcpy(key, term, klen);
	key[klen] = '\0';
	if (eq) {
		char v[64];
		size_t vlen = len - klen - 1;

		if (vlen >= sizeof v)
			vlen = sizeof v - 1;
		memcpy(v, eq + 1, vlen);
		v[vlen] = '\0';
		if (parse_value(v, &value))
			return cp_error_set(c->err, CP_EINPUT, "cannot encode '%s': "
					    "value '%s' of term '%s' is not a number",
					    c->name, v, key);
	}
	if (!strcmp(key, "config") || !strcmp(key, "config1") ||
	    !strcmp(key, "config2")) {
		uint64_t *f = key[6] == '1' ? &c->out->config1 :
			      key[6] == '2' ? &c->out->config2 : &c->out->config;

		*f = value;
		return 0;
	}
	if (strchr(key, '/') || !strcmp(key, ".") || !strcmp(key, ".."))
		goto unknown;
	snprintf(path, sizeof path, "%s/format/%s", c->dir, key);
	if (!read_line(path, line, sizeof line))
		return apply_format(c, key, line, value);
	snprintf(path, sizeof path, "%s/events/%s", c->dir, key);
	if (!eq && depth == 0 && !read_line(path, line, sizeof line))
		return apply_terms(c, line, depth + 1);
unknown:
	snprintf(path, sizeof path, "%s/format", c->dir);
	list_dir(path, list, sizeof list);
	{
		char events[512];

		snprintf(path, sizeof path, "%s/events", c->dir);
		list_dir(path, events, sizeof events);
		return cp_error_set(c->err, CP_EINPUT, "cannot encode '%s': PMU "
				    "'%s' has no term or event '%s' (its terms: "
				    "%s%s%s)", c->name, c->pmu, key,
				    list[0] ? list : "config, config1, config2",
				    events[0] ? "; its events: " : "", events);
	}
}

/* "event=0x08,umask=0x01": every term in turn. */
static int apply_terms(struct terms_ctx *c, const char *terms, int depth)
{
	const char *p = terms;
	int rc;

	while (*p) {
		size_t len = strcspn(p, ",");

		if (len && (rc = apply_term(c, p, len, depth)))
			return rc;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int hec_pmu_terms_encode(const char *name, unsigned flags,
			 struct hec_encoding *out, struct cp_error *err)
{
	struct terms_ctx c;
	const char *slash = strchr(name, '/'), *close, *m;
	char pmu[64], path[400], line[64], terms[512];
	unsigned long type;
	char *end;
	int rc;

	if (!slash || !(close = strchr(slash + 1, '/')))
		return cp_error_set(err, CP_EINPUT, "cannot encode '%s': expected "
				    "PMU/terms/", name);
	if (slash == name || (size_t)(slash - name) >= sizeof pmu ||
	    (size_t)(close - slash - 1) >= sizeof terms)
		return cp_error_set(err, CP_EINPUT, "cannot encode '%s': the PMU "
				    "name or its terms are empty or too long", name);
	memcpy(pmu, name, (size_t)(slash - name));
	pmu[slash - name] = '\0';
	if (pmu[0] == '.' || strspn(pmu, "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
	    strlen(pmu))
		return cp_error_set(err, CP_EINPUT, "cannot encode '%s': bad PMU "
				    "name '%s'", name, pmu);
	memcpy(terms, slash + 1, (size_t)(close - slash - 1));
	terms[close - slash - 1] = '\0';
	memset(out, 0, sizeof *out);
	memset(&c, 0, sizeof c);
	c.name = name;
	c.pmu = pmu;
	c.out = out;
	c.err = err;
	snprintf(c.dir, sizeof c.dir, "%s/%s", SYSFS_PMUS, pmu);
	snprintf(path, sizeof path, "%s/type", c.dir);
	if (read_line(path, line, sizeof line))
		return cp_error_set(err, CP_EUNSUPPORTED, "cannot encode '%s': this "
				    "machine has no PMU '%s' (no %s)", name, pmu,
				    c.dir);
	errno = 0;
	type = strtoul(line, &end, 10);
	if (errno || end == line || *end || type > UINT32_MAX)
		return cp_error_set(err, CP_EUNSUPPORTED, "cannot encode '%s': "
				    "cannot read %s ('%s')", name, path, line);
	out->type = (uint32_t)type;
	if ((rc = apply_terms(&c, terms, 0)))
		return rc;
	for (m = close + 1; *m; m++) {
		if (*m == 'u')
			out->exclude_kernel = 1;
		else if (*m == 'k')
			out->exclude_user = 1;
		else
			return cp_error_set(err, CP_EINPUT, "cannot encode '%s': "
					    "unknown modifier '%c' (u: user space "
					    "only, k: kernel only)", name, *m);
	}
	if (out->exclude_kernel && out->exclude_user)   /* "uk": both */
		out->exclude_kernel = out->exclude_user = 0;
	if (flags & HEC_USER_ONLY)
		out->exclude_kernel = 1;
	out->hardware = !(type == PERF_TYPE_SOFTWARE || type == PERF_TYPE_TRACEPOINT ||
			  type == PERF_TYPE_BREAKPOINT);
	snprintf(out->pmu, sizeof out->pmu, "%.*s", (int)sizeof out->pmu - 1, pmu);
	snprintf(out->canonical, sizeof out->canonical, "%s", name);
	return 0;
}
