/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/gem5.c: gem5's stats.txt to the long dataset.
 * One pass reads every statistic line into a record (statistic, dump,
 * value, line); then each dump's length and its relation to the dump
 * before it come from its tick counters, each statistic is kept or left
 * out as a whole, and one row is written per dump and kept statistic. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/gem5.h"
#include "hw/hec.h"

/* 2^53: every integer up to it is a double, and a dataset's value */
#define GEM5_MAX_EXACT 9007199254740992.0

/* What a value looks like: an integer (a count, if it is one), or what
 * only ratios, averages and rates hold. */
enum shape { INTEGER, FRACTION, NOT_A_NUMBER, INFINITE };

struct record {
	size_t stat, dump;
	double value;
	unsigned line;
	unsigned char shape;
	const char *text;        /* the value as written (into the input copy) */
};

struct statistic {
	char *name;
	unsigned line;           /* first appearance */
	int one_line;            /* a one-line vector: no element names */
	int rate;                /* its unit is a rate or a ratio */
};

enum relation { FIRST, DELTA, TOTAL };

struct dump {
	unsigned begin, end;     /* lines of its Begin and End */
	enum relation rel;       /* to the dump before it */
	uint64_t ns;             /* its interval's length */
};

struct importer {
	const char *name;
	struct record *r;
	size_t nr, rcap;
	struct statistic *s;
	size_t ns, scap;
	size_t *hash;            /* open addressing: statistic index + 1 */
	size_t hcap;
	struct dump *d;
	size_t nd, dcap;
	struct cp_diags diags;
	int nomem;
};

