/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/model.c: the model: signatures, the float basis of span(S) for the
 * LPs, the exact equalities (from geometry), listed constraints, counts. */
#include <glpk.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

#include "geometry/cone.h"

/* ================================================================ *
 * Model                                                             *
 * ================================================================ */

/* Orthonormal basis of span(S): eigenvectors of the Gram matrix
 * G = sum_p s_p s_p^T whose eigenvalues exceed 1e-10 of the largest. */
static int span_basis(struct feas_model *fm, struct cp_error *err)
{
	size_t k = fm->k, m = fm->m, i, j, p, d = 0;
	double *G = cp_calloc(k * k, sizeof *G), *ev = cp_malloc(k * sizeof *ev);
	size_t *nz = cp_malloc(k * sizeof *nz), n, u, w;
	int rc = CP_OK;

	if (!G || !ev || !nz) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
		goto out;
	}
	/* Signatures count a few counters each: the Gram matrix over each
	 * row's non-zeros, upper triangle, then mirrored.  A skipped term
	 * is a zero product and s[i] s[j] = s[j] s[i]: the very sums, in the
	 * very order, of the dense loop. */
	for (p = 0; p < m; p++) {
		const double *s = fm->S + p * k;

		for (i = n = 0; i < k; i++)
			if (s[i] != 0)
				nz[n++] = i;
		for (u = 0; u < n; u++)
			for (w = u; w < n; w++)
				G[nz[u] * k + nz[w]] += s[nz[u]] * s[nz[w]];
	}
	for (i = 0; i < k; i++)
		for (j = i + 1; j < k; j++)
			G[j * k + i] = G[i * k + j];
	if (LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', (lapack_int)k, G,
			   (lapack_int)k, ev) != 0) {
		rc = cp_error_set(err, CP_ENUMERIC, "eigen-decomposition of the signatures failed");
		goto out;
	}
	for (i = 0; i < k; i++)
		if (ev[i] > FEAS_TOL_RANK * ev[k - 1])
			d++;
	fm->Q = cp_malloc((d ? d : 1) * k * sizeof *fm->Q);
	fm->Qs = cp_malloc((m ? m : 1) * (d ? d : 1) * sizeof *fm->Qs);
	fm->qc = cp_calloc(d ? d : 1, sizeof *fm->qc);
	if (!fm->Q || !fm->Qs || !fm->qc) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
		goto out;
	}
	fm->d = d;
	/* eigenvectors are the columns of G, ascending: take the last d */
	for (j = 0; j < d; j++)
		for (i = 0; i < k; i++)
			fm->Q[j * k + i] = G[i * k + (k - d + j)];
	/* Qs = Q s over s's non-zeros (feas_dot's order, zero terms left out) */
	for (p = 0; p < m; p++) {
		const double *s = fm->S + p * k;

		for (i = n = 0; i < k; i++)
			if (s[i] != 0)
				nz[n++] = i;
		for (j = 0; j < d; j++) {
			const double *q = fm->Q + j * k;
			double t = 0;

			for (u = 0; u < n; u++)
				t += q[nz[u]] * s[nz[u]];
			fm->Qs[p * d + j] = t;
		}
	}
	/* d independent signatures, greedily (Gram-Schmidt in the span's
	 * coordinates); c = the sum of their unit vectors lies inside
	 * their cone, hence inside C, so {f : f.c = 1} slices C's dual in a
	 * bounded set, and already their d rows bound it. */
	fm->basis_rows = cp_malloc((d ? d : 1) * sizeof *fm->basis_rows);
	{
		double *gs = cp_malloc((d ? d : 1) * (d ? d : 1) * sizeof *gs);
		double *v = cp_malloc((d ? d : 1) * sizeof *v);
		size_t nb = 0, b;

		if (!fm->basis_rows || !gs || !v) {
			cp_free(gs);
			cp_free(v);
			rc = cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
			goto out;
		}
		for (p = 0; p < m && nb < d; p++) {
			double nv = 0;

			memcpy(v, fm->Qs + p * d, d * sizeof *v);
			for (b = 0; b < nb; b++) {
				double t = feas_dot(v, gs + b * d, d);

				for (j = 0; j < d; j++)
					v[j] -= t * gs[b * d + j];
			}
			nv = sqrt(feas_dot(v, v, d));
			if (nv <= FEAS_TOL_INDEP * fm->snorm[p])
				continue;
			for (j = 0; j < d; j++)
				gs[nb * d + j] = v[j] / nv;
			fm->basis_rows[nb++] = p;
			for (j = 0; j < d; j++)
				fm->qc[j] += fm->Qs[p * d + j] / fm->snorm[p];
		}
		fm->n_basis_rows = nb == d ? d : 0;
		cp_free(gs);
		cp_free(v);
	}
out:
	cp_free(G);
	cp_free(ev);
	cp_free(nz);
	return rc;
}

/* GLPK stops on a failed allocation as on any other error; its message,
 * passed to the terminal hook just before the error hook, tells them
 * apart (this thread's GLPK environment, this thread's flag). */
