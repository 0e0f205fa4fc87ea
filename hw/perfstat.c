/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/perfstat.c: `perf stat` output of every variant to the long dataset.
 * A first pass classifies each line of each input (a count row, a
 * metric-only line, a summary row, perf's own text, a foreign line, a bad
 * line) and keeps count rows as records, cut into run blocks; a second
 * pass drops repeated events, checks summary rows against the intervals
 * and sums the records of one interval (or run) and event into one row.
 * The layouts are perf's tools/perf/util/stat-display.c (and, before it,
 * builtin-stat.c) of each version: docs/method/statistics.md lists them. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/hec.h"
#include "hw/perfstat.h"

enum state { COUNTED, NOT_COUNTED, NOT_SUPPORTED };

struct record {
	size_t block;            /* run block, numbered over all inputs */
	double time;             /* -I stamp in seconds; 0 for a total */
	int summary;             /* an -I --summary row: checked, not kept */
	int dropped;             /* a repeated event's later copy */
	char *agg;               /* CPU3, comm-tid, S0-D0-C1, cgroup...; "" */
	char *event;             /* modifiers dropped when asked */
	char *raw;               /* the name as perf printed it */
	enum state state;
	double value;            /* perf's scaled estimate, in raw units */
	double prec;             /* half the last digit printed (0: an integer) */
	double run;              /* running time, ns; NAN where perf prints
				  * none (human-readable, perf 3.x CSV) */
	double pct;              /* 100 * running / enabled */
	double se;               /* perf stat -r: relative standard error of
				  * the mean, percent; NAN: none printed */
	unsigned line;
	size_t t, e;             /* interval (or run) and event numbers */
	size_t pos;              /* the event's rank of first appearance in its
				  * input (over all inputs when pooled) */
	double len_ns;           /* its interval's (or run's) length, ns */
	double ena_ns, run_ns;   /* the times written, set when summing */
};

/* A run block: one perf stat run (or -r summary) of one input. */
struct block {
	size_t input;
	unsigned line;           /* its first row */
	double elapsed;          /* "seconds time elapsed"; NAN */
	unsigned runs;           /* "(N runs)" of the human-readable header */
	size_t rows;             /* its count rows (summary rows aside) */
};

enum fmt { FMT_NONE, FMT_CSV, FMT_JSON, FMT_STD };

/* aggregation kinds, for the note */
enum { AGG_CPU = 1, AGG_THREAD = 2, AGG_CORE = 4, AGG_DIE = 8, AGG_SOCKET = 16,
       AGG_NODE = 32, AGG_CACHE = 64, AGG_CLUSTER = 128, AGG_CGROUP = 256 };

#define FOREIGN_SHOWN 5

/* One input while it is read. */
struct input_state {
	size_t input;
	const char *name;
	enum fmt fmt;
	char sep[16];            /* the CSV separator */
	int old_csv;             /* perf 3.x CSV: value,event[,cgroup][,noise] */
	int intervals;           /* -1 not known yet, 1 -I output, 0 totals */
	unsigned mode_line;      /* the row that decided */
	int has_header;          /* human-readable with perf's header lines */
	int in_block;            /* between such a header and its footer */
	size_t block;            /* current run block; SIZE_MAX: none yet */
	int header_mark;         /* a run header since the last row */
	int foreign_mark;        /* a foreign line since the last row */
	unsigned pending_runs;   /* "(N runs)" for the next block */
	double last_time;
	unsigned last_time_line;
	/* for the note */
	size_t metric, foreign, rows, stamped;
	unsigned foreign_lines[FOREIGN_SHOWN];
	unsigned agg_kinds;
	int variance;
	size_t checked, unchecked, nrepeats;
	char repeats[200];       /* the first repeated events dropped */
	unsigned runs;           /* perf stat -r N kept (runs,se_pct) */
	const char *dropped_se;  /* why perf's -r deviations were dropped */
	int assumed;             /* a total without its elapsed time */
};

struct importer {
	const struct hec_perfstat_options *opt;
	const struct hec_perfstat_input *in;
	size_t nin;
	struct record *r;
	size_t n, cap;
	struct block *b;
	size_t nb, capb;
	struct cp_diags diags;
	struct input_state *st;  /* nin, kept for the note */
	int nomem;
	int strip, strict, pooled;
};

/* 2^53: every integer up to it is a double */
#define PERFSTAT_MAX_EXACT 9007199254740992.0

/* ==== diagnostics: collected, reported in input and line order ==== */

static void bad(struct importer *im, size_t input, unsigned line,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void bad(struct importer *im, size_t input, unsigned line,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cp_diags_vadd(&im->diags, input, line, fmt, ap);
	va_end(ap);
	im->nomem |= im->diags.nomem;
}

/* ==== numbers ==== */

/* A plain number (C notation), whole string. */
static int parse_number(const char *s, double *out)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	return (*end || errno == ERANGE || !isfinite(*out)) ? -1 : 0;
}

