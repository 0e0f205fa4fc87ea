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
	for (g = d->obs_g[obs]; g < d->obs_g[obs + 1]; g++)
		for (j = d->g[g].start; j < d->g[g].start + d->g[g].n; j++)
			if (S_EV(d, j) == e && S_RUNNING(d, j) > 0)
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
		id[c] = stats_dataset_find_event(d, events[c]);
		if (id[c] == (size_t)-1)
			return cp_error_set(err, CP_EINPUT,
					    "%s: dataset has no event '%s'",
					    d->path, events[c]);
		if (!stats_dataset_n_counted(d, obs, id[c]))
			return stats_observation_error(d, obs, CP_EINPUT, err,
						       "event '%s' was never "
						       "counted", events[c]);
	}
	return CP_OK;
}

int stats_observation_rates(const struct stats_dataset *d, size_t obs,
			    const char *const *events, size_t k,
			    double **rates, size_t *n, struct cp_error *err)
{
	size_t *id = NULL, i, c, g, row, nint;
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
	for (g = d->obs_g[obs]; g < d->obs_g[obs + 1]; g++) {
		const struct group *gr = &d->g[g];

		if (g > d->obs_g[obs] && gr->interval != gr[-1].interval)
			row++;
		for (i = gr->start; i < gr->start + gr->n; i++) {
			if (!S_RUNNING(d, i))
				continue;
			/* the rate: the scaled count value*enabled/running
			 * over the enabled time in seconds = value*1e9/running */
			for (c = 0; c < k; c++)
				if (id[c] == S_EV(d, i))
					r[row * k + c] = S_VALUE(d, i) * 1e9 /
							 (double)S_RUNNING(d, i);
		}
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
	size_t *id, i, c, g, *cnt;
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
	for (g = d->obs_g[obs]; g < d->obs_g[obs + 1]; g++)
		for (i = d->g[g].start; i < d->g[g].start + d->g[g].n; i++) {
			if (!S_RUNNING(d, i))
				continue;
			for (c = 0; c < k; c++)
				if (id[c] == S_EV(d, i)) {
					double step = 1e9 / (double)S_RUNNING(d, i);

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
