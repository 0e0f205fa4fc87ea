/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/suggest_cand.c: suggest's candidates and their prices.  The
 * bases (each (uop, signature) pair of the model with its example μpath's
 * increment steps), the edits that make candidates from them, the store
 * that keeps each candidate once with its fewest edits, the pricing
 * passes against a list of certificates (incremental, exact in
 * integers), the certificates of the observations a set leaves, and the
 * candidates' ranking words (collateral breaks, shape). */
#include <stdlib.h>
#include <string.h>

#include "explore/family_int.h"
#include "explore/suggest_int.h"

#include "geometry/cone.h"

static uint64_t row_hash(const uint32_t *r, size_t k)
{
	return cp_hash(CP_HASH_SEED, r, k * sizeof *r);
}

static int store_grow_table(struct store *s)
{
	size_t cap = s->tcap ? 2 * s->tcap : 1024, i;
	uint32_t *t = cp_calloc(cap, sizeof *t);

	if (!t)
		return CP_ENOMEM;
	for (i = 0; i < s->n; i++) {
		size_t h = (size_t)row_hash(s->rows + i * s->k, s->k) & (cap - 1);

		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = (uint32_t)i + 1;
	}
	cp_free(s->table);
	s->table = t;
	s->tcap = cap;
	return CP_OK;
}

static int store_grow(struct store *s)
{
	size_t cap = s->cap ? 2 * s->cap : 1024, k = s->k;
	void *p;

#define GROW(f, per) \
	if (!(p = cp_reallocarray(s->f, cap, (per) * sizeof *s->f))) \
		return CP_ENOMEM; \
	s->f = p;
	GROW(rows, k)
	GROW(uop, 1)
	GROW(like, 1)
	GROW(edits, 1)
	GROW(touched, 1)
	GROW(brk, s->nw)
	GROW(single, 1)
	GROW(collat, 1)
	GROW(reduc, 1)
	GROW(mark, 1)
#undef GROW
	s->cap = cap;
	return CP_OK;
}

/* The candidate t, or -1. */
long explore_sg_store_find(const struct store *s, const uint32_t *t)
{
	size_t h;

	if (!s->tcap)
		return -1;
	for (h = (size_t)row_hash(t, s->k) & (s->tcap - 1); s->table[h];
	     h = (h + 1) & (s->tcap - 1))
		if (!memcmp(s->rows + (size_t)(s->table[h] - 1) * s->k, t,
			    s->k * sizeof *t))
			return (long)s->table[h] - 1;
	return -1;
}

void explore_sg_store_release(struct store *s)
{
	cp_free(s->rows);
	cp_free(s->uop);
	cp_free(s->like);
	cp_free(s->edits);
	cp_free(s->touched);
	cp_free(s->brk);
	cp_free(s->single);
	cp_free(s->collat);
	cp_free(s->reduc);
	cp_free(s->mark);
	cp_free(s->table);
}

/* ==== edits ====
 * An edit of a μpath removes one of its increment steps (an `incr`
 * statement it passes, every counter of it), adds one increment of a
 * counter, or changes a counter's count by one, never below one (a
 * counter leaves a μpath only with the steps that count it). */

/* Counters that differ between s and t. */
static size_t touched_of(const uint32_t *s, const uint32_t *t, size_t k)
{
	size_t c, n = 0;

	for (c = 0; c < k; c++)
		n += s[c] != t[c];
	return n;
}

/* Edits from base b to t when the steps removed are those of `drop`
 * (a bitmask over b's steps): SIZE_MAX when a counter t lacks is left. */
static size_t edits_with(const struct sg *sg, const struct base *b, const uint32_t *s,
			 uint64_t drop, const uint32_t *t)
{
	size_t c, i, e = 0;

	for (i = 0; i < b->n_steps; i++)
		e += (drop >> i) & 1;
	for (c = 0; c < sg->k; c++) {
		uint32_t a = s[c];

		for (i = 0; i < b->n_steps; i++)
			if ((drop >> i) & 1)
				a -= sg->steps[(b->step0 + i) * sg->k + c];
		if (a == t[c])
			continue;
		if (!t[c])
			return SIZE_MAX;
		e += a < t[c] ? t[c] - a : a - t[c];
	}
	return e;
}

