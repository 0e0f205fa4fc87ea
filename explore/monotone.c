/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/monotone.c: which features of a model family can only grow the
 * cone, decided exactly on the signature sets the evaluator checks (the
 * model's signatures on the data's counters).
 *
 * Feature g grows the cone over the family {fixed | X : X within varying}
 * when, for every X without g, every signature of S(X) is a signature of
 * S(X + g) or lies in cone(S(X + g)): then cone(S(X)) lies within
 * cone(S(X + g)).  The first test is literal (each signature gets an id
 * in one table, each S(X) is a sorted id list); a signature that fails it
 * is settled exactly: outside when a constraint of cone(S(X + g)) that
 * holds on every one of its signatures (integer check) is broken by it
 * (the solver proposes the constraint, exact integers verify it), inside
 * when it satisfies every equality and facet of the exact cone
 * (geometry/).  One signature outside proves that g can shrink the cone
 * (the trigger variants of models/haswell/mmu.udd do: they move the
 * prefetch instead of adding one); a test neither way leaves g
 * undecided.  The whole family's signature sets are compiled, so the
 * family is bounded by explore_family_options.monotone_models. */
#include <stdlib.h>
#include <string.h>

#include "explore/family_int.h"

#include "geometry/cone.h"
#include "solver/feas.h"

#define MONO_DEFAULT_MODELS 1024

/* ---- one id per distinct signature ---- */

struct sigtab {
	size_t k;
	uint32_t *vecs;           /* n x k */
	size_t n, cap;
	uint32_t *slots;          /* open addressing: id + 1, 0 = empty */
	size_t nslots;            /* a power of two */
};

/* Word by word (cp_hash goes byte by byte: a quarter of the multiplies),
 * then mixed so that the table's low bits see every count. */
#define SIG_HASH_STEP(h, x) (((h) ^ (x)) * 0x100000001b3ULL)