static void bad(struct importer *im, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void bad(struct importer *im, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cp_diags_vadd(&im->diags, 0, line, fmt, ap);
	va_end(ap);
	im->nomem |= im->diags.nomem;
}

/* Grow *p (of *cap elements of size each) to hold n + 1. */
static int grow(struct importer *im, void **p, size_t *cap, size_t n,
		size_t size)
{
	size_t c;
	void *q;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 64;
	if (!(q = cp_reallocarray(*p, c, size))) {
		im->nomem = 1;
		return -1;
	}
	*p = q;
	*cap = c;
	return 0;
}

/* ==== statistic names ==== */

static uint64_t name_hash(const char *s, size_t n)
{
	return cp_hash(CP_HASH_SEED, s, n);
}

/* The index of the statistic named s[0..n), added if new; (size_t)-1 out
 * of memory. */
static size_t stat_index(struct importer *im, const char *s, size_t n,
			 unsigned line)
{
	size_t i, h;

	if (2 * (im->ns + 1) > im->hcap) {
		size_t cap = im->hcap ? 2 * im->hcap : 1024, j;
		size_t *t = cp_calloc(cap, sizeof *t);

		if (!t) {
			im->nomem = 1;
			return (size_t)-1;
		}
		for (j = 0; j < im->ns; j++) {
			const char *nm = im->s[j].name;

			h = (size_t)name_hash(nm, strlen(nm)) & (cap - 1);
			while (t[h])
				h = (h + 1) & (cap - 1);
			t[h] = j + 1;
		}
		cp_free(im->hash);
		im->hash = t;
		im->hcap = cap;
	}
	h = (size_t)name_hash(s, n) & (im->hcap - 1);
	for (; im->hash[h]; h = (h + 1) & (im->hcap - 1)) {
		const char *nm = im->s[im->hash[h] - 1].name;

		if (!strncmp(nm, s, n) && !nm[n])
			return im->hash[h] - 1;
	}
	if (grow(im, (void **)&im->s, &im->scap, im->ns, sizeof *im->s))
		return (size_t)-1;
	i = im->ns;
	if (!(im->s[i].name = cp_strndup(s, n))) {
		im->nomem = 1;
		return (size_t)-1;
	}
	im->s[i].line = line;
	im->s[i].one_line = 0;
	im->s[i].rate = 0;
	im->ns++;
	im->hash[h] = i + 1;
	return i;
}

static size_t stat_find(const struct importer *im, const char *s)
{
	size_t h;

	if (!im->hcap)
		return (size_t)-1;
	h = (size_t)name_hash(s, strlen(s)) & (im->hcap - 1);
	for (; im->hash[h]; h = (h + 1) & (im->hcap - 1))
		if (!strcmp(im->s[im->hash[h] - 1].name, s))
			return im->hash[h] - 1;
	return (size_t)-1;
}

/* ==== one line ==== */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next whitespace-separated token of *p (NULL at the end of the
 * line); *len its length. */
static char *token(char **p, size_t *len)
{
	char *s = *p, *e;

	while (is_space(*s))
		s++;
	if (!*s)
		return NULL;
	for (e = s; *e && !is_space(*e); e++)
		;
	*len = (size_t)(e - s);
	*p = e;
	return s;
}

/* "---------- Begin Simulation Statistics ----------": the words between
 * the dashes. */
static int is_marker(const char *line, const char *words)
{
	size_t n = strlen(words);

	while (*line == '-' || is_space(*line))
		line++;
	if (strncmp(line, words, n))
		return 0;
	for (line += n; *line; line++)
		if (*line != '-' && !is_space(*line))
			return 0;
	return 1;
}

/* gem5 prints values in fixed notation ("12", "0.051447", "-0.285085"),
 * "nan" for a statistic without a value (an average of nothing; before
 * 2012 "no_value"), "inf" and "-inf" for divisions by zero. */
static int parse_value(const char *s, size_t n, double *v, enum shape *shape)
{
	char buf[128], *end;
	size_t i = 0;

	if (n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!strcmp(buf, "nan") || !strcmp(buf, "-nan") ||
	    !strcmp(buf, "no_value")) {
		*v = NAN;
		*shape = NOT_A_NUMBER;
		return 0;
	}
	if (!strcmp(buf, "inf") || !strcmp(buf, "-inf")) {
		*v = buf[0] == '-' ? -INFINITY : INFINITY;
		*shape = INFINITE;
		return 0;
	}
	/* -?DIGITS[.DIGITS][e[+-]DIGITS], nothing else strtod reads */
	if (buf[i] == '-')
		i++;
	if (buf[i] < '0' || buf[i] > '9')
		return -1;
	while (buf[i] >= '0' && buf[i] <= '9')
		i++;
	if (buf[i] == '.') {
		if (buf[++i] < '0' || buf[i] > '9')
			return -1;
		while (buf[i] >= '0' && buf[i] <= '9')
			i++;
	}
	if (buf[i] == 'e' || buf[i] == 'E') {
		if (buf[++i] == '+' || buf[i] == '-')
			i++;
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
		while (buf[i] >= '0' && buf[i] <= '9')
			i++;
	}
	if (buf[i])
		return -1;
	errno = 0;
	*v = strtod(buf, &end);
	if (isinf(*v)) {                /* 1e999: beyond every double */
		*shape = INFINITE;
		return 0;
	}
	*shape = *v == floor(*v) ? INTEGER : FRACTION;
	return 0;
}

/* A distribution's or vector's percent column: "65.83%", "-4.11%". */
static int is_percent(const char *s, size_t n)
{
	double v;
	enum shape sh;

	return n >= 2 && s[n - 1] == '%' && !parse_value(s, n - 1, &v, &sh);
}

/* Whether the line (from its description on) ends in the unit of what
 * is no count: gem5 21 and later append the unit, "(Count)", "(Tick)",
 * "(Byte/Second)", "((Count/Cycle))", "(Ratio)", "(Volt)"; older
 * descriptions say "(bytes/s)", "(inst/s)".  A rate, a ratio, or a
 * level (volts, watts, degrees). */
static int rate_unit(const char *p)
{
	static const char *const levels[] = { "Ratio)", "Volt)", "Watt)",
					      "DegreeCelsius)" };
	const char *e = p + strlen(p), *b;
	int depth = 0;
	size_t i;

	while (e > p && is_space(e[-1]))
		e--;
	if (e == p || e[-1] != ')')
		return 0;
	for (b = e; b > p; b--) {
		if (b[-1] == ')')
			depth++;
		else if (b[-1] == '(' && --depth == 0)
			break;
	}
	if (b == p)
		return 0;
	/* b[-1] is the opening parenthesis of (unit) */
	if (memchr(b, '/', (size_t)(e - b)))
		return 1;
	for (i = 0; i < sizeof levels / sizeof *levels; i++)
		if ((size_t)(e - b) == strlen(levels[i]) &&
		    !strncmp(b, levels[i], (size_t)(e - b)))
			return 1;
	return 0;
}

/* One line inside a dump:
 *     NAME VALUE [PDF% [CDF%]] [# DESCRIPTION] [(UNIT)]
 * or a one-line vector, NAME |VALUE PDF% CDF% |VALUE ... # DESCRIPTION. */
static void stat_line(struct importer *im, unsigned line, char *text)
{
	char *p = text, *name, *val, *t;
	size_t nlen, vlen, tlen, st;
	int pct = 0;
	struct record *rec;
	double v;
	enum shape shape;

	name = token(&p, &nlen);
	if (*name == '#' || *name == '|') {
		bad(im, line, "expected a statistic (NAME VALUE # DESCRIPTION), "
		    "found '%.60s'", name);
		return;
	}
	if (!(val = token(&p, &vlen))) {
		bad(im, line, "no value after '%.*s'", (int)(nlen > 200 ? 200 : nlen),
		    name);
		return;
	}
	if (*val == '|') {
		if ((st = stat_index(im, name, nlen, line)) != (size_t)-1)
			im->s[st].one_line = 1;
		return;
	}
	if (parse_value(val, vlen, &v, &shape)) {
		bad(im, line, "value '%.*s' of '%.*s' is not a number",
		    (int)(vlen > 60 ? 60 : vlen), val, (int)(nlen > 200 ? 200 : nlen),
		    name);
		return;
	}
	/* what may follow: the percent columns, then a description or
	 * (gem5 21 and later, a statistic without description) the unit */
	while ((t = token(&p, &tlen)) && *t != '#' && *t != '(') {
		if (pct == 2 || !is_percent(t, tlen)) {
			bad(im, line, "unexpected '%.*s' after the value of '%.*s' "
			    "(expected percent columns, '# description' or a unit)",
			    (int)(tlen > 60 ? 60 : tlen), t,
			    (int)(nlen > 200 ? 200 : nlen), name);
			return;
		}
		pct++;
	}
	if ((st = stat_index(im, name, nlen, line)) == (size_t)-1)
		return;
	if (t && rate_unit(t))
		im->s[st].rate = 1;
	if (grow(im, (void **)&im->r, &im->rcap, im->nr, sizeof *im->r))
		return;
	rec = &im->r[im->nr++];
	rec->stat = st;
	rec->dump = im->nd - 1;
	rec->value = v;
	rec->line = line;
	rec->shape = (unsigned char)shape;
	val[vlen] = '\0';          /* the rest of the line is read */
	rec->text = val;
}

/* ==== dumps and their ticks ==== */

/* The record of statistic s in dump k, or NULL (cells: one per dump and
 * statistic, record index + 1). */
static const struct record *cell(const struct importer *im, const size_t *cells,
				 size_t k, size_t s)
{
	size_t i;

	if (s == (size_t)-1)
		return NULL;
	i = cells[k * im->ns + s];
	return i ? &im->r[i - 1] : NULL;
}

/* A tick counter of dump k under either of gem5's names (before and
 * since 2020); 0 absent, 1 read into *v, -1 bad (reported). */
static int ticks(struct importer *im, const size_t *cells, size_t k,
		 const char *old_name, const char *new_name, uint64_t *v)
{
	const struct record *r = cell(im, cells, k, stat_find(im, new_name));
	char *end;

	if (!r)
		r = cell(im, cells, k, stat_find(im, old_name));
	if (!r)
		return 0;
	errno = 0;
	if (r->shape != INTEGER || r->text[0] == '-' ||
	    strspn(r->text, "0123456789") != strlen(r->text) ||
	    (*v = strtoull(r->text, &end, 10), errno == ERANGE)) {
		bad(im, r->line, "'%s' (%s) is not a number of ticks",
		    im->s[r->stat].name, r->text);
		return -1;
	}
	return 1;
}

/* ticks * 10^9 / freq, rounded: whole seconds exactly, the rest in
 * double (below 10^9 ns, so to well under a nanosecond); *beyond when
 * that is more than 2^53 ns. */
static uint64_t ticks_to_ns(uint64_t ticks, uint64_t freq, int *beyond)
{
	uint64_t sec = ticks / freq, rest = ticks % freq, ns;

	*beyond = sec > UINT64_C(9007199);          /* 2^53 ns = 9007199.25 s */
	if (*beyond)
		return 0;
	ns = sec * UINT64_C(1000000000) +
	     (uint64_t)nearbyint((double)rest * 1e9 / (double)freq);
	*beyond = ns > (UINT64_C(1) << 53);
	return *beyond ? 0 : ns;
}

/* Each dump's interval: its length, and whether it counts from a reset at
 * (or after) the dump before it, or repeats that dump's counts.  A dump
 * began counting at start = final_tick - sim_ticks: at the previous
 * dump's start (running totals, interval final_tick[k-1]..final_tick[k])
 * or at or after its end (a reset: the dump's own sim_ticks). */
static void dump_intervals(struct importer *im, const size_t *cells,
			   enum hec_gem5_dumps mode)
{
	/* the previous dump's counters, when they were all good */
	uint64_t psim = 0, pfin = 0;
	int pok = 0, phave_fin = 0;
	size_t k;

	for (k = 0; k < im->nd; k++) {
		struct dump *d = &im->d[k];
		uint64_t sim = 0, fin = 0, freq = 0, len;
		int hs, hf, hq, beyond, ok;

		d->rel = k ? DELTA : FIRST;
		d->ns = 0;
		hs = ticks(im, cells, k, "sim_ticks", "simTicks", &sim);
		hf = ticks(im, cells, k, "final_tick", "finalTick", &fin);
		hq = ticks(im, cells, k, "sim_freq", "simFreq", &freq);
		if (!hs)
			bad(im, d->begin, "dump has no 'simTicks' (or 'sim_ticks'): "
			    "its length is unknown");
		if (!hq)
			bad(im, d->begin, "dump has no 'simFreq' (or 'sim_freq'): "
			    "its ticks per second are unknown");
		else if (hq > 0 && freq == 0)
			bad(im, d->begin, "'simFreq' is 0 ticks per second");
		if (hf > 0 && hs > 0 && fin < sim) {
			bad(im, d->begin, "the dump's 'finalTick' (%llu) is before "
			    "its 'simTicks' (%llu) began", (unsigned long long)fin,
			    (unsigned long long)sim);
			hf = -1;
		}
		ok = hs > 0 && hq > 0 && freq > 0 && hf >= 0;
		if (!ok || (k && !pok))
			goto next;
		len = sim;
		if (k) {
			enum relation seen, want = mode == HEC_GEM5_DUMPS_CUMULATIVE ?
				TOTAL : DELTA;

			if (hf > 0 && phave_fin) {
				uint64_t start = fin - sim, pstart = pfin - psim;

				if (start == pstart) {
					seen = TOTAL;
				} else if (start >= pfin) {
					seen = DELTA;
				} else {
					bad(im, d->begin, "the dump counts from tick %llu, "
					    "inside the previous dump (ticks %llu to %llu): "
					    "neither a reset at that dump nor its running "
					    "totals", (unsigned long long)start,
					    (unsigned long long)pstart,
					    (unsigned long long)pfin);
					goto next;
				}
				if (mode != HEC_GEM5_DUMPS_AUTO && seen != want) {
					bad(im, d->begin, "--dumps %s, but the ticks say "
					    "this dump %s", seen == TOTAL ? "delta" :
					    "cumulative", seen == TOTAL ? "repeats the "
					    "one before (running totals)" : "counts from "
					    "a reset after the one before (a delta)");
					goto next;
				}
			} else if (mode == HEC_GEM5_DUMPS_AUTO) {
				bad(im, d->begin, "no 'finalTick' (or 'final_tick') here "
				    "or in the dump before to tell whether the "
				    "statistics were reset between them: say which "
				    "with --dumps delta or --dumps cumulative");
				goto next;
			} else {
				seen = want;
			}
			d->rel = seen;
			if (seen == TOTAL) {
				if (sim < psim) {
					bad(im, d->begin, "'simTicks' decreases (%llu, "
					    "after %llu): not running totals",
					    (unsigned long long)sim,
					    (unsigned long long)psim);
					goto next;
				}
				len = sim - psim;
			}
		}
		d->ns = ticks_to_ns(len, freq, &beyond);
		if (beyond)
			bad(im, d->begin, "the dump lasts %llu ticks at %llu per "
			    "second, beyond 2^53 ns, more than a dataset holds "
			    "exactly", (unsigned long long)len,
			    (unsigned long long)freq);
next:
		psim = sim;
		pfin = fin;
		pok = ok;
		phave_fin = hf > 0;
	}
}

/* ==== which statistics are events ==== */

struct globs {
	char **pat;
	size_t n;
	size_t *hits;
};

static void globs_release(struct globs *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		cp_free(g->pat[i]);
	cp_free(g->pat);
	cp_free(g->hits);
}

/* "a,b*,c" into patterns; CP_EINPUT on an empty one. */
static int globs_parse(struct globs *g, const char *spec, struct cp_error *err)
{
	const char *p = spec;
	size_t n = 1, i;

	memset(g, 0, sizeof *g);
	for (i = 0; spec[i]; i++)
		n += spec[i] == ',';
	g->pat = cp_calloc(n, sizeof *g->pat);
	g->hits = cp_calloc(n, sizeof *g->hits);
	if (!g->pat || !g->hits)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const char *c = strchr(p, ',');
		size_t len = c ? (size_t)(c - p) : strlen(p);

		if (!len)
			return cp_error_set(err, CP_EINPUT, "--events '%s' has an "
					    "empty pattern", spec);
		if (!(g->pat[i] = cp_strndup(p, len)))
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		g->n++;
		p += len + 1;
	}
	return CP_OK;
}