static int is_uint(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Half the last printed digit of a number with d decimals (0 when it
 * has none: perf's integers are exact unless scaled). */
static double half_digit(int d)
{
	return d > 0 ? 0.5 * pow(10.0, -(double)d) : 0;
}

/* A count as perf's %f or %.Nf prints it: digits, at most one decimal
 * mark ('.', or ',' where the locale has a decimal comma and the
 * separator is not ','), an optional exponent (JSON's %f never has one,
 * but a hand-edited file may).  *prec = half its last digit. */
static int parse_decimal(const char *s, int comma, double *out, double *prec)
{
	char buf[96];
	size_t n = strlen(s), i;
	int d = -1;

	if (!n || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n + 1);
	for (i = 0; i < n; i++) {
		if (buf[i] == ',' && comma)
			buf[i] = '.';
		if (buf[i] == '.')
			d = 0;
		else if (d >= 0 && is_digit(buf[i]))
			d++;
		else if (buf[i] == 'e' || buf[i] == 'E')
			break;
	}
	if (parse_number(buf, out))
		return -1;
	*prec = half_digit(d);
	return 0;
}

/* The bytes of a thousands separator at s (',', '.', '\'', ' ', and
 * U+00A0, U+202F as UTF-8), or 0. */
static size_t group_mark(const char *s)
{
	if (*s == ',' || *s == '.' || *s == '\'' || *s == ' ')
		return 1;
	if ((unsigned char)s[0] == 0xC2 && (unsigned char)s[1] == 0xA0)
		return 2;
	if ((unsigned char)s[0] == 0xE2 && (unsigned char)s[1] == 0x80 &&
	    (unsigned char)s[2] == 0xAF)
		return 3;
	return 0;
}

/* A count of the human-readable output, printed with %'18.0f or
 * %'18.2f (or, perf 3.x clocks, %18.6f) in the user's locale: digit
 * groups with a thousands separator, then perhaps a decimal mark and
 * its decimals.  perf prints 0, 2 or 6 decimals and groups of 3 (2 in
 * en_IN's lakh), so the last mark is the decimal one unless exactly 3
 * digits follow it.  *decimals = the decimals printed. */
static int parse_grouped(const char *s, double *out, double *prec, int *decimals)
{
	char digits[96];
	size_t nd = 0, last_mark = 0, len;
	const char *p = s, *lastp = NULL;
	int marks = 0, after = 0;

	if (!is_digit(*s))
		return -1;
	while (*p) {
		if (is_digit(*p)) {
			if (nd + 1 >= sizeof digits)
				return -1;
			digits[nd++] = *p++;
			after++;
			continue;
		}
		if (!(len = group_mark(p)) || !is_digit(p[len]))
			return -1;
		marks++;
		last_mark = nd;
		lastp = p;
		after = 0;
		p += len;
	}
	digits[nd] = '\0';
	*decimals = 0;
	if (marks && after != 3) {
		/* the last mark is the decimal one; every other must differ
		 * from it (1.234,56 and 1,234.56, not 1,234,56) */
		const char *q;

		for (q = s; q < lastp; q++)
			if (*q == *lastp && (*q == ',' || *q == '.'))
				return -1;
		memmove(digits + last_mark + 1, digits + last_mark, nd - last_mark + 1);
		digits[last_mark] = '.';
		*decimals = after;
	}
	if (parse_number(digits, out))
		return -1;
	*prec = half_digit(*decimals);
	return 0;
}

/* perf's -I stamp, "%lu.%09lu": digits, a point, digits. */
static int is_stamp_text(const char *s, size_t min_decimals)
{
	size_t d = 0;

	if (!is_digit(*s))
		return 0;
	while (is_digit(*s))
		s++;
	if (*s++ != '.')
		return 0;
	while (is_digit(s[d]))
		d++;
	return !s[d] && d >= min_decimals && d > 0;
}

/* ==== names ==== */

/* A name perf could print as an event: no parentheses of prose, not a
 * number. */
static int event_like(const char *s)
{
	double v;

	if (!*s || !parse_number(s, &v) || strchr("#([", s[0]))
		return 0;
	return 1;
}

/* An aggregation id: CPU3 (-A), comm-tid (--per-thread), S0, S0-D0,
 * S0-D0-C1, S0-D0-L3-ID2, S0-D0-CLS1 (--per-socket/die/core/cache/
 * cluster), N0 (--per-node), and its kind. */
static unsigned agg_kind(const char *s)
{
	const char *dash = strrchr(s, '-');

	if (!strncmp(s, "CPU", 3) && is_uint(s + 3))
		return AGG_CPU;
	if (s[0] == 'N' && is_uint(s + 1))
		return AGG_NODE;
	if (s[0] == 'S' && is_digit(s[1])) {
		if (strstr(s, "-CLS"))
			return AGG_CLUSTER;
		if (strstr(s, "-ID"))
			return AGG_CACHE;
		if (strstr(s, "-C"))
			return AGG_CORE;
		if (strstr(s, "-D"))
			return AGG_DIE;
		return AGG_SOCKET;
	}
	if (dash && dash > s && is_uint(dash + 1))
		return AGG_THREAD;
	return 0;
}

/* Socket/die/core/cache/cluster/node ids are followed by the number of
 * CPUs (counters) aggregated. */
static int agg_has_count(unsigned kind)
{
	return kind & (AGG_CORE | AGG_DIE | AGG_SOCKET | AGG_NODE | AGG_CACHE |
		       AGG_CLUSTER);
}

static int is_marker(const char *s)
{
	return !strcmp(s, "<not counted>") || !strcmp(s, "<not supported>");
}

/* A CSV or JSON count field: a number or one of perf's markers. */
static int is_value(const char *s, int comma)
{
	double v, p;

	return !parse_decimal(s, comma, &v, &p) || is_marker(s);
}

static void trim(char **s)
{
	char *p = *s, *e;

	while (*p == ' ' || *p == '\t')
		p++;
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	*s = p;
}

/* strncpy that always terminates (values longer than dst are cut) */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* ==== one count row, whatever the format ==== */

/* What a line's parser found; texts for messages. */
struct row {
	int stamped;
	double time;
	const char *stamp;
	int summary;             /* "summary" first field (newer perf) */
	const char *agg, *cgroup, *event, *unit;
	const char *value;       /* the count's text */
	int grouped;             /* human-readable count (thousands marks) */
	int comma;               /* ',' may be a decimal mark */
	const char *run;         /* NULL: no run time printed */
	int run_float;           /* JSON: a float run time */
	const char *pct;         /* NULL: 100 (human-readable, no share) */
	const char *variance;    /* NULL: none; "1.92%" */
};

static int grow_records(struct importer *im)
{
	size_t cap = im->cap ? 2 * im->cap : 256;
	struct record *r;

	if (im->n < im->cap)
		return 0;
	if (!(r = cp_reallocarray(im->r, cap, sizeof *r))) {
		im->nomem = 1;
		return -1;
	}
	im->r = r;
	im->cap = cap;
	return 0;
}

static size_t new_block(struct importer *im, struct input_state *st,
			unsigned line)
{
	struct block *b;

	if (im->nb == im->capb) {
		size_t cap = im->capb ? 2 * im->capb : 16;

		if (!(b = cp_reallocarray(im->b, cap, sizeof *b))) {
			im->nomem = 1;
			return SIZE_MAX;
		}
		im->b = b;
		im->capb = cap;
	}
	b = &im->b[im->nb];
	memset(b, 0, sizeof *b);
	b->input = st->input;
	b->line = line;
	b->elapsed = NAN;
	b->runs = st->pending_runs;
	st->pending_runs = 0;
	st->block = im->nb;
	st->last_time = -1;
	return im->nb++;
}

/* Is (agg, event) already a row of block b (a totals run)? */
static int in_block(const struct importer *im, size_t b, const char *agg,
		    const char *event)
{
	size_t i;

	for (i = im->n; i-- > 0 && im->r[i].block == b;)
		if (!strcmp(im->r[i].raw, event) && !strcmp(im->r[i].agg, agg))
			return 1;
	return 0;
}

/* task-clock and cpu-clock, which perf prints in msec. */
static int is_clock(const char *event)
{
	size_t n = hec_event_name_base(event);

	return (n == 10 && !strncmp(event, "task-clock", 10)) ||
	       (n == 9 && !strncmp(event, "cpu-clock", 9));
}

/* Check a row's fields, place it in its run block, keep it. */
static void take_row(struct importer *im, struct input_state *st,
		     unsigned line, struct row *w)
{
	struct record rec;
	char agg[600];
	const char *event = w->event;

	/* the first row decides: -I output (a time stamp in every row, but
	 * for -I --summary rows) or totals (none); every later one agrees */
	if (st->intervals < 0) {
		st->intervals = w->stamped || w->summary;
		st->mode_line = line;
	}
	if (st->intervals && !w->stamped)
		w->summary = 1;  /* older perf's -I --summary rows: no stamp */
	if (!st->intervals && w->stamped) {
		bad(im, st->input, line, "a time stamp '%s' in output without them "
		    "(perf stat without -I: line %u has none)", w->stamp,
		    st->mode_line);
		return;
	}
	/* the run block: -I stamps only grow within a run; a run restarts
	 * them after a run header or lines that are not perf's; a total
	 * repeats its events after such lines, or follows a run header */
	if (!w->summary || st->block == SIZE_MAX) {
		int fresh = st->block == SIZE_MAX;

		if (!fresh && st->intervals && w->time < st->last_time) {
			if (!st->header_mark && !st->foreign_mark) {
				bad(im, st->input, line, "time stamp %s is earlier than "
				    "%.9f at line %u (perf stat -I stamps only grow)",
				    w->stamp, st->last_time, st->last_time_line);
				return;
			}
			fresh = 1;
		} else if (!fresh && !st->intervals && im->b[st->block].rows &&
			   (st->header_mark || (st->foreign_mark &&
						in_block(im, st->block, w->agg, event)))) {
			fresh = 1;
		}
		if (fresh && new_block(im, st, line) == SIZE_MAX)
			return;
		if (st->intervals && !w->summary && w->time != st->last_time) {
			st->last_time = w->time;
			st->last_time_line = line;
		}
	}
	st->header_mark = st->foreign_mark = 0;
	memset(&rec, 0, sizeof rec);
	rec.line = line;
	rec.time = w->time;
	rec.summary = w->summary;
	rec.se = NAN;
	if (!*event) {
		bad(im, st->input, line, "empty event name");
		return;
	}
	if (!strcmp(w->value, "<not counted>")) {
		rec.state = NOT_COUNTED;
	} else if (!strcmp(w->value, "<not supported>")) {
		rec.state = NOT_SUPPORTED;
	} else {
		int dec;

		if (w->grouped ? parse_grouped(w->value, &rec.value, &rec.prec, &dec) :
		    parse_decimal(w->value, w->comma, &rec.value, &rec.prec)) {
			bad(im, st->input, line, "count '%s' of '%s' is not a number",
			    w->value, event);
			return;
		}
		if (rec.value < 0) {
			bad(im, st->input, line, "negative count (%s) of '%s'",
			    w->value, event);
			return;
		}
	}
	rec.pct = 100;
	rec.run = NAN;
	if (rec.state == COUNTED) {
		double p;

		if (w->run && (w->run_float ? parse_number(w->run, &rec.run) || rec.run < 0 :
			       !is_uint(w->run) || parse_number(w->run, &rec.run))) {
			bad(im, st->input, line, "run time '%s' of '%s' is not a "
			    "non-negative %s", w->run, event,
			    w->run_float ? "number" : "integer");
			return;
		}
		if (w->run_float)
			rec.run = nearbyint(rec.run);
		if (w->pct && (parse_decimal(w->pct, w->comma, &rec.pct, &p) ||
			       !(rec.pct > 0) || rec.pct > 100)) {
			bad(im, st->input, line, "running percentage '%s' of '%s' is "
			    "not in (0, 100]", w->pct, event);
			return;
		}
		if (w->run && rec.run == 0) {
			bad(im, st->input, line, "'%s' has a count but ran for 0 ns",
			    event);
			return;
		}
		/* perf prints clock events in msec (perf 3.x without the unit);
		 * their raw count is ns */
		if (!strcmp(w->unit, "msec") || (!w->unit[0] && !w->run && is_clock(event))) {
			rec.value *= 1e6;
			rec.prec *= 1e6;
		}
	}
	if (w->variance) {
		char num[64];
		size_t len = strlen(w->variance);
		double p;

		copy_str(num, sizeof num, w->variance);
		if (len && num[len - 1] == '%')
			num[len - 1] = '\0';
		if (parse_decimal(num, w->comma, &rec.se, &p) || rec.se < 0) {
			bad(im, st->input, line, "deviation '%s' of '%s' is not a "
			    "percentage", w->variance, event);
			return;
		}
		st->variance = 1;
	}
	if (w->agg[0])
		st->agg_kinds |= agg_kind(w->agg);
	if (w->cgroup && w->cgroup[0])
		st->agg_kinds |= AGG_CGROUP;
	snprintf(agg, sizeof agg, "%s%s%s", w->agg, w->cgroup && w->cgroup[0] ?
		 " cgroup=" : "", w->cgroup ? w->cgroup : "");
	if (grow_records(im))
		return;
	rec.block = st->block;
	rec.agg = cp_strdup(agg);
	rec.raw = cp_strdup(event);
	rec.event = im->strip ? cp_strndup(event, hec_event_name_base(event))
			      : cp_strdup(event);
	if (!rec.agg || !rec.event || !rec.raw) {
		cp_free(rec.agg);
		cp_free(rec.event);
		cp_free(rec.raw);
		im->nomem = 1;
		return;
	}
	im->r[im->n++] = rec;
	if (!w->summary)
		im->b[st->block].rows++;
	st->rows++;
	st->stamped += w->stamped;
}

/* Units perf prints after a count (evsel->unit of its events). */
static int is_unit(const char *s)
{
	static const char *const units[] = { "msec", "ns", "us", "ms", "sec",
		"Joules", "MiB", "MB", "KiB", "kB", "GiB", "GB", "Bytes", "W",
		"Watts", "%" };
	size_t i;

	for (i = 0; i < sizeof units / sizeof *units; i++)
		if (!strcmp(s, units[i]))
			return 1;
	return 0;
}

/* ==== CSV (perf stat -x SEP) ====
 * perf 3.14 and later:
 *   [time,][agg,[ncpus,]]value,unit,event,[cgroup,][variance,]run_ns,pct[,metric,metric-unit]
 * perf 3.x before it: [CPUn,]value,event[,cgroup][,variance], no run time;
 * newer perf prefixes -I --summary rows with "summary" (older: no time
 * stamp).  A metric-only line has empty count, unit and event fields
 * and then a metric (or a metric group's name).  Event names may
 * themselves hold the separator (cpu/event=0x08,umask=0x01/): the event
 * runs until its slashes balance, and with ':' as separator (which
 * tracepoints and modifiers use) up to the run time. */

enum parsed { P_FOREIGN, P_OK, P_METRIC, P_BAD };

/* Split line at sep into at most max fields, trimmed of spaces unless
 * the separator is one; returns the number, or max + 1 when more. */
static size_t split(char *line, const char *sep, char **f, size_t max)
{
	size_t nf = 0, sl = strlen(sep), i;
	char *p = line;
	int keep = strchr(sep, ' ') || strchr(sep, '\t');

	for (;;) {
		char *c = strstr(p, sep);

		if (nf == max)
			return max + 1;
		f[nf++] = p;
		if (!c)
			break;
		*c = '\0';
		p = c + sl;
	}
	for (i = 0; i < nf; i++) {
		if (!keep)
			trim(&f[i]);
		else if (f[i][0] && f[i][strlen(f[i]) - 1] == '\r')
			f[i][strlen(f[i]) - 1] = '\0';
	}
	return nf;
}

/* perf stat -r's variance column: a number followed by '%'. */
static int is_variance(const char *s, int comma)
{
	size_t n = strlen(s);
	char num[64];
	double v, p;

	if (n < 2 || n >= sizeof num || s[n - 1] != '%')
		return 0;
	memcpy(num, s, n - 1);
	num[n - 1] = '\0';
	return !parse_decimal(num, comma, &v, &p) && v >= 0;
}

/* Fields [from, nf) of a metric-only line: empty but for the last one or
 * two (a metric value and its name, or a metric group's name). */
static int is_metric_tail(char **f, size_t from, size_t nf)
{
	size_t i, filled = 0;

	for (i = from; i < nf; i++)
		if (f[i][0]) {
			if (i + 2 < nf)
				return 0;
			filled++;
		}
	return nf >= from + 3 && filled > 0;
}

/* The -I stamp as the first field: a decimal with a point followed by a
 * count, a marker, an aggregation id, or a metric-only tail. */
static int csv_stamped(char **f, size_t nf, int comma)
{
	if (nf < 2 || !is_stamp_text(f[0], 1))
		return 0;
	return is_value(f[1], comma) || agg_kind(f[1]) ||
	       (!f[1][0] && is_metric_tail(f, 1, nf));
}

/* Is this line CSV in perf's shape (its first field perf's), so that
 * a failure to parse it is an error rather than a foreign line? */
static int csv_shaped(char **f, size_t nf, int comma)
{
	if (nf < 2)
		return 0;
	return !strcmp(f[0], "summary") || is_value(f[0], comma) ||
	       agg_kind(f[0]) || (!f[0][0] && is_metric_tail(f, 0, nf)) ||
	       csv_stamped(f, nf, comma);
}

/* A CSV line.  first: the format is not known yet, and the line fixes
 * it only if it reads cleanly (P_FOREIGN otherwise, nothing reported);
 * it may then be perf 3.x's layout. */
static enum parsed csv_parse(struct importer *im, struct input_state *st,
			     unsigned line, char *text, const char *sep, int first)
{
	char *f[96], event[600];
	size_t nf, i, j, idx = 0, ev_end;
	int comma = strcmp(sep, ",") != 0;
	struct row w;

#define CSV_BAD(...) do { if (first) return P_FOREIGN; \
		bad(im, st->input, line, __VA_ARGS__); return P_BAD; } while (0)
	nf = split(text, sep, f, sizeof f / sizeof *f);
	if (nf > sizeof f / sizeof *f)
		CSV_BAD("too many fields");
	if (!csv_shaped(f, nf, comma))
		return P_FOREIGN;
	memset(&w, 0, sizeof w);
	w.comma = comma;
	w.agg = "";
	w.unit = "";
	if (!strcmp(f[0], "summary")) {
		w.summary = 1;
		idx = 1;
	} else if (csv_stamped(f, nf, comma) ||
		   (st->intervals > 0 && is_stamp_text(f[0], 1) && f[1][0] &&
		    !is_unit(f[1]))) {
		/* a stamp; in -I output also before a bad count */
		w.stamped = 1;
		w.stamp = f[0];
		parse_number(f[0], &w.time);
		idx = 1;
	}
	if (nf > idx && f[idx][0] && !is_value(f[idx], comma)) {
		unsigned kind = agg_kind(f[idx]);

		if (!kind)
			CSV_BAD("count '%s' is not a number", f[idx]);
		w.agg = f[idx++];
		if (agg_has_count(kind) && nf > idx + 1 && is_uint(f[idx]) &&
		    (is_value(f[idx + 1], comma) || !f[idx + 1][0]))
			idx++;
	}
	if (nf > idx && !f[idx][0] && is_metric_tail(f, idx, nf))
		return first ? P_FOREIGN : P_METRIC;
	if (st->old_csv || (first && nf >= idx + 2 && nf <= idx + 4)) {
		/* perf 3.x: value,event[,cgroup][,variance] */
		size_t last = nf;

		if (nf < idx + 2 || !event_like(f[idx + 1]) || strpbrk(f[idx + 1], " \t"))
			CSV_BAD("expected a count and an event, found %zu field%s",
				nf - idx, nf - idx == 1 ? "" : "s");
		if (last > idx + 2 && is_variance(f[last - 1], comma))
			w.variance = f[--last];
		if (last > idx + 3)
			CSV_BAD("unexpected field '%s' after event '%s'", f[idx + 3],
				f[idx + 1]);
		if (last == idx + 3)
			w.cgroup = f[idx + 2];
		w.value = f[idx];
		w.event = f[idx + 1];
		st->old_csv = 1;
		take_row(im, st, line, &w);
		return P_OK;
	}
	if (nf < idx + 5)
		CSV_BAD("expected at least %zu fields, found %zu", idx + 5, nf);
	/* the event: from f[idx+2] until its slashes balance (or, with ':'
	 * as separator, up to the variance or run time) */
	i = idx + 2;
	ev_end = i + 1;
	if (!strcmp(sep, ":")) {
		for (j = i + 1; j < nf && !is_uint(f[j]) && !is_variance(f[j], comma); j++)
			;
		ev_end = j;
	} else {
		size_t slashes = 0;
		const char *c;

		for (c = f[i]; *c; c++)
			slashes += *c == '/';
		while (slashes % 2 && ev_end < nf && !is_uint(f[ev_end])) {
			for (c = f[ev_end]; *c; c++)
				slashes += *c == '/';
			ev_end++;
		}
	}
	event[0] = '\0';
	for (j = i; j < ev_end; j++) {
		size_t len = strlen(event);

		snprintf(event + len, sizeof event - len, "%s%s",
			 j > i ? sep : "", f[j]);
	}
	/* then perhaps a cgroup (-G), perhaps the variance (-r), the run
	 * time, the percentage */
	j = ev_end;
	if (j < nf && !is_uint(f[j]) && !is_variance(f[j], comma))
		w.cgroup = f[j++];
	if (j < nf && is_variance(f[j], comma))
		w.variance = f[j++];
	if (j + 1 >= nf || !is_uint(f[j])) {
		if (j < nf && !is_uint(f[j]) && f[j][0])
			CSV_BAD("unexpected field '%s' after event '%s'", f[j], event);
		CSV_BAD("no run time and percentage after event '%s'", event);
	}
	w.run = f[j];
	w.pct = f[j + 1];
	w.value = f[idx];
	w.unit = f[idx + 1];
	w.event = event;
	take_row(im, st, line, &w);
	return P_OK;
#undef CSV_BAD
}

/* ==== JSON lines (perf stat -j) ====
 * One flat object a line: {"interval" : 0.1, "cpu" : "0",
 * "counter-value" : "2178.000000", "unit" : "", "event" : "page-faults",
 * "event-runtime" : 100678489, "pcnt-running" : 100.00, ...}.  Keys other
 * than the ones read here, metric-* and metricgroup identify the
 * aggregation.  Objects without "counter-value" and "event" are metrics
 * (--metric-only, -M, "metric-value" continuations); perf's own bug of a
 * trailing ", }" is accepted. */
static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* A string or a bare scalar into buf; returns the position after it or
 * NULL on a syntax error. */
static const char *json_scalar(const char *p, char *buf, size_t size)
{
	size_t n = 0;

	p = json_ws(p);
	if (*p == '"') {
		for (p++; *p != '"'; p++) {
			char c = *p;

			if (!c)
				return NULL;
			if (c == '\\') {
				c = *++p;
				switch (c) {
				case 'n': c = '\n'; break;
				case 't': c = '\t'; break;
				case '"': case '\\': case '/': break;
				default: return NULL;   /* \uXXXX unused by perf */
				}
			}
			if (n + 1 < size)
				buf[n++] = c;
		}
		buf[n] = '\0';
		return p + 1;
	}
	while (*p && *p != ',' && *p != '}' && *p != ' ' && *p != '\t') {
		if (n + 1 < size)
			buf[n++] = *p;
		p++;
	}
	buf[n] = '\0';
	return n ? p : NULL;
}

static enum parsed json_parse(struct importer *im, struct input_state *st,
			      unsigned line, const char *p)
{
	char key[128], val[512], value[128] = "", unit[64] = "", event[512] = "";
	char run[64] = "", pct[64] = "", agg[600] = "", interval[64] = "";
	char variance[64] = "", cgroup[256] = "";
	int have_value = 0, have_event = 0, have_variance = 0;
	struct row w;

	p = json_ws(p);
	if (*p++ != '{')
		goto syntax;
	for (;;) {
		p = json_ws(p);
		if (*p == '}')
			break;
		if (*p != '"' || !(p = json_scalar(p, key, sizeof key)))
			goto syntax;
		p = json_ws(p);
		if (*p++ != ':' || !(p = json_scalar(p, val, sizeof val)))
			goto syntax;
		if (!strcmp(key, "interval"))
			copy_str(interval, sizeof interval, val);
		else if (!strcmp(key, "counter-value")) {
			copy_str(value, sizeof value, val);
			have_value = 1;
		} else if (!strcmp(key, "unit"))
			copy_str(unit, sizeof unit, val);
		else if (!strcmp(key, "event")) {
			copy_str(event, sizeof event, val);
			have_event = 1;
		} else if (!strcmp(key, "event-runtime"))
			copy_str(run, sizeof run, val);
		else if (!strcmp(key, "pcnt-running"))
			copy_str(pct, sizeof pct, val);
		else if (!strcmp(key, "variance")) {
			/* perf stat -r: the relative standard error, percent */
			copy_str(variance, sizeof variance, val);
			have_variance = 1;
		} else if (!strcmp(key, "cgroup"))
			copy_str(cgroup, sizeof cgroup, val);
		else if (strncmp(key, "metric", 6)) {
			static const struct { const char *key; unsigned kind; } kinds[] = {
				{ "cpu", AGG_CPU }, { "thread", AGG_THREAD },
				{ "core", AGG_CORE }, { "die", AGG_DIE },
				{ "socket", AGG_SOCKET }, { "node", AGG_NODE },
				{ "cache", AGG_CACHE }, { "cluster", AGG_CLUSTER },
			};
			size_t len = strlen(agg), k;

			for (k = 0; k < sizeof kinds / sizeof *kinds; k++)
				if (!strcmp(key, kinds[k].key))
					st->agg_kinds |= kinds[k].kind;

			if (snprintf(agg + len, sizeof agg - len, "%s%s=%s",
				     len ? " " : "", key, val) >=
			    (int)(sizeof agg - len)) {
				bad(im, st->input, line, "aggregation keys too long");
				return P_BAD;
			}
		}
		p = json_ws(p);
		if (*p == ',')
			p++;
		else if (*p != '}')
			goto syntax;
	}
	if (*json_ws(p + 1)) {
		p++;
		goto syntax;
	}
	if (!have_value && !have_event)
		return P_METRIC;
	if (!have_value) {
		bad(im, st->input, line, "no \"counter-value\" key");
		return P_BAD;
	}
	memset(&w, 0, sizeof w);
	/* as for CSV, the first object decides: every one has an
	 * "interval" (perf stat -j -I; summary objects aside) or none */
	if (interval[0]) {
		if (parse_number(interval, &w.time) || w.time < 0) {
			bad(im, st->input, line, "interval '%s' is not a time stamp",
			    interval);
			return P_BAD;
		}
		w.stamped = 1;
		w.stamp = interval;
	}
	w.agg = agg;
	w.cgroup = cgroup;
	w.event = event;
	w.unit = unit;
	w.value = value;
	w.run = run[0] ? run : NULL;
	w.run_float = 1;
	w.pct = pct[0] ? pct : NULL;
	w.variance = have_variance ? variance : NULL;
	if (!w.run && !is_marker(value)) {
		bad(im, st->input, line, "no \"event-runtime\" key");
		return P_BAD;
	}
	take_row(im, st, line, &w);
	return P_OK;
syntax:
	bad(im, st->input, line, "malformed JSON object");
	return P_BAD;
}

/* ==== the human-readable output ====
 *   [time] [agg [ncpus]] count [unit] event [cgroup] [# metric] [( +- x% )] [(p%)]
 * count is %'18.0f or %'18.2f in the user's locale, or <not counted> /
 * <not supported>; perf 3.x printed clocks as %18.6f msec without a
 * unit and the share as [ p%].  The time stamp is %6lu.%09lu.  A line
 * of only spaces (and a stamp, an aggregation id) before '#' continues
 * the metrics of the row above it. */

/* A share "(50.00%)" or perf 3.x's "[50.00%]" (tokens joined). */
static int share_text(const char *s, char *num, size_t size)
{
	size_t n = strlen(s);

	if (n < 4 || !((s[0] == '(' && s[n - 1] == ')') ||
		       (s[0] == '[' && s[n - 1] == ']')) || s[n - 2] != '%')
		return 0;
	if (n - 3 >= size)
		return 0;
	memcpy(num, s + 1, n - 3);
	num[n - 3] = '\0';
	return 1;
}

static int is_count_token(const char *s)
{
	double v, p;
	int d;

	return is_marker(s) || !parse_grouped(s, &v, &p, &d);
}

/* A human-readable line.  first: the format is not known yet; the line
 * fixes it only if it reads cleanly and is laid out as perf lays out
 * its rows (a -I stamp, or a count right-aligned in 18 columns). */
static enum parsed std_parse(struct importer *im, struct input_state *st,
			     unsigned line, char *text, int first)
{
	char *tok[64], share[32], noise[32];
	size_t nt = 0, i, k;
	char *p = text;
	struct row w;
	int strong = 0;

	/* tokens; "<not counted>" and "<not supported>" are one */
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			*p++ = '\0';
		if (!*p)
			break;
		if (nt == sizeof tok / sizeof *tok)
			return P_FOREIGN;
		tok[nt++] = p;
		if (!strncmp(p, "<not counted>", 13))
			p += 13;
		else if (!strncmp(p, "<not supported>", 15))
			p += 15;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
	}
	memset(&w, 0, sizeof w);
	w.agg = "";
	w.unit = "";
	w.grouped = 1;
	w.comma = 1;             /* "( +-  0,44% )", "(50,00%)" in de_DE */
	i = 0;
	if (nt > 1 && is_stamp_text(tok[0], 9) && st->intervals != 0) {
		w.stamped = strong = 1;
		w.stamp = tok[0];
		parse_number(tok[0], &w.time);
		i = 1;
	}
	/* before the format is known, outside perf's header and footer: a
	 * row as perf lays it out, a count right-aligned in 18 columns or
	 * an aggregation id first */
	if (first && !strong && !st->in_block && nt &&
	    !(text[0] == '\0' && text[1] == '\0') && !agg_kind(tok[0]))
		return P_FOREIGN;
	if (i < nt && agg_kind(tok[i]) && !is_count_token(tok[i])) {
		unsigned kind = agg_kind(tok[i]);

		w.agg = tok[i++];
		if (agg_has_count(kind) && i + 1 < nt && is_uint(tok[i]) &&
		    (is_count_token(tok[i + 1]) || tok[i + 1][0] == '#'))
			i++;
	}
	if (i < nt && tok[i][0] == '#')
		return first ? P_FOREIGN : P_METRIC;
	if (!first && (strong || st->in_block) && i + 1 < nt && is_digit(tok[i][0]) &&
	    !is_count_token(tok[i]))
		;                    /* a bad count: take_row says so */
	else if (i + 1 >= nt || !is_count_token(tok[i])) {
		if (strong && !first) {
			bad(im, st->input, line, "expected a count and an event after "
			    "the time stamp");
			return P_BAD;
		}
		return P_FOREIGN;
	}
	w.value = tok[i++];
	/* the tail: the running share "(50.00%)" (perf 3.x: "[ 50.00%]"),
	 * before it perf stat -r's deviation "( +-  1.92% )" */
	if (nt > i && share_text(tok[nt - 1], share, sizeof share)) {
		w.pct = share;
		nt--;
	} else if (nt > i + 1 && !strcmp(tok[nt - 2], "[") &&
		   strlen(tok[nt - 1]) >= 3 && strlen(tok[nt - 1]) < sizeof share &&
		   !strcmp(tok[nt - 1] + strlen(tok[nt - 1]) - 2, "%]")) {
		copy_str(share, sizeof share, tok[nt - 1]);
		share[strlen(share) - 2] = '\0';
		w.pct = share;
		nt -= 2;
	}
	if (nt >= i + 3 && !strcmp(tok[nt - 1], ")")) {
		size_t a = nt - 2;
		const char *num = tok[a];

		if (!strncmp(num, "+-", 2) && num[2])
			num += 2;        /* "( +-100.00% )" */
		else if (a > i && !strcmp(tok[a - 1], "+-"))
			a--;
		else
			a = SIZE_MAX;
		if (a != SIZE_MAX && a > i && !strcmp(tok[a - 1], "(")) {
			copy_str(noise, sizeof noise, num);
			w.variance = noise;
			nt = a - 1;
		}
	}
	for (k = i; k < nt && tok[k][0] != '#'; k++)
		;
	nt = k;                  /* the metrics, from '#' on */
	if (i + 1 < nt && is_unit(tok[i]))
		w.unit = tok[i++];
	if (i >= nt || !event_like(tok[i])) {
		if (strong && !first) {
			bad(im, st->input, line, "no event after count '%s'", w.value);
			return P_BAD;
		}
		return P_FOREIGN;
	}
	w.event = tok[i++];
	if (i < nt && tok[i][0] == '[' && tok[i][strlen(tok[i]) - 1] == ']') {
		tok[i][-1] = ' ';  /* "cycles [cpu_core]": one name */
		i++;
	}
	if (i < nt)
		w.cgroup = tok[i++];
	if (i < nt) {
		if (strong && !first) {
			bad(im, st->input, line, "unexpected '%s' after event '%s'",
			    tok[i], w.event);
			return P_BAD;
		}
		return P_FOREIGN;
	}
	take_row(im, st, line, &w);
	return P_OK;
}

