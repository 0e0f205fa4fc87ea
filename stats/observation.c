/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/observation.c: what a loaded dataset answers: its observations,
 * events and intervals, and one observation's per-interval rates and
 * counting resolution over a list of events. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats_int.h"
#include "stats/dataset_int.h"

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
	size_t len = strlen(name);

	return stats_names_find(&d->obs, name, len, cp_hash(CP_HASH_SEED, name, len));
}

size_t stats_dataset_find_event(const struct stats_dataset *d, const char *name)
{
	size_t len = strlen(name);

	return stats_names_find(&d->ev, name, len, cp_hash(CP_HASH_SEED, name, len));
}

size_t stats_dataset_n_events(const struct stats_dataset *d)
{
	return d->ev.n;
}

const char *stats_dataset_event(const struct stats_dataset *d, size_t e)
{
	return e < d->ev.n ? d->ev.name[e] : NULL;
}

const char *stats_dataset_closest_event(const struct stats_dataset *d,
					const char *name)
{
	return cp_closest(name, (const char *const *)d->ev.name, d->ev.n);
}

const char *stats_dataset_path(const struct stats_dataset *d)
{
	return d->path;
}

unsigned stats_dataset_observation_line(const struct stats_dataset *d, size_t obs)
{
	return obs < d->obs.n ? d->obs_line[obs] : 0;
}

int stats_observation_error(const struct stats_dataset *d, size_t obs, int code,
			    struct cp_error *err, const char *fmt, ...)
{
	char why[CP_ERROR_MAX];
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (obs >= d->obs.n)
		return cp_error_at(err, code, d->path, 0, 0, "%s", why);
	return cp_error_at(err, code, d->path, d->obs_line[obs], 0,
			   "observation '%s': %s", d->obs.name[obs], why);
}

size_t stats_dataset_n_intervals(const struct stats_dataset *d, size_t obs)
{
	return obs < d->obs.n ? d->obs_nint[obs] : 0;
}

size_t stats_dataset_n_counted(const struct stats_dataset *d, size_t obs,
			       size_t e)
{
	size_t g, j, n = 0;

	if (obs >= d->obs.n)
		return 0;
	if (d->lazy)
		return e < d->ev.n ? d->lazy->counted[e] : 0;
	for (g = d->obs_g[obs]; g < d->obs_g[obs + 1]; g++)
		for (j = d->g[g].start; j < d->g[g].start + d->g[g].n; j++)
			if (S_EV(d, j) == e && S_RUNNING(d, j) > 0)
				n++;
	return n && stats_dataset_runs(d, obs) ? stats_dataset_runs(d, obs) : n;
}

unsigned stats_dataset_runs(const struct stats_dataset *d, size_t obs)
{
	return d->obs_runs && obs < d->obs.n ? d->obs_runs[obs] : 0;
}

void stats_dataset_counted(const struct stats_dataset *d, size_t obs,
			   size_t *counts)
{
	unsigned runs = stats_dataset_runs(d, obs);
	size_t g, j;

	memset(counts, 0, d->ev.n * sizeof *counts);
	if (obs >= d->obs.n)
		return;
	if (d->lazy) {
		memcpy(counts, d->lazy->counted, d->ev.n * sizeof *counts);
		return;
	}
	for (g = d->obs_g[obs]; g < d->obs_g[obs + 1]; g++)
		for (j = d->g[g].start; j < d->g[g].start + d->g[g].n; j++)
			if (S_RUNNING(d, j) > 0)
				counts[S_EV(d, j)]++;
	/* a summary of runs: as stats_dataset_n_counted says */
	for (j = 0; runs && j < d->ev.n; j++)
		if (counts[j])
			counts[j] = runs;
}

/* ==== rates ==== */

/* The k events of a query as columns: each sample's event is looked up
 * once in a small open-addressing table (event id -> first column with
 * it), so a pass over an observation's samples is linear in them, not k
 * times them.  first[c] is the first column asking for the same event as
 * column c (c itself when none before it does). */
struct columns {
	size_t *id;          /* k event ids */
	size_t *first;       /* k */
	uint32_t *key, *col; /* mask + 1 slots; key UINT32_MAX: empty */
	size_t mask;
};

static void columns_release(struct columns *m)
{
	cp_free(m->id);
	cp_free(m->first);
	cp_free(m->key);
	cp_free(m->col);
}

