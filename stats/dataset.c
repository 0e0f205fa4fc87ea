/* stats/dataset.c: the long CSV dataset (observation, interval, event,
 * value, enabled_ns, running_ns): strict loading, where every bad row is
 * reported as "file:line: message" (accessors and rates: stats/observation.c).
 *
 * Loading is one pass over the text, read in blocks (the file is never
 * held whole).  A plain row (unquoted fields, decimal integers) is taken
 * by the fast path below; any other row goes through stats/csv.c, which
 * holds every rule and message.  Names are interned (cp_hash), the next
 * observation and event predicted from the previous rows, so most rows
 * hash nothing; nothing is allocated per row.  A sample keeps what rates
 * need (event, value, running_ns: 20 bytes); consecutive rows of one
 * observation and interval form a group that holds the rest once. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "stats/stats_int.h"

#include "stats/dataset_int.h"

/* ==== names ==== */

static void names_release(struct names *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		cp_free(t->name[i]);
	cp_free(t->name);
	cp_free(t->len);
	cp_free(t->slot);
	memset(t, 0, sizeof *t);
}

size_t stats_names_find(const struct names *t, const char *s, size_t len,
			 uint64_t h)
{
	size_t i;

	if (!t->nslots)
		return (size_t)-1;
	for (i = h & (t->nslots - 1); t->slot[i]; i = (i + 1) & (t->nslots - 1)) {
		size_t j = t->slot[i] - 1;

		if (t->len[j] == len && !memcmp(t->name[j], s, len))
			return j;
	}
	return (size_t)-1;
}

static int names_rehash(struct names *t, size_t nslots)
{
	uint32_t *slot = cp_calloc(nslots, sizeof *slot);
	size_t i, j;

	if (!slot)
		return CP_ENOMEM;
	for (i = 0; i < t->n; i++) {
		for (j = cp_hash(CP_HASH_SEED, t->name[i], t->len[i]) & (nslots - 1);
		     slot[j]; j = (j + 1) & (nslots - 1))
			;
		slot[j] = (uint32_t)(i + 1);
	}
	cp_free(t->slot);
	t->slot = slot;
	t->nslots = nslots;
	return CP_OK;
}

/* Index of [s, s + len), adding it if new; (size_t)-1 when out of memory.
 * Fewer names than lines, and lines stay below 2^32. */
static size_t names_intern(struct names *t, const char *s, size_t len)
{
	uint64_t h = cp_hash(CP_HASH_SEED, s, len);
	size_t i = stats_names_find(t, s, len, h), j;

	if (i != (size_t)-1)
		return i;
	if (2 * (t->n + 1) > t->nslots &&
	    names_rehash(t, t->nslots ? 2 * t->nslots : 16))
		return (size_t)-1;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		char **name = cp_reallocarray(t->name, cap, sizeof *name);
		size_t *ln;

		if (!name)
			return (size_t)-1;
		t->name = name;
		if (!(ln = cp_reallocarray(t->len, cap, sizeof *ln)))
			return (size_t)-1;
		t->len = ln;
		t->cap = cap;
	}
	if (!(t->name[t->n] = cp_strndup(s, len)))
		return (size_t)-1;
	t->len[t->n] = len;
	for (j = h & (t->nslots - 1); t->slot[j]; j = (j + 1) & (t->nslots - 1))
		;
	t->slot[j] = (uint32_t)++t->n;
	return t->n - 1;
}

/* ==== diagnostics: collected with their line, reported in line order ==== */

struct diag {
	unsigned line;
	size_t seq;
	char *msg;
};

struct loader {
	const char *name;
	struct diag *d;
	size_t n, cap;
	int nomem;
};

static void diag_add(struct loader *l, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void diag_add(struct loader *l, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct diag *d = cp_reallocarray(l->d, cap, sizeof *d);

		if (!d) {
			l->nomem = 1;
			return;
		}
		l->d = d;
		l->cap = cap;
	}
	if (!(l->d[l->n].msg = cp_strdup(msg))) {
		l->nomem = 1;
		return;
	}
	l->d[l->n].line = line;
	l->d[l->n].seq = l->n;
	l->n++;
}

