/* hw/perfstat.c: `perf stat` output (CSV or JSON, with -I or without) to
 * the long dataset.
 * One pass reads every line into records (time, aggregation id, event,
 * scaled value, running time, percentage); a second sums records of the
 * same interval and event and writes one dataset row each. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/perfstat.h"

enum state { COUNTED, NOT_COUNTED, NOT_SUPPORTED };

struct record {
	double time;             /* seconds since start (perf's -I stamp) */
	char *agg;               /* CPU0, thread, socket...; "" if none */
	char *event;
	enum state state;
	double value;            /* perf's scaled estimate, in raw units */
	double run;              /* running time in the interval, ns */
	double pct;              /* 100 * running / enabled */
	unsigned line;
	size_t t, e;             /* interval and event numbers */
};

struct importer {
	const char *name;
	struct record *r;
	size_t n, cap;
	struct cp_buf diag;      /* "name:line: message\n" lines */
	unsigned first_line;
	char first_msg[600];
	size_t nbad;
	int nomem;
	int strip;               /* HEC_PERFSTAT_STRIP_MODIFIERS */
	int intervals;           /* -1 not known yet, 1 perf stat -I output,
				  * 0 a whole run (one interval) */
	unsigned mode_line;      /* the line that decided */
};

/* 2^53: every integer up to it is a double */
#define PERFSTAT_MAX_EXACT 9007199254740992.0