/* ==== perf's own lines and foreign lines ==== */

enum text { T_NONE, T_IGNORE, T_HEADER, T_FOOTER, T_METRIC };

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* perf's lines that carry no count: headers (a run starts), footers
 * (its elapsed time), hints, -r --table rows, metric continuations. */
static enum text perf_text(const struct input_state *st, const char *line,
			   const char *s, unsigned *runs, double *elapsed)
{
	static const char *const hints[] = {
		"Some events weren't counted.",
		"echo 0 > /proc/sys/kernel/nmi_watchdog",
		"echo 1 > /proc/sys/kernel/nmi_watchdog",
		"perf stat ...",
		"The events in group usually have to be from the same PMU.",
		"# Table of individual measurements:",
		"# Final result:",
	};
	const char *e;
	size_t i;

	for (i = 0; i < sizeof hints / sizeof *hints; i++)
		if (starts(s, hints[i]))
			return T_IGNORE;
	if (s == line && starts(s, "# started on"))
		return T_HEADER;
	if (s == line && s[0] == '#' && strstr(s, " time") && strstr(s, "counts"))
		return T_IGNORE;     /* the -I header, every 25 intervals */
	if (s != line && s[0] == '#' && (st->fmt == FMT_STD || st->fmt == FMT_NONE))
		return T_METRIC;     /* perf 3.x's continued metric */
	if (starts(s, "Performance counter stats for")) {
		const char *r = strrchr(s, '(');

		*runs = 0;
		if (r && strstr(r, " runs):"))
			*runs = (unsigned)strtoul(r + 1, NULL, 10);
		return T_HEADER;
	}
	if ((e = strstr(s, " seconds time elapsed"))) {
		char num[64];
		double p;
		size_t n = strcspn(s, " ");

		/* %17.9f, or with -r %17.*f: no thousands marks, the
		 * locale's decimal one */
		*elapsed = NAN;
		if (n < sizeof num) {
			memcpy(num, s, n);
			num[n] = '\0';
			/* a run takes time: a 0 here is a count of a line
			 * run together with the footer, not a length */
			if (parse_decimal(num, 1, elapsed, &p) || !(*elapsed > 0))
				*elapsed = NAN;
		}
		return T_FOOTER;
	}
	if (is_digit(s[0]) && (strstr(s, " seconds user") || strstr(s, " seconds sys")))
		return T_IGNORE;
	/* -r --table: " 0.12345 (+0.00012) ###" */
	if (is_digit(s[0])) {
		const char *q = strchr(s, ' ');

		if (q && q[1] == '(' && (q[2] == '+' || q[2] == '-') &&
		    strchr(q, ')'))
			return T_IGNORE;
	}
	return T_NONE;
}