/* The fewest edits from base b to t, and the steps they remove (*drop):
 * every subset of up to 16 steps, else the steps that count a counter t
 * lacks. */
size_t explore_sg_step_distance(const struct sg *sg, size_t bi, const uint32_t *t,
			    uint64_t *drop)
{
	const struct base *b = &sg->bases[bi];
	const uint32_t *s = sg->brows + bi * sg->k;
	uint64_t m, need = 0, best_m = 0;
	size_t i, c, e, best = SIZE_MAX;

	for (i = 0; i < b->n_steps && i < 64; i++)
		for (c = 0; c < sg->k; c++)
			if (!t[c] && sg->steps[(b->step0 + i) * sg->k + c])
				need |= (uint64_t)1 << i;
	if (b->n_steps > 16) {
		best = edits_with(sg, b, s, need, t);
		best_m = need;
	} else {
		for (m = 0; m < (uint64_t)1 << b->n_steps; m++) {
			if ((m & need) != need)
				continue;
			e = edits_with(sg, b, s, m, t);
			if (e < best) {
				best = e;
				best_m = m;
			}
		}
	}
	if (drop)
		*drop = best_m;
	return best;
}

/* ==== the model's signatures: is a row one of them? ==== */

int explore_sg_model_rows(struct sg *sg)
{
	size_t cap = 64, i, k = sg->k;

	while (cap < 2 * (sg->mS + 1))
		cap *= 2;
	sg->shash = cp_calloc(cap, sizeof *sg->shash);
	if (!sg->shash)
		return CP_ENOMEM;
	sg->shcap = cap;
	for (i = 0; i < sg->mS; i++) {
		size_t h = (size_t)row_hash(sg->S + i * k, k) & (cap - 1);

		while (sg->shash[h])
			h = (h + 1) & (cap - 1);
		sg->shash[h] = (uint32_t)i + 1;
	}
	return CP_OK;
}

static int in_model(const struct sg *sg, const uint32_t *t)
{
	size_t h, c, k = sg->k;

	for (c = 0; c < k && !t[c]; c++)
		;
	if (c == k)
		return 1;   /* counts nothing: adds nothing to the cone */
	for (h = (size_t)row_hash(t, k) & (sg->shcap - 1); sg->shash[h];
	     h = (h + 1) & (sg->shcap - 1))
		if (!memcmp(sg->S + (size_t)(sg->shash[h] - 1) * k, t, k * sizeof *t))
			return 1;
	return 0;
}

/* ==== pricing passes: every candidate against a list of certificates ==== */


void explore_sg_pass_release(struct pass *p)
{
	cp_free(p->cstart);
	cp_free(p->cg);
	cp_free(p->d);
	cp_free(p->t);
	cp_free(p->bits);
	cp_free(p->out);
	cp_free(p->score);
	memset(p, 0, sizeof *p);
}

int explore_sg_pass_init(struct sg *sg, struct pass *p, const int64_t *G, size_t nG,
		     int mode)
{
	size_t k = sg->k, c, g, n = 0;

	memset(p, 0, sizeof *p);
	p->G = G;
	p->nG = nG;
	p->nw = (nG + 63) / 64;
	p->mode = mode;
	p->cstart = cp_calloc(k + 1, sizeof *p->cstart);
	p->d = cp_calloc(nG + 1, sizeof *p->d);
	p->t = cp_calloc(k + 1, sizeof *p->t);
	p->bits = cp_calloc(p->nw + 1, sizeof *p->bits);
	if (!p->cstart || !p->d || !p->t || !p->bits)
		return CP_ENOMEM;
	for (g = 0; g < nG; g++)
		for (c = 0; c < k; c++)
			n += G[g * k + c] != 0;
	p->cg = cp_calloc(n + 1, sizeof *p->cg);
	if (!p->cg)
		return CP_ENOMEM;
	for (c = 0, n = 0; c < k; c++) {
		p->cstart[c] = n;
		for (g = 0; g < nG; g++)
			if (G[g * k + c])
				p->cg[n++] = g;
	}
	p->cstart[k] = n;
	p->id = ++sg->pass_id;
	return CP_OK;
}