static int diag_cmp(const void *a, const void *b)
{
	const struct diag *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Report the collected diagnostics: the first into err, the rest into
 * err->detail while they fit, all into diag. */
static int diag_report(struct loader *l, struct cp_buf *diag,
		       struct cp_error *err)
{
	size_t i, used = 0, left = 0;

	qsort(l->d, l->n, sizeof *l->d, diag_cmp);
	for (i = 0; i < l->n; i++) {
		char line[700];
		int len;

		len = snprintf(line, sizeof line, "%s:%u: %s\n", l->name,
			       l->d[i].line, l->d[i].msg);
		if (diag)
			cp_buf_puts(diag, line);
		if (i == 0) {
			cp_error_at(err, CP_EINPUT, l->name, l->d[i].line, 0,
				    "%s", l->d[i].msg);
			continue;
		}
		if (!err)
			continue;
		if (!left && len > 0 &&
		    used + (size_t)len + 40 < sizeof err->detail) {
			memcpy(err->detail + used, line, (size_t)len + 1);
			used += (size_t)len;
		} else {
			left++;
		}
	}
	if (err && left)
		snprintf(err->detail + used, sizeof err->detail - used,
			 "... and %zu more bad rows\n", left);
	return CP_EINPUT;
}

static void loader_release(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		cp_free(l->d[i].msg);
	cp_free(l->d);
	l->d = NULL;
	l->n = l->cap = 0;
}

/* ==== the loader's state across lines (and blocks of the file) ==== */

enum { COL_OBS, COL_INTERVAL, COL_EVENT, COL_VALUE, COL_ENABLED,
       COL_RUNNING, NCOLS, COL_OTHER = NCOLS };
static const char *const col_names[NCOLS] = {
	"observation", "interval", "event", "value", "enabled_ns", "running_ns"
};

struct ctx {
	struct stats_dataset *d;
	struct loader l;
	unsigned line;
	int stop;                 /* header errors, a NUL byte: read no more */
	long nheader, col[NCOLS];
	unsigned char *kind;      /* nheader: COL_* of each field */
	struct stats_field *f;    /* the slow path's fields */
	size_t fcap;
	char *scratch;            /* unquoted text of the slow path */
	size_t scap;
	/* the rows before: to predict the names and to extend groups */
	uint32_t prev_obs, prev_ev;
	unsigned prev_line;
	uint32_t *next_ev;        /* per event: the event that followed it */
	size_t *seen;             /* per event: its last sample + 1 */
	size_t ev_cap;
	int unsorted, dup;
};

/* One row's fields, checked. */
struct row {
	const char *obs, *ev;
	size_t obs_len, ev_len;
	uint64_t interval, enabled, running;
	double value;
};

static int grow_events(struct ctx *c)
{
	size_t cap = c->ev_cap ? 2 * c->ev_cap : 64, i;
	uint32_t *ne = cp_reallocarray(c->next_ev, cap, sizeof *ne);
	size_t *seen;

	if (!ne)
		return CP_ENOMEM;
	c->next_ev = ne;
	if (!(seen = cp_reallocarray(c->seen, cap, sizeof *seen)))
		return CP_ENOMEM;
	c->seen = seen;
	for (i = c->ev_cap; i < cap; i++) {
		ne[i] = UINT32_MAX;
		seen[i] = 0;
	}
	c->ev_cap = cap;
	return CP_OK;
}

static int grow_samples(struct stats_dataset *d)
{
	if (d->n_ch == d->cap_ch) {
		size_t cap = d->cap_ch ? 2 * d->cap_ch : 16;
		struct chunk **ch = cp_reallocarray(d->ch, cap, sizeof *ch);

		if (!ch)
			return CP_ENOMEM;
		d->ch = ch;
		d->cap_ch = cap;
	}
	if (!(d->ch[d->n_ch] = cp_malloc(sizeof **d->ch)))
		return CP_ENOMEM;
	d->n_ch++;
	return CP_OK;
}

/* Intern the row's names (predicted from the rows before) and append its
 * sample, extending the current group or starting one. */
static int store_row(struct ctx *c, const struct row *r)
{
	struct stats_dataset *d = c->d;
	struct group *g = d->n_g ? &d->g[d->n_g - 1] : NULL;
	uint32_t o = c->prev_obs, e;
	size_t i;

	if (o == UINT32_MAX || d->obs.len[o] != r->obs_len ||
	    memcmp(d->obs.name[o], r->obs, r->obs_len)) {
		if ((i = names_intern(&d->obs, r->obs, r->obs_len)) == (size_t)-1)
			return CP_ENOMEM;
		o = (uint32_t)i;
	}
	e = c->prev_ev == UINT32_MAX ? UINT32_MAX : c->next_ev[c->prev_ev];
	if (e == UINT32_MAX || d->ev.len[e] != r->ev_len ||
	    memcmp(d->ev.name[e], r->ev, r->ev_len)) {
		if ((i = names_intern(&d->ev, r->ev, r->ev_len)) == (size_t)-1)
			return CP_ENOMEM;
		while (d->ev.n > c->ev_cap)
			if (grow_events(c))
				return CP_ENOMEM;
		e = (uint32_t)i;
		if (c->prev_ev != UINT32_MAX)
			c->next_ev[c->prev_ev] = e;
	}
	if (!g || g->obs != o || g->interval != r->interval ||
	    c->line != c->prev_line + 1) {
		if (g && (o < g->obs || (o == g->obs && r->interval <= g->interval)))
			c->unsorted = 1;
		if (d->n_g == d->cap_g) {
			size_t cap = d->cap_g ? 2 * d->cap_g : 256;
			struct group *ng = cp_reallocarray(d->g, cap, sizeof *ng);

			if (!ng)
				return CP_ENOMEM;
			d->g = ng;
			d->cap_g = cap;
		}
		g = &d->g[d->n_g++];
		g->interval = r->interval;
		g->start = d->n_s;
		g->obs = o;
		g->n = 0;
		g->line = c->line;
		g->dup = 0;
	}
	if (c->seen[e] > g->start)
		g->dup = 1, c->dup = 1;
	else
		c->seen[e] = d->n_s + 1;
	if (d->n_s == d->n_ch * SAMPLE_CHUNK && grow_samples(d))
		return CP_ENOMEM;
	S_EV(d, d->n_s) = e;
	S_VALUE(d, d->n_s) = r->value;
	S_RUNNING(d, d->n_s) = r->running;
	d->n_s++;
	g->n++;
	c->prev_obs = o;
	c->prev_ev = e;
	c->prev_line = c->line;
	return CP_OK;
}

/* The first comma in [p, end), or end: 16 bytes a step where the host
 * has SSE2 (names are most of a row's bytes). */
static const char *to_comma(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i comma = _mm_set1_epi8(',');

	for (; end - p >= 16; p += 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
			_mm_loadu_si128((const __m128i *)(const void *)p), comma));

		if (m)
			return p + __builtin_ctz(m);
	}
