/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/prefilter.c: box verdicts without an LP.  When the model holds
 * the cone's whole H-representation (feas_model_set_complete), most
 * observations are decided in closed form, and only the rest reach the
 * LP:
 *   - infeasible: one listed constraint (a verified facet or equality of
 *     the cone) is broken by the whole box, by a margin far beyond
 *     rounding;
 *   - feasible: the box's central point on the cone's linear hull (the
 *     point of {E x = 0} nearest the centre in the box's own metric),
 *     moved along the signatures' sum or, when that leaves the box, by a
 *     few sweeps of alternating projections (facets, box, hull), lies
 *     inside the box and strictly inside every facet.
 * Both tests keep FEAS_TOL_PREFILTER of the magnitudes in hand, 10x
 * GLPK's tolerance, so a verdict decided here is one the LP could not
 * call borderline; everything closer goes to the LP as before. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

/* The box as k columns m_i (x = mu + sum_i t_i m_i, |t_i| <= 1): PCA,
 * half_i times axis i; independent, half_j times e_j. */

/* The non-zero positions of constraint c, ascending.  Skipping a zero
 * term of a sum leaves it bit for bit what it was (the terms are finite,
 * and adding +-0 changes no sum), so the sparse loops below compute the
 * dense formulas' very numbers. */
static size_t cons_nz(const struct feas_model *fm, size_t c, const uint32_t **ix)
{
	*ix = fm->cons_idx + fm->cons_start[c];
	return fm->cons_start[c + 1] - fm->cons_start[c];
}

/* Where row c of B (constraint c in box coordinates, B_ci = m_i.c) can be
 * non-zero: the constraint's own counters for an independent box, every
 * axis for a PCA box. */
static size_t brow_nz(const struct feas_model *fm, const struct feas_query *q,
		      size_t c, const uint32_t **ix)
{
	if (q->shape == FEAS_INDEPENDENT)
		return cons_nz(fm, c, ix);
	*ix = fm->iota;
	return fm->k;
}

/* B = every constraint in box coordinates, n_cons x k (zero where
 * brow_nz does not reach): B_ci = half_i (axis_i . c), or half_i c_i. */
static void box_rows(const struct feas_model *fm, const struct feas_query *q,
		     double *B, double *axt)
{
	size_t k = fm->k, c, i, j, p, n;
	const uint32_t *ix;

	if (q->shape == FEAS_INDEPENDENT)
		memset(B, 0, fm->n_cons * k * sizeof *B);
	else
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++)
				axt[j * k + i] = q->axes[i * k + j];
	for (c = 0; c < fm->n_cons; c++) {
		const int64_t *ci = fm->cons + c * k;
		double *b = B + c * k;

		n = cons_nz(fm, c, &ix);
		if (q->shape == FEAS_INDEPENDENT) {
			for (p = 0; p < n; p++)
				b[ix[p]] = q->half[ix[p]] * (double)ci[ix[p]];
			continue;
		}
		/* b_i = half_i sum_p c_p axes_i,p: each sum over c's
		 * non-zeros in their order, all k of them at once */
		for (i = 0; i < k; i++)
			b[i] = 0;
		for (p = 0; p < n; p++) {
			const double *col = axt + (size_t)ix[p] * k;
			double cv = (double)ci[ix[p]];

			for (i = 0; i < k; i++)
				b[i] += cv * col[i];
		}
		for (i = 0; i < k; i++)
			b[i] = q->half[i] * b[i];
	}
}

/* c.x and sum_j |c_j x_j| in long double, over c's non-zeros. */
static long double cons_dot(const struct feas_model *fm, size_t c,
			    const double *x, long double *mag)
{
	const int64_t *ci = fm->cons + c * fm->k;
	const uint32_t *ix;
	size_t n = cons_nz(fm, c, &ix), p;
	long double dot = 0, m = 0;

	for (p = 0; p < n; p++) {
		dot += (long double)ci[ix[p]] * x[ix[p]];
		m += fabsl((long double)ci[ix[p]] * x[ix[p]]);
	}
	*mag = m;
	return dot;
}