/* Root certificates t breaks, into bits (sg->nw words). */
static void root_bits(const struct sg *sg, const uint32_t *t, uint64_t *bits)
{
	size_t g;

	memset(bits, 0, sg->nw * sizeof *bits);
	for (g = 0; g < sg->nG; g++)
		if (cone_dot_exact(sg->G + g * sg->k, t, sg->k) < 0)
			bits[g / 64] |= (uint64_t)1 << (g % 64);
}

/* Into the store (once; the fewest edits win), and listed by the pass. */
static int pass_keep(struct sg *sg, struct pass *p, size_t edits, uint32_t score)
{
	struct store *s = &sg->st;
	const struct base *b = &sg->bases[p->base];
	size_t touched, k = sg->k;
	long id = explore_sg_store_find(s, p->t);

	touched = touched_of(sg->brows + p->base * k, p->t, k);
	if (id < 0) {
		size_t h;

		if ((s->n == s->cap && store_grow(s)) ||
		    (2 * (s->n + 1) > s->tcap && store_grow_table(s)))
			return CP_ENOMEM;
		id = (long)s->n++;
		memcpy(s->rows + (size_t)id * k, p->t, k * sizeof *p->t);
		s->uop[id] = b->uop;
		s->like[id] = (uint32_t)p->base;
		s->edits[id] = (uint32_t)edits;
		s->touched[id] = (uint32_t)touched;
		s->single[id] = 0;
		s->collat[id] = UINT32_MAX;
		s->reduc[id] = 0;
		s->mark[id] = 0;
		if (p->root)
			memcpy(s->brk + (size_t)id * s->nw, p->bits, s->nw * sizeof *p->bits);
		else
			root_bits(sg, p->t, s->brk + (size_t)id * s->nw);
		for (h = (size_t)row_hash(p->t, k) & (s->tcap - 1); s->table[h];
		     h = (h + 1) & (s->tcap - 1))
			;
		s->table[h] = (uint32_t)id + 1;
		sg->out->priced++;
		sg->out->small += p->small;
	} else if (edits < s->edits[id] ||
		   (edits == s->edits[id] && touched < s->touched[id])) {
		s->uop[id] = b->uop;
		s->like[id] = (uint32_t)p->base;
		s->edits[id] = (uint32_t)edits;
		s->touched[id] = (uint32_t)touched;
	}
	if (s->mark[id] == p->id)
		return CP_OK;
	s->mark[id] = p->id;
	if (p->n_out == p->cap_out) {
		size_t cap = p->cap_out ? 2 * p->cap_out : 256;
		uint32_t *o = cp_reallocarray(p->out, cap, sizeof *o);
		uint32_t *sc = o ? cp_reallocarray(p->score, cap, sizeof *sc) : NULL;

		if (o)
			p->out = o;
		if (!sc)
			return CP_ENOMEM;
		p->score = sc;
		p->cap_out = cap;
	}
	p->out[p->n_out] = (uint32_t)id;
	p->score[p->n_out++] = score;
	return CP_OK;
}

/* The row p->t made with `edits` edits: priced, and kept when the
 * pass's test holds. */
static int pass_leaf(struct sg *sg, struct pass *p, size_t edits)
{
	size_t g, i, w, n = 0;
	uint32_t score = 1;

	sg->out->generated++;
	memset(p->bits, 0, p->nw * sizeof *p->bits);
	for (g = 0; g < p->nG; g++)
		if (p->d[g] < 0) {
			p->bits[g / 64] |= (uint64_t)1 << (g % 64);
			n++;
		}
	if (!n || (p->mode == PASS_ALL && n < p->nG))
		return CP_OK;
	if (p->mode == PASS_COVER) {
		score = 0;
		for (i = 0; i < p->n_targets; i++) {
			const uint64_t *r = p->R + i * p->nw;

			for (w = 0; w < p->nw && (r[w] & ~p->bits[w]) == 0; w++)
				;
			score += w == p->nw;
		}
		if (!score)
			return CP_OK;
	}
	if (in_model(sg, p->t))
		return CP_OK;
	return pass_keep(sg, p, edits, score);
}

