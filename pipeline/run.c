/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pipeline/run.c: the whole pipeline in one call (pipe_run): a model file,
 * a feature list and a dataset file to one verdict per observation, with
 * each violated constraint in its readable form.  What `counterpoint
 * check` does, for library callers and the Python binding. */
#include <string.h>

#include "pipeline/pipeline.h"

#include "geometry/cone.h"

struct pipe_run {
	struct udd_model *own_model;      /* pipe_run's own; NULL when borrowed */
	struct stats_dataset *own_data;
	const struct udd_model *model;
	const struct stats_dataset *data;
	struct pipe_data *pd;
	struct pipe_model *pm;
	size_t n;
	struct feas_result *res;  /* n; unusable ones left as initialised */
	char ***text;             /* n arrays of n_violations strings */
};

void pipe_run_free(struct pipe_run *r)
{
	size_t i, j;

	if (!r)
		return;
	for (i = 0; r->text && i < r->n; i++) {
		for (j = 0; r->text[i] && j < r->res[i].n_violations; j++)
			cp_free(r->text[i][j]);
		cp_free(r->text[i]);
	}
	cp_free(r->text);
	for (i = 0; r->res && i < r->n; i++)
		feas_result_release(&r->res[i]);
	cp_free(r->res);
	pipe_model_free(r->pm);
	pipe_data_free(r->pd);
	stats_dataset_free(r->own_data);
	udd_model_free(r->own_model);
	cp_free(r);
}

/* The violated constraints as check prints them (cone_readable's form). */
static int violation_texts(struct pipe_run *r, struct cp_error *err)
{
	size_t i, j, k = pipe_data_n_counters(r->pd);
	struct cp_buf b;

	if (!(r->text = cp_calloc(r->n + 1, sizeof *r->text)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < r->n; i++) {
		const struct feas_result *res = &r->res[i];

		if (!res->n_violations)
			continue;
		if (!(r->text[i] = cp_calloc(res->n_violations, sizeof **r->text)))
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		for (j = 0; j < res->n_violations; j++) {
			cp_buf_init(&b);
			cone_format_constraint(res->violations[j].a, k,
					       pipe_data_names(r->pd),
					       res->violations[j].is_equality, &b);
			r->text[i][j] = b.failed ? NULL : cp_strdup(b.data ? b.data : "");
			cp_buf_release(&b);
			if (!r->text[i][j])
				return cp_error_set(err, CP_ENOMEM, "out of memory");
		}
	}
	return CP_OK;
}

/* The checks, on r->model and r->data. */
static int run(struct pipe_run *r, const char *features,
	       const struct pipe_options *opt, size_t threads, struct cp_error *err)
{
	struct pipe_options o;
	struct pipe_budget budget = PIPE_BUDGET_CHECK;
	udd_features sel = 0;
	size_t i;
	int rc;

	if (opt) {
		o = *opt;
	} else {
		memset(&o, 0, sizeof o);
		o.batches = REGION_BATCHES_AUTO;
		o.shape = FEAS_PCA;
	}
	if (!o.confidence)
		o.confidence = 0.99;
	if (!o.threads)   /* the regions on the checks' threads */
		o.threads = threads ? threads : feas_cpu_count();
	if ((rc = udd_model_select(r->model, features, &sel, err)) ||
	    (rc = pipe_data_new(r->model, r->data, &o, &r->pd, err)) ||
	    (rc = pipe_model_new(r->model, sel, r->pd, &budget, &r->pm, err)))
		return rc;
	r->n = pipe_data_n_observations(r->pd);
	if (!(r->res = cp_calloc(r->n + 1, sizeof *r->res)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < r->n; i++)
		feas_result_init(&r->res[i]);
	if (r->n > pipe_data_n_unusable(r->pd) &&
	    (rc = pipe_check(r->pm, r->pd, FEAS_EXPLAIN, threads, r->res, NULL,
			     NULL, NULL, err)))
		return rc;
	return violation_texts(r, err);
}

int pipe_run(const char *model_path, const char *features,
	     const char *data_path, const struct pipe_options *opt,
	     size_t threads, struct pipe_run **out, struct cp_error *err)
{
	struct pipe_run *r;
	int rc;

	*out = NULL;
	if (!(r = cp_calloc(1, sizeof *r)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if ((rc = udd_model_parse_file(model_path, &r->own_model, err)))
		goto fail;
	r->model = r->own_model;
	if ((rc = stats_dataset_load_threads(data_path, threads, &r->own_data, NULL,
					      err)))
		goto fail;
	r->data = r->own_data;
	if ((rc = run(r, features, opt, threads, err)))
		goto fail;
	*out = r;
	return CP_OK;
fail:
	pipe_run_free(r);
	return rc;
}

int pipe_run_on(const struct udd_model *m, const char *features,
		const struct stats_dataset *d, const struct pipe_options *opt,
		size_t threads, struct pipe_run **out, struct cp_error *err)
{
	struct pipe_run *r;
	int rc;

	*out = NULL;
	if (!(r = cp_calloc(1, sizeof *r)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	r->model = m;
	r->data = d;
	if ((rc = run(r, features, opt, threads, err))) {
		pipe_run_free(r);
		return rc;
	}
	*out = r;
	return CP_OK;
}

/* ---- reading the verdicts ---- */

size_t pipe_run_n_observations(const struct pipe_run *r)
{
	return r->n;
}

const char *pipe_run_observation(const struct pipe_run *r, size_t i)
{
	return stats_dataset_observation(r->data, i);
}

enum pipe_verdict pipe_run_verdict(const struct pipe_run *r, size_t i)
{
	if (!pipe_data_region(r->pd, i))
		return PIPE_UNUSABLE;
	return r->res[i].feasible ? PIPE_FEASIBLE : PIPE_INFEASIBLE;
}

const char *pipe_run_unusable(const struct pipe_run *r, size_t i)
{
	return pipe_data_unusable(r->pd, i);
}

const struct feas_result *pipe_run_result(const struct pipe_run *r, size_t i)
{
	return &r->res[i];
}

size_t pipe_run_n_violations(const struct pipe_run *r, size_t i)
{
	return r->res[i].n_violations;
}

const char *pipe_run_violation(const struct pipe_run *r, size_t i, size_t j)
{
	return r->text[i][j];
}

const struct pipe_data *pipe_run_data(const struct pipe_run *r)
{
	return r->pd;
}

const struct pipe_model *pipe_run_model(const struct pipe_run *r)
{
	return r->pm;
}

const struct udd_model *pipe_run_udd_model(const struct pipe_run *r)
{
	return r->model;
}