/* Infeasible when one listed constraint is broken by the whole box:
 * max over the box of c.(x - mu) is sum_i |B_ci| (as feas_spread). */
static int prefilter_infeasible(const struct feas_model *fm,
				const struct feas_query *q, const double *B)
{
	size_t c, p, n;
	const uint32_t *ix;

	for (c = 0; c < fm->n_cons; c++) {
		long double mag, dot = cons_dot(fm, c, q->mu, &mag), h = 0;

		n = brow_nz(fm, q, c, &ix);
		for (p = 0; p < n; p++)
			h += fabsl((long double)B[c * fm->k + ix[p]]);
		mag += h;
		if (!(mag > 0))
			continue;
		if (fm->cons_eq[c] ? fabsl(dot) - h > FEAS_TOL_PREFILTER * mag
				   : dot + h < -FEAS_TOL_PREFILTER * mag)
			return 1;
	}
	return 0;
}

/* y = G^{-1} b in place, with G's Cholesky factor L (lower triangle). */
static void chol_solve(const double *G, double *b, size_t n)
{
	size_t i, l;

	for (i = 0; i < n; i++) {      /* L z = b */
		for (l = 0; l < i; l++)
			b[i] -= G[i * n + l] * b[l];
		b[i] /= G[i * n + i];
	}
	for (i = n; i-- > 0;) {        /* L^T y = z */
		for (l = i + 1; l < n; l++)
			b[i] -= G[l * n + i] * b[l];
		b[i] /= G[i * n + i];
	}
}

/* Cholesky solve of the ne x ne system G y = b in place (G overwritten
 * by its factor, which chol_solve reuses); -1 when G is not clearly
 * positive definite. */
static int spd_solve(double *G, double *b, size_t n)
{
	size_t i, j, l;

	for (j = 0; j < n; j++) {
		double d = G[j * n + j];

		for (l = 0; l < j; l++)
			d -= G[j * n + l] * G[j * n + l];
		if (!(d > 1e-12 * fabs(G[j * n + j])) || !(d > 0))
			return -1;
		d = sqrt(d);
		G[j * n + j] = d;
		for (i = j + 1; i < n; i++) {
			double s = G[i * n + j];

			for (l = 0; l < j; l++)
				s -= G[i * n + l] * G[j * n + l];
			G[i * n + j] = s / d;
		}
	}
	chol_solve(G, b, n);
	return 0;
}

/* The rows *valid .. n-1 of the Cholesky factor F of G (both n x n in
 * arrays of row length ld), given its rows 0 .. *valid-1: each entry by
 * spd_solve's formula and order of summation, so the factor is the one
 * spd_solve would make.  -1 when row *valid is not clearly positive
 * definite (*valid stops there). */
static int chol_extend(const double *G, double *F, size_t *valid, size_t n,
		       size_t ld)
{
	size_t i, j, l;

	for (j = *valid; j < n; j++) {
		double d = G[j * ld + j];

		for (i = 0; i < j; i++) {
			double s = G[j * ld + i];

			for (l = 0; l < i; l++)
				s -= F[j * ld + l] * F[i * ld + l];
			F[j * ld + i] = s / F[i * ld + i];
		}
		for (l = 0; l < j; l++)
			d -= F[j * ld + l] * F[j * ld + l];
		if (!(d > 1e-12 * fabs(G[j * ld + j])) || !(d > 0))
			return -1;
		F[j * ld + j] = sqrt(d);
		*valid = j + 1;
	}
	return 0;
}

