/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/witness.c: a point where a region meets the cone, for pictures
 * of a feasible observation: the box LP's solution (every signature a
 * column, solved afresh), or for the ellipsoid the cone's point nearest
 * the centre in the covariance's metric (the NNLS optimum). */
#include <glpk.h>
#include <lapacke.h>
#include <string.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

static int witness_ellipsoid(const struct feas_model *fm, const struct feas_query *q,
			     double *x, int *found, struct cp_error *err)
{
	size_t k = fm->k, m = fm->nr, p, i;
	double *L = cp_malloc(k * k * sizeof *L), *f = cp_malloc((m ? m : 1) * sizeof *f);
	double *r = cp_malloc(k * sizeof *r), kkt = 0;
	int rc = CP_OK;

	if (!L || !f || !r) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(L, q->cov, k * k * sizeof *L);
	if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (lapack_int)k, L, (lapack_int)k) != 0) {
		rc = cp_error_set(err, CP_EINPUT, "region covariance is not positive definite");
		goto out;
	}
	if ((rc = feas_nnls(k, m, fm->S, fm->snorm, L, q->mu, NULL, NULL, f, r, &kkt, err)))
		goto out;
	for (i = 0; i < k; i++)
		x[i] = 0;
	for (p = 0; p < m; p++)
		for (i = 0; i < k; i++)
			x[i] += fm->S[p * k + i] * f[p];
	*found = feas_dot(r, r, k) <= q->q;
out:
	cp_free(L);
	cp_free(f);
	cp_free(r);
	return rc;
}

int feas_witness(const struct feas_model *fm, const struct feas_query *q,
		 double *x, int *found, struct cp_error *err)
{
	struct worker *w = NULL;
	size_t k = fm->k, col, i;
	double sigma;
	int rc, verdict;

	*found = 0;
	if ((rc = feas_query_check(q, k, err)))
		return rc;
	if (fm->nr == 0)
		return CP_OK;     /* the cone is {0}: no point worth drawing */
	if (q->shape == FEAS_ELLIPSOID)
		return witness_ellipsoid(fm, q, x, found, err);
	if ((rc = feas_worker_new(fm, &w, err)))
		return rc;
	sigma = feas_box_scale(q, k);
	feas_activate_all(w);
	if ((rc = feas_box_solve(w, q, sigma, SOLVE_NEW_BOX, &verdict))) {
		rc = cp_error_set(err, rc, "the feasibility LP failed (GLPK)");
		goto out;
	}
	if (verdict != BOX_FEASIBLE)
		goto out;
	/* x = sigma S f: the LP is scaled by 1/sigma */
	for (i = 0; i < k; i++)
		x[i] = 0;
	for (col = 0; col < w->n_active; col++) {
		size_t p = w->colsig[col];
		double f = glp_get_col_prim(w->box, (int)(k + col) + 1);

		if (f > 0)
			for (i = 0; i < k; i++)
				x[i] += fm->S[p * k + i] * f;
	}
	for (i = 0; i < k; i++)
		x[i] *= sigma;
	*found = 1;
out:
	feas_worker_free(w);
	return rc;
}
