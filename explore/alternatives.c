/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/alternatives.c: what separates two feasible models A and B of a
 * family (the evaluator's separate callback).  A constraint of A's cone
 * (an equality or facet, exact integers) that some of B's signatures
 * break is what an observation would have to break to refute A while
 * leaving B's μpaths a way to explain it.  Among A's listed constraints B
 * breaks, the one the data come closest to breaking (largest margin) is
 * reported, in its readable form (geometry/constraint.c), with B's μpaths
 * that break it named as `counterpoint paths` names them, and every
 * observation's margin on it (solver/support.c). */
#include <string.h>

#include "explore/family_int.h"

#include "geometry/cone.h"
#include "solver/feas.h"
#include "stats/region.h"

struct broken_ctx {
	const uint32_t *S;        /* B's signatures */
	size_t m, k;
	int is_eq;
};

/* How many rows of S break a (a.x >= 0, or = 0). */
static size_t n_broken(const int64_t *a, int is_eq, const uint32_t *S, size_t m,
		       size_t k)
{
	size_t j, n = 0;

	for (j = 0; j < m; j++) {
		__int128 v = cone_dot_exact(a, S + j * k, k);

		n += is_eq ? v != 0 : v < 0;
	}
	return n;
}

static int some_broken(const int64_t *a, void *ctx)
{
	struct broken_ctx *c = ctx;

	return n_broken(a, c->is_eq, c->S, c->m, c->k) > 0;
}

/* The largest margin over the observations (closest to refuting A). */
static double closest(struct explore_family *f, const int64_t *a, int is_eq,
		      double *tmp)
{
	double best = -1e300;
	size_t i;

	for (i = 0; i < f->k; i++)
		tmp[i] = (double)a[i];
	for (i = 0; i < f->n_obs; i++) {
		double m = feas_margin(pipe_data_query(f->pd, i), tmp, f->k, is_eq, NULL);

		if (m > best)
			best = m;
	}
	return best;
}

static int name_paths(struct explore_family *f, udd_features b, const int64_t *a,
		      int is_eq, struct explore_separation *out,
		      struct cp_error *err)
{
	const size_t *cols = pipe_data_columns(f->pd);
	struct udd_sigset *ss = NULL;
	uint32_t *v;
	size_t j, i, u;
	int rc;

	v = cp_malloc(f->k * sizeof *v);
	if (!v)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	rc = udd_sigset_build(f->model, b, 0, &ss, err);
	for (j = 0; !rc && j < udd_sigset_size(ss); j++) {
		const uint32_t *s = udd_sigset_signature(ss, j);
		struct explore_path *p;
		struct cp_buf t;

		for (i = 0; i < f->k; i++)
			v[i] = s[cols[i]];
		if (!n_broken(a, is_eq, v, 1, f->k))
			continue;
		if (out->n_paths++ >= EXPLORE_MAX_PATHS)
			continue;
		p = &out->paths[out->n_shown++];
		cp_buf_init(&t);
		for (u = 0; u < udd_sigset_uop_count(ss, j); u++)
			cp_buf_printf(&t, "%s%s", u ? "; " : "",
				      udd_sigset_uop_name(ss, j, u));
		p->uop = t.data;
		cp_buf_init(&t);
		udd_signature_text(f->model, s, &t);
		p->counters = t.data;
		p->example = cp_strdup(udd_sigset_example(ss, j));
		if (!p->uop || !p->counters || !p->example)
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	udd_sigset_free(ss);
	cp_free(v);
	return rc;
}

int explore_family_separate(void *ctx, udd_features a_sel, udd_features b_sel,
			    struct explore_separation *out, struct cp_error *err)
{
	struct explore_family *f = ctx;
	struct entry *ea, *eb;
	const uint32_t *SA, *SB;
	size_t mA, mB, i, k = f->k;
	int64_t *best = NULL;
	double *tmp = NULL, best_score = 0;
	int best_eq = 0, have = 0, rc;
	struct cp_buf t;

	rc = explore_family_entry(f, b_sel, &eb, err);
	if (!rc)
		rc = explore_family_entry(f, a_sel, &ea, err);
	if (!rc)
		rc = explore_family_entry(f, b_sel, &eb, err);   /* the table may have moved */
	if (!rc)
		rc = explore_entry_facets_here(f, ea, err);
	if (rc)
		return rc;
	SA = pipe_model_signatures(ea->pm);
	mA = pipe_model_n_signatures(ea->pm);
	SB = pipe_model_signatures(eb->pm);
	mB = pipe_model_n_signatures(eb->pm);
	best = cp_calloc(k, sizeof *best);
	tmp = cp_calloc(k + 1, sizeof *tmp);
	if (!best || !tmp) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	if (pipe_model_has_facets(ea->pm)) {
		size_t ne = pipe_model_n_equalities(ea->pm);
		size_t nall = ne + pipe_model_n_facets(ea->pm);

		for (i = 0; i < nall; i++) {
			const int64_t *c = pipe_model_constraint(ea->pm, i);
			int is_eq = i < ne;
			double score;

			if (!n_broken(c, is_eq, SB, mB, k))
				continue;
			out->n_constraints++;
			score = closest(f, c, is_eq, tmp);
			if (!have || score > best_score ||
			    (score == best_score && cone_vec_nnz(c, k) < cone_vec_nnz(best, k))) {
				memcpy(best, c, k * sizeof *best);
				best_eq = is_eq;
				best_score = score;
				have = 1;
			}
		}
	} else {
		/* no facets: the first signature of B outside A's cone gives
		 * a separating constraint (exact) */
		for (i = 0; i < mB && !have && !rc; i++) {
			int inside = 1;

			rc = explore_point_in_cone(f, SA, mA, SB + i * k, &inside,
						   best, &best_eq, err);
			have = inside == 0;
		}
		if (rc)
			goto out;
	}
	if (!have) {
		out->within = 1;
		goto out;
	}
	{
		struct broken_ctx bc = { SB, mB, k, best_eq };

		cone_readable(k, pipe_model_span_equalities(ea->pm),
			      pipe_model_n_span_equalities(ea->pm), SA, mA, best_eq,
			      some_broken, &bc, best);
	}
	out->is_equality = best_eq;
	cp_buf_init(&t);
	cone_format_constraint(best, k, f->names, best_eq, &t);
	out->constraint = t.data;
	if (!out->constraint) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	rc = name_paths(f, b_sel, best, best_eq, out, err);
	if (rc)
		goto out;
	out->margins = cp_calloc(f->n_obs ? f->n_obs : 1, sizeof *out->margins);
	if (!out->margins) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < k; i++)
		tmp[i] = (double)best[i];
	for (i = 0; i < f->n_obs; i++) {
		struct explore_margin *mg = &out->margins[out->n_margins++];

		mg->margin = feas_margin(pipe_data_query(f->pd, i), tmp, k, best_eq,
					 &mg->mean_sd);
		mg->observation = cp_strdup(stats_dataset_observation(f->data, i));
		if (!mg->observation) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			goto out;
		}
	}
out:
	cp_free(best);
	cp_free(tmp);
	return rc;
}
