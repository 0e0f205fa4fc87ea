/* pipeline/flows.c: model + feature set + dataset -> per-observation bounds
 * on each feature's flow (pipeline.h, "flows"): the (uop, signature)
 * columns, which of them need each feature, and the rate and share
 * quantities handed to the solver. */
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"

struct pipe_flows {
	size_t k, n;              /* counters, columns */
	uint32_t *S;              /* n x k */
	size_t *uop;              /* n: model uop index */
	size_t n_uops, n_feat;
	const char **uop_names;   /* n_uops (the model's) */
	size_t *feat;             /* n_feat model feature indices */
	const char **feat_names;
	unsigned char *needs;     /* n_feat x n */
	size_t *n_uop_cols;       /* n_uops */
	size_t *n_needing;        /* n_uops x n_feat */
	long *per;                /* n_uops: counter index among the data's, or -1 */
	const char *const *names; /* the data's counter names */
	struct feas_flows *ff;
};

/* Rows (uop, k counts) compare by uop, then bytewise; k through
 * qsort_r's context. */
struct colkey {
	size_t k;
};

static int col_cmp(const void *a, const void *b, void *ctx)
{
	const struct colkey *ck = ctx;
	const uint32_t *x = a, *y = b;

	return memcmp(x, y, (ck->k + 1) * sizeof *x);
}

/* The distinct (uop, signature on the data's counters) pairs of sel,
 * signatures that count nothing left out: rows of k + 1 words (uop
 * first), sorted. */
static int uop_columns(const struct udd_model *m, udd_features sel,
		       const struct pipe_data *pd, uint32_t **out, size_t *n_out,
		       struct cp_error *err)
{
	struct udd_sigset *ss = NULL;
	size_t k = pipe_data_n_counters(pd), j, i, u, c, n = 0, cap = 0;
	const size_t *cols = pipe_data_columns(pd);
	uint32_t *rows = NULL;
	struct colkey ck = { k };
	int rc;

	*out = NULL;
	*n_out = 0;
	if ((rc = udd_sigset_build(m, sel, 0, &ss, err)))
		return rc;
	for (j = 0; j < udd_sigset_size(ss); j++) {
		const uint32_t *sig = udd_sigset_signature(ss, j);
		int counts = 0;

		for (c = 0; c < k; c++)
			counts |= sig[cols[c]] != 0;
		if (!counts)
			continue;
		for (i = 0; i < udd_sigset_uop_count(ss, j); i++) {
			const char *name = udd_sigset_uop_name(ss, j, i);
			uint32_t *row;

			for (u = 0; u < udd_model_n_uops(m) &&
			     strcmp(udd_model_uop_name(m, u), name); u++)
				;
			if (n == cap) {
				uint32_t *nr;

				cap = cap ? 2 * cap : 64;
				nr = cp_reallocarray(rows, cap, (k + 1) * sizeof *rows);
				if (!nr) {
					cp_free(rows);
					udd_sigset_free(ss);
					return cp_error_set(err, CP_ENOMEM, "out of memory");
				}
				rows = nr;
			}
			row = rows + n++ * (k + 1);
			row[0] = (uint32_t)u;
			for (c = 0; c < k; c++)
				row[c + 1] = sig[cols[c]];
		}
	}
	udd_sigset_free(ss);
	if (n) {
		size_t d = 0;

		qsort_r(rows, n, (k + 1) * sizeof *rows, col_cmp, &ck);
		/* a projection can make distinct signatures equal */
		for (j = 0; j < n; j++)
			if (!d || col_cmp(rows + (d - 1) * (k + 1), rows + j * (k + 1), &ck))
				memmove(rows + d++ * (k + 1), rows + j * (k + 1),
					(k + 1) * sizeof *rows);
		n = d;
	}
	*out = rows;
	*n_out = n;
	return CP_OK;
}

