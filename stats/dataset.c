/* SPDX-License-Identifier: GPL-3.0-or-later */
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
 * observation and interval form a group that holds the rest once.
 *
 * On T threads the lines after the header are cut into T ranges, each
 * parsed into a fragment of its own (names, samples, groups, messages,
 * line numbers counted from the range's start) and joined after: the
 * result, every message and its order are those of one thread. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
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

struct loader {
	const char *name;
	struct cp_diags ds;
};

static void diag_add(struct loader *l, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void diag_add(struct loader *l, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cp_diags_vadd(&l->ds, 0, line, fmt, ap);
	va_end(ap);
}

/* Report the collected diagnostics: the first into err, the rest into
 * err->detail while they fit, all into diag. */
static int diag_report(struct loader *l, struct cp_buf *diag,
		       struct cp_error *err)
{
	return cp_diags_report(&l->ds, &l->name, "rows", diag, err);
}

/* ==== the loader's state across lines (and blocks of the file) ==== */

/* The six columns every dataset has, then the two of a perf stat -r
 * summary (optional, both or neither), then any other (ignored). */
enum { COL_OBS, COL_INTERVAL, COL_EVENT, COL_VALUE, COL_ENABLED,
       COL_RUNNING, NCOLS, COL_RUNS = NCOLS, COL_SE, NALL, COL_OTHER = NALL };
static const char *const col_names[NALL] = {
	"observation", "interval", "event", "value", "enabled_ns", "running_ns",
	"runs", "se_pct"
};

struct ctx {
	struct stats_dataset *d;
	struct loader l;
	unsigned line;            /* lines read (a fragment: from its range's start) */
	int body;                 /* the header is read: lines are rows */
	int stop;                 /* header errors, a NUL byte: read no more */
	long nheader, col[NALL];
	unsigned char *kind;      /* nheader: COL_* of each field */
	struct stats_field *f;    /* the slow path's fields */
	size_t fcap;
	char *scratch;            /* unquoted text of the slow path */
	size_t scap;
	/* the rows before: to predict the names and to extend groups */
	uint32_t prev_obs, prev_ev;
	unsigned prev_line;
	uint64_t row_off;         /* the offset of the line being read */
	uint32_t *next_ev;        /* per event: the event that followed it */
	size_t *seen;             /* per event: its last sample + 1 */
	size_t ev_cap;
	int unsorted, dup;
	const struct stats_only *only;   /* the observations kept (NULL: all) */
	char only_name[64];       /* the last row's observation, as only saw */
	size_t only_len;          /* it (0: none), */
	int only_kept;            /* and whether it is kept */
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

/* Sample chunks are mapped on their own, 2 MB aligned, and from a
 * dataset's second chunk on (beyond 10 MB of samples) marked for
 * transparent huge pages: a chunk is then five huge pages instead of
 * 2,560 page faults, slow on virtual machines, whichever thread loads
 * it (glibc's malloc asks for huge pages for its main arena only, and a
 * thread of its own gets an arena of its own).  A small dataset's one
 * chunk stays in small pages, touched as far as it is filled. */
#define CHUNK_ALIGN ((size_t)2 << 20)

/* Chunks freed are kept for the next dataset, up to CHUNK_SPARE of them:
 * a dataset read in parts (stats/reader.c) then fills the memory of the
 * part before, its pages already there, instead of faulting in and
 * zeroing fresh ones for every part. */
#define CHUNK_SPARE 2
static struct chunk *spare[CHUNK_SPARE];
static size_t n_spare;
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;

static struct chunk *chunk_new(int huge)
{
	size_t size = sizeof(struct chunk), span = size + CHUNK_ALIGN;
	char *p, *a;

	pthread_mutex_lock(&spare_lock);
	a = n_spare ? (char *)spare[--n_spare] : NULL;
	pthread_mutex_unlock(&spare_lock);
	if (a)
		return (struct chunk *)a;
	p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + CHUNK_ALIGN - 1) & ~(uintptr_t)(CHUNK_ALIGN - 1));
	if (a > p)
		munmap(p, (size_t)(a - p));
	if (p + span > a + size)
		munmap(a + size, (size_t)(p + span - (a + size)));
#ifdef MADV_HUGEPAGE
	if (huge)
		madvise(a, size, MADV_HUGEPAGE);   /* a hint: without it, small pages */
#else
	(void)huge;
#endif
	return (struct chunk *)a;
}

static void chunk_free(struct chunk *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&spare_lock);
	if (n_spare < CHUNK_SPARE) {
		spare[n_spare++] = c;
		c = NULL;
	}
	pthread_mutex_unlock(&spare_lock);
	if (c)
		munmap(c, sizeof *c);
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
	if (!(d->ch[d->n_ch] = chunk_new(d->n_ch > 0 || d->huge)))
		return CP_ENOMEM;
	d->n_ch++;
	return CP_OK;
}

static int append_sample(struct stats_dataset *d, uint32_t e, double value,
			 uint64_t running)
{
	if (d->n_s == d->n_ch * SAMPLE_CHUNK && grow_samples(d))
		return CP_ENOMEM;
	S_EV(d, d->n_s) = e;
	S_VALUE(d, d->n_s) = value;
	S_RUNNING(d, d->n_s) = running;
	d->n_s++;
	return CP_OK;
}