static _Thread_local int glpk_out_of_memory;

int feas_glpk_quiet_hook(void *info, const char *s)
{
	(void)info;
	if (strstr(s, "no memory available") || strstr(s, "memory allocation"))
		glpk_out_of_memory = 1;
	return 1;  /* swallow every line GLPK would print */
}

/* This thread's GLPK environment, made and silenced before its first use.
 * Made by that first call instead, a failure (no memory, as under ulimit -v)
 * is not an error GLPK can return: it prints "GLPK initialization failed"
 * and aborts the process.  WHAT says what was being built. */
int feas_glpk_start(struct cp_error *err, const char *what)
{
	switch (glp_init_env()) {
	case 0:
	case 1:     /* made earlier in this thread */
		glp_term_out(GLP_OFF);
		glp_term_hook(feas_glpk_quiet_hook, NULL);
		return CP_OK;
	case 2:
		return cp_error_set(err, CP_ENOMEM, "out of memory %s", what);
	default:
		return cp_error_set(err, CP_EINTERNAL, "GLPK cannot start %s", what);
	}
}

/* The error for a GLPK error just caught (by its error hook) while doing
 * WHAT: out of memory, or GLPK's failure.  With ERR NULL only the status. */
int feas_glpk_failed(struct cp_error *err, const char *what)
{
	int oom = glpk_out_of_memory;

	glpk_out_of_memory = 0;
	if (!err)
		return oom ? CP_ENOMEM : CP_EINTERNAL;
	if (oom)
		return cp_error_set(err, CP_ENOMEM, "out of memory %s", what);
	return cp_error_set(err, CP_EINTERNAL, "GLPK failed %s", what);
}


/* The model's equalities, exactly (geometry's canonical basis of span(S)'s
 * orthogonal complement).  They let derived constraints be written in their
 * sparsest form (load.pde_miss <= load.causes_walk rather than a
 * combination with load.walk_done = load.causes_walk).  A basis with a
 * coefficient beyond 64 bits is left out: constraints are then printed as
 * derived, still exact. */
static int model_equalities(struct feas_model *fm,
			    const struct feas_model_options *opt,
			    struct cp_error *err)
{
	struct cp_error e;
	int rc;

	if (fm->k == 0)
		return CP_OK;
	if (opt && opt->equalities_given) {
		/* the caller's, already canonical: the same rows this would
		 * derive */
		fm->n_eqb = opt->n_equalities;
		fm->eqb = NULL;
		if (!fm->n_eqb)
			return CP_OK;
		fm->eqb = cp_malloc(fm->n_eqb * fm->k * sizeof *fm->eqb);
		if (!fm->eqb)
			return cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
		memcpy(fm->eqb, opt->equalities, fm->n_eqb * fm->k * sizeof *fm->eqb);
		return CP_OK;
	}
	cp_error_clear(&e);
	rc = cone_equalities(fm->k, fm->m, fm->Su, &fm->n_eqb, &fm->eqb, &e);
	if (rc == CP_ENOMEM)
		return cp_error_set(err, rc, "out of memory building the solver");
	if (rc) {
		fm->n_eqb = 0;
		fm->eqb = NULL;
	}
	return CP_OK;
}

int feas_model_new(size_t k, size_t m, const uint32_t *S,
		   const struct feas_model_options *opt,
		   struct feas_model **out, struct cp_error *err)
{
	struct feas_model *fm;
	size_t p, i, kept = 0;
	int rc;

	*out = NULL;
	if (k == 0 || k > 100000 || m > 100000000 / k)
		return cp_error_set(err, CP_EINPUT,
				    "model with %zu counters and %zu signatures is out of range", k, m);
	fm = cp_calloc(1, sizeof *fm);
	if (!fm)
		return cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
	cp_lapack_serial();
	fm->k = k;
	fm->S = cp_malloc((m ? m : 1) * k * sizeof *fm->S);
	fm->Su = cp_malloc((m ? m : 1) * k * sizeof *fm->Su);
	fm->snorm = cp_malloc((m ? m : 1) * sizeof *fm->snorm);
	if (!fm->S || !fm->Su || !fm->snorm) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory building the solver");
		goto fail;
	}
	for (p = 0; p < m; p++) {
		double n2 = 0;

		for (i = 0; i < k; i++)
			n2 += (double)S[p * k + i] * S[p * k + i];
		if (n2 == 0)
			continue;  /* counts nothing: every region contains 0*s */
		for (i = 0; i < k; i++) {
			fm->Su[kept * k + i] = S[p * k + i];
			fm->S[kept * k + i] = S[p * k + i];
		}
		fm->snorm[kept++] = sqrt(n2);
	}
	fm->m = kept;
	fm->nr = kept;
	rc = span_basis(fm, err);
	if (rc)
		goto fail;
	rc = model_equalities(fm, opt, err);
	if (rc)
		goto fail;
	*out = fm;
	return CP_OK;