static int globs_match(struct globs *g, const char *name)
{
	size_t i;
	int hit = 0;

	for (i = 0; i < g->n; i++)
		if (!fnmatch(g->pat[i], name, 0)) {
			g->hits[i]++;
			hit = 1;
		}
	return hit;
}

/* An integer above 2^53, decided on its text: the doubles near 2^53
 * round 9007199254740993 down to 2^53. */
static int beyond_2p53(const struct record *r)
{
	const char *t = r->text;
	size_t n;

	if (r->value != GEM5_MAX_EXACT)
		return r->value > GEM5_MAX_EXACT;
	if (strpbrk(t, "eE"))
		return 0;
	while (*t == '0')
		t++;
	n = strspn(t, "0123456789");
	return n != 16 || strncmp(t, "9007199254740992", 16) != 0;
}

/* Decide statistic s: 1 an event, 0 left out (counted in sum).  Errors
 * (a kept statistic that is no count, a negative count, one beyond 2^53,
 * a kept running total that decreases) are reported at their lines. */
static int keep_statistic(struct importer *im, const size_t *cells, size_t s,
			  int selected, struct hec_gem5_summary *sum)
{
	const struct statistic *st = &im->s[s];
	const struct record *prev = NULL;
	int errors = 0;
	size_t k;

	if (st->one_line) {
		if (selected)
			bad(im, st->line, "'%s' is a one-line vector, whose "
			    "elements stats.txt does not name", st->name);
		else
			sum->one_line++;
		return 0;
	}
	if (st->rate && !selected) {
		sum->not_counts++;
		return 0;
	}
	for (k = 0; k < im->nd; k++) {
		const struct record *r = cell(im, cells, k, s);

		if (r && r->shape != INTEGER) {
			if (!selected) {
				sum->not_counts++;
				return 0;
			}
			bad(im, r->line, "'%s' is %s, not a count", st->name,
			    r->text);
			errors++;
		}
	}
	for (k = 0; k < im->nd; k++) {
		const struct record *r = cell(im, cells, k, s);

		if (!r || r->shape != INTEGER)
			continue;
		if (r->value < 0) {
			bad(im, r->line, "'%s' is negative (%s), not a count (an "
			    "overflowed counter?)", st->name, r->text);
			errors++;
		} else if (beyond_2p53(r)) {
			bad(im, r->line, "'%s' is %s, beyond 2^53, more than a "
			    "dataset holds exactly", st->name, r->text);
			errors++;
		}
	}
	if (errors)
		return 0;
	for (k = 0; k < im->nd; prev = cell(im, cells, k, s), k++) {
		const struct record *r = cell(im, cells, k, s);

		if (im->d[k].rel != TOTAL || !r || !prev || r->value >= prev->value)
			continue;
		if (!selected) {
			sum->not_totals++;
			return 0;
		}
		bad(im, r->line, "'%s' decreases from %s (line %u) to %s, but "
		    "the dumps are running totals", st->name, prev->text,
		    prev->line, r->text);
		errors++;
	}
	return !errors;
}