static void foreign_line(struct importer *im, struct input_state *st,
			 unsigned line, const char *s)
{
	if (im->strict) {
		bad(im, st->input, line, "not a line of perf stat output (--strict): "
		    "'%.60s%s'", s, strlen(s) > 60 ? "..." : "");
		return;
	}
	if (st->foreign < FOREIGN_SHOWN)
		st->foreign_lines[st->foreign] = line;
	st->foreign++;
	st->foreign_mark = 1;
}

/* Does the line start with a -I stamp as the human-readable output
 * prints it (%6lu.%09lu)? */
static int std_stamped(const char *s)
{
	char tok[64];
	size_t n;

	s += strspn(s, " \t");
	n = strcspn(s, " \t");
	if (n >= sizeof tok)
		return 0;
	memcpy(tok, s, n);
	tok[n] = '\0';
	return is_stamp_text(tok, 9);
}

/* The separators tried, in order, when -x is not given: perf's own
 * ',' and those public scripts use. */
static const char *const separators[] = { ",", ";", "|", "\t", ":" };

/* A line before the format is known: JSON, CSV with a separator, the
 * human-readable output; the first that reads cleanly fixes the format.
 * A line in perf's CSV shape with ',' (or -x SEP) that does not read
 * fixes it too, and is an error. */