/* Change counter c of p->t to v (updating the prices). */
static void pass_set(struct pass *p, size_t k, size_t c, uint32_t v)
{
	__int128 delta = (__int128)v - p->t[c];
	size_t j;

	for (j = p->cstart[c]; j < p->cstart[c + 1]; j++)
		p->d[p->cg[j]] += (__int128)p->G[p->cg[j] * k + c] * delta;
	p->t[c] = v;
}

/* Every row within `left` more edits of p->t by counter increments,
 * changing counters from c0 on (each counter once, so each row is made
 * once per set of steps removed). */
static int pass_edits(struct sg *sg, struct pass *p, size_t c0, size_t left,
		      size_t used)
{
	const unsigned char *uni = sg->universe + sg->bases[p->base].uop * sg->k;
	size_t c, dd, w;
	int rc;

	for (c = c0; c < sg->k; c++) {
		uint32_t a = p->t[c], v;

		if (!a && !uni[c])
			continue;   /* a counter the uop never counts */
		/* a + w or a - w (staying at least 1), w edits */
		for (dd = 1; dd <= 2 * left; dd++) {
			w = (dd + 1) / 2;
			if (dd % 2) {
				if (a > UINT32_MAX - w)
					continue;
				v = a + (uint32_t)w;
			} else {
				if (a <= w)
					continue;
				v = a - (uint32_t)w;
			}
			pass_set(p, sg->k, c, v);
			rc = pass_leaf(sg, p, used + w);
			if (!rc && left > w)
				rc = pass_edits(sg, p, c + 1, left - w, used + w);
			pass_set(p, sg->k, c, a);
			if (rc)
				return rc;
		}
	}
	return CP_OK;
}

/* p->t with steps s0.. of the base removed, up to `left` of them, each
 * followed by counter edits within the edits left. */
static int pass_steps(struct sg *sg, struct pass *p, size_t s0, size_t left,
		      size_t used)
{
	const struct base *b = &sg->bases[p->base];
	size_t i, c, k = sg->k;
	int rc = CP_OK;

	if (used && (rc = pass_leaf(sg, p, used)))
		return rc;
	if (left && (rc = pass_edits(sg, p, 0, left, used)))
		return rc;
	for (i = s0; i < b->n_steps && left && !rc; i++) {
		const uint32_t *st = sg->steps + (b->step0 + i) * k;

		for (c = 0; c < k; c++)
			if (st[c])
				pass_set(p, k, c, p->t[c] - st[c]);
		rc = pass_steps(sg, p, i + 1, left - 1, used + 1);
		for (c = 0; c < k; c++)
			if (st[c])
				pass_set(p, k, c, p->t[c] + st[c]);
	}
	return rc;
}

/* The base nearest to t among the uops that may count every counter of
 * t (fewest edits, then counters touched, then the first), and its
 * edits; SIZE_MAX when no uop may count them all. */
static size_t nearest_base(const struct sg *sg, const uint32_t *t, size_t *edits)
{
	size_t i, c, best = SIZE_MAX, be = SIZE_MAX, bt = SIZE_MAX;

	for (i = 0; i < sg->nb; i++) {
		const unsigned char *uni = sg->universe + sg->bases[i].uop * sg->k;
		size_t tt, e;

		for (c = 0; c < sg->k && (!t[c] || uni[c]); c++)
			;
		if (c < sg->k)
			continue;
		e = explore_sg_step_distance(sg, i, t, NULL);
		tt = touched_of(sg->brows + i * sg->k, t, sg->k);
		if (e < be || (e == be && tt < bt)) {
			best = i;
			be = e;
			bt = tt;
		}
	}
	*edits = be;
	return best;
}

/* Signatures of one or two counters, once each, on the counters the
 * pass's certificates use. */
