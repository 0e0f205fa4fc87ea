/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pipeline/pipeline.c: model + feature set + dataset -> verdicts (see
 * pipeline.h for the policy on counters and unusable observations). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"
#include "pipeline/pipeline_int.h"

#include "geometry/cone.h"

struct pipe_data {
	const struct stats_dataset *data;
	struct pipe_options opt;
	size_t k;
	size_t *cols;             /* k model counter indices */
	const char **names;       /* k (owned by the model) */
	const char **events;      /* k (owned by the model) */
	size_t n_obs, n_unusable;
	struct region **regions;  /* n_obs; NULL = unusable */
	char **why;               /* n_obs; the reason, or NULL */
	struct feas_query *queries;
	struct region_options ro; /* how the regions are built */
	int streamed;             /* opt.stream: pipe_check_stream has run */
	size_t n_done;            /* opt.partial: observations whose verdicts are final */
};

struct pipe_model {
	udd_features sel;
	size_t k, m;
	uint32_t *S;              /* m x k, sorted rows */
	int S_borrowed;           /* S is the caller's (pipe_model_new_from) */
	struct feas_model *fm;
	int has_facets, over_budget;
	int facets_tried;         /* a budget was given (listed or not) */
	size_t n_eq, n_facets;
	int64_t *cons;            /* (n_eq + n_facets) x k */
	char *no_facets;
	size_t n_span_eq;
	int64_t *span_eq;
	int span_eq_canonical;   /* span_eq is cone_equalities(S), exactly */
};

/* ==== data ==== */

/* keep[i] = 1 for the model counters named in list ("a,b"). */
static int pick_counters(const struct udd_model *m, const char *list,
			 unsigned char *keep, struct cp_error *err)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		char name[256];
		long c;

		if (n == 0 || n >= sizeof name)
			return cp_error_set(err, CP_EINPUT, "bad counter list '%s'", list);
		memcpy(name, p, n);
		name[n] = 0;
		c = udd_model_counter_find(m, name);
		if (c < 0)
			return cp_error_set(err, CP_EINPUT, "the model has no counter '%s'",
					    name);
		keep[c] = 1;
		p += n;
		if (*p == ',')
			p++;
	}
	return CP_OK;
}

/* Match the model's counters to the dataset's events (the policy of
 * pipeline.h). */
static int match_counters(struct pipe_data *pd, const struct udd_model *m,
			  struct cp_error *err)
{
	size_t km = udd_model_n_counters(m), i, missing = 0;
	unsigned char *keep = NULL;
	struct cp_buf b;
	int rc = CP_OK;

	pd->cols = cp_calloc(km + 1, sizeof *pd->cols);
	pd->names = cp_calloc(km + 1, sizeof *pd->names);
	pd->events = cp_calloc(km + 1, sizeof *pd->events);
	keep = cp_calloc(km + 1, 1);
	if (!pd->cols || !pd->names || !pd->events || !keep) {
		cp_free(keep);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	if (pd->opt.counters && pd->opt.counters[0]) {
		rc = pick_counters(m, pd->opt.counters, keep, err);
	} else {
		memset(keep, 1, km);
	}
	cp_buf_init(&b);
	for (i = 0; !rc && i < km; i++) {
		const char *ev = udd_model_counter_event(m, i);
		size_t e;

		if (!keep[i] || (rc = stats_model_counter_event(pd->data, m, i, &e, err)))
			continue;
		if (e == (size_t)-1) {
			/* a near name, only for those listed */
			const char *near = missing >= 8 ? NULL :
				stats_dataset_closest_event(pd->data, ev);

			if (missing < 8)
				cp_buf_printf(&b, "%s'%s' (event '%s'%s%s%s)",
					      missing ? ", " : "",
					      udd_model_counter_name(m, i), ev,
					      near ? "; the dataset has '" : "",
					      near ? near : "", near ? "'" : "");
			missing++;
			continue;
		}
		pd->cols[pd->k] = i;
		pd->names[pd->k] = udd_model_counter_name(m, i);
		pd->events[pd->k++] = stats_dataset_event(pd->data, e);
	}
	if (!rc && missing)
		rc = cp_error_set(err, CP_EINPUT, "the dataset lacks %zu of the model's "
				  "counters: %s%s%s", missing, b.data ? b.data : "",
				  missing > 8 ? ", ..." : "",
				  pd->opt.counters && pd->opt.counters[0] ? "" :
				  "; --counters checks a subset (the cone projected "
				  "onto it)");
	else if (!rc && !pd->k)
		rc = cp_error_set(err, CP_EINPUT, "no counters to check");
	cp_buf_release(&b);
	cp_free(keep);
	return rc;
}

/* Observation i's region and its query, or why it has none
 * (pd->why[i]).  Returns 0, or the error that stops everything (anything
 * but CP_EINPUT). */
static int data_observation(struct pipe_data *pd, const struct region_options *ro,
			    size_t i, struct cp_error *err)
{
	const struct stats_dataset *d = pd->data;
	struct cp_error re;
	int rc;

	cp_error_clear(&re);
	rc = stats_observation_region(d, i, pd->events, pd->k, ro, &pd->regions[i], &re);
	if (rc == CP_EINPUT) {
		/* this observation cannot form a region: say why, go on */
		const char *why = re.msg;
		char prefix[CP_ERROR_MAX];
		size_t np;

		/* the reason without the "observation 'NAME': " the stats
		 * message opens with (and its place): reports name it
		 * themselves, stats_observation_error gives it back whole */
		np = (size_t)snprintf(prefix, sizeof prefix, "observation '%s': ",
				      stats_dataset_observation(d, i));
		if (np < sizeof prefix && !strncmp(why, prefix, np))
			why += np;
		pd->regions[i] = NULL;
		pd->why[i] = cp_strdup(why);
		if (!pd->why[i])
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		return CP_OK;
	}
	if (rc)
		return stats_observation_error(d, i, rc, err, "%.700s", re.msg);
	feas_query_from_region(pd->regions[i], pd->opt.shape, &pd->queries[i]);
	return CP_OK;
}

/* Regions on threads: observations handed out in chunks; each region is
 * written to its own slot, and the error reported is the one of the
 * lowest observation, as one thread would have stopped at it. */
#define DATA_CHUNK 16

struct data_batch {
	struct pipe_data *pd;
	const struct region_options *ro;
	pthread_mutex_t lock;
	size_t next, err_index;
	struct cp_error err;
	int rc;
};

static void *data_thread(void *arg)
{
	struct data_batch *b = arg;
	struct cp_error err;

	for (;;) {
		size_t lo, hi, i;
		int rc = CP_OK;

		pthread_mutex_lock(&b->lock);
		lo = b->next;
		hi = lo + DATA_CHUNK < b->pd->n_obs ? lo + DATA_CHUNK : b->pd->n_obs;
		b->next = hi;
		pthread_mutex_unlock(&b->lock);
		if (lo >= hi)
			break;
		for (i = lo; i < hi && !rc; i++) {
			cp_error_clear(&err);
			rc = data_observation(b->pd, b->ro, i, &err);
		}
		if (rc) {
			pthread_mutex_lock(&b->lock);
			if (!b->rc || i - 1 < b->err_index) {
				b->rc = rc;
				b->err = err;
				b->err_index = i - 1;
			}
			b->next = b->pd->n_obs;   /* the others stop at their chunk's end */
			pthread_mutex_unlock(&b->lock);
			break;
		}
	}
	return NULL;
}

/* threads: those beyond the calling one, which works too (0: it alone). */
static int data_regions(struct pipe_data *pd, const struct region_options *ro,
			size_t threads, struct cp_error *err)
{
	struct data_batch b;
	pthread_t tid[64];
	size_t t, started = 0, i;
	int rc = CP_OK;

	if (threads > (pd->n_obs + DATA_CHUNK - 1) / DATA_CHUNK)
		threads = (pd->n_obs + DATA_CHUNK - 1) / DATA_CHUNK;
	if (threads > sizeof tid / sizeof *tid)
		threads = sizeof tid / sizeof *tid;
	if (threads == 0 || pthread_mutex_init(&b.lock, NULL)) {
		for (i = 0; i < pd->n_obs && !rc; i++)
			rc = data_observation(pd, ro, i, err);
		return rc;
	}
	b.pd = pd;
	b.ro = ro;
	b.next = 0;
	b.err_index = 0;
	b.rc = CP_OK;
	cp_error_clear(&b.err);
	for (t = 0; t < threads; t++) {
		if (pthread_create(&tid[t], NULL, data_thread, &b))
			break;
		started++;
	}
	data_thread(&b);   /* the calling thread works too */
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_mutex_destroy(&b.lock);
	if (b.rc && err)
		*err = b.err;
	return b.rc;
}

int pipe_data_new(const struct udd_model *m, const struct stats_dataset *d,
		  const struct pipe_options *opt, struct pipe_data **out,
		  struct cp_error *err)
{
	struct pipe_data *pd;
	struct region_options ro;
	size_t i;
	int rc;