/* ==== output ==== */

static void write_rows(struct importer *im, const size_t *cells,
		       const size_t *events, size_t ne, const char *observation,
		       struct cp_buf *out, struct hec_gem5_summary *sum)
{
	unsigned char *missing = cp_calloc(ne + 1, 1);
	size_t k, e;

	if (!missing) {
		im->nomem = 1;
		return;
	}
	for (k = 0; k < im->nd; k++) {
		const struct dump *d = &im->d[k];

		for (e = 0; e < ne; e++) {
			const struct record *r = cell(im, cells, k, events[e]);
			const struct record *p = d->rel == TOTAL ?
				cell(im, cells, k - 1, events[e]) : NULL;
			int counted = r && (d->rel != TOTAL || p) && d->ns > 0;

			cp_buf_csv_field(out, observation);
			cp_buf_printf(out, ",%zu,", k);
			cp_buf_csv_field(out, im->s[events[e]].name);
			if (counted)
				cp_buf_printf(out, ",%.0f,%llu,%llu\n",
					      (p ? r->value - p->value : r->value) + 0.0,
					      (unsigned long long)d->ns,
					      (unsigned long long)d->ns);
			else
				cp_buf_printf(out, ",0,%llu,0\n",
					      (unsigned long long)d->ns);
			if (!counted) {
				sum->not_counted++;
				if (d->ns > 0)
					missing[e] = 1;
			}
			sum->rows++;
		}
	}
	for (e = 0; e < ne; e++)
		sum->missing += missing[e];
	cp_free(missing);
}