#endif
	while (p < end && *p != ',')
		p++;
	return p;
}

/* The fast path: a plain row (unquoted, untrimmed fields, the numbers
 * decimal integers, every check passed) into r; 0 sends the row to the
 * slow path, which decides and says what is wrong. */
static int row_fast(const struct ctx *c, const char *p, const char *eol,
		    struct row *r)
{
	long i;

	for (i = 0;; i++) {
		const char *s = p;
		int k = c->kind[i];

		if (k == COL_OBS || k == COL_EVENT || k == COL_OTHER) {
			if (p < eol && (*p == '"' || *p == ' ' || *p == '\t'))
				return 0;
			p = to_comma(p, eol);
			if (p > s && (p[-1] == ' ' || p[-1] == '\t'))
				return 0;
			if (k == COL_OBS) {
				r->obs = s;
				r->obs_len = (size_t)(p - s);
			} else if (k == COL_EVENT) {
				r->ev = s;
				r->ev_len = (size_t)(p - s);
			}
		} else {
			uint64_t v = 0;

			/* at most 19 digits: below 10^19 < 2^64 */
			while (p < eol && (unsigned)(*p - '0') < 10 && p - s < 19)
				v = v * 10 + (unsigned)(*p++ - '0');
			if (p == s || (p < eol && *p != ','))
				return 0;
			if (k == COL_INTERVAL)
				r->interval = v;
			else if (k == COL_ENABLED)
				r->enabled = v;
			else if (k == COL_RUNNING)
				r->running = v;
			else if (v > (1ull << 53))
				return 0;
			else
				r->value = (double)v;
		}
		if (i + 1 == c->nheader) {
			if (p != eol)
				return 0;
			break;
		}
		if (p == eol)
			return 0;
		p++;
	}
	return r->obs_len && r->ev_len && r->running <= r->enabled &&
	       (r->running || r->value == 0);
}

/* Why a number was refused, after "FIELD 'TEXT' ": one wording for every
 * column (the value's own cases are in row_slow). */
