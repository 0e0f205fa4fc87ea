/* SPDX-License-Identifier: GPL-3.0-or-later */
/* capi/counterpoint.c: plain-typed entry points over the pipeline and the
 * explorer, for foreign-function callers (python/counterpoint).  No
 * computation of its own: each function forwards to the module that owns
 * the work. */
#include <math.h>
#include <string.h>

#include "capi/counterpoint.h"

#include "explore/explore.h"
#include "geometry/cone.h"

size_t counterpoint_error_size(void)
{
	return sizeof(struct cp_error);
}

void counterpoint_free(void *p)
{
	cp_free(p);
}

char *counterpoint_constraint_text(const int64_t *a, size_t k,
				   const char *const *names, int is_equality)
{
	struct cp_buf b;
	char *s;

	cp_buf_init(&b);
	cone_format_constraint(a, k, names, is_equality, &b);
	s = b.failed ? NULL : cp_strdup(b.data ? b.data : "");
	cp_buf_release(&b);
	return s;
}

/* The region options both entry points take, checked. */
static int region_options(int shape, double confidence, size_t batches,
			  struct pipe_options *o, struct cp_error *err)
{
	if (shape < FEAS_PCA || shape > FEAS_ELLIPSOID)
		return cp_error_set(err, CP_EINPUT, "region shape %d: 0 (PCA box), "
				    "1 (independent box) or 2 (ellipsoid)", shape);
	if (confidence != 0 && !(confidence > 0 && confidence < 1))
		return cp_error_set(err, CP_EINPUT, "confidence %g is not in (0, 1)",
				    confidence);
	memset(o, 0, sizeof *o);
	o->shape = (enum feas_shape)shape;
	o->confidence = confidence;
	o->batches = batches;
	return CP_OK;
}

int counterpoint_check(const struct udd_model *m, const char *features,
		       const struct stats_dataset *d, int shape,
		       double confidence, size_t batches, int per_interval,
		       const char *counters, size_t threads,
		       struct pipe_run **out, struct cp_error *err)
{
	struct pipe_options o;
	int rc;

	*out = NULL;
	if ((rc = region_options(shape, confidence, batches, &o, err)))
		return rc;
	o.per_interval = per_interval;
	o.counters = counters;
	return pipe_run_on(m, features, d, &o, threads, out, err);
}

int counterpoint_flows(const struct udd_model *m, const char *features,
		       const struct stats_dataset *d, int shape,
		       double confidence, size_t batches, size_t threads,
		       const char *model_name, const char *data_name,
		       char **json, struct cp_error *err)
{
	struct pipe_options o;
	struct pipe_data *pd = NULL;
	struct pipe_flows *pf = NULL;
	struct pipe_flow_bounds *out = NULL;
	enum pipe_flow_status *status = NULL;
	udd_features sel = 0;
	struct cp_buf b;
	int rc;

	*json = NULL;
	cp_buf_init(&b);
	if ((rc = region_options(shape, confidence ? confidence : 0.99, batches, &o, err)))
		return rc;
	o.threads = threads;
	if ((rc = udd_model_select(m, features, &sel, err)))
		return rc;
	if (!sel)
		return cp_error_set(err, CP_EINPUT, "name the features whose flows to bound");
	if ((rc = pipe_data_new(m, d, &o, &pd, err)) ||
	    (rc = pipe_flows_run(m, sel, pd, threads, &pf, &out, &status, err)))
		goto out;
	pipe_flows_json_report(pf, pd, model_name ? model_name : "",
			       data_name ? data_name : "", out, status, NULL, &b);
	if (b.failed || !(*json = cp_strdup(b.data ? b.data : "")))
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	cp_buf_release(&b);
	cp_free(status);
	cp_free(out);
	pipe_flows_free(pf);
	pipe_data_free(pd);
	return rc;
}

int counterpoint_run_borderline(const struct pipe_run *r, size_t i)
{
	return pipe_run_result(r, i)->borderline;
}

int counterpoint_run_undecided(const struct pipe_run *r, size_t i)
{
	return pipe_run_result(r, i)->undecided;
}

double counterpoint_run_d2(const struct pipe_run *r, size_t i)
{
	return pipe_run_result(r, i)->d2;
}

double counterpoint_run_p_value(const struct pipe_run *r, size_t i)
{
	return pipe_run_result(r, i)->p_value;
}

double counterpoint_run_margin(const struct pipe_run *r, size_t i, size_t j)
{
	return pipe_run_result(r, i)->violations[j].margin;
}