static size_t columns_slot(const struct columns *m, uint32_t ev)
{
	size_t h = (size_t)(ev * 0x9e3779b1u) & m->mask;

	while (m->key[h] != UINT32_MAX && m->key[h] != ev)
		h = (h + 1) & m->mask;
	return h;
}

/* The column of event ev, or SIZE_MAX when no column asks for it. */
static size_t columns_find(const struct columns *m, uint32_t ev)
{
	size_t h = columns_slot(m, ev);

	return m->key[h] == ev ? m->col[h] : SIZE_MAX;
}

/* Event ids of the k names, and the table; error naming the first one
 * the dataset lacks or that observation obs never counted. */
static int resolve_events(const struct stats_dataset *d, size_t obs,
			  const char *const *events, size_t k,
			  struct columns *m, struct cp_error *err)
{
	size_t c, g, i, slots = 4, *cnt = NULL;
	int rc = CP_OK;

	memset(m, 0, sizeof *m);
	if (obs >= d->obs.n)
		return cp_error_set(err, CP_EINPUT, "%s: no observation #%zu",
				    d->path, obs);
	while (slots < 2 * k)
		slots *= 2;
	m->mask = slots - 1;
	m->id = cp_calloc(k + 1, sizeof *m->id);
	m->first = cp_calloc(k + 1, sizeof *m->first);
	m->key = cp_malloc(slots * sizeof *m->key);
	m->col = cp_malloc(slots * sizeof *m->col);
	cnt = cp_calloc(k + 1, sizeof *cnt);
	if (!m->id || !m->first || !m->key || !m->col || !cnt) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	memset(m->key, 0xff, slots * sizeof *m->key);
	for (c = 0; c < k; c++) {
		m->id[c] = stats_dataset_find_event(d, events[c]);
		m->first[c] = c;
		if (m->id[c] == (size_t)-1)
			continue;
		i = columns_slot(m, (uint32_t)m->id[c]);
		if (m->key[i] == UINT32_MAX) {
			m->key[i] = (uint32_t)m->id[c];
			m->col[i] = (uint32_t)c;
		} else
			m->first[c] = m->col[i];
	}
	/* how often each column's event was counted, in one pass */
	for (c = 0; d->lazy && c < k; c++)
		if (m->id[c] != (size_t)-1 && m->first[c] == c)
			cnt[c] = d->lazy->counted[m->id[c]];
	for (g = d->obs_g[obs]; g < d->obs_g[obs + 1]; g++)
		for (i = d->g[g].start; i < d->g[g].start + d->g[g].n; i++)
			if (S_RUNNING(d, i) > 0 &&
			    (c = columns_find(m, S_EV(d, i))) != SIZE_MAX)
				cnt[c]++;
	for (c = 0; c < k; c++) {
		if (m->id[c] == (size_t)-1) {
			const char *near = stats_dataset_closest_event(d, events[c]);

			rc = cp_error_set(err, CP_EINPUT, "%s: dataset has no event "
					  "'%s'%s%s%s", d->path, events[c],
					  near ? " (did you mean '" : "",
					  near ? near : "", near ? "'?)" : "");
			goto out;
		}
		if (!cnt[m->first[c]]) {
			rc = stats_observation_error(d, obs, CP_EINPUT, err,
						     "event '%s' was never "
						     "counted", events[c]);
			goto out;
		}
	}
out:
	cp_free(cnt);
	if (rc)
		columns_release(m);
	return rc;
}

/* Observation obs's groups from row on: its rates into r (when not
 * NULL), and each column's sum of squared rate steps and counted
 * intervals (when res is not NULL). */
static void read_rows(const struct stats_dataset *d, size_t obs,
		      const struct columns *m, size_t k, size_t row, double *r,
		      double *res, size_t *cnt)
{
	size_t g, i, c;

	for (g = d->obs_g[obs]; g < d->obs_g[obs + 1]; g++) {
		const struct group *gr = &d->g[g];

		if (g > d->obs_g[obs] && gr->interval != gr[-1].interval)
			row++;
		for (i = gr->start; i < gr->start + gr->n; i++) {
			double step;

			if (!S_RUNNING(d, i) || (c = columns_find(m, S_EV(d, i))) == SIZE_MAX)
				continue;
			/* the rate: the scaled count value*enabled/running
			 * over the enabled time in seconds = value*1e9/running;
			 * one count is a rate step of 1e9/running */
			step = 1e9 / (double)S_RUNNING(d, i);
			if (r)
				r[row * k + c] = S_VALUE(d, i) * 1e9 / (double)S_RUNNING(d, i);
			if (res) {
				res[c] += step * step;
				cnt[c]++;
			}
		}
	}
}