/* ==== the whole file ==== */

/* Read the lines into records and dumps. */
static void read_lines(struct importer *im, char *buf, size_t len)
{
	char *p, *end;
	unsigned line = 0;
	int open = 0;

	for (p = buf; p < buf + len && !im->nomem; p = end + 1) {
		char *s;

		end = memchr(p, '\n', (size_t)(buf + len - p));
		if (!end)
			end = buf + len;
		*end = '\0';
		line++;
		s = p;
		while (is_space(*s))
			s++;
		if (!*s)
			continue;
		if (is_marker(s, "Begin Simulation Statistics")) {
			if (open)
				bad(im, line, "'Begin Simulation Statistics' inside "
				    "the dump begun at line %u (no 'End' before it)",
				    im->d[im->nd - 1].begin);
			if (grow(im, (void **)&im->d, &im->dcap, im->nd,
				 sizeof *im->d))
				return;
			im->d[im->nd].begin = line;
			im->d[im->nd].end = 0;
			im->nd++;
			open = 1;
		} else if (is_marker(s, "End Simulation Statistics")) {
			if (!open)
				bad(im, line, "'End Simulation Statistics' without "
				    "its 'Begin'");
			else
				im->d[im->nd - 1].end = line;
			open = 0;
		} else if (!open) {
			bad(im, line, "'%.60s' outside the dumps (gem5's stats.txt "
			    "holds only 'Begin/End Simulation Statistics' blocks)", s);
		} else {
			stat_line(im, line, s);
		}
	}
	if (open)
		bad(im, im->d[im->nd - 1].begin, "the dump begun here has no 'End "
		    "Simulation Statistics' (a truncated file?)");
	if (!im->nd && !im->diags.n)
		bad(im, line ? line : 1, "no 'Begin Simulation Statistics' (is "
		    "this gem5's stats.txt?)");
}

