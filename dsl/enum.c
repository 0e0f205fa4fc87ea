/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/enum.c: memoised enumeration of distinct counter signatures on the
 * μDD graph of one feature selection, without visiting every μpath:
 *
 *   sigs(done)            = { 0 }
 *   sigs(incr c; next)    = sigs(next) + e_c            (shifted copy)
 *   sigs(decide p; succ)  = sigs(succ[state(p)])         if p is decided
 *                         = ∪_v sigs(succ[v]) | p := v   otherwise
 *
 * with multiplicities (how many μpaths share a signature) summed in the
 * unions.  What keeps the cost following the distinct signatures rather
 * than the μpaths:
 *
 * - Memo keys hold only the live properties of a node (decided at or
 *   below it): a value decided above and never read again is forgotten.
 * - A decision whose branches differ only by counter increments (every
 *   value's chain of actions and increments reaches the same node) leaves
 *   its property *pending*: the branch is taken later, where the property
 *   is decided again (adding the chain's increments there: signatures are
 *   sums, so where they are added does not matter), or on the edge where
 *   the property stops being live.  Re-deciding properties, the
 *   language's way of tying places together, then costs no more than the
 *   signatures it makes.
 * - A node whose every memo key is asked for at most once (one caller,
 *   whose keys map one to one onto the node's) is not memoised; its
 *   table goes to the caller, which grows it in place rather than copying
 *   it, so long nests cost what their signatures cost.
 *
 * Counts are exact: a signature that would count more than 2^32 - 1 on one
 * μpath is an error; multiplicities saturate at 2^64 - 1 (read as "at
 * least").  Live table entries, memo entries and example traces together
 * stay under 16 × max_signatures, so memory is bounded too. */
#include <stdlib.h>
#include <string.h>

#include "dsl/enum_int.h"

/* Enumeration recurses once per node visited on a μpath (decisions and
 * chains); a decision that finds this many calls above it stops the
 * enumeration, so that absurd models fail cleanly instead of overflowing
 * the stack (a thread's 8 MiB stack holds these with room to spare). */
#define MAX_DECISIONS_ON_PATH 4096

/* property states: a value >= 0, undecided, or pending at a node */
#define UNDECIDED (-1)
#define PENDING(node) (-2 - (int32_t)(node))
#define IS_PENDING(s) ((s) <= -2)
#define PENDING_NODE(s) ((uint32_t)(-2 - (s)))

/* ==== liveness, pending decisions, single use ==== */
static int is_live(const struct udd_enum *e, uint32_t node, uint32_t p)
{
	return (int)(e->live[node * e->words + p / 64] >> (p % 64) & 1);
}

/* Properties decided at or below each node (udd_graph_live), and how
 * many: a memo key's length. */
static int compute_live(struct udd_enum *e)
{
	size_t i, w;

	e->live = udd_graph_live(e->m, e->g);
	e->n_live = cp_calloc(e->g->n + 1, sizeof *e->n_live);
	if (!e->live || !e->n_live)
		return udd_enum_nomem(e);
	for (i = 0; i < e->g->n; i++)
		for (w = 0; w < e->words; w++)
			e->n_live[i] += (size_t)__builtin_popcountll(e->live[i * e->words + w]);
	return 0;
}

/* The first node of a chain of actions and increments that is neither. */
static uint32_t chain_target(const struct udd_graph *g, uint32_t node)
{
	while (g->nodes[node].kind == UDD_N_ACTION ||
	       g->nodes[node].kind == UDD_N_INCR)
		node = g->nodes[node].next;
	return node;
}

/* The counts a chain adds (into delta); sets *nonzero when it adds any. */
static int fold_chain(struct udd_enum *e, uint32_t node, uint32_t *delta,
		      int *nonzero)
{
	const struct udd_graph *g = e->g;

	memset(delta, 0, e->k * sizeof *delta);
	*nonzero = 0;
	for (;;) {
		const struct udd_node *n = &g->nodes[node];
		const struct udd_incr_item *it;

		if (n->kind == UDD_N_ACTION) {
			node = n->next;
			continue;
		}
		if (n->kind != UDD_N_INCR)
			return 0;
		for (it = n->items; it; it = it->next) {
			uint64_t d = (uint64_t)delta[it->index] + it->mult;

			if (d > UINT32_MAX) {
				char msg[300];

				snprintf(msg, sizeof msg,
					 "counter '%s' would count more than 4294967295 on one μpath",
					 it->counter.text);
				return udd_enum_located(e, node, CP_ESEMANTIC, msg);
			}
			delta[it->index] = (uint32_t)d;
			*nonzero = 1;
		}
		node = n->next;
	}
}

/* Per decision: whether it can leave its property pending (every value's
 * chain reaches one node that still reads the property), and which
 * values share a successor (group[v]: how many values go where v goes
 * when v is the first of them, else 0). */
static int find_decisions(struct udd_enum *e)
{
	const struct udd_graph *g = e->g;
	uint32_t *stamp = cp_calloc(g->n + 1, sizeof *stamp);
	uint32_t *first = cp_calloc(g->n + 1, sizeof *first);
	uint32_t *count = cp_calloc(g->n + 1, sizeof *count);
	size_t i, v;
	int rc = -1;

	if (!stamp || !first || !count) {
		udd_enum_nomem(e);
		goto out;
	}
	for (i = 0; i < g->n; i++) {
		const struct udd_node *n = &g->nodes[i];
		const struct udd_property_decl *p;
		uint32_t t, *group;

		e->pend_target[i] = NO_NODE;
		if (n->kind != UDD_N_DECIDE)
			continue;
		p = e->m->properties.items[n->prop];
		t = chain_target(g, n->succ[0]);
		for (v = 1; v < p->n_values; v++)
			if (chain_target(g, n->succ[v]) != t)
				break;
		if (v == p->n_values && is_live(e, t, n->prop))
			e->pend_target[i] = t;
		group = udd_arena_alloc(&e->arena, p->n_values * sizeof *group + 1);
		if (!group) {
			udd_enum_nomem(e);
			goto out;
		}
		for (v = 0; v < p->n_values; v++) {
			uint32_t x = n->succ[v];

			if (stamp[x] != i + 1) {
				stamp[x] = (uint32_t)i + 1;
				first[x] = (uint32_t)v;
				count[x] = 0;
			}
			count[x]++;
		}
		for (v = 0; v < p->n_values; v++)
			group[v] = first[n->succ[v]] == v ? count[n->succ[v]] : 0;
		e->group[i] = group;
	}
	rc = 0;
out:
	cp_free(stamp);
	cp_free(first);
	cp_free(count);
	return rc;
}

/* live(x) ⊇ live(from) \ {p}: distinct keys of from give distinct keys
 * of x. */
static int keys_injective(const struct udd_enum *e, uint32_t from,
			  uint32_t x, long p)
{
	size_t w;

	for (w = 0; w < e->words; w++) {
		uint64_t need = e->live[from * e->words + w];

		if (p >= 0 && (size_t)p / 64 == w)
			need &= ~((uint64_t)1 << (p % 64));
		if (need & ~e->live[x * e->words + w])
			return 0;
	}
	return 1;
}

/* Which nodes have each memo key asked for at most once: one calling
 * edge, from a node that has the same property, with keys mapping one to
 * one.  Callers have larger indices, so one backward pass sees every
 * caller of a node before the node.  A node judged single that is asked
 * twice is only computed twice: the judgement is about speed, never
 * about correctness. */
static int find_single(struct udd_enum *e)
{
	const struct udd_graph *g = e->g;
	uint32_t *calls = cp_calloc(g->n + 1, sizeof *calls);
	unsigned char *called = cp_calloc(g->n + 1, 1);
	size_t u, i, v;

	if (!calls || !called) {
		cp_free(calls);
		cp_free(called);
		return udd_enum_nomem(e);
	}
	for (u = 0; u < g->n_uops; u++) {
		calls[g->roots[u]]++;
		called[g->roots[u]] = 1;
		e->single[g->roots[u]] = 1;
	}
#define CALL(x, ok) do { \
		uint32_t x_ = (x); \
		called[x_] = 1; \
		if (++calls[x_] == 1) \
			e->single[x_] = (unsigned char)(e->single[i] && (ok)); \
		else \
			e->single[x_] = 0; \
	} while (0)
	for (i = g->n; i-- > 0;) {
		const struct udd_node *n = &g->nodes[i];

		if (!called[i])
			continue;
		if (n->kind == UDD_N_ACTION || n->kind == UDD_N_INCR) {
			CALL(chain_target(g, (uint32_t)i), 1);
		} else if (n->kind == UDD_N_DECIDE) {
			const struct udd_property_decl *p = e->m->properties.items[n->prop];

			if (e->pend_target[i] != NO_NODE)
				CALL(e->pend_target[i], 1);
			for (v = 0; v < p->n_values; v++) {
				uint32_t group = e->group[i][v];

				if (!group)
					continue;
				CALL(n->succ[v],
				     keys_injective(e, (uint32_t)i, n->succ[v], n->prop) &&
				     (group == 1 || is_live(e, n->succ[v], n->prop)));
			}
		}
	}
#undef CALL
	cp_free(calls);
	cp_free(called);
	return 0;
}

/* ==== the memo ==== */
static void memo_key(struct udd_enum *e, uint32_t node, int32_t *key,
		     uint64_t *hash)
{
	const uint64_t *l = e->live + node * e->words;
	size_t w, j = 0;

	for (w = 0; w < e->words; w++) {
		uint64_t bits = l[w];

		while (bits) {
			size_t p = w * 64 + (size_t)__builtin_ctzll(bits);

			key[j++] = e->state[p];
			bits &= bits - 1;
		}
	}
	*hash = cp_hash(cp_hash(CP_HASH_SEED, &node, sizeof node), key, j * sizeof *key);
}

static struct sigtab *memo_find(struct udd_enum *e, uint32_t node,
				const int32_t *key, uint64_t hash)
{
	struct memo_entry *me = e->buckets[hash & (e->nbuckets - 1)];

	for (; me; me = me->next)
		if (me->node == node && me->hash == hash &&
		    !memcmp(me->key, key, e->n_live[node] * sizeof *key))
			return me->tab;
	return NULL;
}

static int memo_store(struct udd_enum *e, uint32_t node,
		      const int32_t *key, uint64_t hash, struct sigtab *t)
{
	struct memo_entry *me;
	size_t nk = e->n_live[node];

	if (udd_enum_spend(e, 1))
		return -1;
	me = udd_arena_alloc(&e->arena, sizeof *me);
	if (!me)
		return udd_enum_nomem(e);
	me->key = udd_arena_alloc(&e->arena, nk * sizeof *me->key + 1);
	if (!me->key)
		return udd_enum_nomem(e);
	memcpy(me->key, key, nk * sizeof *key);
	me->node = node;
	me->hash = hash;
	me->tab = t;
	if (e->n_memo + 1 > e->nbuckets) {   /* grow the bucket array */
		size_t nb = e->nbuckets * 2, i;
		struct memo_entry **b = cp_calloc(nb, sizeof *b);

		if (!b)
			return udd_enum_nomem(e);
		for (i = 0; i < e->nbuckets; i++) {
			struct memo_entry *x = e->buckets[i], *nx;

			for (; x; x = nx) {
				nx = x->next;
				x->next = b[x->hash & (nb - 1)];
				b[x->hash & (nb - 1)] = x;
			}
		}
		cp_free(e->buckets);
		e->buckets = b;
		e->nbuckets = nb;
	}
	me->next = e->buckets[hash & (e->nbuckets - 1)];
	e->buckets[hash & (e->nbuckets - 1)] = me;
	e->n_memo++;
	return 0;
}

/* ==== memoised enumeration ==== */
static struct sigtab *sigs(struct udd_enum *e, uint32_t node, int *owned);

/* Deltas of a pending-able decision's chains, one per value, computed
 * once. */
static const struct udd_delta *pend_delta(struct udd_enum *e, uint32_t node,
					  uint32_t value)
{
	const struct udd_node *n = &e->g->nodes[node];
	const struct udd_property_decl *p = e->m->properties.items[n->prop];
	size_t k = e->k, v;

	if (!e->pend_delta[node]) {
		struct udd_delta *d = udd_arena_alloc(&e->arena,
						      p->n_values * sizeof *d + 1);
		uint32_t *words = udd_arena_alloc(&e->arena,
						  2 * p->n_values * k * sizeof *words + 1);
		int nonzero;

		if (!d || !words) {
			udd_enum_nomem(e);
			return NULL;
		}
		for (v = 0; v < p->n_values; v++) {
			d[v].d = words + 2 * v * k;
			d[v].nz = words + (2 * v + 1) * k;
			if (fold_chain(e, n->succ[v], d[v].d, &nonzero))
				return NULL;
			udd_delta_index(e, &d[v]);
		}
		e->pend_delta[node] = d;
	}
	return &e->pend_delta[node][value];
}

/* sigs(x) entered from a decision at `from`: pending properties live at
 * from but not at x are never read again on these paths, so their
 * decisions are taken here, one union per property. */
static struct sigtab *edge(struct udd_enum *e, uint32_t from, uint32_t x,
			   int *owned)
{
	struct sigtab *t = sigs(e, x, owned);
	size_t w;

	for (w = 0; t && w < e->words; w++) {
		uint64_t drop = e->pend[w] & e->live[from * e->words + w] &
				~e->live[x * e->words + w];

		while (drop && t) {
			uint32_t q = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(drop));
			uint32_t at = PENDING_NODE(e->state[q]);
			const struct udd_property_decl *p = e->m->properties.items[q];
			struct part *parts = cp_calloc(p->n_values, sizeof *parts);
			uint32_t v;

			drop &= drop - 1;
			if (!parts) {
				if (*owned)
					udd_tab_free(e, t);
				udd_enum_nomem(e);
				return NULL;
			}
			for (v = 0; v < p->n_values; v++) {
				parts[v] = (struct part){ t, 0, pend_delta(e, at, v), at,
							  1, at, v };
				if (!parts[v].delta) {
					cp_free(parts);
					if (*owned)
						udd_tab_free(e, t);
					return NULL;
				}
			}
			/* every part reads t: the union is a new table */
			{
				struct sigtab *old = t;
				int old_owned = *owned;

				t = udd_union_parts(e, parts, p->n_values, owned);
				if (old_owned)
					udd_tab_free(e, old);
			}
			cp_free(parts);
		}
	}
	return t;
}

/* A decision on p: follow a decided value; branch over the values of a
 * pending one (adding its chain's counts); leave an undecided one pending
 * when its branches differ only by counts; branch otherwise. */
static struct sigtab *decide(struct udd_enum *e, uint32_t node, int *owned)
{
	const struct udd_node *n = &e->g->nodes[node];
	const struct udd_property_decl *p = e->m->properties.items[n->prop];
	uint32_t prop = n->prop, v;
	uint64_t bit = (uint64_t)1 << (prop % 64);
	int32_t s = e->state[prop];
	struct part *parts;
	struct sigtab *t = NULL;
	size_t np = 0, i;

	if (s >= 0)
		return edge(e, node, n->succ[s], owned);
	if (s == UNDECIDED && e->pend_target[node] != NO_NODE) {
		e->state[prop] = PENDING(node);
		e->pend[prop / 64] |= bit;
		t = sigs(e, e->pend_target[node], owned);
		e->pend[prop / 64] &= ~bit;
		e->state[prop] = UNDECIDED;
		return t;
	}
	parts = cp_calloc(p->n_values, sizeof *parts);
	if (!parts) {
		udd_enum_nomem(e);
		return NULL;
	}
	if (IS_PENDING(s))
		e->pend[prop / 64] &= ~bit;
	for (v = 0; v < p->n_values; v++) {
		uint32_t x = n->succ[v];
		uint64_t group = 1;

		if (IS_PENDING(s)) {
			/* the earlier decision, at PENDING_NODE(s), is taken now */
			uint32_t at = PENDING_NODE(s);

			parts[np].delta = pend_delta(e, at, v);
			if (!parts[np].delta)
				goto fail;
			parts[np].delta_node = at;
			parts[np].node = at;
		} else {
			/* values sharing a successor that does not read p again
			 * make one part, counted once per value */
			if (!is_live(e, x, prop)) {
				group = e->group[node][v];
				if (!group)
					continue;
			}
			parts[np].node = node;
		}
		e->state[prop] = (int32_t)v;
		parts[np].t = edge(e, node, x, &parts[np].owned);
		e->state[prop] = s;
		if (!parts[np].t)
			goto fail;
		parts[np].factor = group;
		parts[np].value = v;
		np++;
	}
	if (IS_PENDING(s))
		e->pend[prop / 64] |= bit;
	t = udd_union_parts(e, parts, np, owned);
	cp_free(parts);
	return t;
fail:
	if (IS_PENDING(s))
		e->pend[prop / 64] |= bit;
	for (i = 0; i < np; i++)
		if (parts[i].owned)
			udd_tab_free(e, parts[i].t);
	cp_free(parts);
	return NULL;
}

static struct sigtab *compute(struct udd_enum *e, uint32_t node, int *owned)
{
	const struct udd_node *n = &e->g->nodes[node];
	struct sigtab *t;

	*owned = 1;
	switch (n->kind) {
	case UDD_N_DONE: {
		uint32_t *zero = cp_calloc(e->k + 1, sizeof *zero);

		t = zero ? udd_tab_new(e) : NULL;
		if (!t || udd_tab_insert(e, t, zero, 0, 1, NULL, 0) < 0) {
			if (!zero)
				udd_enum_nomem(e);
			udd_tab_free(e, t);
			t = NULL;
		}
		cp_free(zero);
		return t;
	}
	case UDD_N_END:
		udd_enum_located(e, node, CP_EINTERNAL,
			"a path reaches the end of a uop without 'done'");
		return NULL;
	case UDD_N_ACTION:
	case UDD_N_INCR: {
		uint32_t *words = cp_malloc(2 * e->k * sizeof *words + 1);
		struct udd_delta delta;
		struct part pt;
		int nonzero;

		if (!words) {
			udd_enum_nomem(e);
			return NULL;
		}
		delta.d = words;
		delta.nz = words + e->k;
		if (fold_chain(e, node, delta.d, &nonzero)) {
			cp_free(words);
			return NULL;
		}
		udd_delta_index(e, &delta);
		pt.t = sigs(e, chain_target(e->g, node), &pt.owned);
		if (!pt.t || !nonzero) {
			cp_free(words);
			*owned = pt.owned;
			return pt.t;
		}
		pt.delta = &delta;
		pt.delta_node = node;
		pt.factor = 1;
		pt.node = NO_NODE;
		pt.value = 0;
		t = udd_union_parts(e, &pt, 1, owned);
		cp_free(words);
		return t;
	}
	case UDD_N_DECIDE:
		return decide(e, node, owned);
	}
	return NULL;
}

/* sigs(node) under the current state, through the memo unless the node
 * is single use (then its table goes to the caller, *owned). */
static struct sigtab *sigs(struct udd_enum *e, uint32_t node, int *owned)
{
	int32_t *key = NULL;
	uint64_t hash = 0;
	struct sigtab *t = NULL;

	*owned = 0;
	if (!e->single[node]) {
		key = cp_malloc(e->n_live[node] * sizeof *key + 1);
		if (!key) {
			udd_enum_nomem(e);
			return NULL;
		}
		memo_key(e, node, key, &hash);
		t = memo_find(e, node, key, hash);
		if (t) {
			cp_free(key);
			return t;
		}
	}
	if (e->depth >= MAX_DECISIONS_ON_PATH &&
	    e->g->nodes[node].kind == UDD_N_DECIDE) {
		char msg[96];

		snprintf(msg, sizeof msg, "a μpath passes more than %d decisions",
			 MAX_DECISIONS_ON_PATH);
		udd_enum_located(e, node, CP_ELIMIT, msg);
	} else {
		e->depth++;
		t = compute(e, node, owned);
		e->depth--;
		if (t && key && memo_store(e, node, key, hash, t)) {
			if (*owned)
				udd_tab_free(e, t);
			t = NULL;
		}
		if (key)
			*owned = 0;
	}
	cp_free(key);
	return t;
}

/* ==== the whole model ==== */
static int record_uop(struct udd_enum *e, long at, uint32_t u, uint64_t mult)
{
	if (e->n_by_uop == e->cap_by_uop) {
		size_t cap = e->cap_by_uop ? 2 * e->cap_by_uop : 64;
		struct udd_uop_paths *b = cp_reallocarray(e->by_uop, cap, sizeof *b);

		if (!b)
			return udd_enum_nomem(e);
		e->by_uop = b;
		e->cap_by_uop = cap;
	}
	e->by_uop[e->n_by_uop].entry = (size_t)at;
	e->by_uop[e->n_by_uop].uop = u;
	e->by_uop[e->n_by_uop].paths = mult;
	e->n_by_uop++;
	return 0;
}

int udd_enum_run(const struct udd_model *m, const struct udd_graph *g,
		 size_t max_signatures, int no_examples, struct udd_enum **out,
		 struct cp_error *err)
{
	struct udd_enum *e = cp_calloc(1, sizeof *e);
	size_t i, u, k = m->counters.n;

	*out = NULL;
	if (!e)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	e->no_examples = no_examples;
	e->m = m;
	e->g = g;
	e->k = k;
	e->err = err;
	e->n_props = m->properties.n;
	e->words = (e->n_props + 63) / 64;
	e->max_signatures = max_signatures ? max_signatures : UDD_DEFAULT_MAX_SIGNATURES;
	e->budget = e->max_signatures > SIZE_MAX / 16 ? SIZE_MAX : 16 * e->max_signatures;
	e->nbuckets = 1024;
	e->buckets = cp_calloc(e->nbuckets, sizeof *e->buckets);
	e->state = cp_malloc(e->n_props * sizeof *e->state + 1);
	e->pend = cp_calloc(e->words + 1, sizeof *e->pend);
	e->pend_target = cp_malloc(g->n * sizeof *e->pend_target + 1);
	e->pend_delta = cp_calloc(g->n + 1, sizeof *e->pend_delta);
	e->group = cp_calloc(g->n + 1, sizeof *e->group);
	e->single = cp_calloc(g->n + 1, 1);
	e->final = cp_calloc(1, sizeof *e->final);
	if (!e->buckets || !e->state || !e->pend || !e->pend_target ||
	    !e->pend_delta || !e->group || !e->single || !e->final) {
		udd_enum_nomem(e);
		goto out;
	}
	for (i = 0; i < e->n_props; i++)
		e->state[i] = UNDECIDED;
	if (compute_live(e))
		goto out;
	if (find_decisions(e) || find_single(e))
		goto out;
	/* the union over uops; a signature keeps its first uop's example */
	for (u = 0; u < g->n_uops; u++) {
		int owned;
		struct sigtab *t = sigs(e, g->roots[u], &owned);

		if (!t)
			goto out;
		for (i = 0; i < t->n; i++) {
			size_t before = e->final->n;
			long at = udd_tab_insert(e, e->final, t->vec + i * k, t->hash[i],
						 t->mult[i],
					     t->ex[i], 0);

			if (at < 0)
				goto out;
			if (e->final->n > before) {
				uint32_t *fu = cp_reallocarray(e->final_uop, e->final->cap,
							       sizeof *fu);

				if (!fu) {
					udd_enum_nomem(e);
					goto out;
				}
				e->final_uop = fu;
				e->final_uop[at] = (uint32_t)u;
			}
			if (record_uop(e, at, (uint32_t)u, t->mult[i]))
				goto out;
		}
		if (owned)
			udd_tab_free(e, t);
	}
	*out = e;
	return CP_OK;
out:
	if (!e->rc)
		e->rc = cp_error_set(err, CP_EINTERNAL, "enumeration failed");
	{
		int rc = e->rc;

		udd_enum_free(e);
		return rc;
	}
}

size_t udd_enum_size(const struct udd_enum *e)
{
	return e->final->n;
}

const uint32_t *udd_enum_signature(const struct udd_enum *e, size_t j)
{
	return e->final->vec + j * e->k;
}

uint64_t udd_enum_multiplicity(const struct udd_enum *e, size_t j)
{
	return e->final->mult[j];
}

const struct udd_trace *udd_enum_example(const struct udd_enum *e, size_t j)
{
	return e->final->ex[j];
}

uint32_t udd_enum_uop(const struct udd_enum *e, size_t j)
{
	return e->final_uop[j];
}

const struct udd_uop_paths *udd_enum_by_uop(const struct udd_enum *e,
					    size_t *n)
{
	*n = e->n_by_uop;
	return e->by_uop;
}

void udd_enum_take_traces(struct udd_enum *e, struct udd_arena *dst)
{
	*dst = e->arena;
	memset(&e->arena, 0, sizeof e->arena);
}

void udd_enum_free(struct udd_enum *e)
{
	if (!e)
		return;
	while (e->tables)
		udd_tab_free(e, e->tables);
	if (e->final) {
		cp_free(e->final->mem);
		cp_free(e->final);
	}
	cp_free(e->final_uop);
	cp_free(e->by_uop);
	cp_free(e->live);
	cp_free(e->n_live);
	cp_free(e->pend);
	cp_free(e->pend_target);
	cp_free(e->pend_delta);
	cp_free(e->group);
	cp_free(e->single);
	cp_free(e->state);
	cp_free(e->buckets);
	udd_arena_release(&e->arena);
	cp_free(e);
}