/* chol_solve for a factor stored with row length ld. */
static void chol_solve_ld(const double *F, double *b, size_t n, size_t ld)
{
	size_t i, l;

	for (i = 0; i < n; i++) {      /* L z = b */
		for (l = 0; l < i; l++)
			b[i] -= F[i * ld + l] * b[l];
		b[i] /= F[i * ld + i];
	}
	for (i = n; i-- > 0;) {        /* L^T y = z */
		for (l = i + 1; l < n; l++)
			b[i] -= F[l * ld + i] * b[l];
		b[i] /= F[i * ld + i];
	}
}

/* c.x over c's non-zeros, in double (as feas_dot over the dense row). */
static double cons_dot_d(const struct feas_model *fm, size_t c, const double *x)
{
	const int64_t *ci = fm->cons + c * fm->k;
	const uint32_t *ix;
	size_t n = cons_nz(fm, c, &ix), p;
	double s = 0;

	for (p = 0; p < n; p++)
		s += (double)ci[ix[p]] * x[ix[p]];
	return s;
}

static int inside_along_u(struct worker *w, const struct feas_query *q,
			  double *x0, const double *z);
static int inside_by_projections(struct worker *w, const struct feas_query *q,
				 size_t ne);
static int strictly_inside(const struct feas_model *fm, const double *x0);

static int prefilter_feasible(struct worker *w, const struct feas_query *q)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, ne = 0, c, i, r;
	double *EM = w->pre_em, *G = w->pre_g, *y = w->pre_y, *z = w->vk;
	double *x0 = w->vk2;

	/* EM = E M (ne x k, the equality rows of B), G = EM EM^T,
	 * y = G^{-1} E mu */
	for (c = 0; c < fm->n_cons; c++) {
		if (!fm->cons_eq[c])
			continue;
		memcpy(EM + ne * k, w->pre_b + c * k, k * sizeof *EM);
		w->pre_y0[ne] = y[ne] = cons_dot_d(fm, c, q->mu);
		ne++;
	}
	for (r = 0; r < ne; r++)
		for (c = 0; c <= r; c++)
			G[r * ne + c] = G[c * ne + r] = feas_dot(EM + r * k, EM + c * k, k);
	if (ne && spd_solve(G, y, ne))
		return 0;
	/* z = EM^T y: the box coordinates of mu - x0 */
	for (i = 0; i < k; i++) {
		double s = 0;

		for (r = 0; r < ne; r++)
			s += EM[r * k + i] * y[r];
		z[i] = s;
		if (!(fabs(s) <= 1 - FEAS_TOL_PREFILTER))
			return 0;
	}
	/* x0 = mu - sum_i z_i m_i */
	memcpy(x0, q->mu, k * sizeof *x0);
	for (i = 0; i < k; i++) {
		if (z[i] == 0)
			continue;
		if (q->shape == FEAS_INDEPENDENT) {
			x0[i] -= z[i] * q->half[i];
		} else {
			const double *ax = q->axes + i * k;
			double t = z[i] * q->half[i];
			size_t j;

			for (j = 0; j < k; j++)
				x0[j] -= t * ax[j];
		}
	}
	/* x0 often lies on facets (a counter whose mean is 0 sits on
	 * x_j >= 0): move it along u, the sum of the signatures, which lies
	 * in the cone's relative interior (so u.c > 0 for every facet c and
	 * E u = 0 exactly), just far enough to clear every facet, and keep
	 * it in the box */
	if (inside_along_u(w, q, x0, z))
		return 1;
	return inside_by_projections(w, q, ne);
}

/* Box coordinate i of the vector v (v = sum_i t_i m_i): NAN when v leaves
 * a zero-width side. */
static double box_coord(const struct feas_query *q, size_t k, size_t i,
			const double *v)
{
	double h = q->half[i], c = q->shape == FEAS_INDEPENDENT ? v[i] :
				   feas_dot(q->axes + i * k, v, k);

	if (h > 0)
		return c / h;
	return c == 0 ? 0 : NAN;
}