static const char *num_why(int rc)
{
	switch (rc) {
	case STATS_NUM_HEX:
		return "is hexadecimal (a dataset's numbers are decimal)";
	case STATS_NUM_ABOVE_2_64:
		return "is not below 2^64 (no 64-bit counter holds it)";
	default:
		return "is not a non-negative integer";
	}
}

/* The slow path: any row, every rule, the first problem a diagnostic. */
static int row_slow(struct ctx *c, const char *p, const char *eol)
{
	struct loader *l = &c->l;
	const struct stats_field *f;
	struct row r;
	size_t need = (size_t)(eol - p) + 1;
	long nf;
	int rc;

	if (need > c->scap) {
		char *s = cp_realloc(c->scratch, need);

		if (!s)
			return CP_ENOMEM;
		c->scratch = s;
		c->scap = need;
	}
	nf = stats_csv_split(p, eol, c->f, c->fcap, c->scratch);
	if (nf < 0) {
		diag_add(l, c->line, "%s", stats_csv_why(nf));
		return CP_OK;
	}
	if (nf != c->nheader) {
		diag_add(l, c->line, "expected %ld fields, found %ld", c->nheader, nf);
		return CP_OK;
	}
#define FLD(K) (int)c->f[c->col[K]].len, c->f[c->col[K]].p
	f = c->f;
	memset(&r, 0, sizeof r);
	r.obs = f[c->col[COL_OBS]].p;
	r.obs_len = f[c->col[COL_OBS]].len;
	r.ev = f[c->col[COL_EVENT]].p;
	r.ev_len = f[c->col[COL_EVENT]].len;
	if (!r.obs_len) {
		diag_add(l, c->line, "empty observation name");
		return CP_OK;
	}
	if ((rc = stats_csv_u64(f[c->col[COL_INTERVAL]].p,
				f[c->col[COL_INTERVAL]].len, &r.interval))) {
		diag_add(l, c->line, "interval '%.*s' %s", FLD(COL_INTERVAL),
			 num_why(rc));
		return CP_OK;
	}
	if (!r.ev_len) {
		diag_add(l, c->line, "empty event name");
		return CP_OK;
	}
	rc = stats_csv_count(f[c->col[COL_VALUE]].p, f[c->col[COL_VALUE]].len,
			     &r.value);
	switch (rc) {
	case STATS_NUM_OK:
		break;
	case STATS_NUM_NOMEM:
		return CP_ENOMEM;
	case STATS_NUM_NEGATIVE:
		diag_add(l, c->line, "negative count (%.*s)", FLD(COL_VALUE));
		return CP_OK;
	case STATS_NUM_HEX:
	case STATS_NUM_ABOVE_2_64:
		diag_add(l, c->line, "value '%.*s' %s", FLD(COL_VALUE), num_why(rc));
		return CP_OK;
	case STATS_NUM_ABOVE_2_53:
		diag_add(l, c->line, "value '%.*s' is above 2^53 = "
			 "9007199254740992, beyond which a double does not hold "
			 "every count exactly", FLD(COL_VALUE));
		return CP_OK;
	default:
		diag_add(l, c->line, "value '%.*s' is not a number", FLD(COL_VALUE));
		return CP_OK;
	}
	if ((rc = stats_csv_u64(f[c->col[COL_ENABLED]].p,
				f[c->col[COL_ENABLED]].len, &r.enabled))) {
		diag_add(l, c->line, "enabled_ns '%.*s' %s", FLD(COL_ENABLED),
			 num_why(rc));
		return CP_OK;
	}
	if ((rc = stats_csv_u64(f[c->col[COL_RUNNING]].p,
				f[c->col[COL_RUNNING]].len, &r.running))) {
		diag_add(l, c->line, "running_ns '%.*s' %s", FLD(COL_RUNNING),
			 num_why(rc));
		return CP_OK;
	}
	if (r.running > r.enabled) {
		diag_add(l, c->line, "running_ns (%llu) exceeds enabled_ns (%llu)",
			 (unsigned long long)r.running,
			 (unsigned long long)r.enabled);
		return CP_OK;
	}
	if (r.running == 0 && r.value != 0) {
		diag_add(l, c->line, "value %.*s with running_ns = 0 (an event "
			 "that was not counted has no value)", FLD(COL_VALUE));
		return CP_OK;
	}
#undef FLD
	return store_row(c, &r);
}