int counterpoint_run_is_equality(const struct pipe_run *r, size_t i, size_t j)
{
	return pipe_run_result(r, i)->violations[j].is_equality;
}

const int64_t *counterpoint_run_coefficients(const struct pipe_run *r,
					     size_t i, size_t j)
{
	return pipe_run_result(r, i)->violations[j].a;
}

double counterpoint_run_mean_sd(const struct pipe_run *r, size_t i, size_t j)
{
	return pipe_run_result(r, i)->violations[j].mean_sd;
}

int counterpoint_regions(const struct udd_model *m, const struct stats_dataset *d,
			 int shape, double confidence, size_t batches,
			 int per_interval, const char *counters, size_t threads,
			 struct pipe_data **out, struct cp_error *err)
{
	struct pipe_options o;
	int rc;

	*out = NULL;
	if ((rc = region_options(shape, confidence ? confidence : 0.99, batches, &o, err)))
		return rc;
	o.per_interval = per_interval;
	o.counters = counters;
	o.threads = threads;
	return pipe_data_new(m, d, &o, out, err);
}

const double *counterpoint_region_array(const struct pipe_data *pd, size_t i,
					int which)
{
	const struct region *r = pipe_data_region(pd, i);

	if (!r)
		return NULL;
	switch (which) {
	case 0: return r->mu;
	case 1: return r->half_ind;
	case 2: return r->half_pca;
	case 3: return r->box_axes;
	case 4: return r->cov;
	default: return NULL;
	}
}

double counterpoint_region_number(const struct pipe_data *pd, size_t i, int which)
{
	const struct region *r = pipe_data_region(pd, i);

	if (!r)
		return NAN;
	switch (which) {
	case 0: return (double)r->n;
	case 1: return r->q;
	case 2: return r->confidence;
	case 3: return r->rule == REGION_RULE_DIAGONAL;
	case 4: return r->dof_floored;
	default: return NAN;
	}
}

size_t counterpoint_run_n_counters(const struct pipe_run *r)
{
	return pipe_data_n_counters(pipe_run_data(r));
}

const char *counterpoint_run_counter(const struct pipe_run *r, size_t c)
{
	return pipe_data_names(pipe_run_data(r))[c];
}

int counterpoint_explore(const struct udd_model *m,
			 const struct stats_dataset *d, const char *start,
			 const char *candidates, int exhaustive,
			 size_t max_models, size_t threads, char **json,
			 struct cp_error *err)
{
	struct explore_family_options fo;
	struct explore_options so;
	struct explore_space space;
	struct explore_evaluator ev;
	struct explore_family *fam = NULL;
	struct explore_search *s = NULL;
	const char **names = NULL;
	struct cp_buf b;
	size_t i, n = 0;
	int rc;

	*json = NULL;
	memset(&fo, 0, sizeof fo);
	memset(&so, 0, sizeof so);
	memset(&space, 0, sizeof space);
	cp_buf_init(&b);
	fo.threads = threads;
	so.exhaustive = exhaustive;
	so.max_models = max_models;
	space.n_features = udd_model_n_features(m);
	space.candidates = space.n_features >= 64 ? ~(udd_features)0 :
		((udd_features)1 << space.n_features) - 1;
	if ((rc = udd_model_select(m, start, &space.start, err)) ||
	    (candidates && (rc = udd_model_select(m, candidates, &space.candidates, err))))
		goto out;
	n = explore_space_n_varying(&space);
	if (exhaustive && n > EXPLORE_EXHAUSTIVE_MAX) {
		rc = cp_error_set(err, CP_EINPUT, "an exhaustive search over %zu "
				  "features would test 2^%zu models; name the "
				  "candidates", n, n);
		goto out;
	}
	if (!(names = cp_calloc(space.n_features + 1, sizeof *names))) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < space.n_features; i++)
		names[i] = udd_model_feature_name(m, i);
	space.names = names;
	if ((rc = explore_family_new(m, d, &fo, &fam, err)))
		goto out;
	explore_family_evaluator(fam, &ev);
	so.confidence = 0.99;
	so.family_confidence = explore_family_confidence(fam);
	so.family_level = explore_family_level(fam);
	if ((rc = explore_run(&space, &ev, &so, &s, err)))
		goto out;
	explore_report_json(s, udd_model_file(m), stats_dataset_path(d), &b);
	if (b.failed || !(*json = cp_strdup(b.data ? b.data : "")))
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	cp_buf_release(&b);
	explore_free(s);
	explore_family_free(fam);
	cp_free(names);
	return rc;
}