static int pass_small(struct sg *sg, struct pass *p)
{
	size_t k = sg->k, c, e, ed;
	int rc = CP_OK;

	memset(p->t, 0, k * sizeof *p->t);
	memset(p->d, 0, p->nG * sizeof *p->d);
	p->small = 1;
	for (c = 0; c < k && !rc; c++) {
		if (p->cstart[c] == p->cstart[c + 1])
			continue;
		pass_set(p, k, c, 1);
		p->base = nearest_base(sg, p->t, &ed);
		if (p->base != SIZE_MAX)
			rc = pass_leaf(sg, p, ed);
		for (e = c + 1; e < k && !rc; e++) {
			if (p->cstart[e] == p->cstart[e + 1])
				continue;
			pass_set(p, k, e, 1);
			p->base = nearest_base(sg, p->t, &ed);
			if (p->base != SIZE_MAX)
				rc = pass_leaf(sg, p, ed);
			pass_set(p, k, e, 0);
		}
		pass_set(p, k, c, 0);
	}
	p->small = 0;
	return rc;
}

/* Run a pass over every candidate. */
int explore_sg_pass_run(struct sg *sg, struct pass *p)
{
	size_t i, g, k = sg->k;
	int rc = CP_OK;

	for (i = 0; i < sg->nb && !rc; i++) {
		p->base = i;
		memcpy(p->t, sg->brows + i * k, k * sizeof *p->t);
		for (g = 0; g < p->nG; g++)
			p->d[g] = cone_dot_exact(p->G + g * k, p->t, k);
		rc = pass_steps(sg, p, 0, sg->max_edits, 0);
	}
	if (!rc)
		rc = pass_small(sg, p);
	return rc;
}

/* ==== the certificates of the observations a set does not fit ==== */

/* Certificate v of observation i, oriented so that a new signature helps
 * only if g.t < 0: an inequality as it is, an equality towards the side
 * the region lies on (a.mu's sign). */
static void orient(const struct sg *sg, size_t i, const struct feas_violation *v,
		   int64_t *g)
{
	const struct feas_query *q = pipe_data_query(sg->pd, i);
	double s = 0;
	size_t c;

	for (c = 0; c < sg->k; c++)
		s += (double)v->a[c] * q->mu[c];
	for (c = 0; c < sg->k; c++)
		g[c] = v->is_equality && s > 0 ? -v->a[c] : v->a[c];
}


static long certs_find(const struct certs *c, const int64_t *g, size_t k)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!memcmp(c->g + i * k, g, k * sizeof *g))
			return (long)i;
	return -1;
}

static long certs_add(struct certs *c, const int64_t *g, int eq, size_t k)
{
	long i = certs_find(c, g, k);

	if (i >= 0) {
		c->count[i]++;
		return i;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		int64_t *ng = cp_reallocarray(c->g, cap, k * sizeof *ng);
		unsigned char *ne;
		size_t *nc;

		if (!ng)
			return -1;
		c->g = ng;
		ne = cp_reallocarray(c->eq, cap, sizeof *ne);
		if (!ne)
			return -1;
		c->eq = ne;
		nc = cp_reallocarray(c->count, cap, sizeof *nc);
		if (!nc)
			return -1;
		c->count = nc;
		c->cap = cap;
	}
	memcpy(c->g + c->n * k, g, k * sizeof *g);
	c->eq[c->n] = (unsigned char)eq;
	c->count[c->n] = 1;
	return (long)c->n++;
}

void explore_sg_certs_release(struct certs *c)
{
	cp_free(c->g);
	cp_free(c->eq);
	cp_free(c->count);
}

/* The certificates of observations obs[0..n) in res: the list, and per
 * observation a bitset over it (*R, n x nw, cp_free'd by the caller). */