static enum parsed detect(struct importer *im, struct input_state *st,
			  unsigned line, const char *p)
{
	const char *s = p + strspn(p, " \t");
	const char *given = im->opt ? im->opt->sep : NULL;
	/* column padding: the human-readable output's, never CSV's */
	int padded = strstr(s, "  ") != NULL || strchr(s, '\t') != NULL;
	size_t len = strlen(p), i;
	enum parsed rc = P_FOREIGN;
	char *copy;

	if (*s == '{') {
		st->fmt = FMT_JSON;
		return json_parse(im, st, line, s);
	}
	if (!(copy = cp_malloc(len + 1))) {
		im->nomem = 1;
		return P_BAD;
	}
	for (i = 0; i < (given ? 1 : sizeof separators / sizeof *separators); i++) {
		const char *sep = given ? given : separators[i];

		if (!strstr(s, sep) || (padded && !strpbrk(sep, " \t")))
			continue;
		memcpy(copy, p, len + 1);
		if ((rc = csv_parse(im, st, line, copy, sep, 1)) == P_OK) {
			st->fmt = FMT_CSV;
			copy_str(st->sep, sizeof st->sep, sep);
			goto out;
		}
	}
	if (!padded || given) {
		const char *sep = given ? given : ",";
		char *f[96];
		size_t nf;

		memcpy(copy, p, len + 1);
		nf = strstr(s, sep) ? split(copy, sep, f, sizeof f / sizeof *f) : 0;
		if (nf >= 2 && nf <= sizeof f / sizeof *f && csv_shaped(f, nf, strcmp(sep, ",") != 0) &&
		    (nf >= 5 || csv_stamped(f, nf, strcmp(sep, ",") != 0))) {
			st->fmt = FMT_CSV;
			copy_str(st->sep, sizeof st->sep, sep);
			memcpy(copy, p, len + 1);
			rc = csv_parse(im, st, line, copy, sep, 0);
			goto out;
		}
	}
	rc = P_FOREIGN;
	if (!given && st->in_block) {
		/* between perf's header and footer: its human-readable rows */
		st->fmt = FMT_STD;
		memcpy(copy, p, len + 1);
		if ((rc = std_parse(im, st, line, copy, 0)) == P_FOREIGN) {
			bad(im, st->input, line, "not a line of perf stat's output, "
			    "inside it: '%.60s%s'", s, strlen(s) > 60 ? "..." : "");
			rc = P_BAD;
		}
	} else if (!given && (!st->has_header || std_stamped(s))) {
		memcpy(copy, p, len + 1);
		if ((rc = std_parse(im, st, line, copy, 1)) == P_OK)
			st->fmt = FMT_STD;
	}
out:
	cp_free(copy);
	return rc;
}

/* ==== one input ==== */