static int inside_along_u(struct worker *w, const struct feas_query *q,
			  double *x0, const double *z)
{
	const struct feas_model *fm = w->fm;
	const double *u = fm->pre_u;
	size_t k = fm->k, c, i, j;
	double t = 0;

	for (c = 0; c < fm->n_cons; c++) {
		const int64_t *ci = fm->cons + c * k;
		const uint32_t *ix;
		size_t n, p;
		long double mag, dot, cu = 0;

		if (fm->cons_eq[c])
			continue;
		dot = cons_dot(fm, c, x0, &mag);
		n = cons_nz(fm, c, &ix);
		for (p = 0; p < n; p++)
			cu += (long double)ci[ix[p]] * u[ix[p]];
		if (!(cu > 0))
			return 0;   /* not a facet of this cone: leave it to the LP */
		if (dot <= 2 * FEAS_TOL_PREFILTER * mag + FEAS_TINY) {
			/* c.(x0 + t u) >= 2 tol (mag + t |c||u|) suffices */
			long double cau = 0, need;

			for (p = 0; p < n; p++)
				cau += fabsl((long double)ci[ix[p]] * u[ix[p]]);
			need = cu - 4 * FEAS_TOL_PREFILTER * cau;
			if (!(need > 0))
				return 0;
			need = (4 * FEAS_TOL_PREFILTER * mag + FEAS_TINY - dot) / need;
			if (need > t)
				t = (double)need;
		}
	}
	if (t > 0) {
		for (j = 0; j < k; j++)
			x0[j] += t * u[j];
		for (i = 0; i < k; i++) {
			double wi = box_coord(q, k, i, u);

			if (!(fabs(-z[i] + t * wi) <= 1 - FEAS_TOL_PREFILTER))
				return 0;
		}
	}
	return strictly_inside(fm, x0);
}

/* x0 on the hull (up to rounding) and strictly inside every facet. */
static int strictly_inside(const struct feas_model *fm, const double *x0)
{
	size_t c;

	for (c = 0; c < fm->n_cons; c++) {
		long double mag, dot = cons_dot(fm, c, x0, &mag);

		if (!(mag > 0))
			mag = 1;
		if (fm->cons_eq[c] ? !(fabsl(dot) <= 1e-12L * mag)
				   : !(dot > FEAS_TOL_PREFILTER * mag))
			return 0;
	}
	return 1;
}

/* When the ray along u leaves the box first: alternating projections in
 * the box's coordinates t (x = mu + sum_i t_i m_i), from the hull point
 * prefilter_feasible found (-z, in w->vk), onto each facet's half-space
 * kept a margin inside, onto a slightly shrunk box, and back onto the hull
 * {E x = 0} (the factor of G = EM EM^T is in w->pre_g, EM in w->pre_em),
 * a few sweeps at most.  A point found is only a candidate: it is made
 * exactly on the hull again and must pass strictly_inside and the box
 * test, so a verdict here is as safe as the ray's.  What does not change
 * from sweep to sweep (each facet at the centre, its margin target, |B_c|,
 * E mu) is computed once. */