int explore_sg_certs_of(struct sg *sg, const size_t *obs, size_t n,
		    const struct feas_result *res, struct certs *c, uint64_t **R)
{
	size_t i, j, k = sg->k;
	int64_t *g = cp_calloc(k + 1, sizeof *g);
	long *which = NULL;
	size_t total = 0, at = 0;

	*R = NULL;
	memset(c, 0, sizeof *c);
	if (!g)
		return CP_ENOMEM;
	for (i = 0; i < n; i++)
		total += res[obs[i]].n_violations;
	which = cp_calloc(total + 1, sizeof *which);
	if (!which)
		goto nomem;
	for (i = 0; i < n; i++)
		for (j = 0; j < res[obs[i]].n_violations; j++) {
			orient(sg, obs[i], &res[obs[i]].violations[j], g);
			which[at] = certs_add(c, g, res[obs[i]].violations[j].is_equality, k);
			if (which[at++] < 0)
				goto nomem;
		}
	c->nw = (c->n + 63) / 64;
	*R = cp_calloc(n * c->nw + 1, sizeof **R);
	if (!*R)
		goto nomem;
	for (i = 0, at = 0; i < n; i++)
		for (j = 0; j < res[obs[i]].n_violations; j++, at++)
			(*R)[i * c->nw + (size_t)which[at] / 64] |=
				(uint64_t)1 << ((size_t)which[at] % 64);
	cp_free(g);
	cp_free(which);
	return CP_OK;
nomem:
	cp_free(g);
	cp_free(which);
	explore_sg_certs_release(c);
	return CP_ENOMEM;
}

/* The model's listed constraints t breaks that the data do not (a
 * candidate that opens more of the cone than the data ask for is the
 * less likely μpath); 0 when the facets are not listed or too many to
 * test every candidate against. */
#define COLLATERAL_MAX_CONSTRAINTS 4096
static size_t collateral(const struct sg *sg, const uint32_t *t)
{
	size_t i, n = 0, neq = pipe_model_n_equalities(sg->pm0), g;
	size_t nc = neq + pipe_model_n_facets(sg->pm0);

	if (!pipe_model_has_facets(sg->pm0) || nc > COLLATERAL_MAX_CONSTRAINTS)
		return 0;
	for (i = 0; i < nc; i++) {
		__int128 v = cone_dot_exact(pipe_model_constraint(sg->pm0, i), t, sg->k);

		n += i < neq ? v != 0 : v < 0;
	}
	for (g = 0; g < sg->nG; g++)
		n -= n && cone_dot_exact(sg->G + g * sg->k, t, sg->k) < 0;
	return n;
}

size_t explore_sg_collateral(struct sg *sg, uint32_t id)
{
	if (sg->st.collat[id] == UINT32_MAX)
		sg->st.collat[id] = (uint32_t)collateral(sg, sg->st.rows + (size_t)id * sg->k);
	return sg->st.collat[id];
}

/* Is (uop, t) the counts of a prefix of a model μpath (one cut short
 * after an increment)? */
static int prefix_find(const struct sg *sg, uint32_t uop, const uint32_t *t)
{
	size_t h, k = sg->k;
	uint64_t hv;

	if (!sg->prefix_tcap)
		return 0;
	hv = cp_hash(cp_hash(CP_HASH_SEED, &uop, sizeof uop), t, k * sizeof *t);
	for (h = (size_t)hv & (sg->prefix_tcap - 1); sg->prefix_table[h];
	     h = (h + 1) & (sg->prefix_tcap - 1)) {
		const uint32_t *r = sg->prefix + (size_t)(sg->prefix_table[h] - 1) * (k + 1);

		if (r[0] == uop && !memcmp(r + 1, t, k * sizeof *t))
			return 1;
	}
	return 0;
}