	*out = NULL;
	pd = cp_calloc(1, sizeof *pd);
	if (!pd)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	pd->data = d;
	if (opt)
		pd->opt = *opt;
	if (pd->opt.confidence <= 0)
		pd->opt.confidence = 0.99;
	if ((unsigned)pd->opt.shape > FEAS_ELLIPSOID) {
		rc = cp_error_set(err, CP_EINPUT, "unknown region shape %d",
				  (int)pd->opt.shape);
		goto fail;
	}
	if ((rc = match_counters(pd, m, err)))
		goto fail;
	pd->n_obs = stats_dataset_n_observations(d);
	if (pd->opt.n_observations && pd->opt.n_observations < pd->n_obs)
		pd->n_obs = pd->opt.n_observations;
	pd->regions = cp_calloc(pd->n_obs + 1, sizeof *pd->regions);
	pd->why = cp_calloc(pd->n_obs + 1, sizeof *pd->why);
	pd->queries = cp_calloc(pd->n_obs + 1, sizeof *pd->queries);
	if (!pd->regions || !pd->why || !pd->queries) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	memset(&ro, 0, sizeof ro);
	ro.confidence = pd->opt.confidence;
	ro.batches = pd->opt.batches;
	ro.per_interval = pd->opt.per_interval;
	ro.names = pd->names;
	ro.no_pca_box = pd->opt.shape_only && pd->opt.shape != FEAS_PCA;
	ro.lean = pd->opt.shape_only;
	pd->ro = ro;
	if (pd->opt.stream) {   /* pipe_check_stream builds them */
		*out = pd;
		return CP_OK;
	}
	/* threads beyond the calling one (1: none) */
	if ((rc = data_regions(pd, &ro, pd->opt.threads ? pd->opt.threads - 1 : 0, err)))
		goto fail;
	for (i = 0; i < pd->n_obs; i++)
		pd->n_unusable += !pd->regions[i];
	*out = pd;
	return CP_OK;
fail:
	pipe_data_free(pd);
	return rc;
}

void pipe_data_free(struct pipe_data *pd)
{
	size_t i;

	if (!pd)
		return;
	for (i = 0; pd->regions && i < pd->n_obs; i++)
		region_free(pd->regions[i]);
	for (i = 0; pd->why && i < pd->n_obs; i++)
		cp_free(pd->why[i]);
	cp_free(pd->regions);
	cp_free(pd->why);
	cp_free(pd->queries);
	cp_free(pd->cols);
	cp_free(pd->names);
	cp_free(pd->events);
	cp_free(pd);
}

const struct pipe_options *pipe_data_options(const struct pipe_data *pd) { return &pd->opt; }
size_t pipe_data_n_done(const struct pipe_data *pd) { return pd->n_done; }

const char *pipe_region_name(enum feas_shape s)
{
	return s == FEAS_PCA ? "pca" : s == FEAS_INDEPENDENT ? "independent" : "ellipsoid";
}

const char *pipe_verdict_note(const struct feas_result *res)
{
	if (res->undecided)
		return "undecided: borderline, and its exact re-check could not "
		       "run; this is the floating-point answer";
	return res->borderline ? "borderline" : NULL;
}
const struct stats_dataset *pipe_data_dataset(const struct pipe_data *pd) { return pd->data; }
size_t pipe_data_n_counters(const struct pipe_data *pd) { return pd->k; }
const size_t *pipe_data_columns(const struct pipe_data *pd) { return pd->cols; }
const char *const *pipe_data_names(const struct pipe_data *pd) { return pd->names; }
size_t pipe_data_n_observations(const struct pipe_data *pd) { return pd->n_obs; }
size_t pipe_data_n_unusable(const struct pipe_data *pd) { return pd->n_unusable; }

const struct region_options *pipe_data_region_options(const struct pipe_data *pd)
{
	return &pd->ro;
}

const char *const *pipe_data_events(const struct pipe_data *pd)
{
	return pd->events;
}

const struct region *pipe_data_region(const struct pipe_data *pd, size_t i)
{
	return i < pd->n_obs ? pd->regions[i] : NULL;
}

const struct feas_query *pipe_data_query(const struct pipe_data *pd, size_t i)
{
	return i < pd->n_obs && pd->regions[i] && !pd->opt.stream ? &pd->queries[i] : NULL;
}

const char *pipe_data_unusable(const struct pipe_data *pd, size_t i)
{
	return i < pd->n_obs ? pd->why[i] : NULL;
}

/* ==== model ==== */

/* Rows compare bytewise (any total order will do); k through qsort_r's
 * context, so there is no global state. */
static int row_cmp(const void *a, const void *b, void *k)
{
	return memcmp(a, b, *(const size_t *)k * sizeof(uint32_t));
}

/* The distinct signatures of sel on the data's counters, sorted. */
int pipe_signatures(const struct udd_model *m, udd_features sel,
		    const struct pipe_data *pd, uint32_t **out, size_t *out_n,
		    struct cp_error *err)
{
	size_t k = pd->k, i, j, n = 0, m_sigs, km = udd_model_n_counters(m);
	uint32_t *S, *all;
	int rc;