/* Only spaces, tabs and carriage returns in [p, eol). */
static int is_blank_line(const char *p, const char *eol)
{
	while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == eol;
}

/* Index the header's columns; a missing one is a diagnostic. */
static int load_header(struct ctx *c, const char *p, const char *eol)
{
	struct loader *l = &c->l;
	size_t need = (size_t)(eol - p) + 1;
	long nf, i, k;

	if (!(c->scratch = cp_malloc(need)))
		return CP_ENOMEM;
	c->scap = need;
	if (is_blank_line(p, eol)) {
		/* not six "missing header column" lines for one cause */
		diag_add(l, 1, "blank header line (expected %s,%s,%s,%s,%s,%s)",
			 col_names[0], col_names[1], col_names[2], col_names[3],
			 col_names[4], col_names[5]);
		return CP_OK;
	}
	nf = stats_csv_split(p, eol, NULL, 0, c->scratch);
	if (nf < 0) {
		diag_add(l, 1, "%s", stats_csv_why(nf));
		return CP_OK;
	}
	c->f = cp_calloc((size_t)nf, sizeof *c->f);
	c->kind = cp_malloc((size_t)nf);
	if (!c->f || !c->kind)
		return CP_ENOMEM;
	c->fcap = (size_t)nf;
	stats_csv_split(p, eol, c->f, c->fcap, c->scratch);
	for (k = 0; k < NCOLS; k++)
		c->col[k] = -1;
	for (i = 0; i < nf; i++) {
		c->kind[i] = COL_OTHER;
		for (k = 0; k < NCOLS; k++)
			if (c->f[i].len == strlen(col_names[k]) &&
			    !memcmp(c->f[i].p, col_names[k], c->f[i].len)) {
				if (c->col[k] >= 0) {
					diag_add(l, 1, "duplicate header column '%s'",
						 col_names[k]);
				} else {
					c->col[k] = i;
					c->kind[i] = (unsigned char)k;
				}
			}
	}
	for (k = 0; k < NCOLS; k++)
		if (c->col[k] < 0)
			diag_add(l, 1, "missing header column '%s'", col_names[k]);
	c->nheader = nf;
	return CP_OK;
}

/* Load the complete lines of [p, end), and the last one even without its
 * newline when final; *rest = the first byte not loaded. */
static int load_lines(struct ctx *c, const char *p, const char *end,
		      int final, const char **rest)
{
	const char *nul = memchr(p, '\0', (size_t)(end - p));
	int rc = CP_OK;

	while (p < end && !c->stop && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol;
		struct row r;

		if (!nl && !final)
			break;
		eol = nl ? nl : end;
		if (c->line == UINT32_MAX - 1) {
			diag_add(&c->l, c->line, "more than %u lines", c->line);
			c->stop = 1;
			break;
		}
		c->line++;
		if (nul && nul <= eol) {
			/* a binary file: that alone is said */
			loader_release(&c->l);
			diag_add(&c->l, c->line, "not a text file (NUL byte)");
			c->stop = 1;
			break;
		}
		if (c->line == 1 && eol - p >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
			p += 3;                /* a UTF-8 byte order mark */
		if (eol > p && eol[-1] == '\r')
			eol--;
		if (c->line == 1) {
			rc = load_header(c, p, eol);
			if (c->l.n)
				c->stop = 1;
		} else {
			if (is_blank_line(p, eol))
				;          /* blank lines carry no row */
			else if (row_fast(c, p, eol, &r))
				rc = store_row(c, &r);
			else
				rc = row_slow(c, p, eol);
		}
		p = nl ? nl + 1 : end;
	}
	*rest = p;
	return rc ? rc : c->l.nomem ? CP_ENOMEM : CP_OK;
}

/* ==== after the last line: order, duplicates, the index ==== */

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->obs != y->obs)
		return x->obs < y->obs ? -1 : 1;
	if (x->interval != y->interval)
		return x->interval < y->interval ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

struct evline {
	uint32_t ev;
	unsigned line;
};