int hec_gem5_convert(const char *name, const char *text, size_t len,
		     const struct hec_gem5_options *opt, struct cp_buf *out,
		     struct hec_gem5_summary *summary, struct cp_error *err)
{
	struct importer im;
	struct hec_gem5_summary sum;
	struct globs g;
	char *buf = NULL;
	size_t *cells = NULL, *events = NULL, ne = 0, i, k;
	int rc = CP_OK;

	memset(&im, 0, sizeof im);
	memset(&sum, 0, sizeof sum);
	memset(&g, 0, sizeof g);
	im.name = name;
	if (summary)
		memset(summary, 0, sizeof *summary);
	if (!opt->observation || !opt->observation[0])
		return cp_error_set(err, CP_EINPUT, "empty observation name");
	if (opt->events && (rc = globs_parse(&g, opt->events, err)))
		goto out;
	if (memchr(text, '\0', len)) {
		bad(&im, 0, "not a text file (NUL byte)");
		goto out;
	}
	if (!(buf = cp_malloc(len + 1))) {
		im.nomem = 1;
		goto out;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	read_lines(&im, buf, len);
	if (im.nomem || !im.nd)
		goto out;
	/* one cell per dump and statistic: a statistic twice in one dump
	 * is an error */
	if (im.ns && im.nd > SIZE_MAX / sizeof *cells / im.ns) {
		im.nomem = 1;
		goto out;
	}
	if (!(cells = cp_calloc(im.nd * im.ns + 1, sizeof *cells))) {
		im.nomem = 1;
		goto out;
	}
	for (i = 0; i < im.nr; i++) {
		size_t *c = &cells[im.r[i].dump * im.ns + im.r[i].stat];

		if (*c)
			bad(&im, im.r[i].line, "'%s' twice in one dump (first at "
			    "line %u)", im.s[im.r[i].stat].name, im.r[*c - 1].line);
		else
			*c = i + 1;
	}
	dump_intervals(&im, cells, opt->dumps);
	if (!(events = cp_calloc(im.ns + 1, sizeof *events))) {
		im.nomem = 1;
		goto out;
	}
	for (i = 0; i < im.ns && !im.nomem; i++) {
		int selected = opt->events ? globs_match(&g, im.s[i].name) : 0;

		if (opt->events && !selected)
			continue;
		if (keep_statistic(&im, cells, i, selected, &sum))
			events[ne++] = i;
	}
	for (i = 0; i < g.n; i++)
		if (!g.hits[i]) {
			const char **names = cp_calloc(im.ns + 1, sizeof *names);
			const char *near = NULL;

			if (names) {
				for (k = 0; k < im.ns; k++)
					names[k] = im.s[k].name;
				if (!strpbrk(g.pat[i], "*?["))
					near = cp_closest(g.pat[i], names, im.ns);
			}
			bad(&im, 0, "--events '%s' matches no statistic%s%s%s",
			    g.pat[i], near ? " (did you mean '" : "", near ? near : "",
			    near ? "'?)" : "");
			cp_free(names);
		}
	if (!ne && !im.diags.n)
		bad(&im, im.d[0].begin, "no statistic holds counts (each has a "
		    "fraction, nan or inf in some dump)");
	if (im.nomem || im.diags.n)
		goto out;
	if (opt->header)
		cp_buf_puts(out, "observation,interval,event,value,enabled_ns,"
			    "running_ns\n");
	write_rows(&im, cells, events, ne, opt->observation, out, &sum);
	sum.dumps = im.nd;
	sum.statistics = im.ns;
	sum.events = ne;
	for (k = 1; k < im.nd; k++) {
		sum.deltas += im.d[k].rel == DELTA;
		sum.totals += im.d[k].rel == TOTAL;
		sum.short_dumps += im.d[k].ns == 0;
	}
	sum.short_dumps += im.d[0].ns == 0;
	if (summary)
		*summary = sum;
out:
	if (im.nomem || out->failed)
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
	else if (!rc && im.diags.n)
		rc = cp_diags_report(&im.diags, &im.name, "lines", opt->messages, err);
	cp_diags_release(&im.diags);
	for (i = 0; i < im.ns; i++)
		cp_free(im.s[i].name);
	cp_free(im.s);
	cp_free(im.hash);
	cp_free(im.r);
	cp_free(im.d);
	cp_free(cells);
	cp_free(events);
	cp_free(buf);
	globs_release(&g);
	return rc;
}

int hec_gem5_import(const char *path, const struct hec_gem5_options *opt,
		    struct cp_buf *out, struct hec_gem5_summary *summary,
		    struct cp_error *err)
{
	struct cp_buf text;
	int rc;

	cp_buf_init(&text);
	rc = cp_read_file(path, &text, err);
	if (!rc)
		rc = hec_gem5_convert(!strcmp(path, "-") ? "<stdin>" : path,
				      text.data ? text.data : "", text.len, opt,
				      out, summary, err);
	cp_buf_release(&text);
	return rc;
}
