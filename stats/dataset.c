/* stats/dataset.c: the long CSV dataset (observation, interval, event,
 * value, enabled_ns, running_ns): strict loading, where every bad row is
 * reported as "file:line: message", and per-interval rates. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/region.h"

/* One row of the dataset.  line is kept for messages found after the
 * rows are sorted (duplicates). */
struct sample {
	uint32_t obs, ev;
	uint64_t interval;
	double value;
	uint64_t enabled, running;
	unsigned line;
};

/* Names interned in order of first appearance, found through an
 * open-addressing hash table (slots hold index + 1, 0 = empty). */
struct names {
	char **name;
	size_t n, cap;
	size_t *slot;
	size_t nslots;
};

struct stats_dataset {
	char *path;
	struct names obs, ev;
	struct sample *s;        /* sorted by (obs, interval, ev) */
	size_t n_s;
	size_t *obs_start;       /* n_obs + 1 offsets into s */
	size_t *obs_nint;        /* distinct intervals per observation */
};

/* ==== names ==== */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;      /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static void names_release(struct names *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		cp_free(t->name[i]);
	cp_free(t->name);
	cp_free(t->slot);
	memset(t, 0, sizeof *t);
}

static size_t names_find(const struct names *t, const char *s)
{
	size_t i;

	if (!t->nslots)
		return (size_t)-1;
	for (i = hash_str(s) & (t->nslots - 1); t->slot[i];
	     i = (i + 1) & (t->nslots - 1))
		if (!strcmp(t->name[t->slot[i] - 1], s))
			return t->slot[i] - 1;
	return (size_t)-1;
}

static int names_rehash(struct names *t, size_t nslots)
{
	size_t *slot = cp_calloc(nslots, sizeof *slot), i, j;

	if (!slot)
		return CP_ENOMEM;
	for (i = 0; i < t->n; i++) {
		for (j = hash_str(t->name[i]) & (nslots - 1); slot[j];
		     j = (j + 1) & (nslots - 1))
			;
		slot[j] = i + 1;
	}
	cp_free(t->slot);
	t->slot = slot;
	t->nslots = nslots;
	return CP_OK;
}

/* Index of s, adding it if new; (size_t)-1 when out of memory. */
static size_t names_intern(struct names *t, const char *s)
{
	size_t i = names_find(t, s), j;

	if (i != (size_t)-1)
		return i;
	if (2 * (t->n + 1) > t->nslots &&
	    names_rehash(t, t->nslots ? 2 * t->nslots : 16))
		return (size_t)-1;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		char **name = cp_reallocarray(t->name, cap, sizeof *name);

		if (!name)
			return (size_t)-1;
		t->name = name;
		t->cap = cap;
	}
	if (!(t->name[t->n] = cp_strdup(s)))
		return (size_t)-1;
	for (j = hash_str(s) & (t->nslots - 1); t->slot[j];
	     j = (j + 1) & (t->nslots - 1))
		;
	t->slot[j] = ++t->n;
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
}

/* ==== CSV fields ==== */

enum { COL_OBS, COL_INTERVAL, COL_EVENT, COL_VALUE, COL_ENABLED,
       COL_RUNNING, NCOLS };
static const char *const col_names[NCOLS] = {
	"observation", "interval", "event", "value", "enabled_ns", "running_ns"
};

/* Split one line (without its newline) into fields, in place: fields are
 * separated by commas; a field may be double-quoted, with "" for a quote;
 * spaces around unquoted fields are trimmed.  Returns the number of fields
 * (at most max are stored), or -1 for an unterminated quote. */