	*out = NULL;
	*out_n = 0;
	/* the rows alone: sorted below, so their order does not matter */
	if ((rc = udd_signatures_build(m, sel, 0, &all, &m_sigs, err)))
		return rc;
	S = cp_malloc((m_sigs * k + 1) * sizeof *S);
	if (!S) {
		cp_free(all);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (j = 0; j < m_sigs; j++) {
		const uint32_t *sig = all + j * km;

		for (i = 0; i < k; i++)
			S[j * k + i] = sig[pd->cols[i]];
	}
	cp_free(all);
	n = m_sigs;
	if (m_sigs && k) {
		qsort_r(S, m_sigs, k * sizeof *S, row_cmp, &k);
		/* a projection can make distinct signatures equal */
		for (j = 0, n = 0; j < m_sigs; j++)
			if (!n || memcmp(S + (n - 1) * k, S + j * k, k * sizeof *S))
				memmove(S + n++ * k, S + j * k, k * sizeof *S);
	}
	*out = S;
	*out_n = n;
	return CP_OK;
}

static int model_cone(struct pipe_model *pm, const struct pipe_budget *budget,
		      struct cp_error *err)
{
	struct cone_options co;
	struct cone *c = NULL;
	struct cp_error ce;
	size_t i, k = pm->k;
	int rc;

