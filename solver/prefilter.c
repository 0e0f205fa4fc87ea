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
#include <math.h>
#include <string.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

/* The box as k columns m_i (x = mu + sum_i t_i m_i, |t_i| <= 1): PCA,
 * half_i times axis i; independent, half_j times e_j.  Returns m_i.x. */
static double box_col_dot(const struct feas_query *q, size_t k, size_t i,
			  const double *x)
{
	if (q->shape == FEAS_INDEPENDENT)
		return q->half[i] * x[i];
	return q->half[i] * feas_dot(q->axes + i * k, x, k);
}

/* max over the box of a.x - a.mu, in long double (the same formula as
 * feas_spread) */
static long double box_spread(const struct feas_query *q, size_t k,
			      const double *a)
{
	long double s = 0;
	size_t i;

	for (i = 0; i < k; i++)
		s += fabsl((long double)box_col_dot(q, k, i, a));
	return s;
}

static int prefilter_infeasible(const struct feas_model *fm,
				const struct feas_query *q, double *a)
{
	size_t k = fm->k, c, j;

	for (c = 0; c < fm->n_cons; c++) {
		const int64_t *ci = fm->cons + c * k;
		long double dot = 0, mag = 0, h;

		for (j = 0; j < k; j++) {
			a[j] = (double)ci[j];
			dot += (long double)ci[j] * q->mu[j];
			mag += fabsl((long double)ci[j] * q->mu[j]);
		}
		h = box_spread(q, k, a);
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

static int inside_along_u(struct worker *w, const struct feas_query *q,
			  double *x0, const double *z);
static int inside_by_projections(struct worker *w, const struct feas_query *q,
				 size_t ne);
static int strictly_inside(const struct feas_model *fm, const double *x0);

static int prefilter_feasible(struct worker *w, const struct feas_query *q)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, ne = 0, c, i, j, r;
	double *EM = w->pre_em, *G = w->pre_g, *y = w->pre_y, *z = w->vk;
	double *x0 = w->vk2, *a = w->xstar;

	/* EM = E M (ne x k), G = EM EM^T, y = G^{-1} E mu */
	for (c = 0; c < fm->n_cons; c++) {
		if (!fm->cons_eq[c])
			continue;
		for (j = 0; j < k; j++)
			a[j] = (double)fm->cons[c * k + j];
		for (i = 0; i < k; i++)
			EM[ne * k + i] = box_col_dot(q, k, i, a);
		y[ne++] = feas_dot(a, q->mu, k);
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
		long double dot = 0, mag = 0, cu = 0;

		if (fm->cons_eq[c])
			continue;
		for (j = 0; j < k; j++) {
			dot += (long double)ci[j] * x0[j];
			mag += fabsl((long double)ci[j] * x0[j]);
			cu += (long double)ci[j] * u[j];
		}
		if (!(cu > 0))
			return 0;   /* not a facet of this cone: leave it to the LP */
		if (dot <= 2 * FEAS_TOL_PREFILTER * mag + FEAS_TINY) {
			/* c.(x0 + t u) >= 2 tol (mag + t |c||u|) suffices */
			long double cau = 0, need;

			for (j = 0; j < k; j++)
				cau += fabsl((long double)ci[j] * u[j]);
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
	size_t k = fm->k, c, j;

	for (c = 0; c < fm->n_cons; c++) {
		const int64_t *ci = fm->cons + c * k;
		long double dot = 0, mag = 0;

		for (j = 0; j < k; j++) {
			dot += (long double)ci[j] * x0[j];
			mag += fabsl((long double)ci[j] * x0[j]);
		}
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
 * test, so a verdict here is as safe as the ray's. */
#define PROJ_SWEEPS 16
static int inside_by_projections(struct worker *w, const struct feas_query *q,
				 size_t ne)
{
	const struct feas_model *fm = w->fm;
	size_t k = fm->k, c, i, j, r, sweep, nc = 0;
	double *B = w->pre_b, *t = w->pre_t, *x0 = w->vk2, *y = w->pre_y;
	double *a = w->xstar, lim = 1 - 2 * FEAS_TOL_PREFILTER;
	const double *EM = w->pre_em, *G = w->pre_g;

	for (i = 0; i < k; i++)
		t[i] = -w->vk[i];
	/* each inequality in box coordinates, and its margin target: the
	 * final test wants c.x > tol * sum_j |c_j x_j|, which
	 * sum_j |c_j mu_j| + sum_i |B_ci| bounds inside the box */
	for (c = 0; c < fm->n_cons; c++) {
		if (fm->cons_eq[c])
			continue;
		for (j = 0; j < k; j++)
			a[j] = (double)fm->cons[c * k + j];
		for (i = 0; i < k; i++)
			B[nc * k + i] = box_col_dot(q, k, i, a);
		nc++;
	}
	for (sweep = 0; sweep < PROJ_SWEEPS; sweep++) {
		int ok = 1;

		for (c = 0, r = 0; c < fm->n_cons; c++) {
			const int64_t *ci = fm->cons + c * k;
			const double *b;
			double f = 0, mag = 0, bb = 0, need;

			if (fm->cons_eq[c])
				continue;
			b = B + r++ * k;
			for (j = 0; j < k; j++) {
				f += (double)ci[j] * q->mu[j];
				mag += fabs((double)ci[j] * q->mu[j]);
			}
			for (i = 0; i < k; i++) {
				f += b[i] * t[i];
				mag += fabs(b[i]);
				bb += b[i] * b[i];
			}
			need = 8 * FEAS_TOL_PREFILTER * mag + FEAS_TINY;
			if (f >= need)
				continue;
			ok = 0;
			if (!(bb > 0))
				return 0;   /* a facet the box cannot move */
			for (i = 0; i < k; i++)
				t[i] += (2 * need - f) / bb * b[i];
		}
		for (i = 0; i < k; i++) {
			if (t[i] > lim || t[i] < -lim)
				ok = 0;
			t[i] = t[i] > lim ? lim : t[i] < -lim ? -lim : t[i];
		}
		if (ne) {
			/* back onto the hull: t -= EM^T G^{-1} (EM t + E mu) */
			for (r = 0, c = 0; c < fm->n_cons; c++) {
				if (!fm->cons_eq[c])
					continue;
				y[r] = 0;
				for (j = 0; j < k; j++)
					y[r] += (double)fm->cons[c * k + j] * q->mu[j];
				y[r] += feas_dot(EM + r * k, t, k);
				r++;
			}
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

	if (!fm->complete || fm->n_cons == 0)
		return FEAS_PRE_UNDECIDED;
	if (prefilter_infeasible(fm, q, w->xstar))
		return FEAS_PRE_INFEASIBLE;
	if (prefilter_feasible(w, q))
		return FEAS_PRE_FEASIBLE;
	return FEAS_PRE_UNDECIDED;
}