static long split_fields(char *p, char *end, char **field, size_t max)
{
	size_t n = 0;

	for (;;) {
		char *out, *start;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && *p == '"') {
			start = out = ++p;
			for (;;) {
				if (p >= end)
					return -1;
				if (*p == '"') {
					if (p + 1 < end && p[1] == '"') {
						*out++ = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				*out++ = *p++;
			}
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (p < end && *p != ',')
				return -1;
		} else {
			start = p;
			while (p < end && *p != ',')
				p++;
			out = p;
			while (out > start && (out[-1] == ' ' || out[-1] == '\t'))
				out--;
		}
		if (n < max)
			field[n] = start;
		n++;
		if (p >= end) {
			*out = '\0';
			break;
		}
		*out = '\0';      /* p points at the comma (or past it) */
		p++;
	}
	return (long)n;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!(*s >= '0' && *s <= '9'))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* ==== loading ==== */

static int sample_cmp(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->obs != y->obs)
		return x->obs < y->obs ? -1 : 1;
	if (x->interval != y->interval)
		return x->interval < y->interval ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Check and store one data row; problems become diagnostics. */
static int load_row(struct stats_dataset *d, struct loader *l, unsigned line,
		    char **f, size_t *cap)
{
	struct sample s;
	char *end;
	size_t o, e;

	memset(&s, 0, sizeof s);
	s.line = line;
	if (!f[COL_OBS][0]) {
		diag_add(l, line, "empty observation name");
		return CP_OK;
	}
	if (parse_u64(f[COL_INTERVAL], &s.interval)) {
		diag_add(l, line, "interval '%s' is not a non-negative integer",
			 f[COL_INTERVAL]);
		return CP_OK;
	}
	if (!f[COL_EVENT][0]) {
		diag_add(l, line, "empty event name");
		return CP_OK;
	}
	errno = 0;
	s.value = strtod(f[COL_VALUE], &end);
	if (!f[COL_VALUE][0] || *end || errno == ERANGE || !isfinite(s.value)) {
		diag_add(l, line, "value '%s' is not a number", f[COL_VALUE]);
		return CP_OK;
	}
	if (s.value < 0) {
		diag_add(l, line, "negative count (%s)", f[COL_VALUE]);
		return CP_OK;
	}
	if (parse_u64(f[COL_ENABLED], &s.enabled)) {
		diag_add(l, line, "enabled_ns '%s' is not a non-negative integer",
			 f[COL_ENABLED]);
		return CP_OK;
	}
	if (parse_u64(f[COL_RUNNING], &s.running)) {
		diag_add(l, line, "running_ns '%s' is not a non-negative integer",
			 f[COL_RUNNING]);
		return CP_OK;
	}
	if (s.running > s.enabled) {
		diag_add(l, line, "running_ns (%llu) exceeds enabled_ns (%llu)",
			 (unsigned long long)s.running,
			 (unsigned long long)s.enabled);
		return CP_OK;
	}
	if (s.running == 0 && s.value != 0) {
		diag_add(l, line, "value %s with running_ns = 0 (an event that "
			 "was not counted has no value)", f[COL_VALUE]);
		return CP_OK;
	}
	o = names_intern(&d->obs, f[COL_OBS]);
	e = names_intern(&d->ev, f[COL_EVENT]);
	if (o == (size_t)-1 || e == (size_t)-1)
		return CP_ENOMEM;
	if (o > UINT32_MAX || e > UINT32_MAX) {
		diag_add(l, line, "too many observations or events");
		return CP_OK;
	}
	s.obs = (uint32_t)o;
	s.ev = (uint32_t)e;
	if (d->n_s == *cap) {
		size_t ncap = *cap ? 2 * *cap : 256;
		struct sample *ns = cp_reallocarray(d->s, ncap, sizeof *ns);

		if (!ns)
			return CP_ENOMEM;
		d->s = ns;
		*cap = ncap;
	}
	d->s[d->n_s++] = s;
	return CP_OK;
}

/* Index the header's columns; a missing one is a diagnostic. */
static void load_header(struct loader *l, char **f, long nf, long *col)
{
	long i, c;

	for (c = 0; c < NCOLS; c++)
		col[c] = -1;
	for (i = 0; i < nf; i++)
		for (c = 0; c < NCOLS; c++)
			if (!strcmp(f[i], col_names[c])) {
				if (col[c] >= 0)
					diag_add(l, 1, "duplicate header column '%s'",
						 col_names[c]);
				else
					col[c] = i;
			}
	for (c = 0; c < NCOLS; c++)
		if (col[c] < 0)
			diag_add(l, 1, "missing header column '%s'", col_names[c]);
}

/* After sorting: duplicates become diagnostics; per-observation offsets
 * and interval counts are indexed. */
static int index_samples(struct stats_dataset *d, struct loader *l)
{
	size_t i, o;

	if (d->n_s)
		qsort(d->s, d->n_s, sizeof *d->s, sample_cmp);
	for (i = 1; i < d->n_s; i++) {
		const struct sample *a = &d->s[i - 1], *b = &d->s[i];

		if (a->obs == b->obs && a->interval == b->interval &&
		    a->ev == b->ev) {
			size_t j = i - 1;

			/* name the first row of the run of equal keys */
			while (j > 0 && d->s[j - 1].obs == b->obs &&
			       d->s[j - 1].interval == b->interval &&
			       d->s[j - 1].ev == b->ev)
				j--;
			diag_add(l, b->line, "duplicate row for observation '%s', "
				 "interval %llu, event '%s' (first at line %u)",
				 d->obs.name[b->obs],
				 (unsigned long long)b->interval,
				 d->ev.name[b->ev], d->s[j].line);
		}
	}
	d->obs_start = cp_calloc(d->obs.n + 1, sizeof *d->obs_start);
	d->obs_nint = cp_calloc(d->obs.n + 1, sizeof *d->obs_nint);
	if (!d->obs_start || !d->obs_nint)
		return CP_ENOMEM;
	for (i = 0; i < d->n_s; i++) {
		d->obs_start[d->s[i].obs + 1]++;
		if (i == 0 || d->s[i - 1].obs != d->s[i].obs ||
		    d->s[i - 1].interval != d->s[i].interval)
			d->obs_nint[d->s[i].obs]++;
	}
	for (o = 0; o < d->obs.n; o++)
		d->obs_start[o + 1] += d->obs_start[o];
	return CP_OK;
}

int stats_dataset_parse(const char *name, const char *text, size_t len,
			struct stats_dataset **out, struct cp_buf *diag,
			struct cp_error *err)
{
	struct stats_dataset *d = NULL;
	struct loader l;
	char *buf = NULL, *p, *end, **f = NULL;
	long col[NCOLS], nf, nheader = 0, c;
	size_t cap = 0, fcap = 0;
	unsigned line = 0;
	int rc = CP_OK;

	*out = NULL;
	memset(&l, 0, sizeof l);
	l.name = name;
	d = cp_calloc(1, sizeof *d);
	buf = cp_malloc(len + 1);
	if (!d || !buf || !(d->path = cp_strdup(name))) {
		rc = CP_ENOMEM;
		goto out;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		diag_add(&l, 1, "not a text file (NUL byte)");
		goto out;
	}
	for (p = buf; p < buf + len; p = end + 1) {
		char *eol;

		end = memchr(p, '\n', (size_t)(buf + len - p));
		if (!end)
			end = buf + len;
		line++;
		eol = end;
		if (eol > p && eol[-1] == '\r')
			eol--;
		if (line > 1 && strspn(p, " \t\r") >= (size_t)(eol - p))
			continue;          /* blank lines carry no row */
		/* fields: count first, then grow the array and split */
		nf = split_fields(p, eol, f, fcap);
		if (nf > (long)fcap) {
			char **nfld;

			fcap = (size_t)nf;
			nfld = cp_reallocarray(f, fcap, sizeof *f);
			if (!nfld) {
				rc = CP_ENOMEM;
				goto out;
			}
			f = nfld;
			/* the first split wrote NULs into the line: restore
			 * it from the caller's text and split again */
			memcpy(p, text + (p - buf), (size_t)(eol - p));
			nf = split_fields(p, eol, f, fcap);
		}
		if (nf < 0) {
			diag_add(&l, line, "unterminated quoted field");
			if (line == 1)
				goto out;
			continue;
		}
		if (line == 1) {
			load_header(&l, f, nf, col);
			if (l.n)
				goto out;
			nheader = nf;
			continue;
		}
		if (nf != nheader) {
			diag_add(&l, line, "expected %ld fields, found %ld",
				 nheader, nf);
			continue;
		}
		{
			char *row[NCOLS];

			for (c = 0; c < NCOLS; c++)
				row[c] = f[col[c]];
			if ((rc = load_row(d, &l, line, row, &cap)))
				goto out;
		}
	}
	if (line == 0) {
		diag_add(&l, 1, "empty file (no header)");
		goto out;
	}
	if ((rc = index_samples(d, &l)))
		goto out;
	if (!l.n && d->n_s == 0)
		diag_add(&l, line, "no data rows");
out:
	if (!rc && l.nomem)
		rc = CP_ENOMEM;
	if (rc == CP_ENOMEM)
		cp_error_set(err, CP_ENOMEM, "out of memory loading '%s'", name);
	else if (!rc && l.n)
		rc = diag_report(&l, diag, err);
	loader_release(&l);
	cp_free(f);
	cp_free(buf);
	if (rc) {
		stats_dataset_free(d);
		return rc;
	}
	*out = d;
	return CP_OK;
}

int stats_dataset_load_diag(const char *path, struct stats_dataset **out,
			    struct cp_buf *diag, struct cp_error *err)
{
	FILE *fp;
	char *text = NULL;
	size_t len = 0, cap = 0, got;
	int rc;

	*out = NULL;
	fp = fopen(path, "rb");
	if (!fp)
		return cp_error_set(err, CP_EIO, "cannot read '%s': %s", path,
				    strerror(errno));
	do {
		if (cap - len < 65536) {
			char *nt;

			cap = cap ? 2 * cap : 65536;
			nt = cp_realloc(text, cap);
			if (!nt) {
				cp_free(text);
				fclose(fp);
				return cp_error_set(err, CP_ENOMEM,
						    "out of memory reading '%s'",
						    path);
			}
			text = nt;
		}
		got = fread(text + len, 1, cap - len, fp);
		len += got;
	} while (got > 0);
	if (ferror(fp)) {
		rc = cp_error_set(err, CP_EIO, "cannot read '%s': %s", path,
				  strerror(errno));
		cp_free(text);
		fclose(fp);
		return rc;
	}
	fclose(fp);
	rc = stats_dataset_parse(path, text, len, out, diag, err);
	cp_free(text);
	return rc;
}

int stats_dataset_load(const char *path, struct stats_dataset **out,
		       struct cp_error *err)
{
	return stats_dataset_load_diag(path, out, NULL, err);
}

void stats_dataset_free(struct stats_dataset *d)
{
	if (!d)
		return;
	names_release(&d->obs);
	names_release(&d->ev);
	cp_free(d->s);
	cp_free(d->obs_start);
	cp_free(d->obs_nint);
	cp_free(d->path);
	cp_free(d);
}

/* ==== accessors ==== */

size_t stats_dataset_n_observations(const struct stats_dataset *d)
{
	return d->obs.n;
}

const char *stats_dataset_observation(const struct stats_dataset *d, size_t i)
{
	return i < d->obs.n ? d->obs.name[i] : NULL;
}

size_t stats_dataset_find_observation(const struct stats_dataset *d,
				      const char *name)
{
	return names_find(&d->obs, name);
}

size_t stats_dataset_n_events(const struct stats_dataset *d)
{
	return d->ev.n;
}

const char *stats_dataset_event(const struct stats_dataset *d, size_t e)
{
	return e < d->ev.n ? d->ev.name[e] : NULL;
}

size_t stats_dataset_n_intervals(const struct stats_dataset *d, size_t obs)
{
	return obs < d->obs.n ? d->obs_nint[obs] : 0;
}

size_t stats_dataset_n_counted(const struct stats_dataset *d, size_t obs,
			       size_t e)
{
	size_t i, n = 0;

	if (obs >= d->obs.n)
		return 0;
	for (i = d->obs_start[obs]; i < d->obs_start[obs + 1]; i++)
		if (d->s[i].ev == e && d->s[i].running > 0)
			n++;
	return n;
}

/* ==== rates ==== */

/* Event ids of the k names; error naming the first one the dataset lacks
 * or that observation obs never counted. */
static int resolve_events(const struct stats_dataset *d, size_t obs,
			  const char *const *events, size_t k, size_t *id,
			  struct cp_error *err)
{
	size_t c;

	if (obs >= d->obs.n)
		return cp_error_set(err, CP_EINPUT, "%s: no observation #%zu",
				    d->path, obs);
	for (c = 0; c < k; c++) {
		id[c] = names_find(&d->ev, events[c]);
		if (id[c] == (size_t)-1)
			return cp_error_set(err, CP_EINPUT,
					    "%s: dataset has no event '%s'",
					    d->path, events[c]);
		if (!stats_dataset_n_counted(d, obs, id[c]))
			return cp_error_set(err, CP_EINPUT,
					    "%s: event '%s' was never counted "
					    "in observation '%s'", d->path,
					    events[c], d->obs.name[obs]);
	}
	return CP_OK;
}

/* The rate of one sample: the scaled count value*enabled/running divided
 * by the enabled time in seconds, which is value * 1e9 / running. */
static double sample_rate(const struct sample *s)
{
	return s->value * 1e9 / (double)s->running;
}

int stats_observation_rates(const struct stats_dataset *d, size_t obs,
			    const char *const *events, size_t k,
			    double **rates, size_t *n, struct cp_error *err)
{
	size_t *id = NULL, i, c, row, nint;
	double *r = NULL;
	int rc;

	*rates = NULL;
	*n = 0;
	if (!(id = cp_calloc(k ? k : 1, sizeof *id)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if ((rc = resolve_events(d, obs, events, k, id, err)))
		goto out;
	nint = d->obs_nint[obs];
	if (!(r = cp_malloc((nint * k + 1) * sizeof *r))) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nint * k; i++)
		r[i] = NAN;
	row = 0;
	for (i = d->obs_start[obs]; i < d->obs_start[obs + 1]; i++) {
		const struct sample *s = &d->s[i];

		if (i > d->obs_start[obs] && s->interval != s[-1].interval)
			row++;
		if (!s->running)
			continue;
		for (c = 0; c < k; c++)
			if (id[c] == s->ev)
				r[row * k + c] = sample_rate(s);
	}
	*rates = r;
	*n = nint;
	r = NULL;
out:
	cp_free(r);
	cp_free(id);
	return rc;
}

/* One count in an interval is a rate step of 1e9/running per second; the
 * root mean square over the counted intervals summarises it. */
int stats_observation_resolution(const struct stats_dataset *d, size_t obs,
				 const char *const *events, size_t k,
				 double *res, struct cp_error *err)
{
	size_t *id, i, c, *cnt;
	int rc;

	id = cp_calloc(k ? k : 1, sizeof *id);
	cnt = cp_calloc(k ? k : 1, sizeof *cnt);
	if (!id || !cnt) {
		cp_free(id);
		cp_free(cnt);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	if ((rc = resolve_events(d, obs, events, k, id, err)))
		goto out;
	for (c = 0; c < k; c++)
		res[c] = 0;
	for (i = d->obs_start[obs]; i < d->obs_start[obs + 1]; i++) {
		const struct sample *s = &d->s[i];

		if (!s->running)
			continue;
		for (c = 0; c < k; c++)
			if (id[c] == s->ev) {
				double step = 1e9 / (double)s->running;

				res[c] += step * step;
				cnt[c]++;
			}
	}
	for (c = 0; c < k; c++)
		res[c] = sqrt(res[c] / (double)cnt[c]);
out:
	cp_free(id);
	cp_free(cnt);
	return rc;
}