static void bad(struct importer *im, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void bad(struct importer *im, unsigned line, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (im->nbad++ == 0) {
		im->first_line = line;
		snprintf(im->first_msg, sizeof im->first_msg, "%s", msg);
		return;
	}
	cp_buf_printf(&im->diag, "%s:%u: %s\n", im->name, line, msg);
}

/* ==== field helpers ==== */

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

/* A value field: a number or one of perf's <not ...> markers. */
static int is_value(const char *s)
{
	double v;

	return !parse_number(s, &v) || !strcmp(s, "<not counted>") ||
	       !strcmp(s, "<not supported>");
}

/* An aggregation id: CPU3 (-A), comm-tid (--per-thread), S0, S0-D0,
 * S0-D0-C1 (--per-socket/die/core), N0 (--per-node). */
static int is_agg(const char *s)
{
	const char *dash = strrchr(s, '-');

	if (!strncmp(s, "CPU", 3) && is_uint(s + 3))
		return 1;
	if ((s[0] == 'S' || s[0] == 'N') && s[1] >= '0' && s[1] <= '9')
		return 1;
	return dash && dash > s && is_uint(dash + 1);
}

/* Socket/die/core/node aggregation ids (S0, S0-D0, S0-D0-C1, N0) are
 * followed by a column with the number of CPUs aggregated. */
static int agg_has_count(const char *s)
{
	return (s[0] == 'S' || s[0] == 'N') && s[1] >= '0' && s[1] <= '9';
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

/* perf's event modifiers: page-faults:u, r108:uk, cpu/event=0x8/u.  The
 * length of name without them (the whole length when it has none; a
 * tracepoint's "sched:sched_switch" keeps its colon). */
static size_t name_without_modifiers(const char *name)
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

/* Store one record; value/unit/run/pct checks happen here for both
 * formats. */
static void add_record(struct importer *im, unsigned line, double time,
		       const char *agg, const char *event, const char *value,
		       const char *unit, const char *run, const char *pct)
{
	struct record rec;

	memset(&rec, 0, sizeof rec);
	rec.time = time;
	rec.line = line;
	if (!*event) {
		bad(im, line, "empty event name");
		return;
	}
	if (!strcmp(value, "<not counted>")) {
		rec.state = NOT_COUNTED;
	} else if (!strcmp(value, "<not supported>")) {
		rec.state = NOT_SUPPORTED;
	} else if (parse_number(value, &rec.value)) {
		bad(im, line, "count '%s' of '%s' is not a number", value, event);
		return;
	} else if (rec.value < 0) {
		bad(im, line, "negative count (%s) of '%s'", value, event);
		return;
	}
	if (rec.state == COUNTED) {
		if (!is_uint(run) || parse_number(run, &rec.run)) {
			bad(im, line, "run time '%s' of '%s' is not a "
			    "non-negative integer", run, event);
			return;
		}
		if (parse_number(pct, &rec.pct) || !(rec.pct > 0) ||
		    rec.pct > 100) {
			bad(im, line, "running percentage '%s' of '%s' is not "
			    "in (0, 100]", pct, event);
			return;
		}
		if (rec.run == 0) {
			bad(im, line, "'%s' has a count but ran for 0 ns", event);
			return;
		}
		/* perf prints clock events in msec; their raw count is ns */
		if (!strcmp(unit, "msec"))
			rec.value *= 1e6;
	}
	if (im->n == im->cap) {
		size_t cap = im->cap ? 2 * im->cap : 256;
		struct record *r = cp_reallocarray(im->r, cap, sizeof *r);

		if (!r) {
			im->nomem = 1;
			return;
		}
		im->r = r;
		im->cap = cap;
	}
	rec.agg = cp_strdup(agg);
	rec.event = im->strip ? cp_strndup(event, name_without_modifiers(event))
			      : cp_strdup(event);
	if (!rec.agg || !rec.event) {
		cp_free(rec.agg);
		cp_free(rec.event);
		im->nomem = 1;
		return;
	}
	im->r[im->n++] = rec;
}

/* ==== CSV (perf stat -x ,) ====
 * With -I:    time,[agg,[ncpus,]]value,unit,event,[variance,]run_ns,pct[,metric...]
 * Without -I: [agg,[ncpus,]]value,unit,event,[variance,]run_ns,pct[,metric...]
 * (the whole run: one interval).  -r N adds the variance column, "7.87%",
 * which is read and dropped.  Event names may themselves contain commas
 * (cpu/event=0x8,umask=0x1/): the event runs up to the first all-digit
 * field, the run time, or to the variance column just before it. */

/* perf's -I stamp: seconds with a decimal point ("     0.100170113").
 * Strictly (to tell -I output from output without it), followed by a
 * count, a <not ...> marker or an aggregation id, where output without
 * -I has a unit there ("", "msec", "Joules"); once the file is known to
 * be -I output, a bad count after the stamp is reported as such. */
static int is_stamp(char **f, size_t nf, int strict)
{
	double t;

	if (nf < 2 || parse_number(f[0], &t) || t < 0 || !strchr(f[0], '.'))
		return 0;
	if (strict)
		return is_value(f[1]) || is_agg(f[1]);
	return f[1][0] && strcmp(f[1], "msec");
}

/* perf stat -r's variance column: a number followed by '%'. */
static int is_variance(const char *s)
{
	size_t n = strlen(s);
	char num[64];
	double v;

	if (n < 2 || n >= sizeof num || s[n - 1] != '%')
		return 0;
	memcpy(num, s, n - 1);
	num[n - 1] = '\0';
	return !parse_number(num, &v) && v >= 0;
}

static void csv_line(struct importer *im, unsigned line, char *text)
{
	char *f[64];
	size_t nf = 0, i, j, idx, ev_end;
	char *p = text, event[512];
	double time = 0;
	const char *agg = "";
	int stamped;

	for (;;) {
		char *c = strchr(p, ',');

		if (nf == sizeof f / sizeof *f) {
			bad(im, line, "too many fields");
			return;
		}
		f[nf++] = p;
		if (!c)
			break;
		*c = '\0';
		p = c + 1;
	}
	for (i = 0; i < nf; i++)
		trim(&f[i]);
	/* the first count decides: perf stat -I output (a time stamp in
	 * every line) or a whole run without -I (no time stamps, one
	 * interval); every later line must agree */
	stamped = is_stamp(f, nf, 1);
	if (im->intervals < 0) {
		im->intervals = stamped;
		im->mode_line = line;
	}
	if (im->intervals)
		stamped = is_stamp(f, nf, 0);
	if (im->intervals && !stamped) {
		bad(im, line, "expected an interval time stamp (perf stat -I, as "
		    "line %u has), found '%s'", im->mode_line, f[0]);
		return;
	}
	if (!im->intervals && stamped) {
		bad(im, line, "a time stamp '%s' in output without them (perf stat "
		    "without -I: line %u has none)", f[0], im->mode_line);
		return;
	}
	idx = 0;
	if (stamped) {
		parse_number(f[0], &time);
		idx = 1;
	}
	if (nf > idx && !is_value(f[idx])) {
		if (!is_agg(f[idx])) {
			bad(im, line, "count '%s' is not a number", f[idx]);
			return;
		}
		agg = f[idx];
		idx++;
		if (agg_has_count(agg) && nf > idx + 1 && is_uint(f[idx]) &&
		    is_value(f[idx + 1]))
			idx++;
	}
	if (nf < idx + 5) {
		bad(im, line, "expected at least %zu fields, found %zu",
		    idx + 5, nf);
		return;
	}
	/* event = f[idx+2 .. ev_end-1]; j = the run time, the first
	 * all-digit field after the event; a variance column may sit
	 * between them */
	for (j = idx + 3; j < nf && !is_uint(f[j]); j++)
		;
	if (j + 1 >= nf) {
		bad(im, line, "no run time and percentage after event '%s'",
		    f[idx + 2]);
		return;
	}
	ev_end = j;
	if (j - 1 > idx + 2 && is_variance(f[j - 1]))
		ev_end = j - 1;
	event[0] = '\0';
	for (i = idx + 2; i < ev_end; i++) {
		size_t len = strlen(event);

		snprintf(event + len, sizeof event - len, "%s%s",
			 i > idx + 2 ? "," : "", f[i]);
	}
	add_record(im, line, time, agg, event, f[idx], f[idx + 1], f[j],
		   f[j + 1]);
}

/* ==== JSON lines (perf stat -j) ====
 * One flat object a line: {"interval" : 0.1, "cpu" : "0",
 * "counter-value" : "2178.000000", "unit" : "", "event" : "page-faults",
 * "event-runtime" : 100678489, "pcnt-running" : 100.00, ...}.  Keys other
 * than the ones read here and metric-* identify the aggregation. */
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

/* strncpy that always terminates (values longer than dst are cut) */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void json_line(struct importer *im, unsigned line, const char *p)
{
	char key[128], val[512], value[128] = "", unit[64] = "", event[512] = "";
	char run[64] = "", pct[64] = "", agg[512] = "", interval[64] = "";
	double time;
	int have_value = 0;

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
		else if (!strcmp(key, "event"))
			copy_str(event, sizeof event, val);
		else if (!strcmp(key, "event-runtime"))
			copy_str(run, sizeof run, val);
		else if (!strcmp(key, "pcnt-running"))
			copy_str(pct, sizeof pct, val);
		else if (!strcmp(key, "variance"))
			;   /* perf stat -r: the runs' spread, not a count */
		else if (strncmp(key, "metric-", 7)) {
			size_t len = strlen(agg);

			if (snprintf(agg + len, sizeof agg - len, "%s%s=%s",
				     len ? " " : "", key, val) >=
			    (int)(sizeof agg - len)) {
				bad(im, line, "aggregation keys too long");
				return;
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
	/* as for CSV, the first object decides: every one has an
	 * "interval" (perf stat -j -I) or none has (a whole run) */
	if (im->intervals < 0) {
		im->intervals = interval[0] != '\0';
		im->mode_line = line;
	}
	if (im->intervals && !interval[0]) {
		bad(im, line, "no \"interval\" key (line %u has one)",
		    im->mode_line);
		return;
	}
	if (!im->intervals && interval[0]) {
		bad(im, line, "an \"interval\" key in output without them (perf "
		    "stat -j without -I: line %u has none)", im->mode_line);
		return;
	}
	time = 0;
	if (interval[0] && (parse_number(interval, &time) || time < 0)) {
		bad(im, line, "interval '%s' is not a time stamp", interval);
		return;
	}
	if (!have_value) {
		bad(im, line, "no \"counter-value\" key");
		return;
	}
	add_record(im, line, time, agg, event, value, unit, run, pct);
	return;
syntax:
	bad(im, line, "malformed JSON object");
}

/* ==== aggregation and output ==== */

static void csv_field(struct cp_buf *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r") && s[0] != ' ' &&
	    (!*s || s[strlen(s) - 1] != ' ')) {
		cp_buf_puts(out, s);
		return;
	}
	cp_buf_puts(out, "\"");
	for (; *s; s++) {
		if (*s == '"')
			cp_buf_puts(out, "\"");
		cp_buf_append(out, s, 1);
	}
	cp_buf_puts(out, "\"");
}

/* Order of record indices: interval, event, line (qsort_r context: the
 * record array). */
static int record_cmp(const void *a, const void *b, void *ctx)
{
	const struct record *r = ctx;
	const struct record *x = &r[*(const size_t *)a];
	const struct record *y = &r[*(const size_t *)b];

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	if (x->e != y->e)
		return x->e < y->e ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Write the rows: intervals are the distinct time stamps in order of
 * first appearance, events likewise.  Per interval and event, over the
 * aggregation ids a that were counted (perf's scaled estimate v_a,
 * running r_a, enabled e_a = r_a * 100 / pct_a):
 *     estimate E = sum v_a,   enabled = sum e_a,   running = sum r_a,
 *     value = E * running / enabled,
 * so that value * enabled / running = E: the dataset scales back to
 * exactly perf's estimate.  None counted: value 0, running 0, enabled the
 * interval's length. */
static int write_rows(struct importer *im, const char *observation,
		      struct cp_buf *out, struct hec_perfstat_summary *sum)
{
	double *times = NULL;
	char **events = NULL;
	size_t nt = 0, ne = 0, i, j, t, e;
	size_t *order = NULL, *supported = NULL;
	int rc = CP_OK;

	times = cp_calloc(im->n + 1, sizeof *times);
	events = cp_calloc(im->n + 1, sizeof *events);
	order = cp_calloc(im->n + 1, sizeof *order);
	supported = cp_calloc(im->n + 1, sizeof *supported);
	if (!times || !events || !order || !supported) {
		rc = CP_ENOMEM;
		goto out;
	}
	/* number the intervals and events (perf prints one interval's rows
	 * together, so the last time stamp is checked first) */
	for (i = 0; i < im->n; i++) {
		struct record *r = &im->r[i];

		if (nt && times[nt - 1] == r->time)
			t = nt - 1;
		else
			for (t = 0; t < nt && times[t] != r->time; t++)
				;
		if (t == nt)
			times[nt++] = r->time;
		for (e = 0; e < ne && strcmp(events[e], r->event); e++)
			;
		if (e == ne)
			events[ne++] = r->event;
		r->t = t;
		r->e = e;
		order[i] = i;
	}
	qsort_r(order, im->n, sizeof *order, record_cmp, im->r);
	for (i = 0; i < im->n; i = j) {
		const struct record *first = &im->r[order[i]];
		double est = 0, ena = 0, run = 0;
		int counted = 0;

		for (j = i; j < im->n && im->r[order[j]].t == first->t &&
		     im->r[order[j]].e == first->e; j++) {
			const struct record *r = &im->r[order[j]];
			size_t d;

			/* the same interval, aggregation id and event twice */
			for (d = i; d < j; d++)
				if (!strcmp(im->r[order[d]].agg, r->agg)) {
					bad(im, r->line, "duplicate count of '%s'%s%s "
					    "at time %.9f (first at line %u)",
					    r->event, r->agg[0] ? " for " : "",
					    r->agg, r->time, im->r[order[d]].line);
					break;
				}
			if (r->state != NOT_SUPPORTED)
				supported[r->e] = 1;
			if (r->state != COUNTED)
				continue;
			counted = 1;
			est += r->value;
			run += r->run;
			ena += nearbyint(r->run * 100 / r->pct);
		}
		t = first->t;
		csv_field(out, observation);
		cp_buf_printf(out, ",%zu,", t);
		csv_field(out, first->event);
		if (counted) {
			double value = ena == run ? est : est * run / ena;

			/* what a dataset holds exactly (stats/ reads counts as
			 * doubles): beyond, the row would not load or not mean
			 * what perf printed */
			if (!(value <= PERFSTAT_MAX_EXACT && ena <= PERFSTAT_MAX_EXACT))
				bad(im, first->line, "'%s' at time %.9f: %s %.0f is "
				    "beyond 2^53, more than a dataset holds exactly",
				    first->event, first->time,
				    value > PERFSTAT_MAX_EXACT ? "count" : "enabled time (ns)",
				    value > PERFSTAT_MAX_EXACT ? value : ena);
			cp_buf_printf(out, ",%.15g,%.0f,%.0f\n", value, ena, run);
		} else {
			double len = (times[t] - (t ? times[t - 1] : 0)) * 1e9;

			if (!(len <= PERFSTAT_MAX_EXACT))
				bad(im, first->line, "'%s' at time %.9f: the interval "
				    "(%.0f ns) is beyond 2^53 ns, more than a dataset "
				    "holds exactly", first->event, first->time, len);
			cp_buf_printf(out, ",0,%.0f,0\n", len > 0 ? nearbyint(len) : 0);
			if (sum)
				sum->not_counted++;
		}
		if (sum)
			sum->rows++;
	}
	if (sum) {
		sum->intervals = nt;
		sum->events = ne;
		for (e = 0; e < ne; e++)
			if (!supported[e]) {
				size_t len = strlen(sum->unsupported);

				snprintf(sum->unsupported + len,
					 sizeof sum->unsupported - len, "%s%s",
					 len ? "," : "", events[e]);
			}
	}
out:
	cp_free(order);
	cp_free(supported);
	cp_free(times);
	cp_free(events);
	return rc;
}

int hec_perfstat_convert(const char *name, const char *text, size_t len,
			 const char *observation, unsigned flags,
			 struct cp_buf *out,
			 struct hec_perfstat_summary *summary,
			 struct cp_error *err)
{
	struct importer im;
	char *buf, *p, *end;
	unsigned line = 0;
	int json = -1, rc = CP_OK;
	size_t i;

	memset(&im, 0, sizeof im);
	im.name = name;
	im.intervals = -1;
	im.strip = (flags & HEC_PERFSTAT_STRIP_MODIFIERS) != 0;
	cp_buf_init(&im.diag);
	if (summary)
		memset(summary, 0, sizeof *summary);
	if (!observation || !observation[0])
		return cp_error_set(err, CP_EINPUT, "empty observation name");
	if (!(buf = cp_malloc(len + 1)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		cp_free(buf);
		return cp_error_at(err, CP_EINPUT, name, 0, 0,
				   "not a text file (NUL byte)");
	}
	for (p = buf; p < buf + len; p = end + 1) {
		char *s;

		end = strchr(p, '\n');
		if (!end)
			end = buf + len;
		*end = '\0';
		line++;
		s = p + strspn(p, " \t\r");
		if (!*s || *s == '#')
			continue;          /* perf's "# started on" and blanks */
		if (json < 0)
			json = *s == '{';
		if (json)
			json_line(&im, line, s);
		else
			csv_line(&im, line, p);
		if (im.nomem)
			break;
	}
	if (!im.nomem && !im.nbad && im.n == 0)
		bad(&im, line ? line : 1, "no counts found (is this `perf stat "
		    "-x ,` or `perf stat -j` output?)");
	if (!im.nomem && im.n) {
		size_t mark = out->len;

		if (flags & HEC_PERFSTAT_HEADER)
			cp_buf_puts(out, "observation,interval,event,value,"
				    "enabled_ns,running_ns\n");
		/* rows are written even after bad lines, so that duplicates
		 * are reported too; the output is then dropped */
		rc = write_rows(&im, observation, out, summary);
		if (im.nbad && out->data) {
			out->len = mark;
			out->data[mark] = '\0';
		}
	}
	if (im.nomem || rc == CP_ENOMEM || im.diag.failed || out->failed) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
	} else if (im.nbad) {
		rc = cp_error_at(err, CP_EINPUT, name, im.first_line, 0, "%s",
				 im.first_msg);
		if (err && im.diag.len) {
			size_t n = im.diag.len < sizeof err->detail - 1 ?
				   im.diag.len : sizeof err->detail - 1;

			memcpy(err->detail, im.diag.data, n);
			err->detail[n] = '\0';
			if (n < im.diag.len) {   /* cut at a line, say so */
				char *nl = strrchr(err->detail, '\n');

				snprintf(nl ? nl + 1 : err->detail,
					 sizeof err->detail -
					 (size_t)((nl ? nl + 1 : err->detail) - err->detail),
					 "... more bad lines\n");
			}
		}
	}
	for (i = 0; i < im.n; i++) {
		cp_free(im.r[i].agg);
		cp_free(im.r[i].event);
	}
	cp_free(im.r);
	cp_buf_release(&im.diag);
	cp_free(buf);
	return rc;
}

int hec_perfstat_import(const char *path, const char *observation,
			unsigned flags, struct cp_buf *out,
			struct hec_perfstat_summary *summary,
			struct cp_error *err)
{
	FILE *fp = fopen(path, "rb");
	struct cp_buf text;
	char chunk[65536];
	size_t got;
	int rc;

	if (!fp)
		return cp_error_set(err, CP_EIO, "cannot read '%s': %s", path,
				    strerror(errno));
	cp_buf_init(&text);
	while ((got = fread(chunk, 1, sizeof chunk, fp)) > 0)
		cp_buf_append(&text, chunk, got);
	if (ferror(fp)) {
		rc = cp_error_set(err, CP_EIO, "cannot read '%s': %s", path,
				  strerror(errno));
		goto out;
	}
	if (text.failed) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'", path);
		goto out;
	}
	rc = hec_perfstat_convert(path, text.data ? text.data : "", text.len,
				  observation, flags, out, summary, err);
out:
	fclose(fp);
	cp_buf_release(&text);
	return rc;
}