/* Is row (uop, k counts) among the n sorted rows? */
static int row_find(const uint32_t *row, const uint32_t *rows, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(rows + mid * (k + 1), row, (k + 1) * sizeof *row);

		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* sel's columns, then n_extra more (rows of uop and k counts): with
 * none, each feature of sel marks the columns that need it; with some,
 * extra column j alone needs pseudo-feature j, named names[j], and no
 * feature of sel is bounded. */
static int flows_new(const struct udd_model *m, udd_features sel,
		     const struct pipe_data *pd, const uint32_t *extra,
		     size_t n_extra, const char *const *names,
		     struct pipe_flows **out, struct cp_error *err)
{
	struct pipe_flows *pf;
	uint32_t *rows = NULL, *off = NULL;
	size_t k = pipe_data_n_counters(pd), n = 0, n_sel, n_off, c, f, u, i;
	int rc;

	*out = NULL;
	pf = cp_calloc(1, sizeof *pf);
	if (!pf)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	pf->k = k;
	pf->names = pipe_data_names(pd);
	if ((rc = uop_columns(m, sel, pd, &rows, &n, err)))
		goto fail;
	n_sel = n;
	if (n_extra) {
		uint32_t *nr = cp_reallocarray(rows, n + n_extra, (k + 1) * sizeof *rows);

		if (!nr) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			goto fail;
		}
		rows = nr;
		memcpy(rows + n * (k + 1), extra, n_extra * (k + 1) * sizeof *rows);
		n += n_extra;
	}
	if (!n) {
		rc = cp_error_set(err, CP_EINPUT, "the model's μpaths count none of the "
				  "checked counters");
		goto fail;
	}
	pf->n = n;
	pf->n_uops = udd_model_n_uops(m);
	if (n_extra)
		pf->n_feat = n_extra;
	else
		for (f = 0; f < udd_model_n_features(m); f++)
			pf->n_feat += (sel >> f) & 1;
	pf->S = cp_malloc(n * k * sizeof *pf->S);
	pf->uop = cp_malloc(n * sizeof *pf->uop);
	pf->uop_names = cp_calloc(pf->n_uops + 1, sizeof *pf->uop_names);
	pf->feat = cp_calloc(pf->n_feat + 1, sizeof *pf->feat);
	pf->feat_names = cp_calloc(pf->n_feat + 1, sizeof *pf->feat_names);
	pf->needs = cp_calloc(pf->n_feat * n + 1, 1);
	pf->n_uop_cols = cp_calloc(pf->n_uops + 1, sizeof *pf->n_uop_cols);
	pf->n_needing = cp_calloc(pf->n_uops * pf->n_feat + 1, sizeof *pf->n_needing);
	pf->per = cp_calloc(pf->n_uops + 1, sizeof *pf->per);
	if (!pf->S || !pf->uop || !pf->uop_names || !pf->feat || !pf->feat_names ||
	    !pf->needs || !pf->n_uop_cols || !pf->n_needing || !pf->per) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	for (c = 0; c < n; c++) {
		pf->uop[c] = rows[c * (k + 1)];
		if (pf->uop[c] >= pf->n_uops) {
			rc = cp_error_set(err, CP_EINPUT, "column %zu: uop %zu of %zu", c,
					  pf->uop[c], pf->n_uops);
			goto fail;
		}
		memcpy(pf->S + c * k, rows + c * (k + 1) + 1, k * sizeof *pf->S);
		pf->n_uop_cols[pf->uop[c]]++;
	}
	for (u = 0; u < pf->n_uops; u++) {
		const char *name = udd_model_uop_name(m, u);
		size_t len = strlen(name);

		pf->uop_names[u] = name;
		pf->per[u] = -1;
		/* "<uop>.retired" among the checked counters */
		for (i = 0; i < k; i++)
			if (!strncmp(pf->names[i], name, len) &&
			    !strcmp(pf->names[i] + len, ".retired"))
				pf->per[u] = (long)i;
	}
	for (f = 0; f < n_extra; f++) {
		c = n_sel + f;
		pf->feat[f] = SIZE_MAX;
		pf->feat_names[f] = names[f];
		pf->needs[f * n + c] = 1;
		pf->n_needing[pf->uop[c] * pf->n_feat + f]++;
	}
	/* a column needs f when sel without f has no such (uop, signature) */
	for (f = 0, i = 0; !n_extra && i < udd_model_n_features(m); i++) {
		if (!((sel >> i) & 1))
			continue;
		pf->feat[f] = i;
		pf->feat_names[f] = udd_model_feature_name(m, i);
		if ((rc = uop_columns(m, sel & ~((udd_features)1 << i), pd, &off, &n_off, err)))
			goto fail;
		for (c = 0; c < n; c++)
			if (!n_off || !row_find(rows + c * (k + 1), off, n_off, k)) {
				pf->needs[f * n + c] = 1;
				pf->n_needing[pf->uop[c] * pf->n_feat + f]++;
			}
		cp_free(off);
		off = NULL;
		f++;
	}
	if ((rc = feas_flows_new(k, n, pf->S, &pf->ff, err)))
		goto fail;
	cp_free(rows);
	*out = pf;
	return CP_OK;
fail:
	cp_free(rows);
	cp_free(off);
	pipe_flows_free(pf);
	return rc;
}