/* read_rows on the pieces of a lazy dataset. */
struct rows_arg {
	const struct columns *m;
	size_t k;
	double *r, *res;
	size_t *cnt;
};

static int piece_rows(void *arg, const struct stats_dataset *piece, size_t row)
{
	const struct rows_arg *a = arg;

	read_rows(piece, 0, a->m, a->k, row, a->r, a->res, a->cnt);
	return CP_OK;
}

/* One pass over observation obs's samples: the per-interval rates (when
 * rates is not NULL) and the resolutions (when res is not NULL). */
int stats_observation_read(const struct stats_dataset *d, size_t obs,
			   const char *const *events, size_t k,
			   double **rates, size_t *n, double *res,
			   struct cp_error *err)
{
	struct columns m;
	size_t i, c, nint, *cnt = NULL;
	double *r = NULL;
	int rc;

	if (rates) {
		*rates = NULL;
		*n = 0;
	}
	if ((rc = resolve_events(d, obs, events, k, &m, err)))
		return rc;
	nint = d->obs_nint[obs];
	if ((rates && !(r = cp_malloc((nint * k + 1) * sizeof *r))) ||
	    (res && !(cnt = cp_calloc(k + 1, sizeof *cnt)))) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	if (r)
		for (i = 0; i < nint * k; i++)
			r[i] = NAN;
	if (res)
		for (c = 0; c < k; c++)
			res[c] = 0;
	if (d->lazy) {
		struct rows_arg a = { &m, k, r, res, cnt };

		if ((rc = stats_lazy_pieces(d, piece_rows, &a, err)))
			goto out;
	} else
		read_rows(d, obs, &m, k, 0, r, res, cnt);
	for (c = 0; c < k; c++) {
		if (r && m.first[c] != c)
			for (i = 0; i < nint; i++)
				r[i * k + c] = r[i * k + m.first[c]];
		/* the root mean square over the counted intervals */
		if (res)
			res[c] = m.first[c] == c ? sqrt(res[c] / (double)cnt[c])
						 : res[m.first[c]];
	}
	if (rates) {
		*rates = r;
		*n = nint;
		r = NULL;
	}
out:
	cp_free(r);
	cp_free(cnt);
	columns_release(&m);
	return rc;
}

int stats_observation_summary(const struct stats_dataset *d, size_t obs,
			      const char *const *events, size_t k, double *mu,
			      double *se, double *res, struct cp_error *err)
{
	struct columns m;
	size_t i, c, g;
	int rc;

	if ((rc = resolve_events(d, obs, events, k, &m, err)))
		return rc;
	for (g = d->obs_g[obs]; g < d->obs_g[obs + 1]; g++) {
		const struct group *gr = &d->g[g];

		for (i = gr->start; i < gr->start + gr->n; i++) {
			const struct summary_row *sr;
			double rate;

			if (!S_RUNNING(d, i) || (c = columns_find(&m, S_EV(d, i))) == SIZE_MAX)
				continue;
			sr = stats_summary_row(d, gr->line + (unsigned)(i - gr->start));
			/* the mean rate of the runs, value*1e9/running as for
			 * an interval; perf's deviation is of the scaled count,
			 * which the mean enabled time divides as a constant */
			rate = S_VALUE(d, i) * 1e9 / (double)S_RUNNING(d, i);
			mu[c] = rate;
			se[c] = sr ? rate * sr->se_pct / 100 : 0;
			res[c] = 1e9 / (double)S_RUNNING(d, i);
		}
	}
	for (c = 0; c < k; c++)
		if (m.first[c] != c) {
			mu[c] = mu[m.first[c]];
			se[c] = se[m.first[c]];
			res[c] = res[m.first[c]];
		}
	columns_release(&m);
	return CP_OK;
}

int stats_observation_rates(const struct stats_dataset *d, size_t obs,
			    const char *const *events, size_t k,
			    double **rates, size_t *n, struct cp_error *err)
{
	return stats_observation_read(d, obs, events, k, rates, n, NULL, err);
}

int stats_observation_resolution(const struct stats_dataset *d, size_t obs,
				 const char *const *events, size_t k,
				 double *res, struct cp_error *err)
{
	return stats_observation_read(d, obs, events, k, NULL, NULL, res, err);
}