static uint64_t sig_hash_final(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

static uint64_t sig_hash(const uint32_t *v, size_t k)
{
	uint64_t h = CP_HASH_SEED;
	size_t i;

	for (i = 0; i < k; i++)
		h = SIG_HASH_STEP(h, v[i]);
	return sig_hash_final(h);
}

static int sigtab_grow(struct sigtab *t)
{
	size_t ns = t->nslots ? 2 * t->nslots : 1024, i;
	uint32_t *slots = cp_calloc(ns, sizeof *slots);

	if (!slots)
		return CP_ENOMEM;
	for (i = 0; i < t->n; i++) {
		size_t h = (size_t)sig_hash(t->vecs + i * t->k, t->k) & (ns - 1);

		while (slots[h])
			h = (h + 1) & (ns - 1);
		slots[h] = (uint32_t)(i + 1);
	}
	cp_free(t->slots);
	t->slots = slots;
	t->nslots = ns;
	return 0;
}

/* The id of v (hash: sig_hash(v)), added when new; -1 when memory runs
 * out. */
static long sigtab_id(struct sigtab *t, const uint32_t *v, uint64_t hash)
{
	size_t h;

	if (2 * (t->n + 1) > t->nslots && sigtab_grow(t))
		return -1;
	h = (size_t)hash & (t->nslots - 1);
	while (t->slots[h]) {
		size_t id = t->slots[h] - 1;

		if (!memcmp(t->vecs + id * t->k, v, t->k * sizeof *v))
			return (long)id;
		h = (h + 1) & (t->nslots - 1);
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		uint32_t *nv = cp_reallocarray(t->vecs, cap, t->k * sizeof *nv);

		if (!nv)
			return -1;
		t->vecs = nv;
		t->cap = cap;
	}
	memcpy(t->vecs + t->n * t->k, v, t->k * sizeof *v);
	t->slots[h] = (uint32_t)(t->n + 1);
	return (long)t->n++;
}

/* The order of the ids: by the first set that has the signature, then by
 * the signature's bytes, the order in which sorted rows would have met
 * them (the first outside signature found, and so the witness printed,
 * follows it). */
struct id_order {
	const struct sigtab *t;
	const uint32_t *first;
};

static int first_cmp(const void *a, const void *b, void *ctx)
{
	const struct id_order *o = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (o->first[x] != o->first[y])
		return o->first[x] < o->first[y] ? -1 : 1;
	return memcmp(o->t->vecs + (size_t)x * o->t->k, o->t->vecs + (size_t)y * o->t->k,
		      o->t->k * sizeof *o->t->vecs);
}

/* ---- the family's signature sets ---- */

struct idset {
	uint32_t *ids;            /* sorted, distinct */
	size_t n;
};

/* The model's signatures for sel on the data's counters, as ids (in no
 * order, repeats left in: renumber sorts them).  The rows come straight
 * from the μpath walk and are projected, hashed and tested for zero in
 * one pass; nothing of them is kept but the ids (the search keeps the few
 * sets it checks, not the whole family's: 576 sets of the Haswell
 * family). */
static int build_ids(struct explore_family *f, struct sigtab *t,
		     udd_features sel, struct idset *out, struct cp_error *err)
{
	const size_t *cols = pipe_data_columns(f->pd);
	size_t km = udd_model_n_counters(f->model), k = f->k, j, i, m, n = 0;
	uint32_t *all = NULL, *v;
	enum explore_phase prev;
	int rc;

	prev = explore_phase_enter(f, EXPLORE_PHASE_SIGNATURES);
	rc = udd_signatures_build(f->model, sel, 0, &all, &m, err);
	explore_phase_leave(f, prev);
	if (rc)
		return rc;
	out->ids = cp_malloc((m ? m : 1) * sizeof *out->ids);
	v = cp_malloc((k + 1) * sizeof *v);
	if (!out->ids || !v) {
		cp_free(all);
		cp_free(v);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (j = 0; j < m; j++) {
		const uint32_t *row = all + j * km;
		uint64_t h = CP_HASH_SEED;
		uint32_t any = 0;
		long id;

		for (i = 0; i < k; i++) {
			v[i] = row[cols[i]];
			any |= v[i];
			h = SIG_HASH_STEP(h, v[i]);
		}
		if (!any)
			continue;   /* counts nothing: every cone has it */
		id = sigtab_id(t, v, sig_hash_final(h));
		if (id < 0) {
			cp_free(all);
			cp_free(v);
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		}
		out->ids[n++] = (uint32_t)id;
	}
	cp_free(all);
	cp_free(v);
	out->n = n;
	return 0;
}

/* ---- one signature against a cone, exactly ---- */

struct sep_ctx {
	const uint32_t *s;
	size_t k;
	int is_eq;
};

static int still_broken(const int64_t *a, void *ctx)
{
	struct sep_ctx *c = ctx;
	__int128 v = cone_dot_exact(a, c->s, c->k);

	return c->is_eq ? v != 0 : v < 0;
}

int explore_point_in_cone(struct explore_family *f, const uint32_t *S, size_t m,
			 const uint32_t *s, int *inside, int64_t *a, int *is_eq,
			 struct cp_error *err)
{
	struct pipe_budget budget = {
		f->opt.max_facets ? f->opt.max_facets : 5000,
		f->opt.cone_seconds > 0 ? f->opt.cone_seconds : 5,
	};
	struct pipe_model *pm = NULL;
	int rc;

	*inside = -1;
	rc = pipe_model_new_from(0, S, m, f->pd, NULL, &pm, err);
	if (!rc)
		rc = pipe_model_contains(pm, s, &budget, inside, a, is_eq, err);
	pipe_model_free(pm);
	return rc;
}

/* ---- the witness, in words ---- */

/* "with {prefetch}, adding prefetch_dtlb_miss loses load: ... (e.g. ...):
 * it breaks C of the new cone" */
static char *witness_text(struct explore_family *f, udd_features ctx, size_t g,
			  const uint32_t *s, const uint32_t *S, size_t m,
			  int64_t *a, int is_eq)
{
	const size_t *cols = pipe_data_columns(f->pd);
	struct udd_sigset *ss = NULL;
	struct sep_ctx sc = { s, f->k, is_eq };
	struct cp_error e;
	struct cp_buf b;
	int64_t *eq = NULL;
	size_t neq = 0, j, i, u;
	char *sel = udd_model_selection_str(f->model, ctx);

	cp_buf_init(&b);
	cp_buf_printf(&b, "with {%s}, adding %s loses ", sel ? sel : "?",
		      udd_model_feature_name(f->model, g));
	cp_free(sel);
	cp_error_clear(&e);
	if (!udd_sigset_build(f->model, ctx, 0, &ss, &e))
		for (j = 0; j < udd_sigset_size(ss); j++) {
			const uint32_t *t = udd_sigset_signature(ss, j);

			for (i = 0; i < f->k && t[cols[i]] == s[i]; i++)
				;
			if (i < f->k)
				continue;
			for (u = 0; u < udd_sigset_uop_count(ss, j); u++)
				cp_buf_printf(&b, "%s%s", u ? "; " : "",
					      udd_sigset_uop_name(ss, j, u));
			cp_buf_puts(&b, ": ");
			udd_signature_text(f->model, t, &b);
			cp_buf_printf(&b, " (e.g. %s)", udd_sigset_example(ss, j));
			break;
		}
	udd_sigset_free(ss);
	if (!cone_equalities(f->k, m, S, &neq, &eq, &e))
		cone_readable(f->k, eq, neq, S, m, is_eq, still_broken, &sc, a);
	cp_free(eq);
	cp_buf_puts(&b, ", which breaks ");
	cone_format_constraint(a, f->k, f->names, is_eq, &b);
	cp_buf_puts(&b, " of the new cone");
	if (b.failed) {
		cp_buf_release(&b);
		return NULL;
	}
	return b.data;
}

/* Give the ids the order of first_cmp (t's vectors moved to match, its
 * hash slots dropped: no id is looked up afterwards) and make each set's
 * ids sorted and distinct: through a bitmap over all ids, a pass over a
 * set and over the map's words instead of a sort. */
static int renumber(struct sigtab *t, const uint32_t *first, struct idset *sets,
		    size_t n_sets, struct cp_error *err)
{
	struct id_order o = { t, first };
	uint32_t *perm = cp_malloc((t->n + 1) * sizeof *perm);
	uint32_t *rank = cp_malloc((t->n + 1) * sizeof *rank);
	uint32_t *vecs = cp_malloc((t->n * t->k + 1) * sizeof *vecs);
	size_t words = t->n / 64 + 1, w, i, j, x;
	uint64_t *bits = cp_calloc(words, sizeof *bits);

	if (!perm || !rank || !vecs || !bits) {
		cp_free(perm);
		cp_free(rank);
		cp_free(vecs);
		cp_free(bits);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (i = 0; i < t->n; i++)
		perm[i] = (uint32_t)i;
	qsort_r(perm, t->n, sizeof *perm, first_cmp, &o);
	for (i = 0; i < t->n; i++) {
		rank[perm[i]] = (uint32_t)i;
		memcpy(vecs + i * t->k, t->vecs + (size_t)perm[i] * t->k,
		       t->k * sizeof *vecs);
	}
	for (x = 0; x < n_sets; x++) {
		for (i = 0; i < sets[x].n; i++) {
			uint32_t r = rank[sets[x].ids[i]];

			bits[r / 64] |= (uint64_t)1 << (r % 64);
		}
		for (w = j = 0; w < words; w++)
			while (bits[w]) {
				sets[x].ids[j++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits[w]));
				bits[w] &= bits[w] - 1;
			}
		sets[x].n = j;
	}
	cp_free(bits);
	cp_free(t->vecs);
	cp_free(t->slots);
	t->vecs = vecs;
	t->slots = NULL;
	t->nslots = 0;
	t->cap = t->n;
	cp_free(perm);
	cp_free(rank);
	return 0;
}

/* ---- the callback ---- */

int explore_family_monotone(void *ctx, udd_features fixed, udd_features varying,
			    struct explore_monotonicity *out, struct cp_error *err)
{
	struct explore_family *f = ctx;
	struct sigtab t = { f->k, NULL, 0, 0, NULL, 0 };
	struct idset *sets = NULL;
	struct { udd_features mask, key; } *graphs = NULL;
	size_t cand[64], nc = 0, i, limit, total = 0, n_before, cap_first = 0;
	uint32_t *S = NULL, *first = NULL;
	int64_t *a = NULL;
	uint64_t x;
	int rc = 0;

	limit = f->opt.monotone_models ? f->opt.monotone_models : MONO_DEFAULT_MODELS;
	for (i = 0; i < 64; i++)
		if (varying & ((udd_features)1 << i))
			cand[nc++] = i;
	if (nc >= 30 || ((size_t)1 << nc) > limit)
		return 0;   /* too large a family: nothing decided */
	total = (size_t)1 << nc;
	sets = cp_calloc(total, sizeof *sets);
	a = cp_malloc(f->k * sizeof *a);
	if (!sets || !a) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	graphs = cp_malloc(total * sizeof *graphs);
	if (!graphs) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (x = 0; x < total && !rc; x++) {
		udd_features sel = fixed;
		size_t g;

		for (i = 0; i < nc; i++)
			if (x & ((uint64_t)1 << i))
				sel |= (udd_features)1 << cand[i];
		/* selections that lower to one graph share its ids */
		graphs[x].mask = udd_model_consulted(f->model, sel);
		graphs[x].key = sel & graphs[x].mask;
		for (g = 0; g < x; g++)
			if ((sel & graphs[g].mask) == graphs[g].key)
				break;
		if (g < x) {
			sets[x].ids = cp_malloc((sets[g].n ? sets[g].n : 1) * sizeof *sets[x].ids);
			if (!sets[x].ids) {
				rc = cp_error_set(err, CP_ENOMEM, "out of memory");
				break;
			}
			memcpy(sets[x].ids, sets[g].ids, sets[g].n * sizeof *sets[x].ids);
			sets[x].n = sets[g].n;
			continue;
		}
		n_before = t.n;
		rc = build_ids(f, &t, sel, &sets[x], err);
		if (!rc && t.n > cap_first) {
			uint32_t *nf;

			cap_first = 2 * t.n;
			if (!(nf = cp_reallocarray(first, cap_first, sizeof *first)))
				rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			else
				first = nf;
		}
		for (i = n_before; !rc && i < t.n; i++)
			first[i] = (uint32_t)x;
	}
	out->models = rc ? 0 : total;
	if (!rc)
		rc = renumber(&t, first, sets, total, err);
	if (rc)
		goto out;
	S = cp_malloc((t.n ? t.n : 1) * f->k * sizeof *S);
	if (!S) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nc && !rc; i++) {
		uint64_t bit = (uint64_t)1 << i;
		int decided = 1;

		for (x = 0; x < total && !rc && decided; x++) {
			const struct idset *p = &sets[x], *q = &sets[x | bit];
			size_t jp, jq = 0, m, r;

			if (x & bit)
				continue;
			for (jp = 0; jp < p->n && decided && !rc; jp++) {
				const uint32_t *s;
				int inside, is_eq = 0;

				while (jq < q->n && q->ids[jq] < p->ids[jp])
					jq++;
				if (jq < q->n && q->ids[jq] == p->ids[jp])
					continue;
				/* not a signature of X + g: in its cone? */
				m = q->n;
				for (r = 0; r < m; r++)
					memcpy(S + r * f->k, t.vecs + (size_t)q->ids[r] * f->k,
					       f->k * sizeof *S);
				s = t.vecs + (size_t)p->ids[jp] * f->k;
				rc = explore_point_in_cone(f, S, m, s, &inside, a, &is_eq, err);
				if (rc || inside == 1)
					continue;
				decided = 0;
				if (inside == 0) {
					udd_features c = fixed;

					for (r = 0; r < nc; r++)
						if (x & ((uint64_t)1 << r))
							c |= (udd_features)1 << cand[r];
					out->shrinks |= (udd_features)1 << cand[i];
					out->context[cand[i]] = c;
					out->lost[cand[i]] = witness_text(f, c, cand[i], s,
									  S, m, a, is_eq);
					if (!out->lost[cand[i]])
						rc = cp_error_set(err, CP_ENOMEM, "out of memory");
				}
			}
		}
		if (decided && !rc)
			out->grows |= (udd_features)1 << cand[i];
	}
out:
	for (x = 0; sets && x < total; x++)
		cp_free(sets[x].ids);
	cp_free(sets);
	cp_free(graphs);
	cp_free(S);
	cp_free(a);
	cp_free(t.vecs);
	cp_free(t.slots);
	cp_free(first);
	return rc;
}
