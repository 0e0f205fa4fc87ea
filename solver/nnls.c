/* solver/nnls.c: non-negative least squares (Lawson and Hanson, "Solving
 * Least Squares Problems", 1974, ch. 23) on LAPACK's QR, certified by the
 * KKT conditions.  Used for the exact ellipsoid test: the smallest
 * Mahalanobis distance from an observation's mean to the model cone. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "solver/feas_int.h"

/* Least squares on the passive columns: z_P = argmin ||A_P z - b||, by
 * LAPACK's dgels (Householder QR).  work holds k*|P| + max(k,|P|). */
static int passive_ls(size_t k, const double *A, const size_t *P, size_t np,
		      const double *b, double *work, double *z)
{
	double *AP = work, *rhs = work + k * np;
	size_t i, j;
	lapack_int info;

	for (j = 0; j < np; j++)
		memcpy(AP + j * k, A + P[j] * k, k * sizeof *AP);
	memset(rhs, 0, (k > np ? k : np) * sizeof *rhs);
	memcpy(rhs, b, k * sizeof *rhs);
	info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)k,
			     (lapack_int)np, 1, AP, (lapack_int)k, rhs,
			     (lapack_int)(k > np ? k : np));
	if (info < 0)
		return -1;
	if (info > 0) {
		/* A_P is rank-deficient (a column dependent on the others):
		 * signal it so the caller drops the newest column. */
		return 1;
	}
	for (i = 0; i < np; i++)
		z[i] = rhs[i];
	return 0;
}

/* w = A^T (b - A f) and r = A f - b. */
static void gradient(size_t k, size_t m, const double *A, const double *b,
		     const double *f, double *r, double *w)
{
	size_t i, p;

	for (i = 0; i < k; i++)
		r[i] = -b[i];
	for (p = 0; p < m; p++)
		if (f[p] != 0)
			for (i = 0; i < k; i++)
				r[i] += A[p * k + i] * f[p];
	for (p = 0; p < m; p++) {
		double s = 0;

		for (i = 0; i < k; i++)
			s -= A[p * k + i] * r[i];
		w[p] = s;
	}
}

int feas_nnls(size_t k, size_t m, const double *A, const double *b,
	      double *f, double *r, double *kkt, struct cp_error *err)
{
	double *w = NULL, *z = NULL, *work = NULL, *colnorm = NULL;
	unsigned char *in_p = NULL, *banned = NULL;
	size_t *P = NULL, np = 0, p, i, outer, max_outer = 3 * (m + k) + 30;
	double bnorm = 0, tol;
	int rc = CP_OK;

	w = cp_malloc((m ? m : 1) * sizeof *w);
	z = cp_malloc((k + m + 1) * sizeof *z);
	work = cp_malloc((k * (k + 1) + 2 * (k + m) + 1) * sizeof *work);
	colnorm = cp_malloc((m ? m : 1) * sizeof *colnorm);
	in_p = cp_calloc(m ? m : 1, 1);
	banned = cp_calloc(m ? m : 1, 1);
	P = cp_malloc((k + 1) * sizeof *P);
	if (!w || !z || !work || !colnorm || !in_p || !banned || !P) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory in the ellipsoid test");
		goto out;
	}
	for (i = 0; i < k; i++)
		bnorm += b[i] * b[i];
	bnorm = sqrt(bnorm);
	for (p = 0; p < m; p++) {
		double s = 0;

		for (i = 0; i < k; i++)
			s += A[p * k + i] * A[p * k + i];
		colnorm[p] = sqrt(s);
		f[p] = 0;
	}
	/* A column may enter only when its gradient is clearly positive,
	 * relative to its own length and the right-hand side's. */
	tol = 1e-11 * (bnorm > 1 ? bnorm : 1);
	gradient(k, m, A, b, f, r, w);
	for (outer = 0; outer < max_outer; outer++) {
		size_t t = m, inner;
		double best = 0;

		for (p = 0; p < m; p++)
			if (!in_p[p] && !banned[p] && colnorm[p] > 0 &&
			    w[p] > tol * colnorm[p] && w[p] / colnorm[p] > best) {
				best = w[p] / colnorm[p];
				t = p;
			}
		if (t == m || np >= k)
			break;
		P[np++] = t;
		in_p[t] = 1;
		for (inner = 0; inner < 3 * k + 10; inner++) {
			double alpha = 1;
			int ls = passive_ls(k, A, P, np, b, work, z);
			size_t j, keep;

			if (ls < 0) {
				rc = cp_error_set(err, CP_ENUMERIC,
						  "least squares failed in the ellipsoid test");
				goto out;
			}
			if (ls > 0) {
				/* the newest column is dependent: ban it */
				np--;
				in_p[P[np]] = 0;
				banned[P[np]] = 1;
				break;
			}
			for (j = 0; j < np; j++)
				if (z[j] <= 0) {
					double fj = f[P[j]];
					double s = fj / (fj - z[j]);

					if (s < alpha)
						alpha = s;
				}
			if (alpha >= 1) {
				for (j = 0; j < np; j++)
					f[P[j]] = z[j];
				break;
			}
			/* Step towards z until a passive variable hits zero,
			 * then move every zero one back to the active set. */
			for (j = 0; j < np; j++)
				f[P[j]] += alpha * (z[j] - f[P[j]]);
			for (j = keep = 0; j < np; j++) {
				if (f[P[j]] <= 1e-15 * (1 + fabs(z[j]))) {
					f[P[j]] = 0;
					in_p[P[j]] = 0;
				} else {
					P[keep++] = P[j];
				}
			}
			np = keep;
		}
		gradient(k, m, A, b, f, r, w);
		/* a new round may reconsider banned columns */
		memset(banned, 0, m);
	}
	/* KKT certificate, relative to the scale of the problem. */
	{
		double worst = 0, scale = bnorm > 0 ? bnorm : 1;

		gradient(k, m, A, b, f, r, w);
		for (p = 0; p < m; p++) {
			double v, cn = colnorm[p] > 0 ? colnorm[p] : 1;

			if (f[p] > 0)
				v = fabs(w[p]);
			else
				v = w[p] > 0 ? w[p] : 0;
			v /= cn * scale;
			if (v > worst)
				worst = v;
		}
		*kkt = worst;
	}
out:
	cp_free(w);
	cp_free(z);
	cp_free(work);
	cp_free(colnorm);
	cp_free(in_p);
	cp_free(banned);
	cp_free(P);
	return rc;
}