#define PROJ_SWEEPS 16
static int inside_by_projections(struct worker *w, const struct feas_query *q,
				 size_t ne)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, nc = fm->n_cons, c, i, j, r, sweep, p, n;
	double *B = w->pre_b, *t = w->pre_t, *x0 = w->vk2, *y = w->pre_y;
	double *fmu = w->pre_c, *need = fmu + nc, *bb = need + nc;
	double lim = 1 - 2 * FEAS_TOL_PREFILTER;
	const double *EM = w->pre_em, *G = w->pre_g;
	const uint32_t *ix;

	for (i = 0; i < k; i++)
		t[i] = -w->vk[i];
	/* each inequality at the centre, and its margin target: the final
	 * test wants c.x > tol * sum_j |c_j x_j|, which sum_j |c_j mu_j| +
	 * sum_i |B_ci| bounds inside the box */
	for (c = 0; c < nc; c++) {
		const int64_t *ci = fm->cons + c * k;
		const double *b = B + c * k;
		double f = 0, mag = 0, s = 0;

		if (fm->cons_eq[c])
			continue;
		n = cons_nz(fm, c, &ix);
		for (p = 0; p < n; p++) {
			f += (double)ci[ix[p]] * q->mu[ix[p]];
			mag += fabs((double)ci[ix[p]] * q->mu[ix[p]]);
		}
		n = brow_nz(fm, q, c, &ix);
		for (p = 0; p < n; p++) {
			mag += fabs(b[ix[p]]);
			s += b[ix[p]] * b[ix[p]];
		}
		fmu[c] = f;
		need[c] = 8 * FEAS_TOL_PREFILTER * mag + FEAS_TINY;
		bb[c] = s;
	}
	for (sweep = 0; sweep < PROJ_SWEEPS; sweep++) {
		int ok = 1;

		for (c = 0; c < nc; c++) {
			const double *b = B + c * k;
			double f = fmu[c], step;

			if (fm->cons_eq[c])
				continue;
			n = brow_nz(fm, q, c, &ix);
			for (p = 0; p < n; p++)
				f += b[ix[p]] * t[ix[p]];
			if (f >= need[c])
				continue;
			ok = 0;
			if (!(bb[c] > 0))
				return 0;   /* a facet the box cannot move */
			step = (2 * need[c] - f) / bb[c];
			for (p = 0; p < n; p++)
				t[ix[p]] += step * b[ix[p]];
		}
		for (i = 0; i < k; i++) {
			if (t[i] > lim || t[i] < -lim)
				ok = 0;
			t[i] = t[i] > lim ? lim : t[i] < -lim ? -lim : t[i];
		}
		if (ne) {
			/* back onto the hull: t -= EM^T G^{-1} (EM t + E mu) */
			for (r = 0; r < ne; r++)
				y[r] = w->pre_y0[r] + feas_dot(EM + r * k, t, k);
			chol_solve(G, y, ne);
			for (i = 0; i < k; i++) {
				double s = 0;

				for (r = 0; r < ne; r++)
					s += EM[r * k + i] * y[r];
				t[i] -= s;
				if (!(fabs(t[i]) <= 1 - FEAS_TOL_PREFILTER))
					ok = 0;
			}
		}
		if (!ok && sweep + 1 < PROJ_SWEEPS)
			continue;
		if (!ok)
			return 0;
		/* a candidate: its point, tested as the ray's is */
		memcpy(x0, q->mu, k * sizeof *x0);
		for (i = 0; i < k; i++) {
			if (!(fabs(t[i]) <= 1 - FEAS_TOL_PREFILTER))
				return 0;
			if (q->shape == FEAS_INDEPENDENT) {
				x0[i] += t[i] * q->half[i];
			} else {
				const double *ax = q->axes + i * k;
				double h = t[i] * q->half[i];

				for (j = 0; j < k; j++)
					x0[j] += h * ax[j];
			}
		}
		return strictly_inside(fm, x0);
	}
	return 0;
}

int feas_prefilter_box(struct worker *w, const struct feas_query *q)
{
	const struct feas_model *fm = w->fm;

	if (!fm->complete || fm->n_cons == 0 || !fm->cons_idx || !fm->iota)
		return FEAS_PRE_UNDECIDED;
	box_rows(fm, q, w->pre_b, w->pre_axt);
	if (prefilter_infeasible(fm, q, w->pre_b))
		return FEAS_PRE_INFEASIBLE;
	if (prefilter_feasible(w, q))
		return FEAS_PRE_FEASIBLE;
	return FEAS_PRE_UNDECIDED;
}