fail:
	feas_model_free(fm);
	return rc;
}


void feas_model_free(struct feas_model *fm)
{
	if (!fm)
		return;
	feas_worker_free(fm->own);
	cp_free(fm->S);
	cp_free(fm->Su);
	cp_free(fm->snorm);
	cp_free(fm->Q);
	cp_free(fm->Qs);
	cp_free(fm->qc);
	cp_free(fm->basis_rows);
	cp_free(fm->eqb);
	cp_free(fm->cons);
	cp_free(fm->cons_eq);
	cp_free(fm->cons_start);
	cp_free(fm->cons_idx);
	cp_free(fm->iota);
	cp_free(fm->pre_u);
	cp_free(fm);
}

size_t feas_model_n_signatures(const struct feas_model *fm) { return fm->m; }
size_t feas_model_dim(const struct feas_model *fm) { return fm->d; }
size_t feas_model_n_constraints(const struct feas_model *fm) { return fm->n_cons; }

/* cons's non-zero positions (struct feas_model): most facets read a few
 * counters, and the pre-filter's loops over an independent box need only
 * those.  Returns -1 out of memory. */
static int cons_index(struct feas_model *fm)
{
	size_t p, i, nz;

	cp_free(fm->cons_start);
	cp_free(fm->cons_idx);
	cp_free(fm->iota);
	fm->cons_idx = NULL;
	fm->iota = NULL;
	if (!(fm->cons_start = cp_malloc((fm->n_cons + 1) * sizeof *fm->cons_start)))
		return -1;
	for (p = 0, nz = 0; p < fm->n_cons * fm->k; p++)
		nz += fm->cons[p] != 0;
	fm->cons_idx = cp_malloc((nz + 1) * sizeof *fm->cons_idx);
	fm->iota = cp_malloc((fm->k + 1) * sizeof *fm->iota);
	if (!fm->cons_idx || !fm->iota)
		return -1;
	for (i = 0; i < fm->k; i++)
		fm->iota[i] = (uint32_t)i;
	for (p = 0, nz = 0; p < fm->n_cons; p++) {
		fm->cons_start[p] = nz;
		for (i = 0; i < fm->k; i++)
			if (fm->cons[p * fm->k + i])
				fm->cons_idx[nz++] = (uint32_t)i;
	}
	fm->cons_start[fm->n_cons] = nz;
	return 0;
}

int feas_model_add_constraint(struct feas_model *fm, const int64_t *a,
			      int is_equality, struct cp_error *err)
{
	int64_t *c;
	unsigned char *e;

	if (fm->own)
		return cp_error_set(err, CP_EINTERNAL,
				    "constraints must be added before the first check");
	c = cp_reallocarray(fm->cons, (fm->n_cons + 1) * fm->k, sizeof *c);
	if (!c)
		return cp_error_set(err, CP_ENOMEM, "out of memory adding a constraint");
	fm->cons = c;
	e = cp_realloc(fm->cons_eq, fm->n_cons + 1);
	if (!e)
		return cp_error_set(err, CP_ENOMEM, "out of memory adding a constraint");
	fm->cons_eq = e;
	memcpy(c + fm->n_cons * fm->k, a, fm->k * sizeof *c);
	e[fm->n_cons++] = is_equality ? 1 : 0;
	if (fm->cons_start && cons_index(fm))   /* added after set_complete */
		return cp_error_set(err, CP_ENOMEM, "out of memory adding a constraint");
	return CP_OK;
}

int feas_model_set_complete(struct feas_model *fm, struct cp_error *err)
{
	size_t p, i;

	if (!fm->pre_u && !(fm->pre_u = cp_calloc(fm->k, sizeof *fm->pre_u)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < fm->k; i++)
		fm->pre_u[i] = 0;
	for (p = 0; p < fm->m; p++)
		for (i = 0; i < fm->k; i++)
			fm->pre_u[i] += fm->S[p * fm->k + i];
	if (cons_index(fm))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	fm->complete = fm->m > 0;
	return CP_OK;
}

/* st += what worker w has counted (checks are counted by the model). */
static void stats_add(struct feas_stats *st, const struct worker *w)
{
	st->lp_solves += w->st.lp_solves;
	st->exact_solves += w->st.exact_solves;
	st->borderline += w->st.borderline;
	st->certificates += w->st.certificates;
	st->facet_lps += w->st.facet_lps;
	st->facets_verified += w->st.facets_verified;
	st->shrink_tests += w->st.shrink_tests;
	st->prefiltered += w->st.prefiltered;
	if (w->box && !w->broken)
		st->iterations += (uint64_t)glp_get_it_cnt(w->box);
}

void feas_model_stats(const struct feas_model *fm, struct feas_stats *st)
{
	*st = fm->st;
	if (fm->own)
		stats_add(st, fm->own);
}

void feas_model_restart(struct feas_model *fm)
{
	if (!fm || !fm->own)
		return;
	stats_add(&fm->st, fm->own);
	feas_worker_free(fm->own);
	fm->own = NULL;
}