int pipe_flows_new(const struct udd_model *m, udd_features sel,
		   const struct pipe_data *pd, struct pipe_flows **out,
		   struct cp_error *err)
{
	return flows_new(m, sel, pd, NULL, 0, NULL, out, err);
}

int pipe_flows_new_extra(const struct udd_model *m, udd_features sel,
			 const struct pipe_data *pd, const uint32_t *extra,
			 size_t n_extra, const char *const *names,
			 struct pipe_flows **out, struct cp_error *err)
{
	if (!n_extra) {
		*out = NULL;
		return cp_error_set(err, CP_EINPUT, "no extra column to bound");
	}
	return flows_new(m, sel, pd, extra, n_extra, names, out, err);
}

void pipe_flows_free(struct pipe_flows *pf)
{
	if (!pf)
		return;
	feas_flows_free(pf->ff);
	cp_free(pf->S);
	cp_free(pf->uop);
	cp_free(pf->uop_names);
	cp_free(pf->feat);
	cp_free(pf->feat_names);
	cp_free(pf->needs);
	cp_free(pf->n_uop_cols);
	cp_free(pf->n_needing);
	cp_free(pf->per);
	cp_free(pf);
}

size_t pipe_flows_n_columns(const struct pipe_flows *pf) { return pf->n; }
size_t pipe_flows_n_uops(const struct pipe_flows *pf) { return pf->n_uops; }
const char *pipe_flows_uop(const struct pipe_flows *pf, size_t u) { return pf->uop_names[u]; }
size_t pipe_flows_n_features(const struct pipe_flows *pf) { return pf->n_feat; }
const char *pipe_flows_feature(const struct pipe_flows *pf, size_t f) { return pf->feat_names[f]; }
size_t pipe_flows_n_uop_columns(const struct pipe_flows *pf, size_t u) { return pf->n_uop_cols[u]; }

size_t pipe_flows_n_needing(const struct pipe_flows *pf, size_t u, size_t f)
{
	return pf->n_needing[u * pf->n_feat + f];
}

const char *pipe_flows_per(const struct pipe_flows *pf, size_t u)
{
	return pf->per[u] >= 0 ? pf->names[pf->per[u]] : NULL;
}

/* ==== bounds ==== */

/* The quantities, uop by uop (so one denominator comes in a row):
 * for each (u, f) with columns, the rate a_uf (indicator of u's columns
 * that need f) and the share a_uf / b_u.  b_u: the per counter's count in
 * each column, or the indicator of u's columns. */
static int quantities(const struct pipe_flows *pf, double **weights,
		      struct feas_flow_quantity **qs, size_t **slot, size_t *nq,
		      struct cp_error *err)
{
	size_t n = pf->n, nu = pf->n_uops, nf = pf->n_feat, u, f, c, m = 0, j = 0;
	double *wt;

	for (u = 0; u < nu; u++)
		for (f = 0; f < nf; f++)
			m += pf->n_needing[u * nf + f] > 0;
	*weights = wt = cp_calloc((nu + m) * n + 1, sizeof *wt);
	*qs = cp_calloc(2 * m + 1, sizeof **qs);
	*slot = cp_calloc(2 * m + 1, sizeof **slot);
	if (!wt || !*qs || !*slot)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (u = 0; u < nu; u++) {
		double *b = wt + u * n;

		for (c = 0; c < n; c++)
			if (pf->uop[c] == u || pf->per[u] >= 0)
				b[c] = pf->per[u] >= 0 ? pf->S[c * pf->k + (size_t)pf->per[u]] : 1;
	}
	for (u = 0; u < nu; u++)
		for (f = 0; f < nf; f++) {
			double *a;

			if (!pf->n_needing[u * nf + f])
				continue;
			a = wt + (nu + j / 2) * n;
			for (c = 0; c < n; c++)
				a[c] = pf->uop[c] == u && pf->needs[f * n + c];
			(*qs)[j].a = a;
			(*qs)[j].b = NULL;
			(*slot)[j++] = 2 * (u * nf + f);
			(*qs)[j].a = a;
			(*qs)[j].b = wt + u * n;
			(*slot)[j++] = 2 * (u * nf + f) + 1;
		}
	*nq = j;
	return CP_OK;
}

