/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/suggest.c: the μpaths a refuted model lacks (`counterpoint
 * suggest`, docs/manual/suggest.md).  Candidates are signatures a few edits from
 * the model's own, uop by uop, and small signatures on the counters of
 * the violated constraints.  Every violated constraint g.x >= 0 is a
 * certificate: the cone satisfies it, the whole region of an observation
 * breaks it.  So a new signature t can only help where it prices
 * favourably, g.t < 0 (the pricing step of column generation), and a set
 * T explains an observation only if its signatures break all of that
 * observation's certificates.  The search for sets that explain every
 * observation branches on the certificate with the fewest breakers (one
 * of T's signatures must break it), so it is complete; the sets the
 * certificates allow are checked by the pipeline (pipe_check_some, the
 * candidates added to the model's signatures), and the kept ones once
 * more on every observation by pipe_check, as `check` checks.  When no
 * set explains everything, a beam search keeps the sets that explain
 * the most.  The candidates and their prices are explore/suggest_cand.c's,
 * the suggestions' words explore/suggest_words.c's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/family_int.h"
#include "explore/suggest_int.h"

#include "geometry/cone.h"
#include "stats/region.h"

#define DEFAULT_KEEP 5
#define DEFAULT_MAX_CHECKS 50000
/* The beam of the partial search: sets extended a level; sets checked
 * for the first level, and for each set extended; candidates alike in
 * the certificates they break checked for each set. */
#define BEAM 3
#define BEAM_FIRST 200
#define BEAM_NEXT 100
#define BEAM_ALIKE 3

/* ==== checking a set ==== */

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int by_kills(const void *a, const void *b, void *ctx)
{
	const size_t *kills = ctx, x = *(const size_t *)a, y = *(const size_t *)b;

	if (kills[x] != kills[y])
		return kills[x] > kills[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Check S u T (T: n_t store ids) on observations obs[0..n) with the
 * pipeline.  *n_ok gets how many are feasible and decided; the others go
 * to left[] (may be NULL), in order.  stop: at the first that is not
 * (those found most often first).  explain: their certificates stay in
 * sg->res.  CP_ELIMIT when the budget of checks is spent. */
static int check_set(struct sg *sg, const uint32_t *ids, size_t n_t,
		     const size_t *obs, size_t n, int stop, int explain,
		     size_t *n_ok, size_t *left, size_t *n_left, struct cp_error *err)
{
	struct pipe_model *pm = NULL;
	size_t k = sg->k, i, j, done = 0, chunk = 1, nl = 0, ok = 0;
	size_t *order = sg->scratch;
	int rc;

	*n_ok = 0;
	if (n_left)
		*n_left = 0;
	if (sg->out->checks + n > sg->max_checks)
		return CP_ELIMIT;
	if (sg->mS + n_t > sg->rows_cap) {
		uint32_t *nr = cp_reallocarray(sg->rows, sg->mS + n_t, k * sizeof *nr);

		if (!nr)
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		sg->rows = nr;
		sg->rows_cap = sg->mS + n_t;
	}
	for (i = 0; i < n_t; i++)
		memcpy(sg->rows + (sg->mS + i) * k, sg->st.rows + (size_t)ids[i] * k,
		       k * sizeof *sg->rows);
	if ((rc = pipe_model_new_from(sg->sel, sg->rows, sg->mS + n_t, sg->pd, NULL,
				      &pm, err)))
		return rc;
	memcpy(order, obs, n * sizeof *order);
	if (stop)
		qsort_r(order, n, sizeof *order, by_kills, sg->kills);
	sg->out->sets_checked++;
	/* in growing chunks when stopping early: the first observation
	 * alone (the one that refuted most sets), then 2, 4, ... */
	while (done < n) {
		size_t m = stop ? (chunk < n - done ? chunk : n - done) : n - done;

		/* screened in floating point; a verdict within GLPK's
		 * tolerance is settled exactly, as `check` settles it */
		rc = pipe_check_some(pm, sg->pd, order + done, m,
				     (explain ? FEAS_EXPLAIN : 0) | FEAS_NO_EXACT, sg->res, NULL, err);
		sg->out->checks += m;
		for (j = done; !rc && j < done + m; j++)
			if (sg->res[order[j]].borderline)
				rc = pipe_check_some(pm, sg->pd, order + j, 1,
						     explain ? FEAS_EXPLAIN : 0, sg->res, NULL, err);
		if (rc)
			break;
		for (j = done; j < done + m; j++) {
			const struct feas_result *r = &sg->res[order[j]];

			if (r->feasible && !r->undecided) {
				ok++;
				continue;
			}
			sg->kills[order[j]]++;
			if (left)
				left[nl] = order[j];
			nl++;
		}
		done += m;
		chunk *= 2;
		if (stop && nl)
			break;
	}
	pipe_model_free(pm);
	if (rc)
		return rc;
	/* left in observation order: what follows does not depend on the
	 * order the checks took */
	if (left && nl > 1)
		qsort(left, nl, sizeof *left, by_index);
	*n_ok = ok;
	if (n_left)
		*n_left = nl;
	return CP_OK;
}

/* ==== sets: visited and found ==== */

#define MAX_LISTED 20

static int in_set(const uint32_t *P, size_t n, uint32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (P[i] == id)
			return 1;
	return 0;
}

/* Q = P + id, ascending. */
static size_t set_with(const uint32_t *P, size_t n, uint32_t id, uint32_t *Q)
{
	size_t i, j = 0;
	int put = 0;

	for (i = 0; i < n; i++) {
		if (!put && id < P[i]) {
			Q[j++] = id;
			put = 1;
		}
		Q[j++] = P[i];
	}
	if (!put)
		Q[j++] = id;
	return j;
}

static uint64_t set_hash(const uint32_t *Q, size_t n)
{
	return cp_hash(cp_hash(CP_HASH_SEED, &n, sizeof n), Q, n * sizeof *Q);
}

/* 1 when Q is new (and now seen), 0 when seen before, CP_ENOMEM. */
static int seen_add(struct sg *sg, const uint32_t *Q, size_t n)
{
	size_t h, i;

	if (2 * (sg->n_seen + 1) > sg->seen_cap) {
		size_t cap = sg->seen_cap ? 2 * sg->seen_cap : 4096;
		struct found *t = cp_calloc(cap, sizeof *t);

		if (!t)
			return CP_ENOMEM;
		for (i = 0; i < sg->seen_cap; i++) {
			if (!sg->seen[i].n)
				continue;
			h = (size_t)set_hash(sg->seen[i].id, sg->seen[i].n) & (cap - 1);
			while (t[h].n)
				h = (h + 1) & (cap - 1);
			t[h] = sg->seen[i];
		}
		cp_free(sg->seen);
		sg->seen = t;
		sg->seen_cap = cap;
	}
	for (h = (size_t)set_hash(Q, n) & (sg->seen_cap - 1); sg->seen[h].n;
	     h = (h + 1) & (sg->seen_cap - 1))
		if (sg->seen[h].n == n && !memcmp(sg->seen[h].id, Q, n * sizeof *Q))
			return 0;
	sg->seen[h].n = n;
	memcpy(sg->seen[h].id, Q, n * sizeof *Q);
	sg->n_seen++;
	return 1;
}

static int found_add(struct sg *sg, const uint32_t *Q, size_t n, size_t explains)
{
	struct found *f;

	if (sg->n_found == sg->cap_found) {
		size_t cap = sg->cap_found ? 2 * sg->cap_found : 64;

		f = cp_reallocarray(sg->found, cap, sizeof *f);
		if (!f)
			return CP_ENOMEM;
		sg->found = f;
		sg->cap_found = cap;
	}
	f = &sg->found[sg->n_found++];
	memset(f, 0, sizeof *f);
	f->n = n;
	memcpy(f->id, Q, n * sizeof *Q);
	f->explains = explains;
	return CP_OK;
}

/* Does Q hold a set already found to explain everything (then it is
 * not minimal)? */
static int holds_found(const struct sg *sg, const uint32_t *Q, size_t n)
{
	size_t i, j;

	for (i = 0; i < sg->n_found; i++) {
		const struct found *f = &sg->found[i];

		if (f->explains < sg->nI || f->n >= n)
			continue;
		for (j = 0; j < f->n && in_set(Q, n, f->id[j]); j++)
			;
		if (j == f->n)
			return 1;
	}
	return 0;
}

/* Candidates best first: fewer edits, fewer counters touched, then the
 * order they were made in. */
static int by_rank(const void *a, const void *b, void *ctx)
{
	const struct store *s = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (s->edits[x] != s->edits[y])
		return s->edits[x] < s->edits[y] ? -1 : 1;
	if (s->touched[x] != s->touched[y])
		return s->touched[x] < s->touched[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int covers(const uint64_t *have, const uint64_t *need, size_t nw)
{
	size_t w;

	for (w = 0; w < nw; w++)
		if (need[w] & ~have[w])
			return 0;
	return 1;
}

/* ==== every set that explains all: complete, by branching ==== */

/* The root certificates of I that no member of P breaks, into U; 1 when
 * there are some. */
static int uncovered(const struct sg *sg, const uint32_t *P, size_t np, uint64_t *U)
{
	size_t w, i;
	int any = 0;

	for (w = 0; w < sg->nw; w++) {
		U[w] = sg->all[w];
		for (i = 0; i < np; i++)
			U[w] &= ~sg->st.brk[(size_t)P[i] * sg->nw + w];
		any |= U[w] != 0;
	}
	return any;
}

/* What the search learnt about a set P on its way to larger ones. */
struct memo {
	struct found key;
	/* P breaks every root certificate: P checked on I, with the
	 * certificates of the observations it leaves */
	int checked, explains;
	size_t *left, n_left;
	struct certs c;
	uint64_t *R;
	/* the candidates that may complete P (rank order): those breaking
	 * every certificate left (pool), or those breaking the certificate
	 * with the fewest breakers (branch) */
	int have_pool, have_branch;
	uint32_t *pool, *branch;
	size_t n_pool, n_branch;
	int relax;                 /* 0 untried, 1 S u P u pool fits I, 2 not */
	int marked;                /* gathered for a group relaxation */
	uint64_t pool_hash;        /* of the pool's ids: parents alike share it */
};

static void memo_free(struct memo *m)
{
	if (!m)
		return;
	cp_free(m->left);
	explore_sg_certs_release(&m->c);
	cp_free(m->R);
	cp_free(m->pool);
	cp_free(m->branch);
	cp_free(m);
}

/* The memo of P, made on first use. */
static struct memo *memo_get(struct sg *sg, const uint32_t *P, size_t np)
{
	size_t h, i;

	if (2 * (sg->n_memo + 1) > sg->memo_cap) {
		size_t cap = sg->memo_cap ? 2 * sg->memo_cap : 256;
		struct memo **t = cp_calloc(cap, sizeof *t);

		if (!t)
			return NULL;
		for (i = 0; i < sg->memo_cap; i++) {
			if (!sg->memo[i])
				continue;
			h = (size_t)set_hash(sg->memo[i]->key.id, sg->memo[i]->key.n) & (cap - 1);
			while (t[h])
				h = (h + 1) & (cap - 1);
			t[h] = sg->memo[i];
		}
		cp_free(sg->memo);
		sg->memo = t;
		sg->memo_cap = cap;
	}
	for (h = (size_t)set_hash(P, np) & (sg->memo_cap - 1); sg->memo[h];
	     h = (h + 1) & (sg->memo_cap - 1))
		if (sg->memo[h]->key.n == np && !memcmp(sg->memo[h]->key.id, P, np * sizeof *P))
			return sg->memo[h];
	sg->memo[h] = cp_calloc(1, sizeof **sg->memo);
	if (!sg->memo[h])
		return NULL;
	sg->memo[h]->key.n = np;
	memcpy(sg->memo[h]->key.id, P, np * sizeof *P);
	sg->n_memo++;
	return sg->memo[h];
}

/* A set of the level's size to check, and the observations to check it
 * on (those its subset left, or all of I). */
struct leaf {
	uint32_t id[EXPLORE_SUGGEST_MAX_NEW];
	size_t n;
	struct memo *parent;       /* the set it extends (its pool) */
	const size_t *obs;
	size_t n_obs;
	size_t collateral, touched, shape;
};

/* Q is a set of the level's size that may explain every observation:
 * kept to be checked once the level is gathered. */
static int leaf_add(struct sg *sg, struct memo *parent, const uint32_t *Q, size_t nq,
		    const size_t *obs, size_t n, struct cp_error *err)
{
	struct leaf *l;
	size_t i;
	int rc;

	if ((rc = seen_add(sg, Q, nq)) <= 0)
		return rc == 0 ? CP_OK : cp_error_set(err, CP_ENOMEM, "out of memory");
	if (holds_found(sg, Q, nq))
		return CP_OK;
	if (sg->n_leaves == sg->cap_leaves) {
		size_t cap = sg->cap_leaves ? 2 * sg->cap_leaves : 256;

		l = cp_reallocarray(sg->leaves, cap, sizeof *l);
		if (!l)
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		sg->leaves = l;
		sg->cap_leaves = cap;
	}
	l = &sg->leaves[sg->n_leaves++];
	memset(l, 0, sizeof *l);
	memcpy(l->id, Q, nq * sizeof *Q);
	l->n = nq;
	l->parent = parent;
	l->obs = obs;
	l->n_obs = n;
	for (i = 0; i < nq; i++) {
		l->collateral += explore_sg_collateral(sg, Q[i]);
		l->touched += sg->st.touched[Q[i]];
		l->shape += explore_sg_shape(sg, Q[i]);
	}
	return CP_OK;
}

/* The sets of a level, likeliest first: the fewest of the model's other
 * constraints broken, the fewest counters touched, the likeliest shapes. */
static int by_likely(const void *a, const void *b)
{
	const struct leaf *x = a, *y = b;

	if (x->collateral != y->collateral)
		return x->collateral < y->collateral ? -1 : 1;
	if (x->touched != y->touched)
		return x->touched < y->touched ? -1 : 1;
	if (x->shape != y->shape)
		return x->shape < y->shape ? -1 : 1;
	return memcmp(x->id, y->id, x->n * sizeof *x->id);
}

/* Does S u P u pool fit the observations obs (each set P + t of the pool
 * lies within it, so when it does not, none of them does)?  Memoised in
 * m (P is m's key). */
static int relaxed_fits(struct sg *sg, struct memo *m, const size_t *obs, size_t n,
			struct cp_error *err)
{
	uint32_t *all;
	size_t ok, np = m->key.n;
	int rc;

	if (m->relax)
		return m->relax == 1;
	all = cp_calloc(np + m->n_pool + 1, sizeof *all);
	if (!all)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	memcpy(all, m->key.id, np * sizeof *all);
	memcpy(all + np, m->pool, m->n_pool * sizeof *all);
	rc = check_set(sg, all, np + m->n_pool, obs, n, 1, 0, &ok, NULL, NULL, err);
	cp_free(all);
	if (rc)
		return rc;
	m->relax = ok == n ? 1 : 2;
	return m->relax == 1;
}

/* The candidates of a pass, in rank order, without P's members. */
static int pass_list(struct sg *sg, struct pass *p, const uint32_t *P, size_t np,
		     uint32_t **out, size_t *n)
{
	size_t i, j = 0;

	*out = cp_calloc(p->n_out + 1, sizeof **out);
	if (!*out)
		return CP_ENOMEM;
	for (i = 0; i < p->n_out; i++)
		if (!in_set(P, np, p->out[i]))
			(*out)[j++] = p->out[i];
	qsort_r(*out, j, sizeof **out, by_rank, &sg->st);
	*n = j;
	return CP_OK;
}

/* P breaks every root certificate: check it once on I, keeping the
 * certificates of the observations it leaves. */
static int memo_check(struct sg *sg, struct memo *m, const uint32_t *P, size_t np,
		      struct cp_error *err)
{
	size_t ok;
	int rc;

	if (m->checked)
		return CP_OK;
	m->left = cp_calloc(sg->nI + 1, sizeof *m->left);
	if (!m->left)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if ((rc = check_set(sg, P, np, sg->I, sg->nI, 0, 1, &ok, m->left, &m->n_left, err)))
		return rc;
	m->checked = 1;
	m->explains = !m->n_left;
	if (np == 1)
		sg->st.single[P[0]] = m->explains ? 1 : 2;
	if (m->explains || explore_sg_certs_of(sg, m->left, m->n_left, sg->res, &m->c, &m->R))
		return m->explains ? CP_OK : cp_error_set(err, CP_ENOMEM, "out of memory");
	return CP_OK;
}

/* Is some observation of m->left without a certificate to price? */
static int memo_unpriced(const struct memo *m)
{
	size_t i, w;

	for (i = 0; i < m->n_left; i++) {
		for (w = 0; w < m->c.nw && !m->R[i * m->c.nw + w]; w++)
			;
		if (w == m->c.nw)
			return 1;
	}
	return 0;
}

static int dfs(struct sg *sg, const uint32_t *P, size_t np, size_t n, size_t left,
	       struct cp_error *err);

/* Extend P by each of list[0..nl) whose edits fit: the last member (its
 * edits exactly what is left) or one more on the way. */
static int extend(struct sg *sg, struct memo *m, const uint32_t *P, size_t np,
		  size_t n, size_t left, const uint32_t *list, size_t nl,
		  const size_t *obs, size_t n_obs, struct cp_error *err)
{
	uint32_t Q[EXPLORE_SUGGEST_MAX_NEW];
	size_t i;
	int rc = CP_OK;

	for (i = 0; i < nl && !rc; i++) {
		uint32_t id = list[i], e = sg->st.edits[id];

		if (np + 1 == n) {
			if (e < left)
				continue;
			if (e > left)
				break;   /* rank order: by edits */
			if (n > 1 && sg->st.single[id] == 1)
				continue;   /* explains alone: not minimal */
			set_with(P, np, id, Q);
			rc = leaf_add(sg, m, Q, n, obs, n_obs, err);
		} else {
			if (e + (n - np - 1) > left)
				break;
			set_with(P, np, id, Q);
			rc = dfs(sg, Q, np + 1, n, left - e, err);
		}
	}
	return rc;
}

/* Every set of n candidates with `left` more edits than P's that holds P
 * and may explain every observation: one of its members breaks each
 * certificate that P does not, so the search branches on the one with
 * the fewest breakers; once P breaks every root certificate, P is
 * checked and its observations left give certificates of their own. */
static int dfs(struct sg *sg, const uint32_t *P, size_t np, size_t n, size_t left,
	       struct cp_error *err)
{
	uint64_t *U = cp_calloc(sg->nw + 1, sizeof *U);
	struct memo *m = NULL;
	struct pass p;
	size_t r, g, best = 0, best_n = SIZE_MAX, nw = sg->nw;
	int rc = CP_OK;

	memset(&p, 0, sizeof p);
	if (!U)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (uncovered(sg, P, np, U)) {
		if (np + 1 < n) {
			for (g = 0; g < sg->nG; g++)
				if ((U[g / 64] >> (g % 64)) & 1 && sg->breakers[g] < best_n) {
					best = g;
					best_n = sg->breakers[g];
				}
			for (r = 0; r < sg->n_root && !rc; r++) {
				uint32_t id = sg->rank[r], Q[EXPLORE_SUGGEST_MAX_NEW];

				if (!((sg->st.brk[(size_t)id * nw + best / 64] >> (best % 64)) & 1) ||
				    in_set(P, np, id))
					continue;
				if (sg->st.edits[id] + (n - np - 1) > left)
					break;
				set_with(P, np, id, Q);
				rc = dfs(sg, Q, np + 1, n, left - sg->st.edits[id], err);
			}
			goto out;
		}
		/* the last member breaks every certificate left */
		if (!(m = memo_get(sg, P, np)))
			goto nomem;
		if (!m->have_pool) {
			m->pool = cp_calloc(sg->n_root + 1, sizeof *m->pool);
			if (!m->pool)
				goto nomem;
			for (r = 0; r < sg->n_root; r++) {
				uint32_t id = sg->rank[r];

				if (covers(sg->st.brk + (size_t)id * nw, U, nw) && !in_set(P, np, id))
					m->pool[m->n_pool++] = id;
			}
			m->have_pool = 1;
		}
		if (m->relax != 2)
			rc = extend(sg, m, P, np, n, left, m->pool, m->n_pool, sg->I, sg->nI, err);
		goto out;
	}
	if (!np)
		goto out;   /* no certificate at all: nothing to price */
	if (!(m = memo_get(sg, P, np)))
		goto nomem;
	if ((rc = memo_check(sg, m, P, np, err)) || m->explains)
		goto out;   /* a set that explains all is not extended */
	if (memo_unpriced(m)) {
		sg->out->unpriced = 1;
		goto out;
	}
	if (np + 1 == n) {
		/* the last member breaks every certificate of those left */
		if (!m->have_pool) {
			if (explore_sg_pass_init(sg, &p, m->c.g, m->c.n, PASS_ALL) || explore_sg_pass_run(sg, &p) ||
			    pass_list(sg, &p, P, np, &m->pool, &m->n_pool))
				goto nomem;
			m->have_pool = 1;
		}
		if (m->relax != 2)
			rc = extend(sg, m, P, np, n, left, m->pool, m->n_pool, m->left,
				    m->n_left, err);
		goto out;
	}
	if (!m->have_branch) {
		/* one member breaks the new certificate with the fewest
		 * breakers */
		uint32_t *all = NULL;
		size_t n_all = 0, i, cnt;

		if (explore_sg_pass_init(sg, &p, m->c.g, m->c.n, PASS_ANY) || explore_sg_pass_run(sg, &p) ||
		    pass_list(sg, &p, P, np, &all, &n_all))
			goto nomem;
		for (g = 0; g < m->c.n; g++) {
			for (i = 0, cnt = 0; i < n_all; i++)
				cnt += cone_dot_exact(m->c.g + g * sg->k,
							 sg->st.rows + (size_t)all[i] * sg->k,
							 sg->k) < 0;
			if (cnt < best_n) {
				best = g;
				best_n = cnt;
			}
		}
		for (i = 0; i < n_all; i++)
			if (cone_dot_exact(m->c.g + best * sg->k,
					      sg->st.rows + (size_t)all[i] * sg->k, sg->k) < 0)
				all[m->n_branch++] = all[i];
		m->branch = all;
		m->have_branch = 1;
	}
	rc = extend(sg, m, P, np, n, left, m->branch, m->n_branch, NULL, 0, err);
	goto out;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	explore_sg_pass_release(&p);
	cp_free(U);
	return rc;
}

/* A relaxation (a parent's whole pool at once) costs about one check:
 * worth it for a parent with more sets than this. */
#define RELAX_MIN 4

/* The sets of a level that explain everything one level may add: the
 * likeliest, several times what is kept, are ranked by their proofs;
 * once one is found, this many more sets are checked at most. */
#define LEVEL_FOUND_MAX(keep) (4 * (keep))
#define LEVEL_PATIENCE 400

/* Check a level's sets, likeliest first, until enough explain all. */
static int by_pool(const void *a, const void *b)
{
	const struct memo *x = *(struct memo *const *)a, *y = *(struct memo *const *)b;

	if (x->pool_hash != y->pool_hash)
		return x->pool_hash < y->pool_hash ? -1 : 1;
	return x->n_pool < y->n_pool ? -1 : x->n_pool > y->n_pool;
}

/* Parents ps[0..n), all with the same pool: S, every one of their sets
 * and the pool at once.  When that misses an observation, so does every
 * set of theirs; else each half is tried, down to one parent. */
static int relax_bisect(struct sg *sg, struct memo **ps, size_t n, struct cp_error *err)
{
	uint32_t *ids;
	size_t i, j, m = 0, ok, half = n / 2;
	int rc;

	if (n == 1) {
		rc = relaxed_fits(sg, ps[0], sg->I, sg->nI, err);
		return rc < 0 ? rc : CP_OK;
	}
	ids = cp_calloc(n * EXPLORE_SUGGEST_MAX_NEW + ps[0]->n_pool + 1, sizeof *ids);
	if (!ids)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		for (j = 0; j < ps[i]->key.n; j++)
			if (!in_set(ids, m, ps[i]->key.id[j]))
				ids[m++] = ps[i]->key.id[j];
	for (j = 0; j < ps[0]->n_pool; j++)
		if (!in_set(ids, m, ps[0]->pool[j]))
			ids[m++] = ps[0]->pool[j];
	rc = check_set(sg, ids, m, sg->I, sg->nI, 1, 0, &ok, NULL, NULL, err);
	cp_free(ids);
	if (rc)
		return rc;
	if (ok < sg->nI) {
		for (i = 0; i < n; i++)
			ps[i]->relax = 2;
		return CP_OK;
	}
	if ((rc = relax_bisect(sg, ps, half, err)))
		return rc;
	return relax_bisect(sg, ps + half, n - half, err);
}

/* Before a level's sets are checked one by one while none explains all:
 * the relaxations of their parents, parents with the same pool (the same
 * certificates left: their sets are checked on all of I) in groups. */
static int relax_groups(struct sg *sg, struct cp_error *err)
{
	struct memo **ps = cp_calloc(sg->n_leaves + 1, sizeof *ps);
	size_t i, j, n = 0, a;
	int rc = CP_OK;

	if (!ps)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < sg->n_leaves; i++) {
		struct memo *p = sg->leaves[i].parent;

		if (!p || p->relax || p->marked || p->n_pool <= RELAX_MIN ||
		    sg->leaves[i].obs != sg->I)
			continue;
		p->marked = 1;
		p->pool_hash = cp_hash(CP_HASH_SEED, p->pool, p->n_pool * sizeof *p->pool);
		ps[n++] = p;
	}
	qsort(ps, n, sizeof *ps, by_pool);
	for (a = 0; a < n && !rc; a = j) {
		for (j = a + 1; j < n && !by_pool(&ps[a], &ps[j]) &&
		     !memcmp(ps[a]->pool, ps[j]->pool, ps[a]->n_pool * sizeof *ps[a]->pool); j++)
			;
		rc = relax_bisect(sg, ps + a, j - a, err);
	}
	for (i = 0; i < n; i++)
		ps[i]->marked = 0;
	cp_free(ps);
	return rc;
}

static int check_leaves(struct sg *sg, size_t keep, size_t *explaining,
			struct cp_error *err)
{
	/* the first level that finds some ranks several times what is
	 * kept by their proofs; later ones only fill the list */
	size_t i, ok, got = 0, after = 0;
	size_t want = *explaining ? keep - *explaining : LEVEL_FOUND_MAX(keep);
	int rc = CP_OK;

	if (!*explaining && (rc = relax_groups(sg, err)))
		return rc;
	if (sg->n_leaves)
		qsort(sg->leaves, sg->n_leaves, sizeof *sg->leaves, by_likely);
	for (i = 0; i < sg->n_leaves && got < want && !rc; i++) {
		struct leaf *l = &sg->leaves[i];

		/* once a set explains all, the likeliest few more */
		if (got && ++after > LEVEL_PATIENCE)
			break;
		/* while none explains all, every set is to be checked: a
		 * parent's whole pool first, which may spare them all */
		if (!*explaining && !got && l->parent && !l->parent->relax &&
		    l->parent->n_pool > RELAX_MIN &&
		    (rc = relaxed_fits(sg, l->parent, l->obs, l->n_obs, err)) < 0)
			break;
		rc = CP_OK;
		if (holds_found(sg, l->id, l->n) || (l->parent && l->parent->relax == 2))
			continue;
		if ((rc = check_set(sg, l->id, l->n, l->obs, l->n_obs, 1, 0, &ok, NULL, NULL,
				    err)))
			break;
		if (l->n == 1)
			sg->st.single[l->id[0]] = ok == l->n_obs ? 1 : 2;
		if (ok == l->n_obs) {
			rc = found_add(sg, l->id, l->n, sg->nI);
			got++;
		} else if (l->parent && !l->parent->relax && l->parent->n_pool > RELAX_MIN) {
			/* one of the parent's sets failed: does any fit? */
			rc = relaxed_fits(sg, l->parent, l->obs, l->n_obs, err);
			rc = rc < 0 ? rc : CP_OK;
		}
	}
	*explaining += got;
	sg->n_leaves = 0;
	return rc;
}

/* Sets of 1, then 2, ... new signatures, each size by its total edits:
 * the sets that explain everything come in the order they rank.  The
 * search stops once keep of them are found, or the level after the
 * first that found one is done (what follows ranks below, and only
 * fills the list).  When none is found, every set the certificates
 * allow was checked. */
static int search(struct sg *sg, size_t keep, struct cp_error *err)
{
	size_t n, B, i, maxe, explaining = 0, levels_after = 0;
	uint32_t none[EXPLORE_SUGGEST_MAX_NEW] = { 0 };   /* the empty set */
	int rc;

	for (n = 1; n <= sg->max_new; n++)
		for (B = n;; B++) {
			for (i = 0, maxe = 0; i < sg->st.n; i++)
				if (sg->st.edits[i] > maxe)
					maxe = sg->st.edits[i];
			if (B > n * maxe)
				break;
			if ((rc = dfs(sg, none, 0, n, B, err)) ||
			    (rc = check_leaves(sg, keep, &explaining, err)))
				return rc;
			if (explaining >= keep || (explaining && levels_after++))
				return CP_OK;
		}
	return CP_OK;
}

/* ==== when nothing explains all: the sets that explain the most ==== */

struct scored {
	uint32_t id;
	uint32_t score;
};

static int by_score(const void *a, const void *b, void *ctx)
{
	const struct scored *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return by_rank(&x->id, &y->id, ctx);
}

static int by_explains(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	if (x->explains != y->explains)
		return x->explains > y->explains ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

static int by_size_desc(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x > y ? -1 : x < y;
}

/* The keep-th best count among found[from..] (0 when fewer). */
static size_t kth_best(const struct sg *sg, size_t from, size_t keep)
{
	size_t i, n = sg->n_found - from, v = 0;
	size_t *e = cp_calloc(n + 1, sizeof *e);

	if (!e)
		return 0;
	for (i = 0; i < n; i++)
		e[i] = sg->found[from + i].explains;
	qsort(e, n, sizeof *e, by_size_desc);
	if (n >= keep)
		v = e[keep - 1];
	cp_free(e);
	return v;
}

/* Sets P (in found[from..]) extended by one candidate each, the
 * candidates scored by how many of the observations P leaves they could
 * explain (all their certificates broken), the best scores checked. */
static int partial_level(struct sg *sg, const struct found *P, size_t keep,
			 struct cp_error *err)
{
	struct certs c;
	struct pass p;
	struct scored *sc = NULL;
	struct { uint64_t key; size_t n; } *classes = NULL;
	uint64_t *R = NULL, *bits = NULL;
	size_t *left = NULL, *cov = NULL, ok, nl = 0, i, j, g, w, n_cov, got, checked = 0;
	size_t from = sg->n_found;
	uint32_t Q[EXPLORE_SUGGEST_MAX_NEW];
	int rc;

	memset(&c, 0, sizeof c);
	memset(&p, 0, sizeof p);
	left = cp_calloc(sg->nI + 1, sizeof *left);
	cov = cp_calloc(sg->nI + 1, sizeof *cov);
	if (!left || !cov) {
		rc = CP_ENOMEM;
		goto out;
	}
	if (P) {
		if ((rc = check_set(sg, P->id, P->n, sg->I, sg->nI, 0, 1, &ok, left, &nl,
				    err)))
			goto out;
	} else {
		memcpy(left, sg->I, sg->nI * sizeof *left);
		nl = sg->nI;
		ok = 0;
	}
	if (!nl)
		goto out;
	/* at the root, the model's own verdicts hold the certificates */
	if ((rc = explore_sg_certs_of(sg, left, nl, P ? sg->res : sg->res0, &c, &R)))
		goto out;
	if (!c.n)
		goto out;
	if ((rc = explore_sg_pass_init(sg, &p, c.g, c.n, PASS_COVER)))
		goto out;
	p.R = R;
	p.n_targets = nl;
	if ((rc = explore_sg_pass_run(sg, &p)))
		goto out;
	sc = cp_calloc(p.n_out + 1, sizeof *sc);
	bits = cp_calloc(c.nw + 1, sizeof *bits);
	if (!sc || !bits) {
		rc = CP_ENOMEM;
		goto out;
	}
	for (i = 0; i < p.n_out; i++) {
		sc[i].id = p.out[i];
		sc[i].score = p.score[i];
	}
	qsort_r(sc, p.n_out, sizeof *sc, by_score, &sg->st);
	classes = cp_calloc(4 * BEAM_FIRST * BEAM_ALIKE, sizeof *classes);
	if (!classes) {
		rc = CP_ENOMEM;
		goto out;
	}
	for (i = 0; i < p.n_out && checked < (P ? BEAM_NEXT : BEAM_FIRST) && !rc; i++) {
		uint32_t id = sc[i].id;
		size_t nq, h, alike = 0;
		uint64_t key;

		if (P && in_set(P->id, P->n, id))
			continue;
		/* a set found already at least this good, keep of them: the
		 * rest cannot enter the top */
		if (sg->n_found - from >= keep &&
		    ok + sc[i].score <= kth_best(sg, from, keep))
			break;
		/* the certificates it breaks: a few of each kind */
		memset(bits, 0, c.nw * sizeof *bits);
		for (g = 0; g < c.n; g++)
			if (cone_dot_exact(c.g + g * sg->k,
					      sg->st.rows + (size_t)id * sg->k, sg->k) < 0)
				bits[g / 64] |= (uint64_t)1 << (g % 64);
		key = cp_hash(CP_HASH_SEED, bits, c.nw * sizeof *bits) | 1;
		for (h = (size_t)key % (4 * BEAM_FIRST * BEAM_ALIKE); classes[h].key;
		     h = (h + 1) % (4 * BEAM_FIRST * BEAM_ALIKE))
			if (classes[h].key == key)
				break;
		alike = classes[h].key ? classes[h].n : 0;
		if (alike >= BEAM_ALIKE)
			continue;
		classes[h].key = key;
		classes[h].n = alike + 1;
		nq = P ? set_with(P->id, P->n, id, Q) : (Q[0] = id, 1);
		if ((rc = seen_add(sg, Q, nq)) <= 0) {
			rc = rc == 0 ? CP_OK : CP_ENOMEM;
			continue;
		}
		/* the observations whose certificates it breaks */
		for (j = 0, n_cov = 0; j < nl; j++) {
			for (w = 0; w < c.nw && !(R[j * c.nw + w] & ~bits[w]); w++)
				;
			if (w == c.nw)
				cov[n_cov++] = left[j];
		}
		if ((rc = check_set(sg, Q, nq, cov, n_cov, 0, 0, &got, NULL, NULL, err)))
			break;
		checked++;
		if (got)
			rc = found_add(sg, Q, nq, ok + got);
	}
out:
	if (rc == CP_ENOMEM)
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
	explore_sg_pass_release(&p);
	explore_sg_certs_release(&c);
	cp_free(R);
	cp_free(bits);
	cp_free(sc);
	cp_free(classes);
	cp_free(left);
	cp_free(cov);
	return rc;
}

/* A beam search: the best single candidates, then each of the BEAM best
 * sets extended by one, up to max_new. */
static int partial(struct sg *sg, size_t keep, struct cp_error *err)
{
	size_t level, from = 0, to, i, nb;
	struct found beam[BEAM];
	int rc;

	if ((rc = partial_level(sg, NULL, keep, err)))
		return rc;
	for (level = 2; level <= sg->max_new; level++) {
		to = sg->n_found;
		if (to == from)
			break;
		/* this level's best sets */
		qsort(sg->found + from, to - from, sizeof *sg->found, by_explains);
		nb = to - from < BEAM ? to - from : BEAM;
		memcpy(beam, sg->found + from, nb * sizeof *beam);
		for (i = 0; i < nb && !rc; i++)
			rc = partial_level(sg, &beam[i], keep, err);
		if (rc)
			return rc;
		from = to;
	}
	return CP_OK;
}

/* ==== the kept suggestions: proven on every observation, bounded ==== */

static void path_release(struct explore_new_path *p)
{
	cp_free(p->counts);
	cp_free(p->counters);
	cp_free(p->like_counters);
	cp_free(p->like_example);
	cp_free(p->edit);
	cp_free(p->place);
	cp_free(p->fragment);
	cp_free(p->flow_lo_at);
}

static void suggestion_release(struct explore_suggestion *s)
{
	size_t i;

	for (i = 0; i < s->n_new; i++)
		path_release(&s->paths[i]);
	for (i = 0; s->unexplained && i < s->n_unexplained && i < MAX_LISTED; i++)
		cp_free(s->unexplained[i]);
	cp_free(s->unexplained);
	cp_free(s->relaxed);
	memset(s, 0, sizeof *s);
}

/* Check S u T on every usable observation, as `check` does: at the
 * regions' confidence, then at the family-wise level. */
static int prove(struct sg *sg, const struct found *f, struct feas_result *res,
		 size_t threads, struct explore_suggestion *s, struct cp_error *err)
{
	const struct pipe_data *pd = sg->pd_c;
	const struct stats_dataset *d = pipe_data_dataset(pd);
	struct pipe_model *pm = NULL;
	unsigned char *refutes = NULL;
	size_t n_refuting = 0;
	size_t k = sg->k, i, j;
	int rc;

	s->n_new = f->n;
	for (j = 0; j < f->n; j++) {
		struct explore_new_path *p = &s->paths[j];
		uint32_t id = f->id[j];

		p->uop = sg->st.uop[id];
		p->like = sg->bases[sg->st.like[id]].like;
		p->edits = sg->st.edits[id];
		p->counts = cp_malloc(k * sizeof *p->counts + 1);
		if (!p->counts)
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		memcpy(p->counts, sg->st.rows + (size_t)id * k, k * sizeof *p->counts);
		/* the edits in words now: the base is the search's */
		if (!(p->edit = explore_sg_edit_words(sg, sg->st.like[id], p->counts)))
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		memcpy(sg->rows + (sg->mS + j) * k, p->counts, k * sizeof *p->counts);
		s->edits += p->edits;
		s->touched += sg->st.touched[id];
		s->collateral += explore_sg_collateral(sg, id);
		s->shape += explore_sg_shape(sg, id);
	}
	for (i = 0; i < sg->n_obs; i++) {
		feas_result_release(&res[i]);
		feas_result_init(&res[i]);
	}
	/* as `check` proves a model: every usable observation at the
	 * regions' confidence, then those infeasible at the family-wise
	 * level */
	refutes = cp_calloc(sg->n_obs + 1, 1);
	if (!refutes)
		goto nomem;
	if ((rc = pipe_model_new_from(sg->sel, sg->rows, sg->mS + f->n, pd, NULL, &pm, err)) ||
	    (rc = pipe_check(pm, pd, 0, threads, res, NULL, NULL, NULL, err)) ||
	    (rc = pipe_family_check(sg->fam, pm, res, threads, refutes, &n_refuting, NULL,
				    err)))
		goto out;
	sg->out->proven++;
	s->unexplained = cp_calloc(MAX_LISTED, sizeof *s->unexplained);
	if (!s->unexplained)
		goto nomem;
	for (i = 0; i < sg->n_obs; i++) {
		if (!pipe_data_region(pd, i))
			continue;
		s->of++;
		s->feasible_each += res[i].feasible && !res[i].undecided;
		s->undecided += res[i].feasible && res[i].undecided;
		if (!refutes[i] && !(res[i].feasible && res[i].undecided)) {
			s->explains++;
			continue;
		}
		if (s->n_unexplained < MAX_LISTED &&
		    !(s->unexplained[s->n_unexplained] =
		      cp_strdup(stats_dataset_observation(d, i))))
			goto nomem;
		s->n_unexplained++;
	}
	goto out;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	cp_free(refutes);
	pipe_model_free(pm);
	return rc;
}

/* Bound the flow of each new signature of s, as `flows` does, on the
 * observations S u T fits at the regions' confidence. */
static int prove_flows(struct sg *sg, struct explore_suggestion *s, struct feas_result *res,
		       size_t threads, struct cp_error *err)
{
	const struct pipe_data *pd = sg->pd_c;
	const struct stats_dataset *d = pipe_data_dataset(pd);
	const char *names[EXPLORE_SUGGEST_MAX_NEW] = { "new1", "new2", "new3" };
	struct pipe_model *pm = NULL;
	struct pipe_flows *pf = NULL;
	struct pipe_flow_bounds *fb = NULL;
	enum pipe_flow_status *status = NULL;
	uint32_t *extra = NULL;
	size_t k = sg->k, i, j, nu;
	struct found f;
	int rc;

	f.n = s->n_new;
	for (j = 0; j < s->n_new; j++)
		memcpy(sg->rows + (sg->mS + j) * k, s->paths[j].counts, k * sizeof *sg->rows);
	for (i = 0; i < sg->n_obs; i++) {
		feas_result_release(&res[i]);
		feas_result_init(&res[i]);
	}
	if ((rc = pipe_model_new_from(sg->sel, sg->rows, sg->mS + f.n, pd, NULL, &pm, err)) ||
	    (rc = pipe_check(pm, pd, 0, threads, res, NULL, NULL, NULL, err)))
		goto out;
	/* the flows: each new signature a pseudo-feature of its own */
	extra = cp_calloc(f.n * (k + 1), sizeof *extra);
	if (!extra)
		goto nomem;
	for (j = 0; j < f.n; j++) {
		extra[j * (k + 1)] = (uint32_t)s->paths[j].uop;
		memcpy(extra + j * (k + 1) + 1, s->paths[j].counts, k * sizeof *extra);
	}
	if ((rc = pipe_flows_new_extra(sg->m, sg->sel, pd, extra, f.n, names, &pf, err)))
		goto out;
	nu = pipe_flows_n_uops(pf);
	fb = cp_calloc(sg->n_obs * nu * f.n + 1, sizeof *fb);
	status = cp_calloc(sg->n_obs + 1, sizeof *status);
	if (!fb || !status)
		goto nomem;
	if ((rc = pipe_flows_bound(pf, pd, res, threads, fb, status, err)))
		goto out;
	for (j = 0; j < f.n; j++) {
		struct explore_new_path *p = &s->paths[j];
		size_t at = 0;

		p->flow_per = pipe_flows_per(pf, p->uop);
		for (i = 0; i < sg->n_obs; i++) {
			const struct feas_bound *b = &fb[(i * nu + p->uop) * f.n + j].share;

			if (status[i] != PIPE_FLOWS_BOUNDED || !b->defined)
				continue;
			if (!p->flow_defined || b->lo > p->flow_lo) {
				p->flow_lo = b->lo;
				at = i;
			}
			if (!p->flow_defined || b->hi > p->flow_hi)
				p->flow_hi = b->hi;
			p->flow_defined = 1;
		}
		if (p->flow_defined) {
			if (!(p->flow_lo_at = cp_strdup(stats_dataset_observation(d, at))))
				goto nomem;
			if (!s->flow_defined || p->flow_lo > s->flow_lo)
				s->flow_lo = p->flow_lo;
			if (!s->flow_defined || p->flow_hi > s->flow_hi)
				s->flow_hi = p->flow_hi;
			s->flow_defined = 1;
		}
	}
	goto out;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	cp_free(extra);
	cp_free(fb);
	cp_free(status);
	pipe_flows_free(pf);
	pipe_model_free(pm);
	return rc;
}

/* The ranking up to the flow: explains the most, fewer new signatures,
 * fewer edits. */
static int by_proof(const void *a, const void *b)
{
	const struct explore_suggestion *x = a, *y = b;

	if (x->explains != y->explains)
		return x->explains > y->explains ? -1 : 1;
	if (x->n_new != y->n_new)
		return x->n_new < y->n_new ? -1 : 1;
	if (x->edits != y->edits)
		return x->edits < y->edits ? -1 : 1;
	return 0;
}

/* Explains the most, fewer new signatures, fewer edits, the smallest
 * flow forced on them, fewer counters touched, fewer of the model's
 * other constraints broken, the likeliest shape. */
static int by_merit(const void *a, const void *b)
{
	const struct explore_suggestion *x = a, *y = b;
	int c = by_proof(a, b);

	if (c)
		return c;
	if (x->flow_defined != y->flow_defined)
		return x->flow_defined ? -1 : 1;
	/* flows equal to the 4 digits printed are equal */
	if (x->flow_defined && fabs(x->flow_lo - y->flow_lo) >
	    1e-4 * fmax(fabs(x->flow_lo), fabs(y->flow_lo)))
		return x->flow_lo < y->flow_lo ? -1 : 1;
	if (x->touched != y->touched)
		return x->touched < y->touched ? -1 : 1;
	if (x->collateral != y->collateral)
		return x->collateral < y->collateral ? -1 : 1;
	if (x->shape != y->shape)
		return x->shape < y->shape ? -1 : 1;
	return 0;
}

/* The same before the proof: the screened count, size, edits, touched. */
static int by_promise(const void *a, const void *b, void *ctx)
{
	const struct store *st = ctx;
	const struct found *x = a, *y = b;
	size_t ex = 0, ey = 0, tx = 0, ty = 0, i;

	if (x->explains != y->explains)
		return x->explains > y->explains ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	for (i = 0; i < x->n; i++) {
		ex += st->edits[x->id[i]];
		tx += st->touched[x->id[i]];
	}
	for (i = 0; i < y->n; i++) {
		ey += st->edits[y->id[i]];
		ty += st->touched[y->id[i]];
	}
	if (ex != ey)
		return ex < ey ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return memcmp(x->id, y->id, x->n * sizeof *x->id);
}

/* ---- words for people: the new μpath, its edits, its place ---- */

static int finish(struct sg *sg, size_t keep, size_t threads, const size_t *shown,
		  struct cp_error *err)
{
	struct explore_suggest *out = sg->out;
	struct feas_result *res = NULL;
	size_t n, i, take;
	int rc = CP_OK;

	if (!sg->n_found)
		return CP_OK;
	qsort_r(sg->found, sg->n_found, sizeof *sg->found, by_promise, &sg->st);
	/* the first keep, and those tied with the last of them on
	 * everything but the flow (which only the proof bounds) */
	take = sg->n_found < keep ? sg->n_found : keep;
	while (take < sg->n_found && take < 4 * keep &&
	       by_promise(&sg->found[take - 1], &sg->found[take], &sg->st) &&
	       sg->found[take].explains == sg->found[take - 1].explains &&
	       sg->found[take].n == sg->found[take - 1].n) {
		size_t ea = 0, eb = 0;

		for (i = 0; i < sg->found[take].n; i++) {
			ea += sg->st.edits[sg->found[take - 1].id[i]];
			eb += sg->st.edits[sg->found[take].id[i]];
		}
		if (ea != eb)
			break;
		take++;
	}
	out->suggestions = cp_calloc(take + 1, sizeof *out->suggestions);
	res = cp_calloc(sg->n_obs + 1, sizeof *res);
	if (!out->suggestions || !res)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < sg->n_obs; i++)
		feas_result_init(&res[i]);
	for (n = 0; n < take && !rc; n++)
		rc = prove(sg, &sg->found[n], res, threads, &out->suggestions[n], err);
	out->n_suggestions = n;
	if (!rc) {
		/* flows only where they can decide a place: the first keep and
		 * those tied with the last of them before the flow */
		qsort(out->suggestions, n, sizeof *out->suggestions, by_merit);
		for (i = 0; i < n && !rc; i++)
			if (i < keep || !by_proof(&out->suggestions[keep - 1], &out->suggestions[i]))
				rc = prove_flows(sg, &out->suggestions[i], res, threads, err);
	}
	if (!rc) {
		qsort(out->suggestions, n, sizeof *out->suggestions, by_merit);
		for (i = keep; i < n; i++)
			suggestion_release(&out->suggestions[i]);
		out->n_suggestions = n < keep ? n : keep;
		for (i = 0; i < out->n_suggestions && !rc; i++)
			rc = explore_sg_describe(sg, &out->suggestions[i], i + 1, shown, err);
	}
	for (i = 0; i < sg->n_obs; i++)
		feas_result_release(&res[i]);
	cp_free(res);
	return rc;
}

static int by_count(const void *a, const void *b, void *ctx)
{
	const size_t *count = ctx, x = *(const size_t *)a, y = *(const size_t *)b;

	if (count[x] != count[y])
		return count[x] > count[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The certificates of the observations the model does not fit: G, R,
 * and the report's list (the most observations first; shown[i] is the
 * certificate listed i-th). */
static int root_certs(struct sg *sg, size_t **shown, struct cp_error *err)
{
	struct explore_suggest *out = sg->out;
	const char *const *names = pipe_data_names(sg->pd);
	struct certs c;
	size_t i, w;
	int rc;

	if ((rc = explore_sg_certs_of(sg, sg->I, sg->nI, sg->res0, &c, &sg->R)))
		return cp_error_set(err, rc, "out of memory");
	sg->G = c.g;
	sg->nG = c.n;
	sg->nw = c.nw ? c.nw : 1;
	c.g = NULL;
	*shown = cp_calloc(c.n + 1, sizeof **shown);
	out->violated = cp_calloc(c.n + 1, sizeof *out->violated);
	sg->all = cp_calloc(sg->nw, sizeof *sg->all);
	if (!*shown || !out->violated || !sg->all)
		goto nomem;
	if (c.nw < sg->nw) {   /* no certificate at all: one empty word a row */
		cp_free(sg->R);
		if (!(sg->R = cp_calloc(sg->nI + 1, sizeof *sg->R)))
			goto nomem;
	}
	for (i = 0; i < sg->nI; i++)
		for (w = 0; w < sg->nw; w++)
			sg->all[w] |= sg->R[i * sg->nw + w];
	for (i = 0; i < c.n; i++)
		(*shown)[i] = i;
	qsort_r(*shown, c.n, sizeof **shown, by_count, c.count);
	for (i = 0; i < c.n; i++) {
		struct sg_violated *v = &out->violated[i];
		struct cp_buf b;

		v->a = cp_malloc(sg->k * sizeof *v->a);
		if (!v->a)
			goto nomem;
		memcpy(v->a, sg->G + (*shown)[i] * sg->k, sg->k * sizeof *v->a);
		v->count = c.count[(*shown)[i]];
		cp_buf_init(&b);
		/* as the inequality the data break: an equality's side */
		cone_format_constraint(v->a, sg->k, names, 0, &b);
		if (b.failed)
			goto nomem;
		v->text = b.data;
		out->n_violated++;
	}
	explore_sg_certs_release(&c);
	return CP_OK;
nomem:
	explore_sg_certs_release(&c);
	return cp_error_set(err, CP_ENOMEM, "out of memory");
}

static void sg_release(struct sg *sg)
{
	size_t i;

	pipe_family_free(sg->fam);
	udd_sigset_free(sg->ss);
	cp_free(sg->shash);
	cp_free(sg->rows);
	cp_free(sg->bases);
	cp_free(sg->brows);
	for (i = 0; i < sg->n_steps; i++)
		cp_free(sg->step_text[i]);
	cp_free(sg->steps);
	cp_free(sg->step_text);
	cp_free(sg->prefix);
	cp_free(sg->prefix_table);
	cp_free(sg->universe);
	cp_free(sg->I);
	cp_free(sg->G);
	cp_free(sg->R);
	cp_free(sg->all);
	cp_free(sg->kills);
	explore_sg_store_release(&sg->st);
	cp_free(sg->rank);
	cp_free(sg->breakers);
	for (i = 0; sg->res && i < sg->n_obs; i++)
		feas_result_release(&sg->res[i]);
	cp_free(sg->res);
	cp_free(sg->scratch);
	cp_free(sg->found);
	cp_free(sg->seen);
	for (i = 0; i < sg->memo_cap; i++)
		memo_free(sg->memo[i]);
	cp_free(sg->memo);
	cp_free(sg->leaves);
}

static void results_free(struct feas_result *r, size_t n)
{
	size_t i;

	for (i = 0; r && i < n; i++)
		feas_result_release(&r[i]);
	cp_free(r);
}

/* When the family-wise level is above the regions' confidence: the
 * regions at that level (*pd_n, which the search then checks on), and
 * the model's verdicts there on the observations to explain, with their
 * certificates (*res_n).  Those found feasible there after all (a
 * borderline difference) leave the list.  Both NULL at the same level. */
static int family_regions(struct sg *sg, struct pipe_model *pm0, size_t threads,
			  struct pipe_data **pd_n, struct feas_result **res_n,
			  struct cp_error *err)
{
	struct pipe_options po = *pipe_data_options(sg->pd_c);
	size_t i, j;
	int rc;

	*pd_n = NULL;
	*res_n = NULL;
	if (!(pipe_family_level(sg->fam) > po.confidence))
		return CP_OK;
	po.confidence = pipe_family_level(sg->fam);
	po.stream = 0;
	po.threads = threads;
	if ((rc = pipe_data_new(sg->m, pipe_data_dataset(sg->pd_c), &po, pd_n, err)))
		return rc;
	*res_n = cp_calloc(sg->n_obs + 1, sizeof **res_n);
	if (!*res_n)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < sg->n_obs; i++)
		feas_result_init(&(*res_n)[i]);
	if ((rc = pipe_check_some(pm0, *pd_n, sg->I, sg->nI, FEAS_EXPLAIN, *res_n, NULL,
				  err)))
		return rc;
	for (i = 0, j = 0; i < sg->nI; i++)
		if (!(*res_n)[sg->I[i]].feasible || (*res_n)[sg->I[i]].undecided)
			sg->I[j++] = sg->I[i];
	sg->nI = j;
	sg->pd = *pd_n;
	return CP_OK;
}

int explore_suggest_run(const struct udd_model *m, udd_features sel,
			const struct pipe_data *pd, const struct feas_result *res_in,
			const struct explore_suggest_options *opt_in,
			struct explore_suggest **out_p, struct cp_error *err)
{
	struct explore_suggest_options opt = *opt_in;
	struct pipe_budget budget = PIPE_BUDGET_CHECK;
	struct explore_suggest *out;
	struct pipe_model *pm0 = NULL;
	struct feas_result *own = NULL, *res_n = NULL;
	struct pipe_data *pd_n = NULL;
	unsigned char *refutes = NULL;
	struct pass p;
	struct sg sg;
	size_t *shown = NULL, i, g, r;
	double t0 = cp_seconds();
	int rc;

	*out_p = NULL;
	memset(&sg, 0, sizeof sg);
	memset(&p, 0, sizeof p);
	if (opt.max_new < 1 || opt.max_new > EXPLORE_SUGGEST_MAX_NEW)
		return cp_error_set(err, CP_EINPUT, "at most 1 to %d new signatures a "
				    "suggestion, not %zu", EXPLORE_SUGGEST_MAX_NEW, opt.max_new);
	if (!opt.keep)
		opt.keep = DEFAULT_KEEP;
	if (!opt.max_checks)
		opt.max_checks = DEFAULT_MAX_CHECKS;
	out = cp_calloc(1, sizeof *out);
	if (!out)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	out->model = m;
	out->sel = sel;
	out->opt = opt;
	out->k = pipe_data_n_counters(pd);
	out->names = pipe_data_names(pd);
	out->n_observations = pipe_data_n_observations(pd);
	out->region = pipe_region_name(pipe_data_options(pd)->shape);
	out->confidence = pipe_data_options(pd)->confidence ? pipe_data_options(pd)->confidence
		: 0.99;
	out->complete = 1;
	sg.m = m;
	sg.sel = sel;
	sg.pd = sg.pd_c = pd;
	sg.out = out;
	sg.k = out->k;
	sg.n_obs = out->n_observations;
	sg.max_new = opt.max_new;
	sg.max_edits = opt.max_edits;
	sg.max_checks = opt.max_checks;
	/* the model as `check` checks it */
	if ((rc = pipe_model_new(m, sel, pd, &budget, &pm0, err)))
		goto fail;
	if (!res_in) {
		own = cp_calloc(sg.n_obs + 1, sizeof *own);
		if (!own)
			goto nomem;
		for (i = 0; i < sg.n_obs; i++)
			feas_result_init(&own[i]);
		if ((rc = pipe_check(pm0, pd, FEAS_EXPLAIN, opt.threads, own, NULL, NULL,
				     NULL, err)))
			goto fail;
		res_in = own;
	}
	sg.res0 = res_in;
	sg.pm0 = pm0;
	sg.S = pipe_model_signatures(pm0);
	sg.mS = pipe_model_n_signatures(pm0);
	sg.I = cp_calloc(sg.n_obs + 1, sizeof *sg.I);
	refutes = cp_calloc(sg.n_obs + 1, 1);
	if (!sg.I || !refutes)
		goto nomem;
	for (i = 0; i < sg.n_obs; i++) {
		if (!pipe_data_region(pd, i))
			continue;
		out->usable++;
		out->infeasible += !res_in[i].feasible;
		out->undecided += res_in[i].feasible && res_in[i].undecided;
	}
	/* the observations that refute the model, by `check`'s family-wise
	 * rule: the ones to explain */
	if ((rc = pipe_family_new(pd, opt.family_confidence, out->usable, &sg.fam, err)) ||
	    (rc = pipe_family_check(sg.fam, pm0, res_in, opt.threads, refutes, &out->refuting,
				    NULL, err)))
		goto fail;
	out->family_confidence = pipe_family_confidence(sg.fam);
	out->family_level = pipe_family_level(sg.fam);
	{
		struct cp_buf cb;

		cp_buf_init(&cb);
		pipe_family_put_claim(&cb, sg.fam, out->infeasible, out->refuting);
		if (cb.failed)
			goto nomem;
		out->claim = cb.data;
	}
	for (i = 0; i < sg.n_obs; i++)
		if (pipe_data_region(pd, i) &&
		    (refutes[i] || (res_in[i].feasible && res_in[i].undecided)))
			sg.I[sg.nI++] = i;
	if (!sg.nI)
		goto done;
	/* the search's regions, at that level, and the certificates there */
	if ((rc = family_regions(&sg, pm0, opt.threads, &pd_n, &res_n, err)))
		goto fail;
	if (res_n)
		sg.res0 = res_n;
	if (!sg.nI)
		goto done;
	if ((rc = udd_sigset_build(m, sel, 0, &sg.ss, err)) ||
	    (rc = explore_sg_bases(&sg, err)) || (rc = root_certs(&sg, &shown, err)))
		goto fail;
	if (explore_sg_model_rows(&sg))
		goto nomem;
	sg.st.k = sg.k;
	sg.st.nw = sg.nw;
	/* every candidate priced against every certificate */
	if (explore_sg_pass_init(&sg, &p, sg.G, sg.nG, PASS_ANY))
		goto nomem;
	p.root = 1;
	if (sg.nG && explore_sg_pass_run(&sg, &p))
		goto nomem;
	explore_sg_pass_release(&p);
	sg.n_root = sg.st.n;
	out->favourable = sg.n_root;
	sg.rank = cp_calloc(sg.n_root + 1, sizeof *sg.rank);
	sg.breakers = cp_calloc(sg.nG + 1, sizeof *sg.breakers);
	sg.rows_cap = sg.mS + EXPLORE_SUGGEST_MAX_NEW;
	sg.rows = cp_calloc(sg.rows_cap * sg.k + 1, sizeof *sg.rows);
	sg.res = cp_calloc(sg.n_obs + 1, sizeof *sg.res);
	sg.scratch = cp_calloc(sg.n_obs + 1, sizeof *sg.scratch);
	sg.kills = cp_calloc(sg.n_obs + 1, sizeof *sg.kills);
	if (!sg.rank || !sg.breakers || !sg.rows || !sg.res || !sg.scratch || !sg.kills)
		goto nomem;
	memcpy(sg.rows, sg.S, sg.mS * sg.k * sizeof *sg.rows);
	for (i = 0; i < sg.n_obs; i++)
		feas_result_init(&sg.res[i]);
	for (r = 0; r < sg.n_root; r++) {
		sg.rank[r] = (uint32_t)r;
		for (g = 0; g < sg.nG; g++)
			sg.breakers[g] += (sg.st.brk[r * sg.nw + g / 64] >> (g % 64)) & 1;
	}
	qsort_r(sg.rank, sg.n_root, sizeof *sg.rank, by_rank, &sg.st);
	/* every set that explains everything, then, failing those, the
	 * sets that explain the most */
	rc = search(&sg, opt.keep, err);
	if (rc == CP_ELIMIT) {
		out->complete = 0;
		cp_error_clear(err);
		rc = CP_OK;
	}
	if (rc)
		goto fail;
	/* without a single certificate nothing could be priced: the sets
	 * checked were not all there are */
	if (out->unpriced || !sg.nG) {
		out->unpriced = 1;
		out->complete = 0;
	}
	out->pruned_by_pricing = out->complete && !sg.n_found && !out->sets_checked;
	if (!sg.n_found) {
		rc = partial(&sg, opt.keep, err);
		if (rc == CP_ELIMIT) {
			cp_error_clear(err);
			rc = CP_OK;
		}
		if (rc)
			goto fail;
	}
	if ((rc = finish(&sg, opt.keep, opt.threads, shown, err)))
		goto fail;
done:
	out->seconds = cp_seconds() - t0;
	*out_p = out;
	out = NULL;
	rc = CP_OK;
	goto release;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory");
fail:
release:
	explore_sg_pass_release(&p);
	cp_free(shown);
	cp_free(refutes);
	sg_release(&sg);
	results_free(res_n, sg.n_obs);
	pipe_data_free(pd_n);
	pipe_model_free(pm0);
	for (i = 0; own && i < sg.n_obs; i++)
		feas_result_release(&own[i]);
	cp_free(own);
	explore_suggest_free(out);
	return rc;
}

void explore_suggest_free(struct explore_suggest *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_suggestions; i++)
		suggestion_release(&s->suggestions[i]);
	cp_free(s->suggestions);
	for (i = 0; i < s->n_violated; i++) {
		cp_free(s->violated[i].a);
		cp_free(s->violated[i].text);
	}
	cp_free(s->violated);
	cp_free(s->claim);
	cp_free(s);
}

size_t explore_suggest_n(const struct explore_suggest *s) { return s->n_suggestions; }
size_t explore_suggest_usable(const struct explore_suggest *s) { return s->usable; }
size_t explore_suggest_infeasible(const struct explore_suggest *s) { return s->infeasible; }
size_t explore_suggest_refuting(const struct explore_suggest *s) { return s->refuting; }
size_t explore_suggest_n_violated(const struct explore_suggest *s) { return s->n_violated; }

const struct explore_suggestion *explore_suggest_at(const struct explore_suggest *s,
						    size_t i)
{
	return i < s->n_suggestions ? &s->suggestions[i] : NULL;
}

int explore_suggest_explains_all(const struct explore_suggest *s)
{
	if (!s->refuting && !s->undecided)
		return 1;
	return s->n_suggestions && s->suggestions[0].explains == s->usable;
}

const char *explore_suggest_violated(const struct explore_suggest *s, size_t i,
				     size_t *observations)
{
	if (i >= s->n_violated)
		return NULL;
	if (observations)
		*observations = s->violated[i].count;
	return s->violated[i].text;
}

void explore_suggest_counts(const struct explore_suggest *s, struct cp_buf *b)
{
	cp_buf_printf(b, "priced %zu candidates (%zu distinct, %zu favourable), checked %zu "
		      "sets (%zu observation checks), proven %zu; %.3f s wall",
		      s->generated, s->priced, s->favourable, s->sets_checked, s->checks,
		      s->proven, s->seconds);
}

int explore_family_suggest(struct explore_family *f, const struct explore_search *s,
			   const struct explore_suggest_options *opt, udd_features *best,
			   struct explore_suggest **out, struct cp_error *err)
{
	size_t i, b = 0;

	*out = NULL;
	if (!explore_n_models(s))
		return cp_error_set(err, CP_EINPUT, "no model was tested");
	struct explore_suggest_options o = *opt;

	for (i = 1; i < explore_n_models(s); i++)
		if (explore_eval_refuting(&explore_model_at(s, i)->eval) <
		    explore_eval_refuting(&explore_model_at(s, b)->eval))
			b = i;
	*best = explore_model_at(s, b)->features;
	/* the family's claims' level */
	if (!o.family_confidence)
		o.family_confidence = explore_family_confidence(f);
	return explore_suggest_run(f->model, *best, f->pd, NULL, &o, out, err);
}