static void parse_input(struct importer *im, struct input_state *st)
{
	const struct hec_perfstat_input *in = &im->in[st->input];
	char *buf, *p, *end;
	unsigned line = 0;

	if (!(buf = cp_malloc(in->len + 1))) {
		im->nomem = 1;
		return;
	}
	memcpy(buf, in->text, in->len);
	buf[in->len] = '\0';
	if (memchr(buf, '\0', in->len)) {
		for (p = buf, line = 1; p < buf + in->len && *p; p++)
			line += *p == '\n';
		bad(im, st->input, line, "not a text file (NUL byte)");
		cp_free(buf);
		return;
	}
	/* with perf's headers, the human-readable output's rows are read
	 * between a header and its footer (and -I rows by their stamp):
	 * program output around them is foreign even when it looks like
	 * "42 apples" */
	st->has_header = strstr(buf, "Performance counter stats for") != NULL;
	p = buf;
	if (in->len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;                /* a UTF-8 byte order mark */
	for (; p < buf + in->len && !im->nomem; p = end + 1) {
		char *s, *copy;
		unsigned runs = 0;
		double elapsed = NAN;
		enum parsed rc = P_FOREIGN;

		end = strchr(p, '\n');
		if (!end)
			end = buf + in->len;
		*end = '\0';
		line++;
		if (end > p && end[-1] == '\r')
			end[-1] = '\0';
		s = p + strspn(p, " \t");
		if (!*s)
			continue;          /* blank lines carry nothing */
		switch (perf_text(st, p, s, &runs, &elapsed)) {
		case T_IGNORE:
			continue;
		case T_METRIC:
			st->metric++;
			continue;
		case T_HEADER:
			st->header_mark = 1;
			st->pending_runs = runs;
			st->in_block = starts(s, "Performance");
			continue;
		case T_FOOTER:
			if (st->block != SIZE_MAX && isnan(im->b[st->block].elapsed))
				im->b[st->block].elapsed = elapsed;
			st->in_block = 0;
			continue;
		case T_NONE:
			break;
		}
		if (!(copy = cp_strdup(p))) {
			im->nomem = 1;
			break;
		}
		switch (st->fmt) {
		case FMT_NONE:
			rc = detect(im, st, line, copy);
			break;
		case FMT_JSON:
			rc = *s == '{' ? json_parse(im, st, line, s) : P_FOREIGN;
			break;
		case FMT_CSV:
			rc = csv_parse(im, st, line, copy, st->sep, 0);
			break;
		case FMT_STD:
			if (st->in_block || std_stamped(s) ||
			    (!st->has_header && st->intervals <= 0)) {
				rc = std_parse(im, st, line, copy, 0);
				if (rc == P_FOREIGN && st->in_block) {
					bad(im, st->input, line, "not a line of perf stat's "
					    "output, inside it: '%.60s%s'", s,
					    strlen(s) > 60 ? "..." : "");
					rc = P_BAD;
				}
			}
			break;
		}
		cp_free(copy);
		if (rc == P_METRIC)
			st->metric++;
		else if (rc == P_FOREIGN)
			foreign_line(im, st, line, s);
	}
	cp_free(buf);
}

/* ==== after reading: repeated events, summary rows ==== */

/* Order: block, summary rows after intervals, time, event (in order of
 * first appearance; summary rows by name), aggregation id, line
 * (qsort_r context: the record array). */
static int record_cmp(const void *a, const void *b, void *ctx)
{
	const struct record *r = ctx;
	const struct record *x = &r[*(const size_t *)a];
	const struct record *y = &r[*(const size_t *)b];
	int c;

	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	if (x->summary != y->summary)
		return x->summary - y->summary;
	if (!x->summary && x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->summary && (c = strcmp(x->event, y->event)))
		return c;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	if ((c = strcmp(x->agg, y->agg)))
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The same without the time: a run's records of one event together. */
static int run_cmp(const void *a, const void *b, void *ctx)
{
	const struct record *r = ctx;
	const struct record *x = &r[*(const size_t *)a];
	const struct record *y = &r[*(const size_t *)b];

	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static struct input_state *input_of(struct importer *im, const struct record *r)
{
	return &im->st[im->b[r->block].input];
}

/* A repeated event (perf counts every copy of `-e a,a`) keeps its first
 * copy; two names that become one once their modifiers are dropped are
 * two events, an error.  The dropped copies are named in the note. */
static void drop_repeats(struct importer *im, const size_t *order)
{
	size_t i, j;

	for (i = 0; i < im->n; i = j) {
		const struct record *first = &im->r[order[i]];

		for (j = i + 1; j < im->n; j++) {
			struct record *r = &im->r[order[j]];
			struct input_state *st = input_of(im, r);
			size_t len = strlen(st->repeats);

			if (r->block != first->block || r->summary != first->summary ||
			    (!r->summary && r->time != first->time) ||
			    strcmp(r->event, first->event) || strcmp(r->agg, first->agg))
				break;
			if (strcmp(r->raw, first->raw)) {
				bad(im, st->input, r->line, "'%s' and '%s' (line %u) are "
				    "one event once their modifiers are dropped", r->raw,
				    first->raw, first->line);
				continue;
			}
			r->dropped = 1;
			if (st->nrepeats++ < 4)
				snprintf(st->repeats + len, sizeof st->repeats - len,
					 "%s%s (line %u)", len ? ", " : "", r->raw, r->line);
		}
	}
}

/* -I --summary rows against the sum of their run's intervals: exact for
 * counts perf printed unscaled as integers (the summary is the sum of
 * the same deltas), within the printed digits otherwise, the run times
 * exactly; not checked when anything was scaled or not counted, or the
 * run has no intervals. */
static void check_summaries(struct importer *im, const size_t *order)
{
	size_t i, j;

	for (i = 0; i < im->n; i++) {
		const struct record *s = &im->r[order[i]];
		struct input_state *st = input_of(im, s);
		double sum = 0, tol = s->prec, run = 0;
		int ok = s->state == COUNTED && s->pct == 100, any = 0;

		if (!s->summary || s->dropped)
			continue;
		for (j = 0; j < im->n && ok; j++) {
			const struct record *r = &im->r[order[j]];

			if (r->block != s->block || r->summary || r->dropped ||
			    strcmp(r->event, s->event) || strcmp(r->agg, s->agg))
				continue;
			any = 1;
			if (r->state == COUNTED && r->pct != 100)
				ok = 0;
			if (r->state != COUNTED)
				continue;
			sum += r->value;
			tol += r->prec;
			run += r->run;
		}
		if (!ok || !any) {
			st->unchecked++;
			continue;
		}
		st->checked++;
		if (fabs(sum - s->value) > tol * (1 + 1e-12) + 1e-9 * fabs(sum))
			bad(im, st->input, s->line, "summary of '%s' is %.15g, but its "
			    "intervals sum to %.15g", s->raw, s->value, sum);
		else if (!isnan(s->run) && !isnan(run) && run != s->run)
			bad(im, st->input, s->line, "summary of '%s' ran %.0f ns, but "
			    "its intervals ran %.0f ns", s->raw, s->run, run);
	}
}

/* perf stat -r N: a total's means and deviations are kept as a summary
 * of N runs when N is known (the human-readable header says it; --runs
 * for CSV and JSON) and each count is one row; otherwise the deviations
 * are dropped and the note says why. */
static int decide_runs(struct importer *im, struct input_state *st,
		       struct cp_error *err)
{
	unsigned given = im->opt ? im->opt->runs : 0, said = 0;
	size_t b, i;

	for (b = 0; b < im->nb; b++)
		if (im->b[b].input == st->input && im->b[b].runs)
			said = im->b[b].runs;
	if (given && said && given != said)
		return cp_error_set(err, CP_EINPUT, "--runs %u given, but '%s' says "
				    "%u runs", given, st->name, said);
	if (given && !st->variance)
		return cp_error_set(err, CP_EINPUT, "--runs %u given, but '%s' holds "
				    "no perf stat -r deviations", given, st->name);
	if (!st->variance)
		return CP_OK;
	st->runs = said ? said : given;
	if (im->pooled)
		st->dropped_se = "runs pooled as intervals";
	else if (st->intervals > 0)
		st->dropped_se = "-I: per interval they are no run-to-run spread";
	else if (!st->runs)
		st->dropped_se = "the number of runs is unknown: give --runs N";
	else if (st->runs < 2)
		st->dropped_se = "a single run";
	for (i = 0; i < im->n && !st->dropped_se; i++)
		if (input_of(im, &im->r[i]) == st && im->r[i].agg[0] && !im->r[i].dropped)
			st->dropped_se = "per CPU, thread or socket rows";
	if (st->dropped_se) {
		st->runs = 0;
		return CP_OK;
	}
	/* the human-readable output prints no "( +- 0.00% )" */
	for (i = 0; i < im->n; i++)
		if (input_of(im, &im->r[i]) == st && im->r[i].state == COUNTED &&
		    isnan(im->r[i].se))
			im->r[i].se = 0;
	return CP_OK;
}

/* ==== rows ==== */

enum { C_OBS, C_INTERVAL, C_EVENT, C_VALUE, C_ENABLED, C_RUNNING, C_RUNS,
       C_SE, C_OTHER };
static const char *const column_names[] = { "observation", "interval",
	"event", "value", "enabled_ns", "running_ns", "runs", "se_pct" };

/* One dataset row. */
struct out_row {
	const char *obs, *event;
	size_t interval;
	double value, ena, run;
	unsigned runs;           /* a summary of runs: runs,se_pct */
	double se;
};

static void write_row(struct cp_buf *out, const unsigned char *cols, size_t nc,
		      const struct out_row *o)
{
	size_t c;

	for (c = 0; c < nc; c++) {
		if (c)
			cp_buf_puts(out, ",");
		switch (cols[c]) {
		case C_OBS: cp_buf_csv_field(out, o->obs); break;
		case C_INTERVAL: cp_buf_printf(out, "%zu", o->interval); break;
		case C_EVENT: cp_buf_csv_field(out, o->event); break;
		case C_VALUE: cp_buf_printf(out, "%.15g", o->value); break;
		case C_ENABLED: cp_buf_printf(out, "%.0f", o->ena); break;
		case C_RUNNING: cp_buf_printf(out, "%.0f", o->run); break;
		case C_RUNS:
			if (o->runs)
				cp_buf_printf(out, "%u", o->runs);
			break;
		case C_SE:
			if (o->runs)
				cp_buf_printf(out, "%.6g", o->se);
			break;
		default:
			break;
		}
	}
	cp_buf_puts(out, "\n");
}

/* The columns to write: the dataset's (import --append), or the six of
 * the format and runs,se_pct when a row has them. */
static int columns(const struct hec_perfstat_options *opt, int need_runs,
		   unsigned char *cols, size_t *nc, struct cp_error *err)
{
	size_t c, k;
	unsigned have = 0;

	if (!opt || !opt->columns) {
		*nc = need_runs ? 8 : 6;
		for (c = 0; c < *nc; c++)
			cols[c] = (unsigned char)c;
		return CP_OK;
	}
	if (opt->ncolumns > 256)
		return cp_error_set(err, CP_EINPUT, "too many dataset columns (%zu)",
				    opt->ncolumns);
	for (c = 0; c < opt->ncolumns; c++) {
		cols[c] = C_OTHER;
		for (k = 0; k < 8; k++)
			if (!strcmp(opt->columns[c], column_names[k])) {
				cols[c] = (unsigned char)k;
				have |= 1u << k;
			}
	}
	*nc = opt->ncolumns;
	for (k = 0; k < 6; k++)
		if (!(have & (1u << k)))
			return cp_error_set(err, CP_EINPUT, "the dataset has no '%s' "
					    "column", column_names[k]);
	if (need_runs && (have & 0xc0) != 0xc0)
		return cp_error_set(err, CP_EINPUT, "the dataset has no 'runs' and "
				    "'se_pct' columns, which a perf stat -r summary "
				    "needs: import it into a new dataset");
	return CP_OK;
}

/* The times of a counted record: perf's running time and the enabled
 * time its percentage gives; where perf printed no running time (the
 * human-readable output, perf 3.x CSV), its interval's length is the
 * enabled time. */
static void record_times(struct record *r)
{
	if (!isnan(r->run)) {
		r->run_ns = r->run;
		r->ena_ns = nearbyint(r->run * 100 / r->pct);
	} else {
		r->ena_ns = nearbyint(r->len_ns);
		r->run_ns = nearbyint(r->len_ns * r->pct / 100);
	}
}

/* Sum the records order[i..j) (one interval or run, one event) into o.
 * Over the aggregation ids (and -I intervals of a run) a that were
 * counted (estimate v_a, running r_a, enabled e_a = r_a * 100 / pct_a):
 *     estimate E = sum v_a,   enabled = sum e_a,   running = sum r_a,
 *     value = E * running / enabled,
 * so that value * enabled / running = E: the dataset scales back to
 * exactly perf's estimate.  None counted: value 0, running 0, enabled
 * len_ns, the interval's (or run's) length.  Returns whether any was. */
static int sum_row(struct importer *im, const size_t *order, size_t i,
		   size_t j, double len_ns, struct out_row *o)
{
	double est = 0, ena = 0, run = 0;
	int counted = 0;
	size_t a;

	for (a = i; a < j; a++) {
		struct record *r = &im->r[order[a]];

		if (r->state != COUNTED)
			continue;
		record_times(r);
		counted = 1;
		est += r->value;
		run += r->run_ns;
		ena += r->ena_ns;
	}
	if (counted) {
		o->value = ena == run ? est : est * run / ena;
		o->ena = ena;
		o->run = run;
	} else {
		o->value = 0;
		o->ena = len_ns > 0 ? nearbyint(len_ns) : 0;
		o->run = 0;
	}
	return counted;
}

/* What a dataset holds exactly (stats/ reads counts as doubles): beyond
 * 2^53 the row would not load or not mean what perf printed. */
static void check_exact(struct importer *im, const struct record *first,
			const struct out_row *o, int counted)
{
	size_t input = im->b[first->block].input;

	if (counted && !(o->value <= PERFSTAT_MAX_EXACT && o->ena <= PERFSTAT_MAX_EXACT))
		bad(im, input, first->line, "'%s' at time %.9f: %s %.0f is beyond "
		    "2^53, more than a dataset holds exactly", first->event,
		    first->time, o->value > PERFSTAT_MAX_EXACT ? "count" :
		    "enabled time (ns)", o->value > PERFSTAT_MAX_EXACT ? o->value :
		    o->ena);
	else if (!counted && !(o->ena <= PERFSTAT_MAX_EXACT))
		bad(im, input, first->line, "'%s' at time %.9f: the interval (%.0f "
		    "ns) is beyond 2^53 ns, more than a dataset holds exactly",
		    first->event, first->time, o->ena);
}

/* Number the events of the interval records in order of first
 * appearance, names into events; each record's rank of first appearance
 * in its input (in all of them when runs are pooled) orders the rows. */
static size_t number_events(struct importer *im, const char **events)
{
	struct cp_strindex names;
	size_t i, e, b, ne = 0, nr = 0, input = SIZE_MAX;
	/* by event: its rank in the input stamp[e] - 1 (by hash and by
	 * index: searching lists was quadratic in the events) */
	size_t *rank = cp_calloc(im->n + 1, sizeof *rank);
	size_t *stamp = cp_calloc(im->n + 1, sizeof *stamp);

	cp_strindex_init(&names);
	if (!rank || !stamp)
		goto nomem;
	for (i = 0; i < im->n; i++) {
		struct record *r = &im->r[i];

		r->e = r->pos = SIZE_MAX;
		if (r->summary)
			continue;
		if ((e = cp_strindex_add(&names, r->event)) == (size_t)-1)
			goto nomem;
		r->e = e;
		b = im->pooled ? 0 : im->b[r->block].input;
		if (b != input) {
			input = b;
			nr = 0;    /* ranks restart with each input */
		}
		if (stamp[e] != input + 1) {
			stamp[e] = input + 1;
			rank[e] = nr++;
		}
		r->pos = rank[e];
	}
	ne = names.n;
	if (ne)
		memcpy(events, names.s, ne * sizeof *events);
	goto out;
nomem:
	im->nomem = 1;
	ne = 0;
out:
	cp_strindex_release(&names);
	cp_free(rank);
	cp_free(stamp);
	return ne;
}

/* Does block b hold the events of block 0 and no other?  Errors name
 * the run and the event. */
static void check_run_events(struct importer *im, size_t b, const char **events,
			     size_t ne, const unsigned char *in_first,
			     unsigned char *in_b)
{
	const struct block *bl = &im->b[b], *b0 = &im->b[0];
	size_t i, e;

	memset(in_b, 0, ne);
	for (i = 0; i < im->n; i++)
		if (im->r[i].block == b && !im->r[i].summary && !im->r[i].dropped)
			in_b[im->r[i].e] = 1;
	for (e = 0; e < ne; e++)
		if (in_b[e] != in_first[e])
			bad(im, bl->input, bl->line, "run %zu (%s, from line %u) %s "
			    "'%s', which run 1 (%s, from line %u) %s", b + 1,
			    im->in[bl->input].name, bl->line, in_b[e] ? "has" :
			    "has no", events[e], im->in[b0->input].name, b0->line,
			    in_b[e] ? "lacks" : "has");
}

/* Each kept record's interval length: the distance of its -I stamp from
 * the one before in its run (from 0 for the first), or its run's length
 * for a total: the elapsed time perf printed, or else the longest
 * enabled time of its counts, or else 1 s (which the note says when a
 * row needs it); and each run's length, in run_len. */
static void lengths(struct importer *im, const size_t *ord, size_t n,
		    double *run_len)
{
	size_t i;
	double prev = 0;

	for (i = 0; i < n; i++) {
		const struct record *r = &im->r[ord[i]];

		if (r->state == COUNTED && !isnan(r->run) &&
		    nearbyint(r->run * 100 / r->pct) > run_len[r->block])
			run_len[r->block] = nearbyint(r->run * 100 / r->pct);
	}
	for (i = 0; i < n; i++) {
		struct record *r = &im->r[ord[i]];
		struct input_state *st = input_of(im, r);
		const struct record *q = i ? &im->r[ord[i - 1]] : NULL;
		double el = im->b[r->block].elapsed;

		if (!q || q->block != r->block)
			prev = 0;
		else if (q->time != r->time)
			prev = q->time;
		if (st->intervals > 0) {
			r->len_ns = (r->time - prev) * 1e9;
		} else if (!isnan(el)) {
			r->len_ns = el * 1e9;
		} else if (run_len[r->block] > 0) {
			r->len_ns = run_len[r->block];
		} else {
			r->len_ns = 1e9;
			if (isnan(r->run) || r->state != COUNTED)
				st->assumed = 1;
		}
	}
	for (i = 0; i < n; i++) {
		const struct record *r = &im->r[ord[i]];

		run_len[r->block] = input_of(im, r)->intervals > 0 ? r->time * 1e9 :
				    r->len_ns;
	}
}

/* ==== the note ==== */

static void note_input(const struct importer *im, const struct input_state *st,
		       struct cp_buf *note, size_t nevents, size_t nintervals,
		       size_t nruns)
{
	static const struct { unsigned bit; const char *opt; } aggs[] = {
		{ AGG_CPU, " -A" }, { AGG_THREAD, " --per-thread" },
		{ AGG_CORE, " --per-core" }, { AGG_DIE, " --per-die" },
		{ AGG_SOCKET, " --per-socket" }, { AGG_NODE, " --per-node" },
		{ AGG_CACHE, " --per-cache" }, { AGG_CLUSTER, " --per-cluster" },
		{ AGG_CGROUP, " -G" },
	};
	size_t i, nsum = st->checked + st->unchecked;

	cp_buf_printf(note, "%s: perf stat", im->in[st->input].name);
	if (st->fmt == FMT_CSV)
		cp_buf_printf(note, " -x%s", !strcmp(st->sep, "\t") ? "\\t" : st->sep);
	else if (st->fmt == FMT_JSON)
		cp_buf_puts(note, " -j");
	if (st->intervals > 0)
		cp_buf_puts(note, " -I");
	for (i = 0; i < sizeof aggs / sizeof *aggs; i++)
		if (st->agg_kinds & aggs[i].bit)
			cp_buf_puts(note, aggs[i].opt);
	if (st->runs)
		cp_buf_printf(note, " -r %u", st->runs);
	else if (st->variance)
		cp_buf_puts(note, " -r");
	if (st->fmt == FMT_STD)
		cp_buf_puts(note, " (human-readable)");
	else if (st->old_csv)
		cp_buf_puts(note, " (perf 3.x layout)");
	cp_buf_printf(note, ": %zu event%s", nevents, nevents == 1 ? "" : "s");
	if (im->pooled)
		cp_buf_printf(note, ", %zu run%s as interval%s", nruns,
			      nruns == 1 ? "" : "s", nruns == 1 ? "" : "s");
	else if (st->intervals > 0)
		cp_buf_printf(note, ", %zu interval%s", nintervals,
			      nintervals == 1 ? "" : "s");
	else if (st->runs)
		cp_buf_printf(note, ", the means of %u runs with their deviations",
			      st->runs);
	else
		cp_buf_puts(note, ", one total");
	if (st->metric)
		cp_buf_printf(note, "; %zu metric-only line%s skipped", st->metric,
			      st->metric == 1 ? "" : "s");
	if (nsum) {
		cp_buf_printf(note, "; %zu summary row%s", nsum, nsum == 1 ? "" : "s");
		if (st->checked)
			cp_buf_printf(note, ", %zu checked against the intervals' sums",
				      st->checked);
		if (st->unchecked)
			cp_buf_printf(note, ", %zu skipped unchecked (scaled, not "
				      "counted or without intervals)", st->unchecked);
	}
	if (st->nrepeats)
		cp_buf_printf(note, "; %zu repeated event%s dropped, the first copy "
			      "kept: %s%s", st->nrepeats, st->nrepeats == 1 ? "" : "s",
			      st->repeats, st->nrepeats > 4 ? ", ..." : "");
	if (st->dropped_se)
		cp_buf_printf(note, "; perf's -r deviations dropped (%s)",
			      st->dropped_se);
	if (st->assumed)
		cp_buf_puts(note, "; no 'seconds time elapsed' line nor run time: a "
			    "total taken over 1 s");
	if (st->foreign) {
		cp_buf_printf(note, "; %zu line%s not perf's skipped (line%s",
			      st->foreign, st->foreign == 1 ? "" : "s",
			      st->foreign == 1 ? "" : "s");
		for (i = 0; i < st->foreign && i < FOREIGN_SHOWN; i++)
			cp_buf_printf(note, "%s %u", i ? "," : "", st->foreign_lines[i]);
		cp_buf_puts(note, st->foreign > FOREIGN_SHOWN ? ", ...)" : ")");
	}
	cp_buf_puts(note, "\n");
}

/* ==== conversion ==== */

void hec_perfstat_report_init(struct hec_perfstat_report *r)
{
	memset(r, 0, sizeof *r);
	cp_buf_init(&r->note);
	cp_buf_init(&r->diag);
}

void hec_perfstat_report_release(struct hec_perfstat_report *r)
{
	if (!r)
		return;
	cp_buf_release(&r->note);
	cp_buf_release(&r->diag);
}

/* One row per interval and event of each input (each its observation),
 * or, runs pooled, per run and event. */
static int write_rows(struct importer *im, struct cp_buf *out,
		      struct hec_perfstat_report *rep, struct cp_error *err)
{
	const char **events = NULL;
	unsigned char cols[256], *in_first = NULL, *in_b = NULL, *supported = NULL;
	size_t *order = NULL, *ord = NULL, *nev = NULL, *nint = NULL;
	double *run_len = NULL;
	size_t ne, nc = 0, nk, i, k, b;
	int rc = CP_OK, need_runs = 0;

	events = cp_calloc(im->n + 1, sizeof *events);
	in_first = cp_calloc(im->n + 1, 1);
	in_b = cp_calloc(im->n + 1, 1);
	supported = cp_calloc(im->n + 1, 1);
	order = cp_calloc(im->n + 1, sizeof *order);
	ord = cp_calloc(im->n + 1, sizeof *ord);
	nev = cp_calloc(im->nin + 1, sizeof *nev);
	nint = cp_calloc(im->nin + 1, sizeof *nint);
	run_len = cp_calloc(im->nb + 1, sizeof *run_len);
	if (!events || !in_first || !in_b || !supported || !order || !ord ||
	    !nev || !nint || !run_len) {
		rc = CP_ENOMEM;
		goto out;
	}
	ne = number_events(im, events);
	if (im->nomem) {
		rc = CP_ENOMEM;
		goto out;
	}
	for (i = 0; i < im->n; i++)
		order[i] = i;
	qsort_r(order, im->n, sizeof *order, record_cmp, im->r);
	drop_repeats(im, order);
	check_summaries(im, order);
	/* one run an input, unless runs are pooled, which must agree */
	if (!im->pooled)
		for (b = 1; b < im->nb; b++)
			if (im->b[b].input == im->b[b - 1].input)
				bad(im, im->b[b].input, im->b[b].line, "a second run of perf "
				    "stat starts here (its -I time stamps restart, or its "
				    "events repeat, after a run header or lines that are "
				    "not perf's): pool the runs with --runs-as-intervals, "
				    "or split the file");
	if (im->pooled && im->nb) {
		for (i = 0; i < im->n; i++)
			if (im->r[i].block == 0 && !im->r[i].summary && !im->r[i].dropped)
				in_first[im->r[i].e] = 1;
		for (b = 1; b < im->nb; b++)
			check_run_events(im, b, events, ne, in_first, in_b);
	}
	for (i = 0; i < im->nin; i++) {
		if ((rc = decide_runs(im, &im->st[i], err)))
			goto out;
		need_runs |= im->st[i].runs != 0;
	}
	if ((rc = columns(im->opt, need_runs, cols, &nc, err)))
		goto out;
	if (im->opt && (im->opt->flags & HEC_PERFSTAT_HEADER)) {
		for (k = 0; k < nc; k++)
			cp_buf_printf(out, "%s%s", k ? "," : "", column_names[cols[k]]);
		cp_buf_puts(out, "\n");
	}
	/* the kept interval records, in (run, time, event, agg) order */
	for (i = 0, nk = 0; i < im->n; i++)
		if (!im->r[order[i]].summary && !im->r[order[i]].dropped)
			ord[nk++] = order[i];
	lengths(im, ord, nk, run_len);
	for (i = 0; i < nk; i++)
		if (im->r[ord[i]].state != NOT_SUPPORTED)
			supported[im->r[ord[i]].e] = 1;
	if (!im->pooled) {
		/* each input: its time stamps are its intervals */
		size_t t = 0;

		for (i = 0; i < nk; i = k) {
			const struct record *first = &im->r[ord[i]];
			const struct input_state *st = input_of(im, first);
			struct out_row o;
			int counted;

			if (i && im->r[ord[i - 1]].block != first->block)
				t = 0;
			else if (i && im->r[ord[i - 1]].time != first->time)
				t++;
			for (k = i; k < nk && im->r[ord[k]].block == first->block &&
			     im->r[ord[k]].time == first->time &&
			     im->r[ord[k]].e == first->e; k++)
				;
			memset(&o, 0, sizeof o);
			o.obs = im->in[st->input].observation;
			o.interval = t;
			o.event = first->event;
			counted = sum_row(im, ord, i, k, first->len_ns, &o);
			if (st->runs) {
				/* every row of a summary has runs,se_pct */
				o.runs = st->runs;
				o.se = counted && !isnan(first->se) ? first->se : 0;
			}
			check_exact(im, first, &o, counted);
			write_row(out, cols, nc, &o);
			if (rep) {
				rep->rows++;
				rep->not_counted += !counted;
			}
			nint[st->input] = t + 1;
		}
	} else {
		/* a run an interval: its records of one event summed over its
		 * -I intervals and aggregation ids */
		qsort_r(ord, nk, sizeof *ord, run_cmp, im->r);
		for (i = 0; i < nk; i = k) {
			const struct record *first = &im->r[ord[i]];
			struct out_row o;
			int counted;

			for (k = i; k < nk && im->r[ord[k]].block == first->block &&
			     im->r[ord[k]].e == first->e; k++)
				;
			memset(&o, 0, sizeof o);
			o.obs = im->in[0].observation;
			o.interval = first->block;
			o.event = first->event;
			counted = sum_row(im, ord, i, k, run_len[first->block], &o);
			check_exact(im, first, &o, counted);
			write_row(out, cols, nc, &o);
			if (rep) {
				rep->rows++;
				rep->not_counted += !counted;
			}
		}
	}
	/* events per input, for the note */
	for (b = 0; b < im->nin; b++) {
		memset(in_b, 0, ne + 1);
		for (i = 0; i < nk; i++) {
			const struct record *r = &im->r[ord[i]];

			if (im->b[r->block].input == b && !in_b[r->e]) {
				in_b[r->e] = 1;
				nev[b]++;
			}
		}
	}
	if (rep) {
		rep->events += ne;
		for (i = 0; i < im->nin && !im->pooled; i++)
			rep->intervals += nint[i];
		if (im->pooled)
			rep->intervals = im->nb;
		if (need_runs)
			rep->runs = im->st[0].runs;
		for (i = 0; i < ne; i++)
			if (!supported[i]) {
				size_t len = strlen(rep->unsupported);

				snprintf(rep->unsupported + len, sizeof rep->unsupported - len,
					 "%s%s", len ? "," : "", events[i]);
			}
		for (i = 0; i < im->nin; i++) {
			size_t nruns = 0;

			for (b = 0; b < im->nb; b++)
				nruns += im->b[b].input == i;
			note_input(im, &im->st[i], &rep->note, nev[i], nint[i], nruns);
		}
	}
out:
	cp_free(events);
	cp_free(in_first);
	cp_free(in_b);
	cp_free(supported);
	cp_free(order);
	cp_free(ord);
	cp_free(nev);
	cp_free(nint);
	cp_free(run_len);
	if (rc == CP_ENOMEM)
		im->nomem = 1;
	return rc;
}

/* perf stat --summary without -I prefixes its totals with "summary":
 * an input of summary rows alone is a total. */
static void totals_of_summaries(struct importer *im, struct input_state *st)
{
	size_t i;

	st->intervals = 0;
	for (i = 0; i < im->n; i++)
		if (input_of(im, &im->r[i]) == st && im->r[i].summary) {
			im->r[i].summary = 0;
			im->b[im->r[i].block].rows++;
		}
}

int hec_perfstat_convert(const struct hec_perfstat_input *in, size_t n,
			 const struct hec_perfstat_options *opt,
			 struct cp_buf *out, struct hec_perfstat_report *report,
			 struct cp_error *err)
{
	struct importer im;
	size_t i, mark = out->len;
	int rc = CP_OK;

	memset(&im, 0, sizeof im);
	im.opt = opt;
	im.in = in;
	im.nin = n;
	im.strip = opt && (opt->flags & HEC_PERFSTAT_STRIP_MODIFIERS);
	im.strict = opt && (opt->flags & HEC_PERFSTAT_STRICT);
	im.pooled = opt && (opt->flags & HEC_PERFSTAT_RUNS_AS_INTERVALS);
	if (n == 0)
		return cp_error_set(err, CP_EINPUT, "no perf stat output given");
	for (i = 0; i < n; i++) {
		if (!in[i].observation || !in[i].observation[0])
			return cp_error_set(err, CP_EINPUT, "empty observation name");
		if (im.pooled && strcmp(in[i].observation, in[0].observation))
			return cp_error_set(err, CP_EINPUT, "runs pooled as intervals "
					    "make one observation, not '%s' and '%s'",
					    in[0].observation, in[i].observation);
	}
	if (!(im.st = cp_calloc(n, sizeof *im.st)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < n && !im.nomem; i++) {
		struct input_state *st = &im.st[i];
		size_t nd = im.diags.n;

		st->input = i;
		st->name = in[i].name;
		st->intervals = -1;
		st->block = SIZE_MAX;
		st->last_time = -1;
		parse_input(&im, st);
		if (!im.nomem && st->rows == 0 && im.diags.n == nd)
			bad(&im, i, 1, "no counts found (is this the output of perf "
			    "stat?)");
	}
	for (i = 0; i < n; i++)
		if (im.st[i].intervals > 0 && !im.st[i].stamped)
			totals_of_summaries(&im, &im.st[i]);
	if (!im.nomem && im.n)
		rc = write_rows(&im, out, report, err);
	if (im.nomem || out->failed || (report && report->note.failed)) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
	} else if (!rc && im.diags.n) {
		const char **names = cp_malloc(n * sizeof *names);

		for (i = 0; names && i < n; i++)
			names[i] = in[i].name;
		rc = names ? cp_diags_report(&im.diags, names, "lines",
					     report ? &report->diag : NULL, err)
			   : cp_error_set(err, CP_ENOMEM, "out of memory");
		cp_free(names);
	}
	if (rc) {
		out->len = mark;
		if (out->data)
			out->data[mark] = '\0';
	}
	for (i = 0; i < im.n; i++) {
		cp_free(im.r[i].agg);
		cp_free(im.r[i].event);
		cp_free(im.r[i].raw);
	}
	cp_diags_release(&im.diags);
	cp_free(im.r);
	cp_free(im.b);
	cp_free(im.st);
	return rc;
}

int hec_perfstat_read(const char *path, struct cp_buf *text,
		      struct cp_error *err)
{
	char *buf;
	size_t len;
	int rc;

	/* a pipe or a device is read up to 1 GB: /dev/zero is no endless
	 * text (its first byte is refused) */
	if ((rc = cp_read_text(path, (size_t)1 << 30, CP_TEXT_NO_NUL, &buf, &len,
			       err)))
		return rc;
	cp_buf_append(text, buf, len);
	cp_free(buf);
	if (text->failed)
		rc = cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'", path);
	return rc;
}