static int prefix_add(struct sg *sg, uint32_t uop, const uint32_t *t)
{
	size_t h, i, k = sg->k;
	uint32_t *r;

	if (prefix_find(sg, uop, t))
		return CP_OK;
	if (sg->n_prefix == sg->cap_prefix) {
		size_t cap = sg->cap_prefix ? 2 * sg->cap_prefix : 256;

		if (!(r = cp_reallocarray(sg->prefix, cap, (k + 1) * sizeof *r)))
			return CP_ENOMEM;
		sg->prefix = r;
		sg->cap_prefix = cap;
	}
	r = sg->prefix + sg->n_prefix * (k + 1);
	r[0] = uop;
	memcpy(r + 1, t, k * sizeof *t);
	sg->n_prefix++;
	if (2 * sg->n_prefix > sg->prefix_tcap) {
		size_t cap = sg->prefix_tcap ? 2 * sg->prefix_tcap : 1024;

		cp_free(sg->prefix_table);
		if (!(sg->prefix_table = cp_calloc(cap, sizeof *sg->prefix_table)))
			return CP_ENOMEM;
		sg->prefix_tcap = cap;
		for (i = 0; i < sg->n_prefix; i++) {
			const uint32_t *q = sg->prefix + i * (k + 1);
			uint64_t hv = cp_hash(cp_hash(CP_HASH_SEED, q, sizeof *q), q + 1,
					      k * sizeof *q);

			for (h = (size_t)hv & (cap - 1); sg->prefix_table[h]; h = (h + 1) & (cap - 1))
				;
			sg->prefix_table[h] = (uint32_t)i + 1;
		}
		return CP_OK;
	}
	{
		uint64_t hv = cp_hash(cp_hash(CP_HASH_SEED, &uop, sizeof uop), t, k * sizeof *t);

		for (h = (size_t)hv & (sg->prefix_tcap - 1); sg->prefix_table[h];
		     h = (h + 1) & (sg->prefix_tcap - 1))
			;
		sg->prefix_table[h] = (uint32_t)sg->n_prefix;
	}
	return CP_OK;
}

/* How a candidate relates to the model's μpaths, the likeliest first:
 * 0, a μpath cut short (the counts of a prefix of one: a squash, an
 * abort); 1, a μpath with more increments (t = s + r, s a signature of
 * the model, r >= 0 another candidate: a step repeated, a counter more);
 * 2, neither (a fragment that no μpath of the uop resembles as a
 * whole). */
size_t explore_sg_shape(struct sg *sg, uint32_t id)
{
	const uint32_t *t = sg->st.rows + (size_t)id * sg->k;
	uint32_t *r;
	size_t j, c;
	unsigned char v = 3;

	if (sg->st.reduc[id])
		return (size_t)sg->st.reduc[id] - 1;
	if (prefix_find(sg, sg->st.uop[id], t)) {
		sg->st.reduc[id] = 1;
		return 0;
	}
	r = cp_calloc(sg->k + 1, sizeof *r);
	if (!r)
		return 2;   /* only a ranking: no harm */
	for (j = 0; j < sg->mS && v == 3; j++) {
		const uint32_t *sj = sg->S + j * sg->k;
		int zero = 1;

		for (c = 0; c < sg->k && sj[c] <= t[c]; c++)
			zero &= !sj[c];
		if (c < sg->k || zero)
			continue;
		for (c = 0; c < sg->k; c++)
			r[c] = t[c] - sj[c];
		if (explore_sg_store_find(&sg->st, r) >= 0)
			v = 2;
	}
	cp_free(r);
	sg->st.reduc[id] = v;
	return (size_t)v - 1;
}

/* ==== the run ==== */

/* One increment step of an example μpath, on the data's counters. */
struct step_ctx {
	struct sg *sg;
	uint32_t *prev;            /* the model's counts before the step */
	int failed;
};

static int collect_step(void *ctx, const char *step, unsigned line, const uint32_t *counts)
{
	struct step_ctx *x = ctx;
	struct sg *sg = x->sg;
	const size_t *cols = pipe_data_columns(sg->pd);
	size_t km = udd_model_n_counters(sg->m), c, k = sg->k;
	uint32_t *row;
	int any = 0;

	(void)line;
	if (step[0] == '+') {
		if (sg->n_steps == sg->cap_steps) {
			size_t cap = sg->cap_steps ? 2 * sg->cap_steps : 256;
			uint32_t *ns = cp_reallocarray(sg->steps, cap, k * sizeof *ns);
			char **nt;

			if (!ns)
				return x->failed = 1;
			sg->steps = ns;
			nt = cp_reallocarray(sg->step_text, cap, sizeof *nt);
			if (!nt)
				return x->failed = 1;
			sg->step_text = nt;
			sg->cap_steps = cap;
		}
		row = sg->steps + sg->n_steps * k;
		for (c = 0; c < k; c++) {
			row[c] = counts[cols[c]] - x->prev[cols[c]];
			any |= row[c] != 0;
		}
		if (any) {   /* a step on counters the data lack is no step here */
			if (!(sg->step_text[sg->n_steps] = cp_strdup(step)))
				return x->failed = 1;
			sg->n_steps++;
		}
	}
	memcpy(x->prev, counts, km * sizeof *counts);
	return 0;
}