/* The offset of observation d->obs.n - 1, new: its first row's. */
static int obs_off_add(struct stats_dataset *d, uint64_t off)
{
	if (d->obs.n > d->cap_off) {
		size_t cap = d->cap_off ? 2 * d->cap_off : 256;
		uint64_t *o = cp_reallocarray(d->obs_off, cap, sizeof *o);

		if (!o)
			return CP_ENOMEM;
		d->obs_off = o;
		d->cap_off = cap;
	}
	d->obs_off[d->obs.n - 1] = off;
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
		size_t n0 = d->obs.n;

		if ((i = names_intern(&d->obs, r->obs, r->obs_len)) == (size_t)-1 ||
		    (d->obs.n > n0 && obs_off_add(d, c->row_off)))
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
	if (append_sample(d, e, r->value, r->running))
		return CP_ENOMEM;
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

		if (k == COL_RUNS || k == COL_SE) {
			/* empty in a row of intervals; a summary's row takes
			 * the slow path */
			if (p < eol && *p != ',')
				return 0;
		} else if (k == COL_OBS || k == COL_EVENT || k == COL_OTHER) {
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

/* A row of a perf stat -r summary: runs (an integer, at least 2) and
 * se_pct (the relative standard error of the mean value, percent, as
 * perf prints it after "+-"), both given; kept by line beside the
 * sample. */
static int summary_row(struct ctx *c, const struct row *r)
{
	struct loader *l = &c->l;
	struct stats_dataset *d = c->d;
	const struct stats_field *fr = &c->f[c->col[COL_RUNS]];
	const struct stats_field *fs = &c->f[c->col[COL_SE]];
	uint64_t runs;
	double se;
	int rc;

	if (!fr->len || !fs->len) {
		diag_add(l, c->line, "'%s' without '%s' (a perf stat -r summary "
			 "row has both)", fr->len ? "runs" : "se_pct",
			 fr->len ? "se_pct" : "runs");
		return CP_OK;
	}
	if ((rc = stats_csv_u64(fr->p, fr->len, &runs))) {
		diag_add(l, c->line, "runs '%.*s' %s", (int)fr->len, fr->p, num_why(rc));
		return CP_OK;
	}
	if (runs < 2 || runs > UINT32_MAX) {
		diag_add(l, c->line, "runs %llu: a summary holds 2 to %u runs",
			 (unsigned long long)runs, UINT32_MAX);
		return CP_OK;
	}
	rc = stats_csv_count(fs->p, fs->len, &se);
	if (rc == STATS_NUM_NOMEM)
		return CP_ENOMEM;
	if (rc == STATS_NUM_NEGATIVE) {
		diag_add(l, c->line, "negative se_pct (%.*s)", (int)fs->len, fs->p);
		return CP_OK;
	}
	if (rc) {
		diag_add(l, c->line, "se_pct '%.*s' is not a number", (int)fs->len,
			 fs->p);
		return CP_OK;
	}
	if (d->n_sr == d->cap_sr) {
		size_t cap = d->cap_sr ? 2 * d->cap_sr : 64;
		struct summary_row *sr = cp_reallocarray(d->sr, cap, sizeof *sr);

		if (!sr)
			return CP_ENOMEM;
		d->sr = sr;
		d->cap_sr = cap;
	}
	d->sr[d->n_sr].line = c->line;
	d->sr[d->n_sr].runs = (uint32_t)runs;
	d->sr[d->n_sr].se_pct = se;
	d->n_sr++;
	return store_row(c, r);
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
	if (c->col[COL_RUNS] >= 0 && c->col[COL_SE] >= 0 &&
	    (f[c->col[COL_RUNS]].len || f[c->col[COL_SE]].len))
		return summary_row(c, &r);
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

int stats_row_observation(const char *p, const char *eol, size_t *len)
{
	const char *c;

	if (is_blank_line(p, eol))
		return 0;
	if (*p == '"' || *p == ' ' || *p == '\t')
		return -1;
	c = to_comma(p, eol);
	if (c == p || c[-1] == ' ' || c[-1] == '\t')
		return -1;
	*len = (size_t)(c - p);
	return 1;
}

/* Whether the row [p, eol) is one of the observations c->only keeps; a
 * row the filter does not know (the file changed since it was indexed)
 * is said, and ends the load. */
static int only_keeps(struct ctx *c, const char *p, const char *eol)
{
	size_t len;
	int k;

	if (stats_row_observation(p, eol, &len) != 1)
		k = -1;
	else if (len == c->only_len && !memcmp(p, c->only_name, len))
		return c->only_kept;        /* as the row before (most rows) */
	else if ((k = c->only->keep(c->only->arg, p, len)) >= 0 &&
		 len <= sizeof c->only_name) {
		memcpy(c->only_name, p, len);
		c->only_len = len;
		c->only_kept = k;
	}
	if (k < 0) {
		diag_add(&c->l, c->line, "a row the first reading did not see (the "
			 "file changed while it was read)");
		c->stop = 1;
		return 0;
	}
	return k;
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
	for (k = 0; k < NALL; k++)
		c->col[k] = -1;
	for (i = 0; i < nf; i++) {
		c->kind[i] = COL_OTHER;
		for (k = 0; k < NALL; k++)
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
	if ((c->col[COL_RUNS] < 0) != (c->col[COL_SE] < 0))
		diag_add(l, 1, "header column '%s' without '%s' (a perf stat -r "
			 "summary has both)", col_names[c->col[COL_RUNS] < 0 ? COL_SE :
			 COL_RUNS], col_names[c->col[COL_RUNS] < 0 ? COL_RUNS : COL_SE]);
	c->nheader = nf;
	return CP_OK;
}

/* Load the complete lines of [p, end) that start before limit (<= end),
 * and the last one even without its newline when final; *rest = the
 * first byte not loaded. */
static int load_lines(struct ctx *c, const char *p, const char *end,
		      const char *limit, int final, uint64_t at, const char **rest)
{
	const char *p0 = p;         /* at offset at */
	const char *nul = memchr(p, '\0', (size_t)(end - p));
	int rc = CP_OK;

	while (p < limit && !c->stop && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol;
		struct row r;

		if (!nl && !final) {
			/* a line still coming: a NUL byte in it is said now (a
			 * device such as /dev/zero never sends its newline) */
			if (nul && c->line < UINT32_MAX - 1) {
				cp_diags_release(&c->l.ds);
				diag_add(&c->l, c->line + 1, "not a text file (NUL byte)");
				c->stop = 1;
			}
			break;
		}
		eol = nl ? nl : end;
		c->row_off = at + (uint64_t)(p - p0);
		if (c->line == UINT32_MAX - 1) {
			diag_add(&c->l, c->line, "more than %u lines", c->line);
			c->stop = 1;
			break;
		}
		c->line++;
		if (nul && nul <= eol) {
			/* a binary file: that alone is said */
			cp_diags_release(&c->l.ds);
			diag_add(&c->l, c->line, "not a text file (NUL byte)");
			c->stop = 1;
			break;
		}
		if (!c->body && eol - p >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
			p += 3;                /* a UTF-8 byte order mark */
		if (eol > p && eol[-1] == '\r')
			eol--;
		if (!c->body) {
			c->body = 1;
			rc = load_header(c, p, eol);
			if (c->l.ds.n)
				c->stop = 1;
		} else {
			if (is_blank_line(p, eol))
				;          /* blank lines carry no row */
			else if (c->only && !only_keeps(c, p, eol))
				;          /* another observation's row */
			else if (row_fast(c, p, eol, &r))
				rc = store_row(c, &r);
			else
				rc = row_slow(c, p, eol);
		}
		p = nl ? nl + 1 : end;
	}
	*rest = p;
	return rc ? rc : c->l.ds.nomem ? CP_ENOMEM : CP_OK;
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

const struct summary_row *stats_summary_row(const struct stats_dataset *d,
					    unsigned line)
{
	size_t lo = 0, hi = d->n_sr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->sr[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n_sr && d->sr[lo].line == line ? &d->sr[lo] : NULL;
}

/* An observation is intervals or one perf stat -r summary: every row of
 * a summary has runs and se_pct, the same runs, and one interval.
 * obs_runs says which each observation is. */
static int check_summaries(struct ctx *c)
{
	struct stats_dataset *d = c->d;
	size_t o, g, j;

	if (!(d->obs_runs = cp_calloc(d->obs.n + 1, sizeof *d->obs_runs)))
		return CP_ENOMEM;
	for (o = 0; o < d->obs.n; o++) {
		unsigned first_sum = 0, first_plain = 0, bad = 0;
		const struct summary_row *ref = NULL;

		for (g = d->obs_g[o]; g < d->obs_g[o + 1]; g++)
			for (j = 0; j < d->g[g].n; j++) {
				unsigned line = d->g[g].line + (unsigned)j;
				const struct summary_row *sr = stats_summary_row(d, line);

				if (sr && (!first_sum || line < first_sum))
					first_sum = line;
				if (!sr && (!first_plain || line < first_plain))
					first_plain = line;
				if (sr && (!ref || sr->line < ref->line))
					ref = sr;
			}
		if (!first_sum)
			continue;
		if (first_plain) {
			unsigned at = first_sum > first_plain ? first_sum : first_plain;

			diag_add(&c->l, at, "a row %s runs,se_pct in observation '%s', "
				 "whose row at line %u has %s: an observation is "
				 "intervals or one perf stat -r summary",
				 at == first_sum ? "with" : "without", d->obs.name[o],
				 at == first_sum ? first_plain : first_sum,
				 at == first_sum ? "none" : "them");
			continue;
		}
		for (g = d->obs_g[o]; g < d->obs_g[o + 1] && !bad; g++) {
			if (d->g[g].interval != d->g[d->obs_g[o]].interval) {
				diag_add(&c->l, d->g[g].line, "observation '%s' is a perf "
					 "stat -r summary (line %u): one interval, not "
					 "intervals %llu and %llu", d->obs.name[o], ref->line,
					 (unsigned long long)d->g[d->obs_g[o]].interval,
					 (unsigned long long)d->g[g].interval);
				bad = 1;
			}
			for (j = 0; j < d->g[g].n && !bad; j++) {
				const struct summary_row *sr =
					stats_summary_row(d, d->g[g].line + (unsigned)j);

				if (sr->runs != ref->runs) {
					diag_add(&c->l, sr->line, "runs %u, where line %u of "
						 "observation '%s' has %u (one perf stat -r "
						 "summary)", sr->runs, ref->line,
						 d->obs.name[o], ref->runs);
					bad = 1;
				}
			}
		}
		if (!bad)
			d->obs_runs[o] = ref->runs;
	}
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
	return d->n_sr ? check_summaries(c) : CP_OK;
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

/* Everything c holds, its dataset too (NULL once handed out). */
static void ctx_release(struct ctx *c)
{
	cp_diags_release(&c->l.ds);
	cp_free(c->f);
	cp_free(c->kind);
	cp_free(c->scratch);
	cp_free(c->next_ev);
	cp_free(c->seen);
	stats_dataset_free(c->d);
	memset(c, 0, sizeof *c);
}

/* The end of loading: the last checks, the report; *out or nothing.
 * rc CP_EIO: err says it already. */
static int ctx_finish(struct ctx *c, int rc, struct stats_dataset **out,
		      struct cp_buf *diag, struct cp_error *err)
{
	if (!rc && !c->stop) {
		if (c->line == 0)
			diag_add(&c->l, 1, "empty file (no header)");
		else if ((rc = index_groups(c)) == CP_OK && !c->l.ds.n && !c->d->n_s)
			diag_add(&c->l, 1, "no data rows");   /* at the header */
	}
	if (!rc && c->l.ds.nomem)
		rc = CP_ENOMEM;
	if (rc == CP_ENOMEM)
		cp_error_set(err, CP_ENOMEM, "out of memory loading '%s'", c->l.name);
	else if (!rc && c->l.ds.n)
		rc = diag_report(&c->l, diag, err);
	if (!rc) {
		*out = c->d;
		c->d = NULL;
	}
	ctx_release(c);
	return rc;
}

/* ==== the text: a file read in blocks, or text in memory ==== */

/* Blocks of the file; a line longer than the buffer doubles it. */
#define LOAD_BLOCK (1u << 20)
/* The bytes read past a range's end, where its last line ends. */
#define LOAD_TAIL 4096
/* The least a thread's range holds: below it a thread costs more than it
 * saves, so files under two of them are read on one thread. */
#define LOAD_MIN_RANGE ((size_t)2 << 20)
/* A range that goes on to the end of the text. */
#define TO_END UINT64_MAX

struct source {
	const char *name;
	int fd;                 /* the file, or -1: text in memory */
	int seq;                /* fd cannot be read at an offset (a pipe) */
	const char *text;
	uint64_t size;          /* the text's length; the file's when opened */
	unsigned skip;          /* lines left out after the header: the first
				 * row's line is skip + 2 (a part of a file) */
	const struct stats_dataset *seed;   /* events known before (or NULL) */
	const char *head;       /* the header line apart from the text (a part
				 * of a file: the text is rows only), or NULL */
	size_t head_len;
	uint64_t from;          /* with head: the offset of the first row (of
				 * the file; the text's is 0), size the end */
	const struct stats_only *only;   /* the observations kept, or NULL */
	int lazy;               /* one long observation may stay in the file
				 * (which outlives the dataset, as it is) */
};

/* Up to n bytes of the file at offset at (its next bytes when seq). */
static ssize_t read_at(const struct source *s, char *buf, size_t n,
		       uint64_t at)
{
	ssize_t got;

	do
		got = s->seq ? read(s->fd, buf, n) :
			pread(s->fd, buf, n, (off_t)at);
	while (got < 0 && errno == EINTR);
	return got;
}

/* load_range on a file: from block to block, as the lines come.  from > 0
 * reads from the byte before it, which says whether a line starts at
 * from or further on. */
static int load_file_range(struct ctx *c, const struct source *s,
			   uint64_t from, uint64_t to, uint64_t *next,
			   struct cp_error *err)
{
	size_t cap = to - from < LOAD_BLOCK - LOAD_TAIL ? (size_t)(to - from) + LOAD_TAIL :
		LOAD_BLOCK, have = 0;
	uint64_t at = from ? from - 1 : 0;     /* the offset of buf[0] */
	/* from a pipe or a device, which may never end, the text read (what
	 * its samples are made of) has a limit */
	uint64_t max = s->seq ? cp_stream_max() : UINT64_MAX;
	int seek = from > 0, rc = CP_OK;
	char *buf = cp_malloc(cap);

	*next = from;
	if (!buf)
		return CP_ENOMEM;
	for (;;) {
		const char *p, *rest;
		ssize_t got;
		size_t n;
		int final, over;

		if (have == cap) {
			char *nb;

			/* one line fills the buffer: from a pipe or a device,
			 * which may never send its newline, that has a limit */
			if (s->seq && cap >= CP_LINE_MAX_STREAM) {
				diag_add(&c->l, c->line + 1, "line longer than %d MB (from a "
					 "pipe or a device: stopped reading)",
					 CP_LINE_MAX_STREAM >> 20);
				c->stop = 1;
				break;
			}
			nb = cp_realloc(buf, cap * 2);

			if (!nb) {
				rc = CP_ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		/* a range's reading ends soon after its end (a piece of a
		 * long observation is a few blocks), its last line whole */
		n = cap - have;
		if (!s->seq && to != TO_END && to > at + have &&
		    to - (at + have) + LOAD_TAIL < n)
			n = (size_t)(to - (at + have)) + LOAD_TAIL;
		/* at most one byte past the limit, which says it is reached */
		got = read_at(s, buf + have, max - at - have < n ?
			      (size_t)(max - at - have + 1) : n, at + have);
		if (got < 0) {
			rc = cp_error_set(err, CP_EIO, "cannot read '%s': %s",
					  s->name, strerror(errno));
			break;
		}
		final = got == 0;
		have += (size_t)got;
		if (final && !s->seq && at + have < (to < s->size ? to : s->size)) {
			/* the file was cut short as it was read */
			rc = cp_error_set(err, CP_EIO, "cannot read '%s': " STATS_SHORTER,
					  s->name);
			break;
		}
		if ((over = at + have > max))
			have--;
		p = buf;
		if (seek) {
			const char *nl = memchr(buf, '\n', have);

			if (!nl && !final) {
				at += have;
				have = 0;
				continue;
			}
			p = nl ? nl + 1 : buf + have;
			seek = 0;
		}
		if (at + (uint64_t)(p - buf) >= to) {
			*next = at + (uint64_t)(p - buf);
			break;                 /* no line starts in the range */
		}
		rc = load_lines(c, p, buf + have,
				to - at < have ? buf + (to - at) : buf + have,
				final, at + (uint64_t)(p - buf), &rest);
		*next = at + (uint64_t)(rest - buf);
		if (over && !rc && !c->stop) {
			char size[32];

			diag_add(&c->l, c->line + 1, "input longer than %s from a pipe "
				 "or a device: stopped reading (write it to a file)",
				 cp_stream_max_text(size));
			c->stop = 1;
		}
		if (rc || final || c->stop || *next >= to)
			break;
		have -= (size_t)(rest - buf);
		at = *next;
		memmove(buf, rest, have);
	}
	cp_free(buf);
	return rc;
}

/* Load the lines that start at offsets in [from, to) of s (to TO_END: to
 * its end), from 0 or a range's start: the first line loaded is the first
 * that starts at or after from.  *next = the offset of the first line not
 * loaded. */
static int load_range(struct ctx *c, const struct source *s, uint64_t from,
		      uint64_t to, uint64_t *next, struct cp_error *err)
{
	const char *p, *end, *rest;
	int rc;

	if (s->fd >= 0)
		return load_file_range(c, s, from, s->head && to > s->size ? s->size : to,
				       next, err);
	p = s->text + from;
	end = s->text + s->size;
	if (from && p[-1] != '\n') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		p = nl ? nl + 1 : end;
	}
	rc = load_lines(c, p, end, to < s->size ? s->text + to : end, 1,
			(uint64_t)(p - s->text), &rest);
	*next = (uint64_t)(rest - s->text);
	return rc;
}

/* ==== on threads: a range of lines each, joined in file order ==== */

/* Append the samples of h (the first group of fragment e, its events
 * already the joined dataset's) to g (the last group of d, whose samples
 * end d's), as store_row would have: one group, and an event in both
 * halves is an event twice within it. */
static int continue_group(struct ctx *c, struct group *g,
			  const struct stats_dataset *e, const struct group *h)
{
	struct stats_dataset *d = c->d;
	unsigned char *in_g = cp_calloc(d->ev.n + 1, 1);
	size_t j;
	int dup = g->dup || h->dup;

	if (!in_g)
		return CP_ENOMEM;
	for (j = 0; j < g->n; j++)
		in_g[S_EV(d, g->start + j)] = 1;
	for (j = 0; j < h->n; j++) {
		uint32_t ev = S_EV(e, h->start + j);

		dup |= in_g[ev];
		if (append_sample(d, ev, S_VALUE(e, h->start + j),
				  S_RUNNING(e, h->start + j))) {
			cp_free(in_g);
			return CP_ENOMEM;
		}
	}
	cp_free(in_g);
	g->n += h->n;
	g->dup = (uint32_t)dup;
	c->dup |= dup;
	return CP_OK;
}

/* Room for n groups in d, growing by half at least (fragments are
 * joined one at a time). */
static int reserve_groups(struct stats_dataset *d, size_t n)
{
	struct group *g;

	if (n <= d->cap_g)
		return CP_OK;
	if (n < d->cap_g + d->cap_g / 2)
		n = d->cap_g + d->cap_g / 2;
	if (!(g = cp_reallocarray(d->g, n, sizeof *g)))
		return CP_ENOMEM;
	d->g = g;
	d->cap_g = n;
	return CP_OK;
}

/* Join fragment f, read from the lines right after c's, to c as if c had
 * read them: f's names interned into c's tables in f's order (so every
 * index is the one a thread alone gives), its samples' chunks appended
 * from a chunk boundary (no sample copied, the indices in between left
 * unused), its groups and messages with their lines moved by c's line
 * count.  What store_row decides from the row before is decided again
 * for f's first row: its group goes on with c's last one (whose second
 * half is then copied) or not, and every group's order against the one
 * before sets `unsorted` as store_row does. */
static int join_fragment(struct ctx *c, struct ctx *f)
{
	struct stats_dataset *d = c->d, *e = f->d;
	uint32_t *obs_map = cp_malloc((e->obs.n + 1) * sizeof *obs_map);
	uint32_t *ev_map = cp_malloc((e->ev.n + 1) * sizeof *ev_map);
	unsigned off = c->line;
	size_t i, base, first = 0;
	int rc = CP_ENOMEM, remap = 0;

	if (!obs_map || !ev_map)
		goto out;
	if (f->stop) {                /* a NUL byte: that alone is said */
		cp_diags_release(&c->l.ds);
		c->stop = 1;
		rc = cp_diags_move(&c->l.ds, &f->l.ds, off);
		goto out;
	}
	if (cp_diags_move(&c->l.ds, &f->l.ds, off))
		goto out;
	if (e->n_sr) {                /* summary rows: lines moved by off */
		if (d->n_sr + e->n_sr > d->cap_sr) {
			struct summary_row *sr = cp_reallocarray(d->sr, d->n_sr + e->n_sr,
								 sizeof *sr);

			if (!sr)
				goto out;
			d->sr = sr;
			d->cap_sr = d->n_sr + e->n_sr;
		}
		for (i = 0; i < e->n_sr; i++) {
			d->sr[d->n_sr] = e->sr[i];
			d->sr[d->n_sr++].line += off;
		}
	}
	for (i = 0; i < e->obs.n; i++) {
		size_t n0 = d->obs.n, j = names_intern(&d->obs, e->obs.name[i], e->obs.len[i]);

		if (j == (size_t)-1 || (d->obs.n > n0 && obs_off_add(d, e->obs_off[i])))
			goto out;
		obs_map[i] = (uint32_t)j;
	}
	for (i = 0; i < e->ev.n; i++) {
		size_t j = names_intern(&d->ev, e->ev.name[i], e->ev.len[i]);

		if (j == (size_t)-1)
			goto out;
		ev_map[i] = (uint32_t)j;
		remap |= j != i;
	}
	for (i = 0; remap && i < e->n_ch; i++) {    /* a chunk at a time */
		uint32_t *ev = e->ch[i]->ev;
		size_t j, n = i + 1 < e->n_ch ? SAMPLE_CHUNK :
			e->n_s - i * SAMPLE_CHUNK;

		for (j = 0; j < n; j++)
			ev[j] = ev_map[ev[j]];
	}
	if (d->n_g && e->n_g) {
		struct group *g = &d->g[d->n_g - 1], *h = &e->g[0];

		if (obs_map[h->obs] == g->obs && h->interval == g->interval &&
		    h->line + off == g->line + g->n && g->start + g->n == d->n_s) {
			if (continue_group(c, g, e, h))
				goto out;
			first = 1;
		}
	}
	base = d->n_ch * SAMPLE_CHUNK;
	if (e->n_g > first) {         /* e's samples not all copied above */
		if (d->n_ch + e->n_ch > d->cap_ch) {
			struct chunk **ch = cp_reallocarray(d->ch, d->n_ch + e->n_ch,
							    sizeof *ch);

			if (!ch)
				goto out;
			d->ch = ch;
			d->cap_ch = d->n_ch + e->n_ch;
		}
		memcpy(d->ch + d->n_ch, e->ch, e->n_ch * sizeof *e->ch);
		d->n_ch += e->n_ch;
		e->n_ch = 0;
		d->n_s = base + e->n_s;
	}
	if (reserve_groups(d, d->n_g + e->n_g))
		goto out;
	for (i = first; i < e->n_g; i++) {
		struct group h = e->g[i], *g = d->n_g ? &d->g[d->n_g - 1] : NULL;

		h.obs = obs_map[h.obs];
		h.start += base;
		h.line += off;
		if (g && (h.obs < g->obs ||
			  (h.obs == g->obs && h.interval <= g->interval)))
			c->unsorted = 1;
		d->g[d->n_g++] = h;
	}
	c->dup |= f->dup;
	c->line += f->line;
	rc = CP_OK;
out:
	cp_free(obs_map);
	cp_free(ev_map);
	return rc;
}

/* Lines a message can name; beyond them load_lines stops. */
#define TOO_MANY_LINES 1

/* One range and the fragment read from it. */
struct range {
	struct ctx c;
	uint64_t from, to;
	int rc, done;
	struct cp_error err;          /* an I/O error */
};

/* The ranges after c's lines, taken in file order by whichever thread is
 * free and joined to c in file order by whichever thread finds the next
 * one read: a thread slowed down (by a busy host) reads fewer ranges
 * instead of holding the others up at the end, and joining overlaps with
 * reading.  Shared fields change under lock only. */
struct ranges {
	const struct source *s;
	struct ctx *c;
	struct range *r;
	size_t n, next, joined;       /* ranges; the next to take; joined */
	int joining;                  /* a thread is joining r[joined] */
	int halt;                     /* take no more: none after is joined */
	int rc;                       /* the first join's error */
	struct cp_error *err;
	pthread_mutex_t lock;
};

/* Join range k to c, or only release it after an error or a stop. */
static int join_range(struct ranges *q, size_t k)
{
	struct range *r = &q->r[k];
	int rc = CP_OK;

	if (q->c->stop)
		;                     /* a NUL byte before it: nothing more */
	else if ((uint64_t)q->c->line + r->c.line >= UINT32_MAX - 1)
		rc = TOO_MANY_LINES;
	else if ((rc = r->rc) == CP_EIO && q->err)
		*q->err = r->err;
	else if (!rc)
		rc = join_fragment(q->c, &r->c);
	ctx_release(&r->c);
	return rc;
}

/* Join every range read in turn, unless another thread is joining;
 * called with the lock held. */
static void join_ready(struct ranges *q)
{
	while (!q->joining && !q->rc && q->joined < q->n && q->r[q->joined].done) {
		size_t k = q->joined;
		int rc;

		q->joining = 1;
		pthread_mutex_unlock(&q->lock);
		rc = join_range(q, k);
		pthread_mutex_lock(&q->lock);
		q->joining = 0;
		q->joined++;
		if (rc) {
			q->rc = rc;
			q->halt = 1;
		}
	}
}

/* A thread's work: take the next range, read it, join what is ready. */
static void *ranges_work(void *arg)
{
	struct ranges *q = arg;

	pthread_mutex_lock(&q->lock);
	while (!q->halt && q->next < q->n) {
		struct range *r = &q->r[q->next++];
		uint64_t end;

		pthread_mutex_unlock(&q->lock);
		r->rc = load_range(&r->c, q->s, r->from, r->to, &end, &r->err);
		pthread_mutex_lock(&q->lock);
		r->done = 1;
		if (r->rc || r->c.stop)
			q->halt = 1;          /* every range before it is taken */
		join_ready(q);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* A fragment's ctx: the header's columns as c read them, and c's events
 * so far under c's indices, so that a fragment's samples need no new
 * event index when joined (unless it meets an event c had not). */
static int ctx_fragment(struct ctx *f, const struct ctx *c, int huge)
{
	const struct names *ev = &c->d->ev;
	size_t i;

	if (ctx_init(f, c->l.name, NULL) ||
	    !(f->f = cp_calloc(c->fcap, sizeof *f->f)) ||
	    !(f->kind = cp_malloc((size_t)c->nheader)))
		return CP_ENOMEM;
	for (i = 0; i < ev->n; i++)
		if (names_intern(&f->d->ev, ev->name[i], ev->len[i]) == (size_t)-1)
			return CP_ENOMEM;
	while (f->d->ev.n > f->ev_cap)
		if (grow_events(f))
			return CP_ENOMEM;
	f->d->huge = huge;
	f->only = c->only;
	f->body = 1;
	f->nheader = c->nheader;
	f->fcap = c->fcap;
	memcpy(f->col, c->col, sizeof f->col);
	memcpy(f->kind, c->kind, (size_t)c->nheader);
	return CP_OK;
}

/* The first bytes after the header, read by c before the other ranges
 * are cut: the events they name seed every fragment. */
#define LOAD_SEED ((uint64_t)64 << 10)
/* A fragment (or text) at least this large keeps its samples in huge
 * pages from its first chunk on. */
#define HUGE_RANGE ((uint64_t)16 << 20)

/* Cut [from, size) into ranges by guided self-scheduling: each a share
 * 1 / (2 threads) of what is left, but never under tail, so that the
 * ranges taken last are short and the threads end together; r NULL:
 * only count them. */
static size_t cut_ranges(struct range *r, uint64_t from, uint64_t size,
			 size_t threads, uint64_t tail)
{
	size_t n = 0;

	while (from < size) {
		uint64_t len = (size - from) / (2 * threads);

		if (len < tail)
			len = tail;
		if (len > size - from)
			len = size - from;
		if (r) {
			r[n].from = from;
			r[n].to = from + len < size ? from + len : TO_END;
		}
		n++;
		from += len;
	}
	return n;
}

/* After the header (c read it, next is where the rows start): c reads the
 * first lines, then `threads` threads (this one too) the ranges after
 * them, each joined to c in file order.  TOO_MANY_LINES: the file has
 * more lines than load_lines reads, which one thread alone says right. */
static int load_ranges(struct ctx *c, const struct source *s, size_t threads,
		       uint64_t next, uint64_t min_range, struct cp_error *err)
{
	struct ranges q;
	uint64_t tail = (s->size - next) / (32 * threads);
	pthread_t *tid;
	size_t k, started = 0;
	int rc;

	if (tail < min_range)       /* min_range > 0: load() divides by it */
		tail = min_range;
	rc = load_range(c, s, next, next + (tail < LOAD_SEED ? tail : LOAD_SEED),
			&next, err);
	if (rc || c->stop)
		return rc;
	memset(&q, 0, sizeof q);
	q.s = s;
	q.c = c;
	q.err = err;
	q.n = cut_ranges(NULL, next, s->size, threads, tail);
	if (!q.n)
		return CP_OK;
	q.r = cp_calloc(q.n, sizeof *q.r);
	tid = cp_calloc(threads, sizeof *tid);
	if (!q.r || !tid) {
		cp_free(q.r);
		cp_free(tid);
		return CP_ENOMEM;
	}
	cut_ranges(q.r, next, s->size, threads, tail);
	for (k = 0; k < q.n && !rc; k++) {
		uint64_t end = q.r[k].to == TO_END ? s->size : q.r[k].to;

		rc = ctx_fragment(&q.r[k].c, c, end - q.r[k].from >= HUGE_RANGE);
	}
	if (!rc && pthread_mutex_init(&q.lock, NULL))
		rc = CP_ENOMEM;
	if (!rc) {
		for (k = 1; k < threads && k < q.n; k++)
			if (!pthread_create(&tid[started], NULL, ranges_work, &q))
				started++;
		ranges_work(&q);
		for (k = 0; k < started; k++)
			pthread_join(tid[k], NULL);
		pthread_mutex_lock(&q.lock);
		join_ready(&q);       /* what the last threads left */
		pthread_mutex_unlock(&q.lock);
		pthread_mutex_destroy(&q.lock);
		rc = q.rc;
	}
	for (k = 0; k < q.n; k++)     /* not joined: after an error or a stop */
		ctx_release(&q.r[k].c);
	cp_free(q.r);
	cp_free(tid);
	return rc;
}

/* c for s: its events those of s's seed first, in the seed's order. */
static int ctx_start(struct ctx *c, const struct source *s, struct cp_error *err)
{
	const struct names *ev = s->seed ? &s->seed->ev : NULL;
	size_t i;
	int rc;

	if ((rc = ctx_init(c, s->name, err)))
		return rc;
	c->only = s->only;
	for (i = 0; ev && i < ev->n; i++)
		if (names_intern(&c->d->ev, ev->name[i], ev->len[i]) == (size_t)-1) {
			ctx_release(c);
			return cp_error_set(err, CP_ENOMEM, "out of memory loading '%s'",
					    s->name);
		}
	while (c->d->ev.n > c->ev_cap)
		if (grow_events(c)) {
			ctx_release(c);
			return cp_error_set(err, CP_ENOMEM, "out of memory loading '%s'",
					    s->name);
		}
	return CP_OK;
}

/* The header line of s: the first line of its text, or s->head (then
 * the rows start at the text's offset 0); *next = their offset. */
static int load_head(struct ctx *c, const struct source *s, uint64_t *next,
		     struct cp_error *err)
{
	const char *rest;

	if (!s->head)
		return load_range(c, s, 0, 1, next, err);
	*next = s->from;
	return load_lines(c, s->head, s->head + s->head_len, s->head + s->head_len,
			  1, 0, &rest);
}

/* Runs [a, b) of s->only, loaded by one thread into a fragment whose
 * lines count from base (the line before run a). */
struct run_part {
	struct ctx f;
	const struct source *s;
	size_t a, b;
	unsigned base;
	int rc;
	struct cp_error err;          /* an I/O error */
};

static void *run_part_work(void *arg)
{
	struct run_part *p = arg;
	const struct stats_only *o = p->s->only;
	uint64_t next;
	size_t i;

	for (i = p->a; !p->rc && !p->f.stop && i < p->b; i++) {
		p->f.line = o->run[i].line - 1 - p->base;
		p->rc = load_range(&p->f, p->s, o->run[i].from, o->run[i].to, &next, &p->err);
	}
	return NULL;
}

/* Load the runs of lines s->only names, each numbered as given: on up to
 * `threads` threads (runs of about equal bytes each, joined in order)
 * when they hold at least two ranges of min_range bytes. */
static int load_runs(const struct source *s, size_t threads, size_t min_range,
		     struct stats_dataset **out, struct cp_buf *diag,
		     struct cp_error *err)
{
	const struct stats_only *o = s->only;
	struct run_part *p;
	pthread_t *tid;
	struct ctx c;
	uint64_t next, all = 0, sum = 0;
	size_t n = threads < 256 ? threads : 256, np = 0, i, started = 0;
	int rc;

	if ((rc = ctx_start(&c, s, err)))
		return rc;
	c.d->huge = s->size - s->from >= HUGE_RANGE;
	if ((rc = load_head(&c, s, &next, err)) || c.stop)
		return ctx_finish(&c, rc, out, diag, err);
	for (i = 0; i < o->n_run; i++)
		all += o->run[i].to - o->run[i].from;
	if (all / min_range < 2 || n < 2 || o->n_run < 2) {
		for (i = 0; !rc && !c.stop && i < o->n_run; i++) {
			c.line = o->run[i].line - 1;
			rc = load_range(&c, s, o->run[i].from, o->run[i].to, &next, err);
		}
		return ctx_finish(&c, rc, out, diag, err);
	}
	if (n > o->n_run)
		n = o->n_run;
	p = cp_calloc(n, sizeof *p);
	tid = cp_calloc(n, sizeof *tid);
	if (!p || !tid) {
		cp_free(p);
		cp_free(tid);
		return ctx_finish(&c, CP_ENOMEM, out, diag, err);
	}
	for (i = 0; i < o->n_run && !rc; np++) {     /* a share of the bytes each */
		p[np].s = s;
		p[np].a = i;
		p[np].base = o->run[i].line - 1;
		do
			sum += o->run[i].to - o->run[i].from;
		while (++i < o->n_run && sum < all / n * (np + 1));
		p[np].b = i;
		rc = ctx_fragment(&p[np].f, &c, c.d->huge);
	}
	for (i = 1; !rc && i < np; i++)
		if (!pthread_create(&tid[started], NULL, run_part_work, &p[i]))
			started++;
		else
			run_part_work(&p[i]);
	if (!rc)
		run_part_work(&p[0]);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < np; i++) {    /* joined in order, up to a stop */
		if (!rc && !c.stop) {
			if ((rc = p[i].rc) == CP_EIO)
				*err = p[i].err;
			else if (!rc) {
				c.line = p[i].base;
				rc = join_fragment(&c, &p[i].f);
			}
		}
		ctx_release(&p[i].f);
	}
	cp_free(p);
	cp_free(tid);
	return ctx_finish(&c, rc, out, diag, err);
}

/* ==== one long observation, kept in its file ==== */

/* Rows of one observation that take at least LAZY_BYTES of a file (about
 * 10^5 intervals of 26 events) are not held: a first reading checks them
 * in pieces of a 1024th of that (64 KB; at 256 KB a check is 4% faster
 * and holds 0.5 MiB more), each loaded as a dataset of its own and
 * dropped once counted (intervals, each event's counted ones); every
 * read of the rates loads the pieces again (stats_lazy_pieces).  Two
 * readings of the text buy holding the rates asked for and one piece
 * instead of 20 bytes a sample, and anything the pieces cannot say as
 * the whole would (a bad row, an interval out of order or split by an
 * event twice, a summary, a second observation) loads it whole. */
#define LAZY_BYTES ((uint64_t)64 << 20)
#define LAZY_EDGE 4096

static void lazy_free(struct lazy *z)
{
	if (!z)
		return;
	if (z->fd >= 0)
		close(z->fd);
	cp_free(z->head);
	cp_free(z->piece);
	cp_free(z->counted);
	cp_free(z);
}

/* The size and modification time of fd. */
static int lazy_stamp(int fd, int64_t *size, int64_t *mtime_ns)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	*size = (int64_t)st.st_size;
	*mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return 0;
}

/* The lines of z's file that start in [from, to), numbered after line,
 * their events seed's first: *next = the offset after them, *last = the
 * last one's number. */
static int lazy_piece(const char *name, const struct lazy *z,
		      const struct stats_dataset *seed, uint64_t from, uint64_t to,
		      unsigned line, struct stats_dataset **out, uint64_t *next,
		      unsigned *last, struct cp_error *err)
{
	struct source s = { name, z->fd, 0, NULL, z->end, 0, seed, z->head,
			    z->head_len, from, NULL, 0 };
	struct ctx c;
	uint64_t at;
	int rc;

	*out = NULL;
	if ((rc = ctx_start(&c, &s, err)))
		return rc;
	if (!(rc = load_head(&c, &s, &at, err)) && !c.stop) {
		c.line = line;
		rc = load_range(&c, &s, from, to, next, err);
		*last = c.line;
	}
	return ctx_finish(&c, rc, out, NULL, err);
}

/* The observation of the first row in [from, to) of s's file (last: of
 * the last row), when LAZY_EDGE bytes show it and it is plain: in buf,
 * *p and *len. */
static int lazy_edge(const struct source *s, uint64_t from, uint64_t to, int last,
		     char *buf, const char **p, size_t *len)
{
	uint64_t at = last && to - from > LAZY_EDGE ? to - LAZY_EDGE : from;
	size_t n = to - at < LAZY_EDGE ? (size_t)(to - at) : LAZY_EDGE;
	ssize_t got = read_at(s, buf, n, at);
	const char *a = buf, *e, *end;
	int r;

	if (got <= 0)
		return 0;
	end = buf + got;
	if (!last) {
		for (; a < end && (e = memchr(a, '\n', (size_t)(end - a))); a = e + 1)
			if ((r = stats_row_observation(a, e, len)))
				return (*p = a, r == 1);
		return 0;
	}
	for (e = end; e > buf && e[-1] == '\n'; e--)
		;
	while (e > buf) {            /* the line [a, e) */
		for (a = e; a > buf && a[-1] != '\n'; a--)
			;
		if (a == buf && at > from)
			return 0;            /* it starts before the bytes read */
		if ((r = stats_row_observation(a, e, len)))
			return (*p = a, r == 1);
		e = a > buf ? a - 1 : a;
	}
	return 0;
}

/* The first reading of the pieces of [from, s->size), whose lines come
 * after line: the lazy dataset, or *out NULL when they are not one
 * observation that pieces read as the whole would. */
static void lazy_pieces_check(const struct source *s, struct lazy *z,
			      uint64_t from, unsigned line, uint64_t piece,
			      struct stats_dataset **out)
{
	struct stats_dataset *p = NULL, *prev = NULL, *d = NULL;
	unsigned char *mark = NULL;
	uint32_t *marked = NULL;
	size_t n_marked = 0, cap = 0, nint = 0, cap_piece = 0, i, j;
	uint64_t cur = 0, next;
	unsigned first_line = 0;
	uint64_t first_off = 0;
	int ok = 1;

	*out = NULL;
	while (ok && from < s->size) {
		struct cp_error e;
		unsigned last;

		cp_error_clear(&e);
		if (lazy_piece(s->name, z, prev ? prev : s->seed, from, from + piece,
			       line, &p, &next, &last, &e) || p->obs.n != 1 || p->n_sr ||
		    (prev && (p->obs.len[0] != prev->obs.len[0] ||
			      memcmp(p->obs.name[0], prev->obs.name[0], p->obs.len[0])))) {
			ok = 0;
			break;
		}
		if (p->ev.n > cap) {
			unsigned char *m = cp_realloc(mark, p->ev.n);
			uint32_t *l = cp_reallocarray(marked, p->ev.n, sizeof *l);
			size_t *c = cp_reallocarray(z->counted, p->ev.n, sizeof *c);

			if (m)
				mark = m;
			if (l)
				marked = l;
			if (c)
				z->counted = c;
			if (!m || !l || !c) {
				ok = 0;
				break;
			}
			memset(mark + cap, 0, p->ev.n - cap);
			memset(z->counted + cap, 0, (p->ev.n - cap) * sizeof *c);
			cap = p->ev.n;
		}
		if (!prev) {
			first_line = p->obs_line[0];
			first_off = p->obs_off[0];
		}
		/* the groups are in interval order: a row goes on across the
		 * pieces' edge only with other events */
		for (i = 0; ok && i < p->n_g; i++) {
			const struct group *g = &p->g[i];

			if (nint && g->interval < cur)
				ok = 0;
			else if (!nint || g->interval > cur) {
				nint++;
				cur = g->interval;
				while (n_marked)
					mark[marked[--n_marked]] = 0;
			}
			for (j = g->start; ok && j < g->start + g->n; j++) {
				uint32_t ev = S_EV(p, j);

				if (mark[ev]) {
					ok = 0;       /* an event twice in one row */
					break;
				}
				mark[ev] = 1;
				marked[n_marked++] = ev;
				z->counted[ev] += S_RUNNING(p, j) > 0;
			}
			if (g->line + g->n - 1 > z->last_line)
				z->last_line = g->line + g->n - 1;
		}
		if (ok && z->n_piece == cap_piece) {
			size_t nc = cap_piece ? 2 * cap_piece : 64;
			struct lazy_piece *q = cp_reallocarray(z->piece, nc, sizeof *q);

			if (!q)
				ok = 0;
			else {
				z->piece = q;
				cap_piece = nc;
			}
		}
		if (ok) {
			z->piece[z->n_piece].from = from;
			z->piece[z->n_piece].to = from + piece;
			z->piece[z->n_piece++].line = line;
		}
		stats_dataset_free(prev);
		prev = p;
		p = NULL;
		from = next;
		line = last;
	}
	stats_dataset_free(p);
	cp_free(mark);
	cp_free(marked);
	if (ok && prev && (d = cp_calloc(1, sizeof *d)) &&
	    (d->path = cp_strdup(s->name)) &&
	    names_intern(&d->obs, prev->obs.name[0], prev->obs.len[0]) == 0 &&
	    !obs_off_add(d, first_off) &&
	    (d->obs_g = cp_calloc(2, sizeof *d->obs_g)) &&
	    (d->obs_nint = cp_calloc(2, sizeof *d->obs_nint)) &&
	    (d->obs_line = cp_calloc(2, sizeof *d->obs_line))) {
		for (i = 0; i < prev->ev.n; i++)
			if (names_intern(&d->ev, prev->ev.name[i], prev->ev.len[i]) != i)
				break;
		if (i == prev->ev.n) {
			d->obs_nint[0] = nint;
			d->obs_line[0] = first_line;
			d->lazy = z;
			*out = d;
			d = NULL;
		}
	}
	stats_dataset_free(prev);
	stats_dataset_free(d);
}

/* s as a lazy dataset (*out), or *out NULL: not a file, or not rows of
 * one observation taking LAZY_BYTES (COUNTERPOINT_LAZY_BYTES, for the
 * tests), or rows the pieces cannot read as the whole. */
static int lazy_try(const struct source *s, struct stats_dataset **out,
		    struct cp_error *err)
{
	const char *env = getenv("COUNTERPOINT_LAZY_BYTES");
	uint64_t min = env ? strtoull(env, NULL, 10) : LAZY_BYTES, rows;
	char a[LAZY_EDGE], b[LAZY_EDGE];
	const char *pa, *pb;
	size_t na, nb;
	struct lazy *z = NULL;
	struct ctx c;
	unsigned line;
	int rc;

	*out = NULL;
	/* the header apart, the rows are no more than the bytes after from */
	if (!s->lazy || s->fd < 0 || s->seq || s->only || !min ||
	    s->size - (s->head ? s->from : 0) < min)
		return CP_OK;
	if ((rc = ctx_start(&c, s, err)))
		return rc;
	rc = load_head(&c, s, &rows, err);
	line = c.line + s->skip;
	if (rc || c.stop || c.l.ds.n || c.col[COL_OBS] != 0 || rows > s->size ||
	    s->size - rows < (min > 1 ? min : 1) ||
	    !lazy_edge(s, rows, s->size, 0, a, &pa, &na) ||
	    !lazy_edge(s, rows, s->size, 1, b, &pb, &nb) ||
	    na != nb || memcmp(pa, pb, na) || !(z = cp_calloc(1, sizeof *z))) {
		ctx_release(&c);
		return rc == CP_EIO ? CP_OK : rc;
	}
	ctx_release(&c);
	z->end = s->size;
	z->head_len = s->head ? s->head_len : (size_t)rows;
	if ((z->fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 0)) < 0 ||
	    lazy_stamp(z->fd, &z->size, &z->mtime_ns) ||
	    !(z->head = cp_malloc(z->head_len + 1)) ||
	    (s->head ? (memcpy(z->head, s->head, z->head_len), 0) :
	     read_at(s, z->head, z->head_len, 0) != (ssize_t)z->head_len) ||
	    z->head_len < 12 || memcmp(z->head, "observation,", 12)) {
		lazy_free(z);
		return CP_OK;
	}
	lazy_pieces_check(s, z, rows, line, min / 1024 > 256 ? min / 1024 : 256, out);
	if (!*out)
		lazy_free(z);
	return CP_OK;
}

int stats_lazy_pieces(const struct stats_dataset *d,
		      int (*fn)(void *arg, const struct stats_dataset *piece,
				size_t row),
		      void *arg, struct cp_error *err)
{
	const struct lazy *z = d->lazy;
	size_t i, row = 0, nint = d->obs_nint[0];
	uint64_t cur = 0, next;
	int64_t size, mtime_ns;
	int rc = CP_OK;

	/* read again: the same text, or an error */
	if (lazy_stamp(z->fd, &size, &mtime_ns) || size != z->size ||
	    mtime_ns != z->mtime_ns)
		return cp_error_set(err, CP_EIO, "cannot read '%s': it changed after "
				    "it was first read", d->path);
	for (i = 0; !rc && i < z->n_piece; i++) {
		const struct lazy_piece *q = &z->piece[i];
		struct stats_dataset *p;
		size_t first;
		unsigned last;

		if ((rc = lazy_piece(d->path, z, d, q->from, q->to, q->line, &p, &next,
				     &last, err)))
			break;
		first = i && p->n_g && p->g[0].interval == cur ? row : i ? row + 1 : 0;
		if (p->obs.n != 1 || p->ev.n != d->ev.n || !p->n_g ||
		    first + p->obs_nint[0] > nint ||
		    (i + 1 < z->n_piece && next != z->piece[i + 1].from))
			rc = cp_error_set(err, CP_EIO, "cannot read '%s': it changed after "
					  "it was first read", d->path);
		else
			rc = fn(arg, p, first);
		row = first + (p->obs_nint ? p->obs_nint[0] : 1) - 1;
		cur = p->n_g ? p->g[p->n_g - 1].interval : 0;
		stats_dataset_free(p);
	}
	return rc;
}

/* Load s on up to `threads` threads, each range at least min_range bytes. */
static int load(const struct source *s, size_t threads, size_t min_range,
		struct stats_dataset **out, struct cp_buf *diag,
		struct cp_error *err)
{
	struct ctx c;
	uint64_t next;
	size_t n = threads < 256 ? threads : 256;
	int rc;

	*out = NULL;
	if (s->only && s->only->n_run && s->head)
		return load_runs(s, threads, min_range, out, diag, err);
	if ((rc = lazy_try(s, out, err)) || *out)
		return rc;
	if ((rc = ctx_start(&c, s, err)))
		return rc;
	c.d->huge = s->size - s->from >= HUGE_RANGE;   /* as a fragment that large */
	if (!s->head && (s->seq || (!s->skip && (s->size / min_range < 2 || n < 2)))) {
		rc = load_range(&c, s, 0, TO_END, &next, err);
		return ctx_finish(&c, rc, out, diag, err);
	}
	/* the header first: every range's rows need its columns (and the
	 * rows of a part their lines' numbers) */
	if ((rc = load_head(&c, s, &next, err)) || c.stop)
		return ctx_finish(&c, rc, out, diag, err);
	if (c.line)
		c.line += s->skip;
	if ((s->size - s->from) / min_range < 2 || n < 2) {
		rc = load_range(&c, s, next, TO_END, &next, err);
		return ctx_finish(&c, rc, out, diag, err);
	}
	if (s->size < next || (s->size - next) / min_range < n)
		n = s->size < next ? 1 : (size_t)((s->size - next) / min_range);
	rc = n < 2 ? load_range(&c, s, next, TO_END, &next, err) :
		load_ranges(&c, s, n, next, min_range, err);
	if (rc == TOO_MANY_LINES) {
		ctx_release(&c);
		if ((rc = ctx_start(&c, s, err)))
			return rc;
		if (!(rc = load_head(&c, s, &next, err)) && !c.stop) {
			if (c.line)
				c.line += s->skip;
			rc = load_range(&c, s, next, TO_END, &next, err);
		}
	}
	return ctx_finish(&c, rc, out, diag, err);
}

int stats_dataset_parse(const char *name, const char *text, size_t len,
			struct stats_dataset **out, struct cp_buf *diag,
			struct cp_error *err)
{
	struct source s = { name, -1, 0, text ? text : "", len, 0, NULL, NULL, 0, 0, NULL, 0 };

	return load(&s, 1, LOAD_MIN_RANGE, out, diag, err);
}

int stats_dataset_read_part(const char *name, const char *head, size_t head_len,
			    int fd, const char *text, uint64_t from, uint64_t to,
			    size_t threads, unsigned skip,
			    const struct stats_dataset *seed,
			    const struct stats_only *only,
			    struct stats_dataset **out, struct cp_buf *diag,
			    struct cp_error *err)
{
	struct source s = { name, fd, 0, text, to, skip, seed, head, head_len, from,
			    only, fd >= 0 };

	if (threads == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		threads = cpus > 0 ? (size_t)cpus : 1;
	}
	return load(&s, threads, LOAD_MIN_RANGE, out, diag, err);
}

int stats_dataset_read(const char *name, const char *text, size_t len,
		       size_t threads, size_t min_range,
		       struct stats_dataset **out, struct cp_buf *diag,
		       struct cp_error *err)
{
	struct source s = { name, -1, 0, text, len, 0, NULL, NULL, 0, 0, NULL, 0 };
	struct stat st;
	int rc;

	*out = NULL;
	if (threads == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		threads = cpus > 0 ? (size_t)cpus : 1;
	}
	if (min_range == 0)
		min_range = LOAD_MIN_RANGE;
	if (text)
		return load(&s, threads, min_range, out, diag, err);
	if ((s.fd = open(name, O_RDONLY | O_CLOEXEC)) < 0)
		return cp_error_set(err, CP_EIO, "cannot read '%s': %s", name,
				    strerror(errno));
	if (!fstat(s.fd, &st) && S_ISREG(st.st_mode))
		s.size = (uint64_t)st.st_size;
	else
		s.seq = 1;
	s.lazy = 1;
	rc = load(&s, threads, min_range, out, diag, err);
	close(s.fd);
	return rc;
}

int stats_dataset_load_threads(const char *path, size_t threads,
			       struct stats_dataset **out, struct cp_buf *diag,
			       struct cp_error *err)
{
	return stats_dataset_read(path, NULL, 0, threads, 0, out, diag, err);
}

int stats_dataset_load_diag(const char *path, struct stats_dataset **out,
			    struct cp_buf *diag, struct cp_error *err)
{
	return stats_dataset_load_threads(path, 1, out, diag, err);
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
	lazy_free(d->lazy);
	names_release(&d->obs);
	names_release(&d->ev);
	for (i = 0; i < d->n_ch; i++)
		chunk_free(d->ch[i]);
	cp_free(d->ch);
	cp_free(d->g);
	cp_free(d->obs_g);
	cp_free(d->obs_nint);
	cp_free(d->obs_line);
	cp_free(d->obs_off);
	cp_free(d->sr);
	cp_free(d->obs_runs);
	cp_free(d->path);
	cp_free(d);
}