/* The ellipsoid: d2 = min over the cone of (x - mu)^T cov^-1 (x - mu),
 * a convex QP over {E x = 0, F x >= 0} (equalities E, facets F).  For an
 * active set A (the equalities and some facets), the minimum over
 * {A x = 0} is at x = mu - cov A^T w with (A cov A^T) w = A mu, where
 * d2 = (A mu).w, and cov^-1 (x - mu) = -A^T w.  It is the minimum over
 * the cone exactly when x satisfies every facet (primal) and every active
 * facet's multiplier -w_t is >= 0 (dual): the KKT conditions.  Active-set
 * steps (add the most broken facet, drop the most negative multiplier)
 * reach it from A = E plus the facets of counters that count nothing;
 * the answer is the one the NNLS would reach, found without it, and is
 * only taken when those conditions hold with margins: every facet outside
 * A strictly inside (FEAS_TOL_PREFILTER of its magnitude, as the box
 * tests keep) unless it left A for pulling the wrong way (then up to
 * rounding), the rows of A held up to x's rounding, and the rounding of
 * A mu carried into an upper bound d2_hi (large counts, where it is wide,
 * go to the NNLS and its exact re-check).  Returns 1, d2 and d2_hi then,
 * else 0 (the NNLS decides). */
#define ELL_STEPS(k) (2 * (k) + 4)
/* ell_active: a facet outside A, in A, left out of A because its row
 * depends on A's (it holds on A's plane with a zero multiplier), or
 * dropped from A; zero outside feas_prefilter_ellipsoid */
enum { ELL_OUT, ELL_IN, ELL_DEPENDENT, ELL_DROPPED };

/* Row r of the active set: B_r = a cov, y_r = a.mu, G's row and column
 * r against rows 0..r (G is na x na in a k x k array). */
static int ell_add_row(struct worker *w, const struct feas_query *q,
		       size_t r, size_t c)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, j, t;
	const int64_t *a = fm->cons + c * k;
	double *B = w->ell_b, *G = w->ell_g;
	const uint32_t *ix;
	size_t n = cons_nz(fm, c, &ix), p;
	long double s, mag;

	/* over the constraints' non-zeros (the dense sums' very numbers) */
	for (j = 0; j < k; j++) {
		double v = 0;

		for (p = 0; p < n; p++)
			v += (double)a[ix[p]] * q->cov[ix[p] * k + j];
		B[r * k + j] = v;
	}
	s = cons_dot(fm, c, q->mu, &mag);
	w->ell_y[r] = (double)s;
	/* its rounding: k products and sums in long double, then to double */
	w->ell_y[k + r] = 4 * DBL_EPSILON * (double)mag;
	w->ell_rows[r] = c;
	for (t = 0; t <= r; t++) {
		const int64_t *at = fm->cons + w->ell_rows[t] * k;
		double v = 0;

		n = cons_nz(fm, w->ell_rows[t], &ix);
		for (p = 0; p < n; p++)
			v += B[r * k + ix[p]] * (double)at[ix[p]];
		G[r * k + t] = G[t * k + r] = v;
	}
	return G[r * k + r] > 0;
}