static int evline_cmp(const void *a, const void *b)
{
	const struct evline *x = a, *y = b;

	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Every (observation, interval, event) twice, once a diagnostic naming
 * the first row, over the groups [a, b) of one key. */
static int find_duplicates(struct ctx *c, size_t a, size_t b)
{
	struct stats_dataset *d = c->d;
	struct evline *el;
	size_t n = 0, i, j, first = 0;

	for (i = a; i < b; i++)
		n += d->g[i].n;
	if (!(el = cp_calloc(n, sizeof *el)))
		return CP_ENOMEM;
	for (i = a, n = 0; i < b; i++)
		for (j = 0; j < d->g[i].n; j++) {
			el[n].ev = S_EV(d, d->g[i].start + j);
			el[n++].line = d->g[i].line + (unsigned)j;
		}
	qsort(el, n, sizeof *el, evline_cmp);
	for (i = 1; i < n; i++) {
		if (el[i].ev != el[i - 1].ev) {
			first = i;
			continue;
		}
		diag_add(&c->l, el[i].line, "duplicate row for observation '%s', "
			 "interval %llu, event '%s' (first at line %u)",
			 d->obs.name[d->g[a].obs],
			 (unsigned long long)d->g[a].interval,
			 d->ev.name[el[i].ev], el[first].line);
	}
	cp_free(el);
	return CP_OK;
}

/* Groups in (observation, interval, line) order.  They were made in line
 * order, so a stable counting sort by observation leaves each
 * observation's groups in line order, which is interval order unless its
 * intervals came out of order; only then is its run sorted by comparison.
 * Interleaved observations (two processes recorded at once) cost a pass,
 * not a comparison sort of every group. */
static int sort_groups(struct stats_dataset *d)
{
	size_t *at = cp_calloc(d->obs.n + 1, sizeof *at), i, o;
	struct group *t = cp_malloc((d->n_g + 1) * sizeof *t);

	if (!at || !t) {
		cp_free(at);
		cp_free(t);
		return CP_ENOMEM;
	}
	for (i = 0; i < d->n_g; i++)
		at[d->g[i].obs + 1]++;
	for (o = 0; o < d->obs.n; o++)
		at[o + 1] += at[o];
	for (i = 0; i < d->n_g; i++)
		t[at[d->g[i].obs]++] = d->g[i];
	cp_free(d->g);
	d->g = t;
	d->cap_g = d->n_g + 1;
	/* at[o] is now the end of observation o's run */
	for (o = 0, i = 0; o < d->obs.n; i = at[o++]) {
		size_t j;

		for (j = i + 1; j < at[o] && group_cmp(&t[j - 1], &t[j]) < 0; j++)
			;
		if (j < at[o])
			qsort(t + i, at[o] - i, sizeof *t, group_cmp);
	}
	cp_free(at);
	return CP_OK;
}

static int index_groups(struct ctx *c)
{
	struct stats_dataset *d = c->d;
	size_t i, j, o;

	if (c->unsorted && sort_groups(d))
		return CP_ENOMEM;
	if (c->unsorted || c->dup)
		for (i = 0; i < d->n_g; i = j) {
			int dup = d->g[i].dup != 0;

			for (j = i + 1; j < d->n_g && d->g[j].obs == d->g[i].obs &&
			     d->g[j].interval == d->g[i].interval; j++)
				dup = 1;
			if (dup && find_duplicates(c, i, j))
				return CP_ENOMEM;
		}
	d->obs_g = cp_calloc(d->obs.n + 1, sizeof *d->obs_g);
	d->obs_nint = cp_calloc(d->obs.n + 1, sizeof *d->obs_nint);
	d->obs_line = cp_calloc(d->obs.n + 1, sizeof *d->obs_line);
	if (!d->obs_g || !d->obs_nint || !d->obs_line)
		return CP_ENOMEM;
	for (i = 0; i < d->n_g; i++) {
		unsigned *first = &d->obs_line[d->g[i].obs];

		/* groups are in interval order: the first row is the least line */
		if (!*first || d->g[i].line < *first)
			*first = d->g[i].line;
		d->obs_g[d->g[i].obs + 1]++;
		if (i == 0 || d->g[i - 1].obs != d->g[i].obs ||
		    d->g[i - 1].interval != d->g[i].interval)
			d->obs_nint[d->g[i].obs]++;
	}
	for (o = 0; o < d->obs.n; o++)
		d->obs_g[o + 1] += d->obs_g[o];
	return CP_OK;
}

static int ctx_init(struct ctx *c, const char *name, struct cp_error *err)
{
	memset(c, 0, sizeof *c);
	c->l.name = name;
	c->prev_obs = c->prev_ev = UINT32_MAX;
	if (!(c->d = cp_calloc(1, sizeof *c->d)) ||
	    !(c->d->path = cp_strdup(name))) {
		cp_free(c->d);
		c->d = NULL;
		return cp_error_set(err, CP_ENOMEM, "out of memory loading '%s'",
				    name);
	}
	return CP_OK;
}

/* The end of loading: the last checks, the report; *out or nothing. */
static int ctx_finish(struct ctx *c, int rc, struct stats_dataset **out,
		      struct cp_buf *diag, struct cp_error *err)
{
	if (!rc && !c->stop) {
		if (c->line == 0)
			diag_add(&c->l, 1, "empty file (no header)");
		else if ((rc = index_groups(c)) == CP_OK && !c->l.n && !c->d->n_s)
			diag_add(&c->l, 1, "no data rows");   /* at the header */
	}
	if (!rc && c->l.nomem)
		rc = CP_ENOMEM;
	if (rc == CP_ENOMEM)
		cp_error_set(err, CP_ENOMEM, "out of memory loading '%s'", c->l.name);
	else if (!rc && c->l.n)
		rc = diag_report(&c->l, diag, err);
	loader_release(&c->l);
	cp_free(c->f);
	cp_free(c->kind);
	cp_free(c->scratch);
	cp_free(c->next_ev);
	cp_free(c->seen);
	if (rc) {
		stats_dataset_free(c->d);
		return rc;
	}
	*out = c->d;
	return CP_OK;
}

int stats_dataset_parse(const char *name, const char *text, size_t len,
			struct stats_dataset **out, struct cp_buf *diag,
			struct cp_error *err)
{
	struct ctx c;
	const char *rest;
	int rc;

	*out = NULL;
	if ((rc = ctx_init(&c, name, err)))
		return rc;
	rc = load_lines(&c, text, text + len, 1, &rest);
	return ctx_finish(&c, rc, out, diag, err);
}

/* Blocks of the file; a line longer than the buffer doubles it. */
#define LOAD_BLOCK (1u << 20)

int stats_dataset_load_diag(const char *path, struct stats_dataset **out,
			    struct cp_buf *diag, struct cp_error *err)
{
	struct ctx c;
	FILE *fp;
	char *buf;
	size_t cap = LOAD_BLOCK, have = 0, got;
	int rc;

	*out = NULL;
	fp = fopen(path, "rb");
	if (!fp)
		return cp_error_set(err, CP_EIO, "cannot read '%s': %s", path,
				    strerror(errno));
	if (!(buf = cp_malloc(cap))) {
		fclose(fp);
		return cp_error_set(err, CP_ENOMEM, "out of memory reading '%s'",
				    path);
	}
	if ((rc = ctx_init(&c, path, err))) {
		cp_free(buf);
		fclose(fp);
		return rc;
	}
	for (;;) {
		const char *rest;
		int final;

		if (have == cap) {
			char *nb = cp_realloc(buf, cap * 2);

			if (!nb) {
				rc = CP_ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		got = fread(buf + have, 1, cap - have, fp);
		if (ferror(fp)) {
			rc = cp_error_set(err, CP_EIO, "cannot read '%s': %s",
					  path, strerror(errno));
			break;
		}
		final = got == 0;
		have += got;
		if ((rc = load_lines(&c, buf, buf + have, final, &rest)) ||
		    final || c.stop)
			break;
		have = (size_t)(buf + have - rest);
		memmove(buf, rest, have);
	}
	fclose(fp);
	cp_free(buf);
	if (rc == CP_EIO) {
		c.stop = 1;
		ctx_finish(&c, CP_EINTERNAL, out, NULL, NULL);
		return rc;
	}
	return ctx_finish(&c, rc, out, diag, err);
}

int stats_dataset_load(const char *path, struct stats_dataset **out,
		       struct cp_error *err)
{
	return stats_dataset_load_diag(path, out, NULL, err);
}

void stats_dataset_free(struct stats_dataset *d)
{
	size_t i;

	if (!d)
		return;
	names_release(&d->obs);
	names_release(&d->ev);
	for (i = 0; i < d->n_ch; i++)
		cp_free(d->ch[i]);
	cp_free(d->ch);
	cp_free(d->g);
	cp_free(d->obs_g);
	cp_free(d->obs_nint);
	cp_free(d->obs_line);
	cp_free(d->path);
	cp_free(d);
}

