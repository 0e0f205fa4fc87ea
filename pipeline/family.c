/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pipeline/family.c: claims about a model as a whole, at a family-wise
 * confidence over the observations they rest on (pipeline.h, "family-wise
 * claims"; docs/method/statistics.md, section 10, derives the rule).  Each
 * observation infeasible at the regions' own level is checked again with
 * its region built at the level that n observations need together; the
 * regions at that level are built once, when an observation first needs
 * one, and kept for every model checked after. */
#include <math.h>
#include <string.h>

#include "pipeline/pipeline.h"
#include "pipeline/pipeline_int.h"

/* Fewer checks than this run in the calling thread. */
#define FAMILY_THREADED 256

struct pipe_family {
	const struct pipe_data *pd;
	double confidence;          /* family-wise, C */
	double level;               /* each observation's, C^(1/n) */
	size_t n;
	struct region **regions;    /* n_obs, at level, built on first need */
	struct feas_query *queries;
	int same;                   /* level is the regions' own */
};

void pipe_put_level(struct cp_buf *b, double confidence)
{
	/* the nudge keeps 0.99 from printing as 98.9999 */
	double p = floor(confidence * 1e6 + 1e-6) / 1e4;

	cp_buf_printf(b, "%.10g%%", p);
}

double pipe_family_level_for(double family_confidence, double confidence, size_t n)
{
	double alpha;

	if (n <= 1)
		return family_confidence > confidence ? family_confidence : confidence;
	/* 1 - C^(1/n) without the cancellation of 1 - pow() */
	alpha = -expm1(log(family_confidence) / (double)n);
	return 1 - alpha > confidence ? 1 - alpha : confidence;
}

int pipe_family_new(const struct pipe_data *pd, double family_confidence, size_t n,
		    struct pipe_family **out, struct cp_error *err)
{
	struct pipe_family *fam;
	size_t no = pipe_data_n_observations(pd);
	double c = pipe_data_options(pd)->confidence;

	*out = NULL;
	if (family_confidence == 0)
		family_confidence = 0.99;
	if (!(family_confidence > 0 && family_confidence < 1))
		return cp_error_set(err, CP_EINPUT, "family-wise confidence %g is not "
				    "in (0, 1)", family_confidence);
	fam = cp_calloc(1, sizeof *fam);
	if (!fam)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	fam->pd = pd;
	fam->confidence = family_confidence;
	fam->n = n;
	fam->level = pipe_family_level_for(family_confidence, c, n);
	fam->same = !(fam->level > c);
	fam->regions = cp_calloc(no + 1, sizeof *fam->regions);
	fam->queries = cp_calloc(no + 1, sizeof *fam->queries);
	if (!fam->regions || !fam->queries) {
		pipe_family_free(fam);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	*out = fam;
	return CP_OK;
}

void pipe_family_free(struct pipe_family *fam)
{
	size_t i;

	if (!fam)
		return;
	for (i = 0; fam->regions && i < pipe_data_n_observations(fam->pd); i++)
		region_free(fam->regions[i]);
	cp_free(fam->regions);
	cp_free(fam->queries);
	cp_free(fam);
}

double pipe_family_confidence(const struct pipe_family *fam) { return fam->confidence; }
double pipe_family_level(const struct pipe_family *fam) { return fam->level; }
size_t pipe_family_n(const struct pipe_family *fam) { return fam->n; }

const struct feas_query *pipe_family_query(const struct pipe_family *fam, size_t i)
{
	if (i >= pipe_data_n_observations(fam->pd))
		return NULL;
	if (fam->same)
		return pipe_data_query(fam->pd, i);
	return fam->regions[i] ? &fam->queries[i] : NULL;
}

/* Observation i's region at the family's level, built once. */
static int family_region(struct pipe_family *fam, size_t i, struct cp_error *err)
{
	const struct pipe_data *pd = fam->pd;
	struct region_options ro = *pipe_data_region_options(pd);

	if (fam->regions[i])
		return CP_OK;
	ro.confidence = fam->level;
	ro.lean = 1;   /* only the solver reads it */
	ro.no_pca_box = pipe_data_options(pd)->shape != FEAS_PCA;
	if (stats_observation_region(pipe_data_dataset(pd), i, pipe_data_events(pd),
				     pipe_data_n_counters(pd), &ro, &fam->regions[i], err))
		return err ? err->code : CP_EINPUT;
	feas_query_from_region(fam->regions[i], pipe_data_options(pd)->shape,
			       &fam->queries[i]);
	return CP_OK;
}

int pipe_family_check(struct pipe_family *fam, struct pipe_model *pm,
		      const struct feas_result *res, size_t threads,
		      unsigned char *refutes, size_t *n_refuting, size_t *n_inexact,
		      struct cp_error *err)
{
	const struct pipe_data *pd = fam->pd;
	size_t no = pipe_data_n_observations(pd), i, n = 0, inexact = 0;
	size_t *idx = NULL;
	struct feas_query *q = NULL;
	struct feas_result *r = NULL;
	int rc = CP_OK;

	*n_refuting = 0;
	if (n_inexact)
		*n_inexact = 0;
	for (i = 0; i < no; i++)
		refutes[i] = !pipe_data_unusable(pd, i) && !res[i].feasible;
	if (fam->same) {
		for (i = 0; i < no; i++)
			*n_refuting += refutes[i];
		return CP_OK;
	}
	idx = cp_calloc(no + 1, sizeof *idx);
	q = cp_calloc(no + 1, sizeof *q);
	r = cp_calloc(no + 1, sizeof *r);
	if (!idx || !q || !r) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < no && !rc; i++) {
		if (!refutes[i])
			continue;
		if ((rc = family_region(fam, i, err)))
			break;
		q[n] = fam->queries[i];
		feas_result_init(&r[n]);
		idx[n++] = i;
	}
	if (!rc && n)
		rc = pipe_model_make_solver(pm, err);
	/* a few checks are cheaper in turn than the threads they would start */
	if (!rc && n)
		rc = pipe_check_queries(pm, q, n, 0, n < FAMILY_THREADED ? 1 : threads, 0,
					r, &inexact, NULL, NULL, err);
	for (i = 0; i < n; i++) {
		if (!rc) {
			refutes[idx[i]] = !r[i].feasible;
			*n_refuting += refutes[idx[i]];
		}
		feas_result_release(&r[i]);
	}
	if (n_inexact)
		*n_inexact = inexact;
out:
	cp_free(idx);
	cp_free(q);
	cp_free(r);
	return rc;
}

void pipe_family_put_claim(struct cp_buf *b, const struct pipe_family *fam,
			   size_t infeasible, size_t n_refuting)
{
	size_t n = fam->n;
	double c = pipe_data_options(fam->pd)->confidence;

	cp_buf_printf(b, "model as a whole: %s at ", n_refuting ? "REFUTED" : "not refuted");
	pipe_put_level(b, fam->confidence);
	cp_buf_printf(b, " over the %zu usable observation%s (", n, n == 1 ? "" : "s");
	if (!infeasible) {
		cp_buf_puts(b, "none infeasible at ");
		pipe_put_level(b, c);
		cp_buf_puts(b, " each)\n");
		return;
	}
	cp_buf_printf(b, "%zu infeasible at ", infeasible);
	pipe_put_level(b, c);
	cp_buf_puts(b, " each");
	if (fam->level > c) {
		if (n_refuting == infeasible)
			cp_buf_printf(b, ", %s at ", infeasible == 1 ? "also" : "all also");
		else if (n_refuting)
			cp_buf_printf(b, ", %zu of them at ", n_refuting);
		else
			cp_buf_puts(b, ", none at ");
		pipe_put_level(b, fam->level);
		cp_buf_puts(b, ", the level each needs for ");
		pipe_put_level(b, fam->confidence);
		cp_buf_printf(b, " over %zu", n);
	}
	cp_buf_puts(b, ")\n");
}