int feas_prefilter_ellipsoid(struct worker *w, const struct feas_query *q,
			     double *d2, double *d2_hi)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, na = 0, c, i, j, r, step, worst, drop;
	double *B = w->ell_b, *G = w->ell_g, *F = w->ell_g + k * k, *y = w->ell_y;   /* y: 3k */
	double *z = w->ell_w, *x = w->vk2, *xs = w->ell_y + 2 * k, s, wmax;
	size_t *rows = w->ell_rows;
	unsigned char *active = w->ell_active;   /* ELL_*, all ELL_OUT here */
	int ok = 0, added = 0, zeros = 0;
	size_t ne, valid = 0;   /* F's rows 0..valid-1: the factor of G's */

	if (!fm->complete || fm->n_cons == 0 || !fm->cons_idx)
		return 0;
	for (c = 0; c < fm->n_cons; c++)
		if (fm->cons_eq[c] && (na == k || !ell_add_row(w, q, na++, c)))
			goto out;
	ne = na;
	/* a counter that counts nothing puts the centre on the face of its
	 * facet x_j >= 0: start with those facets held (a step saved each;
	 * a wrong one is dropped by the dual test, and if they depend on
	 * each other or on the equalities the solve restarts from the
	 * equalities alone) */
	for (c = 0; c < fm->n_cons; c++) {
		const int64_t *ci = fm->cons + c * k;
		const uint32_t *ix;
		size_t nz = cons_nz(fm, c, &ix), at = nz ? ix[0] : 0;

		if (fm->cons_eq[c])
			continue;
		if (nz == 1 && ci[at] > 0 && q->mu[at] == 0 && na < k) {
			active[c] = ELL_IN;
			if (!ell_add_row(w, q, na++, c))
				goto out;
			zeros = 1;
		}
	}
	for (step = 0; step < ELL_STEPS(k); step++) {
		/* x = mu - B^T G^-1 y on the active set; G's Cholesky factor
		 * is kept from step to step and only its rows from the first
		 * changed one on are made again */
		if (chol_extend(G, F, &valid, na, k)) {
			if (zeros) {
				for (r = ne; r < na; r++)
					active[rows[r]] = ELL_OUT;
				na = ne;
				if (valid > na)
					valid = na;
				zeros = 0;
				continue;
			}
			/* the facet just added depends on the active rows: it
			 * is zero on their plane already, so it holds there
			 * with a zero multiplier; it is left out until a row
			 * leaves */
			if (!added)
				break;
			active[rows[--na]] = ELL_DEPENDENT;
			added = 0;
			continue;
		}
		memcpy(z, y, na * sizeof *z);
		chol_solve_ld(F, z, na, k);
		added = zeros = 0;
		for (j = 0; j < k; j++) {
			double t = q->mu[j], u = fabs(q->mu[j]);

			for (r = 0; r < na; r++) {
				t -= B[r * k + j] * z[r];
				u += fabs(B[r * k + j] * z[r]);
			}
			x[j] = t;
			xs[j] = u;   /* the scale of x_j's rounding */
		}
		/* dual: an active facet's multiplier -z_r must be >= 0; in
		 * units of its row's standard deviation, a pull below 1e-9 is
		 * rounding */
		for (drop = SIZE_MAX, wmax = 1e-9, r = 0; r < na; r++) {
			double pull = z[r] * sqrt(G[r * k + r]);

			if (!fm->cons_eq[rows[r]] && pull > wmax) {
				wmax = pull;
				drop = r;
			}
		}
		/* primal: on the hull and the active facets, strictly inside
		 * the others */
		worst = SIZE_MAX;
		{
			long double most = 0;

			for (c = 0; c < fm->n_cons; c++) {
				const int64_t *ci = fm->cons + c * k;
				const uint32_t *ix;
				size_t n = cons_nz(fm, c, &ix), p;
				long double dot = 0, mag = 0, rmag = 0;

				for (p = 0; p < n; p++) {
					j = ix[p];
					dot += (long double)ci[j] * x[j];
					mag += fabsl((long double)ci[j] * x[j]);
					rmag += fabsl((long double)ci[j]) * xs[j];
				}
				if (active[c] == ELL_DEPENDENT) {
					/* on the plane, or inside */
					if (!(dot >= -1e-12L * rmag - FEAS_TINY))
						goto out;
					continue;
				}
				if (fm->cons_eq[c] || active[c] == ELL_IN) {
					/* on its plane, up to x's rounding */
					if (!(fabsl(dot) <= 1e-12L * rmag + FEAS_TINY))
						goto out;
					continue;
				}
				if (!(mag > 0))
					mag = 1;
				if (dot > FEAS_TOL_PREFILTER * mag)
					continue;
				/* a facet that left the set for pulling the wrong way
				 * is near its plane but not held by it: inside up to
				 * rounding is enough (else add and drop would cycle) */
				if (active[c] == ELL_DROPPED && dot >= -64 * DBL_EPSILON * rmag)
					continue;
				if (worst == SIZE_MAX || dot / mag < most) {
					most = dot / mag;
					worst = c;
				}
			}
		}
		if (worst == SIZE_MAX && drop == SIZE_MAX) {
			/* d2 = |L^-1 y|^2 (F = L L^T); y's rounding dy moves
			 * |L^-1 y| by at most sum_r dy_r |L^-1 e_r| */
			double e = 0;

			s = feas_dot(y, z, na);
			for (r = 0; r < na; r++) {
				double *v = w->vk, nv = 0;

				for (i = r; i < na; i++) {
					double t = i == r ? 1 : 0;

					for (j = r; j < i; j++)
						t -= F[i * k + j] * v[j];
					v[i] = t / F[i * k + i];
					nv += v[i] * v[i];
				}
				e += y[k + r] * sqrt(nv);
			}
			if (s >= 0 && isfinite(s) && isfinite(e)) {
				*d2 = s;
				*d2_hi = (sqrt(s) + e) * (sqrt(s) + e);
				ok = 1;
			}
			break;
		}
		if (drop != SIZE_MAX) {
			/* it pulls the wrong way: out, the last row in its place;
			 * the facets left out as dependent are looked at again */
			for (c = 0; c < fm->n_cons; c++)
				if (active[c] == ELL_DEPENDENT)
					active[c] = ELL_OUT;
			active[rows[drop]] = ELL_DROPPED;
			na--;
			if (valid > drop)
				valid = drop;
			if (drop != na) {
				rows[drop] = rows[na];
				y[drop] = y[na];
				memcpy(B + drop * k, B + na * k, k * sizeof *B);
				for (i = 0; i < na; i++)
					G[drop * k + i] = G[i * k + drop] = G[na * k + (i == drop ? na : i)];
				G[drop * k + drop] = G[na * k + na];
			}
		} else {
			if (na == k)
				break;
			active[worst] = ELL_IN;
			added = 1;
			if (!ell_add_row(w, q, na++, worst))
				break;
		}
	}