	if (!budget || budget->max_facets == 0) {
		pm->no_facets = cp_strdup("not asked for");
		return pm->no_facets ? CP_OK : cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	memset(&co, 0, sizeof co);
	co.max_facets = budget->max_facets;
	co.max_seconds = budget->max_seconds;
	co.no_extreme = 1;   /* checks and reports read facets only */
	cp_error_clear(&ce);
	rc = pm->m ? cone_build(k, pm->m, pm->S, &co, &c, &ce)
		   : cp_error_set(&ce, CP_EINPUT, "the model has no signatures");
	if (rc == CP_ENOMEM)
		return cp_error_set(err, rc, "out of memory");
	if (rc) {
		/* over budget or numerically hard: not an error, the solver's
		 * certificates explain violations */
		pm->over_budget = rc == CP_ELIMIT;
		pm->no_facets = cp_strdup(ce.msg);
		return pm->no_facets ? CP_OK : cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	if (!cone_fits_int64(c)) {
		/* the solver works in int64: its certificates explain instead */
		pm->no_facets = cp_strdup(cone_facets_fit_int64(c)
			? "an equality has a coefficient beyond 64 bits, which the solver cannot take"
			: "a facet normal has a coefficient beyond 64 bits, which the solver cannot take");
		cone_free(c);
		return pm->no_facets ? CP_OK : cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	pm->n_eq = cone_n_equalities(c);
	pm->n_facets = cone_n_facets(c);
	pm->cons = cp_calloc((pm->n_eq + pm->n_facets) * k + 1, sizeof *pm->cons);
	if (!pm->cons) {
		cone_free(c);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (i = 0; i < pm->n_eq + pm->n_facets; i++)
		memcpy(pm->cons + i * k, i < pm->n_eq ? cone_equality(c, i) :
		       cone_facet(c, i - pm->n_eq), k * sizeof *pm->cons);
	cone_free(c);
	pm->has_facets = 1;
	return CP_OK;
}

/* The span's equalities when the cone is not listed (exact, from
 * geometry); the cone's own when it is. */
static int model_span_equalities(struct pipe_model *pm, struct cp_error *err)
{
	struct cp_error ce;
	int rc;

	if (pm->span_eq && pm->span_eq != pm->cons)
		cp_free(pm->span_eq);
	pm->span_eq = NULL;
	pm->n_span_eq = 0;
	pm->span_eq_canonical = 0;
	if (pm->has_facets) {
		pm->n_span_eq = pm->n_eq;
		pm->span_eq = pm->n_eq ? pm->cons : NULL;
		pm->span_eq_canonical = pm->m > 0;
		return CP_OK;
	}
	if (!pm->m)
		return CP_OK;
	cp_error_clear(&ce);
	rc = cone_equalities(pm->k, pm->m, pm->S, &pm->n_span_eq, &pm->span_eq, &ce);
	if (rc == CP_ENOMEM)
		return cp_error_set(err, rc, "out of memory");
	if (rc) {   /* beyond 64 bits: constraints print unsimplified */
		pm->n_span_eq = 0;
		pm->span_eq = NULL;
	} else {
		pm->span_eq_canonical = 1;
	}
	return CP_OK;
}

/* The listed constraints into the solver's model, in their order. */
static int solver_constraints(struct pipe_model *pm, struct cp_error *err)
{
	size_t i;
	int rc;

	for (i = 0; pm->has_facets && i < pm->n_eq + pm->n_facets; i++)
		if ((rc = feas_model_add_constraint(pm->fm, pm->cons + i * pm->k,
						    i < pm->n_eq, err)))
			return rc;
	if (pm->has_facets && (rc = feas_model_set_complete(pm->fm, err)))
		return rc;
	return CP_OK;
}

/* The solver's model, made once: the signatures, then the constraints
 * listed so far (later ones join it as they are listed). */
int pipe_model_make_solver(struct pipe_model *pm, struct cp_error *err)
{
	struct feas_model_options fo;
	int rc;

	if (pm->fm)
		return CP_OK;
	/* the span's equalities are known (pipe_model_list_facets made
	 * them): the solver takes them rather than deriving them again */
	memset(&fo, 0, sizeof fo);
	fo.equalities_given = pm->span_eq_canonical;
	fo.n_equalities = pm->n_span_eq;
	fo.equalities = pm->span_eq;
	if ((rc = feas_model_new(pm->k, pm->m, pm->S, &fo, &pm->fm, err)))
		return rc;
	return solver_constraints(pm, err);
}

int pipe_model_list_facets(struct pipe_model *pm, const struct pipe_budget *budget,
			   struct cp_error *err)
{
	int rc;

	if (pm->facets_tried)
		return CP_OK;
	pm->facets_tried = budget != NULL;
	cp_free(pm->no_facets);
	pm->no_facets = NULL;
	if ((rc = model_cone(pm, budget, err)))
		return rc;
	if (pm->fm && (rc = solver_constraints(pm, err)))
		return rc;
	return model_span_equalities(pm, err);
}

/* A model of signatures S (n rows, taken over), with its cone under the
 * budget; the solver's model waits for its first use (pipe_model_make_solver). */
static int model_new(udd_features sel, uint32_t *S, int borrowed, size_t n,
		     const struct pipe_data *pd, const struct pipe_budget *budget,
		     struct pipe_model **out, struct cp_error *err)
{
	struct pipe_model *pm;
	int rc;

	*out = NULL;
	pm = cp_calloc(1, sizeof *pm);
	if (!pm) {
		if (!borrowed)
			cp_free(S);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	pm->sel = sel;
	pm->k = pd->k;
	pm->S = S;
	pm->S_borrowed = borrowed;
	pm->m = n;
	if ((rc = pipe_model_list_facets(pm, budget, err))) {
		pipe_model_free(pm);
		return rc;
	}
	*out = pm;
	return CP_OK;
}

int pipe_model_new(const struct udd_model *m, udd_features sel,
		   const struct pipe_data *pd, const struct pipe_budget *budget,
		   struct pipe_model **out, struct cp_error *err)
{
	uint32_t *S;
	size_t n;
	int rc;

	*out = NULL;
	if ((rc = pipe_signatures(m, sel, pd, &S, &n, err)))
		return rc;
	return model_new(sel, S, 0, n, pd, budget, out, err);
}

int pipe_model_new_from(udd_features sel, const uint32_t *S, size_t n,
			const struct pipe_data *pd, const struct pipe_budget *budget,
			struct pipe_model **out, struct cp_error *err)
{
	/* read only: never written or freed here */
	return model_new(sel, (uint32_t *)S, 1, n, pd, budget, out, err);
}

void pipe_model_free(struct pipe_model *pm)
{
	if (!pm)
		return;
	if (pm->span_eq != pm->cons)
		cp_free(pm->span_eq);
	cp_free(pm->cons);
	if (!pm->S_borrowed)
		cp_free(pm->S);
	cp_free(pm->no_facets);
	feas_model_free(pm->fm);
	cp_free(pm);
}

size_t pipe_model_n_signatures(const struct pipe_model *pm) { return pm->m; }
const uint32_t *pipe_model_signatures(const struct pipe_model *pm) { return pm->S; }
void pipe_model_drop_solver(struct pipe_model *pm)
{
	feas_model_free(pm->fm);
	pm->fm = NULL;
}

struct feas_model *pipe_model_solver(struct pipe_model *pm)
{
	struct cp_error e;

	return pipe_model_make_solver(pm, &e) ? NULL : pm->fm;
}
int pipe_model_has_facets(const struct pipe_model *pm) { return pm->has_facets; }
size_t pipe_model_n_equalities(const struct pipe_model *pm) { return pm->n_eq; }
size_t pipe_model_n_facets(const struct pipe_model *pm) { return pm->n_facets; }
const char *pipe_model_no_facets(const struct pipe_model *pm) { return pm->no_facets; }
int pipe_model_over_budget(const struct pipe_model *pm) { return pm->over_budget; }
size_t pipe_model_n_span_equalities(const struct pipe_model *pm) { return pm->n_span_eq; }
const int64_t *pipe_model_span_equalities(const struct pipe_model *pm) { return pm->span_eq; }

const int64_t *pipe_model_constraint(const struct pipe_model *pm, size_t i)
{
	return pm->has_facets && i < pm->n_eq + pm->n_facets ? pm->cons + i * pm->k : NULL;
}

/* Does s break a (and every signature keep it)?  In integers. */
static int breaks_only(const struct pipe_model *pm, const int64_t *a, int is_eq,
		       const uint32_t *s)
{
	size_t j;

	for (j = 0; j < pm->m; j++) {
		__int128 v = cone_dot_exact(a, pm->S + j * pm->k, pm->k);

		if (is_eq ? v != 0 : v < 0)
			return 0;
	}
	return is_eq ? cone_dot_exact(a, s, pm->k) != 0 : cone_dot_exact(a, s, pm->k) < 0;
}

/* Decide by the listed constraints: *inside, and the first one s breaks.
 * Over s's non-zero counts only: a signature counts a few. */
static int contains_listed(const struct pipe_model *pm, const uint32_t *s,
			   int *inside, int64_t *a, int *is_eq, struct cp_error *err)
{
	uint32_t *ix = cp_malloc((pm->k + 1) * sizeof *ix);
	size_t i, j, n = 0;

	if (!ix)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (j = 0; j < pm->k; j++)
		if (s[j])
			ix[n++] = (uint32_t)j;
	*inside = 1;
	for (i = 0; i < pm->n_eq + pm->n_facets && *inside; i++) {
		const int64_t *c = pm->cons + i * pm->k;
		__int128 v = 0;

		for (j = 0; j < n; j++)
			v += (__int128)c[ix[j]] * s[ix[j]];
		*inside = i < pm->n_eq ? v == 0 : v >= 0;
		if (!*inside && a) {
			memcpy(a, c, pm->k * sizeof *a);
			*is_eq = i < pm->n_eq;
		}
	}
	cp_free(ix);
	return CP_OK;
}

int pipe_row_find(const uint32_t *row, const uint32_t *rows, size_t n, size_t width)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(rows + mid * width, row, width * sizeof *row);

		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int pipe_model_contains(struct pipe_model *pm, const uint32_t *s,
			const struct pipe_budget *budget, int *inside,
			int64_t *a, int *is_eq, struct cp_error *err)
{
	struct feas_query q;
	struct feas_result res;
	double *mu;
	size_t i, k = pm->k;
	int rc;

	*inside = -1;
	if (pm->has_facets)
		return contains_listed(pm, s, inside, a, is_eq, err);
	if (pm->m == 0) {
		/* the cone is {0}: -x_i >= 0 holds on it, and s breaks it
		 * for a counter it counts */
		for (i = 0; i < k && !s[i]; i++)
			;
		*inside = i == k;
		if (a) {
			memset(a, 0, k * sizeof *a);
			if (i < k) {
				a[i] = -1;
				*is_eq = 0;
			}
		}
		return CP_OK;
	}
	if (pipe_row_find(s, pm->S, pm->m, k)) {
		*inside = 1;
		return CP_OK;
	}
	if (!(mu = cp_calloc(2 * k, sizeof *mu)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < k; i++)
		mu[i] = (double)s[i];
	memset(&q, 0, sizeof q);
	q.shape = FEAS_INDEPENDENT;
	q.mu = mu;
	q.half = mu + k;
	feas_result_init(&res);
	rc = pipe_model_make_solver(pm, err);
	if (!rc)
		rc = feas_check(pm->fm, &q, budget ? FEAS_EXPLAIN : 0, &res, err);
	if (!rc && !budget)
		*inside = res.feasible;
	for (i = 0; !rc && budget && !res.feasible && i < res.n_violations; i++)
		if (breaks_only(pm, res.violations[i].a, res.violations[i].is_equality, s)) {
			*inside = 0;
			if (a) {
				memcpy(a, res.violations[i].a, k * sizeof *a);
				*is_eq = res.violations[i].is_equality;
			}
			break;
		}
	feas_result_release(&res);
	cp_free(mu);
	if (rc || *inside != -1)
		return rc;
	/* the exact cone decides, within the budget (the solver, which has
	 * checked, could not take its constraints: made again if used) */
	pipe_model_drop_solver(pm);
	if ((rc = pipe_model_list_facets(pm, budget, err)))
		return rc;
	return pm->has_facets ? contains_listed(pm, s, inside, a, is_eq, err) : CP_OK;
}

/* ==== checking ==== */

/* Were pd's regions made on pm's counters? */
static int data_fits(const struct pipe_data *pd, const struct pipe_model *pm,
		     struct cp_error *err)
{
	if (pd->k != pm->k)
		return cp_error_set(err, CP_EINPUT, "the model was built on %zu counters, "
				    "the data have %zu", pm->k, pd->k);
	return CP_OK;
}

/* One check, on pm's own LP (c NULL) or on a thread's checker: a
 * borderline verdict whose exact re-check could not run (CP_ENUMERIC)
 * keeps the floating-point verdict, marked undecided and counted in
 * *inexact. */
static int check_one(struct pipe_model *pm, struct feas_checker *c,
		     const struct feas_query *q, unsigned flags,
		     struct feas_result *r, size_t *inexact, struct cp_error *err)
{
	int rc;

	cp_error_clear(err);
	rc = c ? feas_checker_check(c, q, flags, r, err) : feas_check(pm->fm, q, flags, r, err);
	if (rc == CP_ENUMERIC) {
		++*inexact;
		cp_error_clear(err);
		flags |= FEAS_NO_EXACT;
		rc = c ? feas_checker_check(c, q, flags, r, err) :
			feas_check(pm->fm, q, flags, r, err);
		r->undecided = 1;   /* the floating-point answer */
	}
	return rc;
}

/* One at a time (from a fresh LP where feas_fresh_at says, as a batch), or after
 * the batch's CP_ENUMERIC (check_one). */
static int check_in_turn(struct pipe_model *pm, const struct feas_query *q,
			 size_t n, unsigned flags, struct feas_result *r,
			 size_t *inexact, void (*progress)(void *, size_t, size_t),
			 void *progress_ctx, struct cp_error *err)
{
	size_t j;
	int rc = CP_OK;

	cp_error_clear(err);
	for (j = 0; j < n && !rc; j++) {
		if (feas_fresh_at(j, flags))
			feas_model_restart(pm->fm); /* as feas_check_batch does */
		rc = check_one(pm, NULL, &q[j], flags, &r[j], inexact, err);
		if (progress && j % 64 == 0)
			progress(progress_ctx, j, n);
	}
	/* later single checks start where a batch would have left them */
	feas_model_restart(pm->fm);
	return rc;
}

int pipe_check_queries(struct pipe_model *pm, const struct feas_query *q, size_t n,
		       unsigned flags, size_t threads, int fresh, struct feas_result *r,
		       size_t *inexact, void (*progress)(void *, size_t, size_t),
		       void *progress_ctx, struct cp_error *err)
{
	int rc;

	if (fresh)
		threads = 1;
	rc = !fresh && (threads == 1 || n == 1) ? CP_ENUMERIC :
		feas_check_batch(pm->fm, n, q, flags, threads, r, progress,
				 progress_ctx, err);
	if (rc == CP_ENUMERIC)
		rc = check_in_turn(pm, q, n, flags, r, inexact, progress,
				   progress_ctx, err);
	return rc;
}

/* r[j] moves to res[idx[j]] (r[j] is left initialised). */
static void results_move(struct feas_result *r, const size_t *idx, size_t n,
			 struct feas_result *res)
{
	size_t j;

	for (j = 0; j < n; j++) {
		feas_result_release(&res[idx[j]]);
		res[idx[j]] = r[j];
		feas_result_init(&r[j]);
	}
}

/* Check observations idx[0..n) (each with a region) into res at their
 * indices: on threads (threads 1 or one observation: in the calling
 * thread, on pm's own LP and its warm start), or with fresh set, in one
 * thread of feas_check_batch's (a fresh LP, as each of its threads). */
static int check_list(struct pipe_model *pm, const struct pipe_data *pd,
		      const size_t *idx, size_t n, unsigned flags, size_t threads,
		      int fresh, struct feas_result *res, size_t *n_inexact,
		      void (*progress)(void *, size_t, size_t), void *progress_ctx,
		      struct cp_error *err)
{
	struct feas_query *q = NULL;
	struct feas_result *r = NULL;
	size_t j, inexact = 0;
	int rc = CP_OK;

	if (n_inexact)
		*n_inexact = 0;
	if ((rc = data_fits(pd, pm, err)))
		return rc;
	if (pd->opt.stream)
		return cp_error_set(err, CP_EINTERNAL, "regions made for a streamed "
				    "check (pipe_check_stream) checked otherwise");
	if (!n)
		return CP_OK;
	if ((rc = pipe_model_make_solver(pm, err)))
		return rc;
	q = cp_calloc(n, sizeof *q);
	r = cp_calloc(n, sizeof *r);
	if (!q || !r) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (j = 0; j < n; j++) {
		if (idx[j] >= pd->n_obs || !pd->regions[idx[j]]) {
			rc = cp_error_set(err, CP_EINPUT, "observation %zu has no region",
					  idx[j] + 1);
			goto out;
		}
		q[j] = pd->queries[idx[j]];
		feas_result_init(&r[j]);
	}
	rc = pipe_check_queries(pm, q, n, flags, threads, fresh, r, &inexact, progress,
				progress_ctx, err);
	if (!rc)
		results_move(r, idx, n, res);
	if (n_inexact)
		*n_inexact = inexact;
out:
	for (j = 0; r && j < n; j++)
		feas_result_release(&r[j]);
	cp_free(q);
	cp_free(r);
	return rc;
}

int pipe_check(struct pipe_model *pm, const struct pipe_data *pd,
	       unsigned flags, size_t threads, struct feas_result *res,
	       size_t *n_inexact, void (*progress)(void *, size_t, size_t),
	       void *progress_ctx, struct cp_error *err)
{
	size_t n = pd->n_obs - pd->n_unusable, i, j;
	size_t *idx = cp_calloc(n + 1, sizeof *idx);
	int rc;

	if (!idx)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0, j = 0; i < pd->n_obs; i++)
		if (pd->regions[i])
			idx[j++] = i;
	rc = check_list(pm, pd, idx, n, flags, threads, 0, res, n_inexact, progress,
			progress_ctx, err);
	cp_free(idx);
	return rc;
}

/* ==== one thread's share, for callers that spread it further ====
 * feas_check_batch hands thread t of T the chunks t, t + T, ... of the
 * usable observations, FEAS_CHUNK (256) each, each chunk checked in order
 * from a fresh LP; a lane is such a set of chunks, so checking every lane
 * on its own (pipe_check_some) gives pipe_check's verdicts and
 * explanations, for any number of lanes. */
#define LANE_CHUNK FEAS_CHUNK

size_t pipe_check_n_lanes(const struct pipe_data *pd, size_t threads)
{
	size_t n = pd->n_obs - pd->n_unusable;

	if (threads == 0)
		threads = feas_cpu_count();
	if (threads == 1 || n <= 1)
		return 1;
	if (threads > (n + LANE_CHUNK - 1) / LANE_CHUNK)
		threads = (n + LANE_CHUNK - 1) / LANE_CHUNK;
	return threads > 256 ? 256 : threads;
}

size_t pipe_check_lane(const struct pipe_data *pd, size_t threads, size_t lane,
		       size_t *obs)
{
	size_t lanes = pipe_check_n_lanes(pd, threads), i, j, n = 0;

	for (i = 0, j = 0; i < pd->n_obs; i++) {
		if (!pd->regions[i])
			continue;
		if ((j / LANE_CHUNK) % lanes == lane)
			obs[n++] = i;
		j++;
	}
	return n;
}

int pipe_check_some(struct pipe_model *pm, const struct pipe_data *pd,
		    const size_t *obs, size_t n, unsigned flags,
		    struct feas_result *res, size_t *n_inexact, struct cp_error *err)
{
	return check_list(pm, pd, obs, n, flags, 1, 1, res, n_inexact, NULL, NULL, err);
}

/* ==== the streamed check ====
 * Threads take work from one queue, checking before building: a chunk
 * ready to check (its FEAS_CHUNK usable observations all built: the same
 * chunks as pipe_check's, since chunks are formed in input order as the
 * built prefix grows) that the thread built itself, else the next block
 * of observations to build, else any chunk ready.  A block is a chunk's
 * worth (fewer on small data, so that every thread gets some), so a
 * chunk is mostly one thread's, checked on the core whose caches hold
 * its regions: checking the other thread's regions cost a quarter more
 * CPU at two threads.  Each chunk is checked from a fresh LP, as
 * feas_check_batch does, and its regions are trimmed once checked, so
 * their memory goes back to the allocator for the regions still to come
 * (nothing of the 11 KB a region holds at 26 counters stays, nor is
 * fresh memory touched for it). */
struct stream_chunk {
	size_t lo, hi;   /* its observations (the usable ones in it) */
	size_t j;        /* the usable index of its first */
	unsigned char owner;   /* who built its first observation, + 1 */
	unsigned char taken;
};

struct stream {
	struct pipe_model *pm;
	struct pipe_data *pd;
	unsigned flags;
	struct feas_result *res;
	pthread_mutex_t lock;
	pthread_cond_t moved;       /* a block built, or a failure */
	size_t next;                /* first observation no thread builds */
	size_t block;               /* observations a block */
	size_t building;            /* blocks being built */
	unsigned char *built;       /* n_obs: 0, or who built it + 1 */
	size_t prefix, usable;      /* observations 0..prefix built; usable of them */
	size_t gather, gather_j;    /* the chunk being gathered: its first observation */
	struct stream_chunk *ready; /* chunks to check, in order */
	size_t head, tail;
	size_t done, inexact;
	int stop;
	int rc_region, rc_check;    /* the first error of each kind (lowest observation) */
	size_t at_region, at_check;
	struct cp_error err_region, err_check;
};

/* The built prefix grows: chunks complete.  Under the lock. */
static void stream_advance(struct stream *s)
{
	struct pipe_data *pd = s->pd;

	while (s->prefix < pd->n_obs && s->built[s->prefix]) {
		if (pd->regions[s->prefix] &&
		    (++s->usable + pd->opt.usable_before) % FEAS_CHUNK == 0) {
			s->ready[s->tail++] = (struct stream_chunk){ s->gather,
				s->prefix + 1, s->gather_j, s->built[s->gather], 0 };
			s->gather = s->prefix + 1;
			s->gather_j = s->usable;
		}
		s->prefix++;
	}
	if (s->prefix == pd->n_obs && s->usable > s->gather_j && !pd->opt.partial) {
		s->ready[s->tail++] = (struct stream_chunk){ s->gather, pd->n_obs,
			s->gather_j, s->built[s->gather], 0 };
		s->gather = pd->n_obs;
		s->gather_j = s->usable;
	}
}

/* Check one chunk on the thread's checker, in order from a fresh LP
 * (feas_fresh_at), as check_in_turn would; then trim its regions. */
static int stream_check(struct stream *s, struct feas_checker *c,
			const struct stream_chunk *ch, size_t *at,
			size_t *inexact, struct cp_error *err)
{
	struct pipe_data *pd = s->pd;
	size_t i, j = ch->j + pd->opt.usable_before;
	int rc = CP_OK;

	for (i = ch->lo; i < ch->hi && !rc; i++) {
		struct feas_result r;

		if (!pd->regions[i])
			continue;
		if (feas_fresh_at(j++, s->flags))
			feas_checker_restart(c);
		feas_result_init(&r);
		rc = check_one(s->pm, c, &pd->queries[i], s->flags, &r, inexact, err);
		if (rc) {
			feas_result_release(&r);
			*at = i;
			break;
		}
		feas_result_release(&s->res[i]);
		s->res[i] = r;
	}
	for (i = ch->lo; i < ch->hi; i++) {
		region_trim(pd->regions[i]);
		memset(&pd->queries[i], 0, sizeof pd->queries[i]);
	}
	return rc;
}

/* The ready chunk thread `me` checks next: its own, else any when there
 * is nothing left to build; n: none.  Under the lock. */
static size_t stream_pick(struct stream *s, unsigned char me)
{
	size_t i;

	while (s->head < s->tail && s->ready[s->head].taken)
		s->head++;
	for (i = s->head; i < s->tail; i++)
		if (!s->ready[i].taken && s->ready[i].owner == me)
			return i;
	for (i = s->head; s->next >= s->pd->n_obs && i < s->tail; i++)
		if (!s->ready[i].taken)
			return i;
	return s->tail;
}

struct stream_part {
	struct stream *s;
	unsigned char me;   /* 1 + the thread's index */
	int caller;   /* the calling thread: it reports progress */
	void (*progress)(void *, size_t, size_t);
	void *ctx;
};

static void *stream_thread(void *arg)
{
	struct stream_part *part = arg;
	struct stream *s = part->s;
	struct pipe_data *pd = s->pd;
	struct feas_checker *c = NULL;
	struct cp_error err;
	double shown = 0;   /* progress every 50 ms at most, as a batch's */
	int rc;

	cp_error_clear(&err);
	rc = feas_checker_new(s->pm->fm, &c, &err);
	pthread_mutex_lock(&s->lock);
	if (rc && !s->rc_check) {
		s->rc_check = rc;
		s->at_check = (size_t)-1;
		s->err_check = err;
		s->stop = 1;
	}
	for (;;) {
		size_t lo, hi, i, at = 0, inexact = 0, k;

		if (s->stop)
			break;
		if ((k = stream_pick(s, part->me)) < s->tail) {
			struct stream_chunk ch = s->ready[k];

			s->ready[k].taken = 1;

			pthread_mutex_unlock(&s->lock);
			rc = stream_check(s, c, &ch, &at, &inexact, &err);
			pthread_mutex_lock(&s->lock);
			s->inexact += inexact;
			s->done += ch.hi - ch.lo;
			if (rc && (!s->rc_check || at < s->at_check)) {
				s->rc_check = rc;
				s->at_check = at;
				s->err_check = err;
			}
			s->stop |= rc != CP_OK;
		} else if (s->next < pd->n_obs) {
			lo = s->next;
			hi = lo + s->block < pd->n_obs ? lo + s->block : pd->n_obs;
			s->next = hi;
			s->building++;
			pthread_mutex_unlock(&s->lock);
			for (i = lo, rc = CP_OK; i < hi && !rc; i++) {
				cp_error_clear(&err);
				rc = data_observation(pd, &pd->ro, i, &err);
			}
			pthread_mutex_lock(&s->lock);
			s->building--;
			if (rc) {
				if (!s->rc_region || i - 1 < s->at_region) {
					s->rc_region = rc;
					s->at_region = i - 1;
					s->err_region = err;
				}
				s->stop = 1;
			} else {
				memset(s->built + lo, part->me, hi - lo);
				stream_advance(s);
			}
			pthread_cond_broadcast(&s->moved);
		} else if (s->building) {
			pthread_cond_wait(&s->moved, &s->lock);   /* a block still to come */
		} else {
			break;
		}
		if (part->caller && part->progress && cp_seconds() - shown >= 0.05) {
			size_t done = s->done;

			pthread_mutex_unlock(&s->lock);
			part->progress(part->ctx, done, pd->n_obs);
			shown = cp_seconds();
			pthread_mutex_lock(&s->lock);
		}
	}
	pthread_cond_broadcast(&s->moved);
	pthread_mutex_unlock(&s->lock);
	feas_checker_free(c);
	return NULL;
}

static void *stream_spawned(void *arg)
{
	stream_thread(arg);
	feas_thread_end();   /* the checker's GLPK environment */
	return NULL;
}

int pipe_check_stream(struct pipe_model *pm, struct pipe_data *pd,
		      unsigned flags, size_t threads, struct feas_result *res,
		      size_t *n_inexact, void (*progress)(void *, size_t, size_t),
		      void *progress_ctx, struct cp_error *err)
{
	struct stream s;
	struct stream_part part[65];
	pthread_t tid[64];
	size_t t, started = 0, i;
	int rc;

	if (n_inexact)
		*n_inexact = 0;
	if (!pd->opt.stream || pd->streamed)
		return cp_error_set(err, CP_EINTERNAL, "pipe_check_stream: the regions "
				    "are not made for it, or were checked already");
	if ((rc = data_fits(pd, pm, err)) || (rc = pipe_model_make_solver(pm, err)))
		return rc;
	pd->streamed = 1;
	memset(&s, 0, sizeof s);
	s.pm = pm;
	s.pd = pd;
	s.flags = flags;
	s.res = res;
	s.built = cp_calloc(pd->n_obs + 1, 1);
	s.ready = cp_calloc(pd->n_obs / FEAS_CHUNK + 2, sizeof *s.ready);
	if (!s.built || !s.ready) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	if (pthread_mutex_init(&s.lock, NULL)) {
		rc = cp_error_set(err, CP_EINTERNAL, "cannot create a mutex");
		goto out;
	}
	if (pthread_cond_init(&s.moved, NULL)) {
		pthread_mutex_destroy(&s.lock);
		rc = cp_error_set(err, CP_EINTERNAL, "cannot create a condition variable");
		goto out;
	}
	if (threads == 0)
		threads = feas_cpu_count();
	if (threads > (pd->n_obs + DATA_CHUNK - 1) / DATA_CHUNK)
		threads = (pd->n_obs + DATA_CHUNK - 1) / DATA_CHUNK;
	if (threads > sizeof tid / sizeof *tid + 1)
		threads = sizeof tid / sizeof *tid + 1;
	s.block = pd->n_obs / (4 * threads);
	s.block = s.block < DATA_CHUNK ? DATA_CHUNK :
		s.block > FEAS_CHUNK ? FEAS_CHUNK : s.block;
	/* threads beyond the calling one, which works too; the work is
	 * handed out, so fewer started only means slower */
	for (t = 0; t < threads; t++)
		part[t] = (struct stream_part){ &s, (unsigned char)(t + 1), t == 0,
			t == 0 ? progress : NULL, t == 0 ? progress_ctx : NULL };
	for (t = 0; t + 1 < threads; t++) {
		if (pthread_create(&tid[t], NULL, stream_spawned, &part[t + 1]))
			break;
		started++;
	}
	stream_thread(&part[0]);
	for (t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_cond_destroy(&s.moved);
	pthread_mutex_destroy(&s.lock);
	/* one thread would have built every region before checking one */
	if (s.rc_region) {
		rc = s.rc_region;
		if (err)
			*err = s.err_region;
	} else if (s.rc_check) {
		rc = s.rc_check;
		if (s.at_check == (size_t)-1) {
			if (err)
				*err = s.err_check;
		} else {
			stats_observation_error(pd->data, s.at_check, rc, err, "%.700s",
						s.err_check.msg);
		}
	}
	for (i = 0; i < pd->n_obs; i++)
		pd->n_unusable += s.built[i] && !pd->regions[i];
	/* a partial chunk left for the next part, or none */
	pd->n_done = s.usable > s.gather_j ? s.gather : pd->n_obs;
	if (n_inexact)
		*n_inexact = s.inexact;
out:
	cp_free(s.built);
	cp_free(s.ready);
	return rc;
}