/* The counts of b's example cut after each of its steps but the last. */
static int base_prefixes(struct sg *sg, const struct base *b, struct cp_error *err)
{
	uint32_t *acc = cp_calloc(sg->k + 1, sizeof *acc);
	size_t i, c;
	int rc = CP_OK;

	if (!acc)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i + 1 < b->n_steps && !rc; i++) {
		for (c = 0; c < sg->k; c++)
			acc[c] += sg->steps[(b->step0 + i) * sg->k + c];
		rc = prefix_add(sg, b->uop, acc);
	}
	cp_free(acc);
	return rc ? cp_error_set(err, CP_ENOMEM, "out of memory") : CP_OK;
}

static int base_steps(struct sg *sg, struct base *b, struct cp_error *err)
{
	struct step_ctx x;
	int rc;

	x.sg = sg;
	x.failed = 0;
	x.prev = cp_calloc(udd_model_n_counters(sg->m) + 1, sizeof *x.prev);
	if (!x.prev)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	b->step0 = sg->n_steps;
	rc = udd_sigset_example_steps(sg->ss, b->like, collect_step, &x);
	cp_free(x.prev);
	b->n_steps = sg->n_steps - b->step0;
	if (rc || x.failed)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	return base_prefixes(sg, b, err);
}

/* The (uop, signature) pairs of the model on the data's counters, each
 * once, with the signature's sigset index and its example's steps. */
int explore_sg_bases(struct sg *sg, struct cp_error *err)
{
	const size_t *cols = pipe_data_columns(sg->pd);
	size_t k = sg->k, m = udd_sigset_size(sg->ss), j, i, u, c, n = 0, total = 0;
	int rc;

	for (j = 0; j < m; j++)
		total += udd_sigset_uop_count(sg->ss, j);
	sg->bases = cp_calloc(total + 1, sizeof *sg->bases);
	sg->brows = cp_calloc(total * k + 1, sizeof *sg->brows);
	sg->universe = cp_calloc(udd_model_n_uops(sg->m) * k + 1, 1);
	if (!sg->bases || !sg->brows || !sg->universe)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (j = 0; j < m; j++) {
		const uint32_t *s = udd_sigset_signature(sg->ss, j);

		for (i = 0; i < udd_sigset_uop_count(sg->ss, j); i++) {
			const char *name = udd_sigset_uop_name(sg->ss, j, i);
			uint32_t *row = sg->brows + n * k;
			size_t b;

			for (u = 0; strcmp(udd_model_uop_name(sg->m, u), name); u++)
				;
			for (c = 0; c < k; c++) {
				row[c] = s[cols[c]];
				sg->universe[u * k + c] |= row[c] != 0;
			}
			/* a projection can make two of a uop's signatures one */
			for (b = 0; b < n && (sg->bases[b].uop != u ||
					      memcmp(sg->brows + b * k, row, k * sizeof *row)); b++)
				;
			if (b < n)
				continue;
			sg->bases[n].uop = (uint32_t)u;
			sg->bases[n].like = (uint32_t)j;
			if ((rc = base_steps(sg, &sg->bases[n], err)))
				return rc;
			n++;
		}
	}
	/* a counter no uop counts may join any uop's μpaths */
	for (c = 0; c < k; c++) {
		for (u = 0; u < udd_model_n_uops(sg->m) && !sg->universe[u * k + c]; u++)
			;
		if (u == udd_model_n_uops(sg->m))
			for (u = 0; u < udd_model_n_uops(sg->m); u++)
				sg->universe[u * k + c] = 1;
	}
	sg->nb = n;
	sg->out->n_signatures = n;
	return CP_OK;
}