out:
	for (c = 0; c < fm->n_cons; c++)
		active[c] = ELL_OUT;
	return ok;
}

/* A box the ray and the projections of feas_prefilter_box leave
 * undecided (typically a centre on a face of the cone: counters that
 * count nothing): the point of the cone nearest the centre in the box's
 * own metric (cov_box = sum_i half_i^2 m_i m_i^T, the box's axes m_i),
 * by the ellipsoid's active-set solve, is a witness when it lies inside
 * the box by FEAS_TOL_PREFILTER.  Only feasible verdicts come from here. */
int feas_prefilter_box_face(struct worker *w, const struct feas_query *q)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, i, j, l;
	double *C = w->ell_cov, *x = w->vk2, *dx = w->vk, d2, d2_hi;
	struct feas_query qq = *q;

	if (!fm->complete || fm->n_cons == 0)
		return FEAS_PRE_UNDECIDED;
	if (q->shape == FEAS_INDEPENDENT) {
		memset(C, 0, k * k * sizeof *C);
		for (i = 0; i < k; i++)
			C[i * k + i] = q->half[i] * q->half[i];
	} else {
		for (j = 0; j < k; j++)
			for (l = 0; l <= j; l++) {
				double v = 0;

				for (i = 0; i < k; i++)
					v += q->half[i] * q->half[i] * q->axes[i * k + j] *
					     q->axes[i * k + l];
				C[j * k + l] = C[l * k + j] = v;
			}
	}
	qq.cov = C;
	if (!feas_prefilter_ellipsoid(w, &qq, &d2, &d2_hi))
		return FEAS_PRE_UNDECIDED;
	/* x (in w->vk2) is in the cone; is it inside the box? */
	for (j = 0; j < k; j++)
		dx[j] = x[j] - q->mu[j];
	for (i = 0; i < k; i++)
		if (!(fabs(box_coord(q, k, i, dx)) <= 1 - FEAS_TOL_PREFILTER))
			return FEAS_PRE_UNDECIDED;
	return FEAS_PRE_FEASIBLE;
}