int pipe_flows_bound(struct pipe_flows *pf, const struct pipe_data *pd,
		     const struct feas_result *verdicts, size_t threads,
		     struct pipe_flow_bounds *out, enum pipe_flow_status *status,
		     struct cp_error *err)
{
	size_t no = pipe_data_n_observations(pd), cells = pf->n_uops * pf->n_feat;
	size_t nq = 0, i, j;
	double *wt = NULL;
	struct feas_flow_quantity *qs = NULL;
	struct feas_query *q = NULL;
	struct feas_bound *b = NULL;
	unsigned char *skip = NULL;
	size_t *slot = NULL;
	int *feasible = NULL, rc;

	if ((rc = quantities(pf, &wt, &qs, &slot, &nq, err)))
		goto out;
	q = cp_calloc(no + 1, sizeof *q);
	skip = cp_calloc(no + 1, 1);
	feasible = cp_calloc(no + 1, sizeof *feasible);
	b = cp_calloc(no * nq + 1, sizeof *b);
	if (!q || !skip || !feasible || !b) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < no; i++) {
		const struct feas_query *qi = pipe_data_query(pd, i);

		status[i] = !qi ? PIPE_FLOWS_UNUSABLE : !verdicts[i].feasible ?
			PIPE_FLOWS_INFEASIBLE : PIPE_FLOWS_BOUNDED;
		skip[i] = status[i] != PIPE_FLOWS_BOUNDED;
		if (qi)
			q[i] = *qi;   /* the others stay zero: skipped */
	}
	if (threads == 1 || no == 1) {
		for (i = 0; i < no && !rc; i++)
			if (!skip[i])
				rc = feas_flows_bound(pf->ff, &q[i], nq, qs, b + i * nq,
						      &feasible[i], err);
	} else {
		rc = feas_flows_batch(pf->ff, no, q, skip, nq, qs, threads, b,
				      feasible, err);
	}
	if (rc)
		goto out;
	for (i = 0; i < no; i++) {
		if (skip[i])
			continue;
		if (!feasible[i]) {
			status[i] = PIPE_FLOWS_NO_FLOW;
			continue;
		}
		for (j = 0; j < nq; j++) {
			struct pipe_flow_bounds *o = &out[i * cells + slot[j] / 2];

			if (slot[j] % 2)
				o->share = b[i * nq + j];
			else
				o->rate = b[i * nq + j];
		}
	}
out:
	cp_free(wt);
	cp_free(qs);
	cp_free(slot);
	cp_free(q);
	cp_free(skip);
	cp_free(feasible);
	cp_free(b);
	return rc;
}

int pipe_flows_run(const struct udd_model *m, udd_features sel,
		   const struct pipe_data *pd, size_t threads,
		   struct pipe_flows **pf, struct pipe_flow_bounds **out,
		   enum pipe_flow_status **status, struct cp_error *err)
{
	size_t n = pipe_data_n_observations(pd), i;
	struct pipe_model *pm = NULL;
	struct feas_result *res = NULL;
	int rc;

	*pf = NULL;
	*out = NULL;
	*status = NULL;
	if ((rc = pipe_model_new(m, sel, pd, NULL, &pm, err)) ||
	    (rc = pipe_flows_new(m, sel, pd, pf, err)))
		goto out;
	res = cp_calloc(n + 1, sizeof *res);
	*status = cp_calloc(n + 1, sizeof **status);
	*out = cp_calloc(n * pipe_flows_n_uops(*pf) * pipe_flows_n_features(*pf) + 1,
			 sizeof **out);
	if (!res || !*status || !*out) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		feas_result_init(&res[i]);
	rc = pipe_check(pm, pd, 0, threads, res, NULL, NULL, NULL, err);
	if (!rc)
		rc = pipe_flows_bound(*pf, pd, res, threads, *out, *status, err);
	for (i = 0; i < n; i++)
		feas_result_release(&res[i]);
out:
	cp_free(res);
	pipe_model_free(pm);
	if (rc) {
		pipe_flows_free(*pf);
		cp_free(*out);
		cp_free(*status);
		*pf = NULL;
		*out = NULL;
		*status = NULL;
	}
	return rc;
}
