/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/walk.c: the distinct signatures of a lowered graph by walking its
 * μpaths one by one, depth first, with the running counts in one vector
 * (added on the way down a chain, taken off on the way back) and each
 * finished μpath's counts looked up in one hash table.
 *
 * For the models the language is mostly used for (nested decisions with
 * little re-deciding: the Haswell family has 1 to 4 μpaths per distinct
 * signature) this is an order of magnitude cheaper than the memoised
 * enumeration (dsl/enum.c), whose unions copy a signature into a table at
 * every decision it passes on its way up (about 17 times in the Haswell
 * model): the 576 graphs of that family took 0.12 s here and 1.7 s there.
 * It costs what the μpaths cost, though, and those can be exponentially
 * more than the signatures (properties decided and decided again), so the
 * walk gives up after UDD_WALK_MAX_STEPS steps, and on anything the
 * enumeration reports as an error (a count past 2^32 - 1, too many
 * signatures, a path without `done`, too deep a path): the caller then
 * runs the memoised enumeration, which reports it.  Both give the same
 * set of rows (tests/unit/test_udd.c compares them on every feature set
 * of the bundled models and on random ones). */
#include <stdlib.h>
#include <string.h>

#include "dsl/enum_int.h"   /* udd_sig_mix: the enumeration's row hash */

/* Nodes visited (down and back up) before the walk hands over: about a
 * millisecond wasted where the enumeration is the better way (20
 * properties decided and decided again: 2^20 μpaths of 40 decisions, 65
 * M visits, where the enumeration takes 0.05 ms), while the Haswell
 * family's largest graph (11,744 μpaths) takes 67,660. */
#define UDD_WALK_MAX_STEPS ((size_t)1 << 18)

/* Undecided decisions on one μpath (the C stack holds one frame each). */
#define UDD_WALK_MAX_DEPTH 1024

struct walk {
	const struct udd_model *m;
	const struct udd_graph *g;
	size_t k, words, max_rows;
	uint64_t *live;          /* per node: the properties read at or below it */
	uint32_t *vec;           /* the running counts */
	uint64_t h;              /* their hash: a sum over the nonzero counts */
	int32_t *state;          /* per property: its value, or -1 */
	size_t steps, depth;
	int stop;                /* 1: handed over; -1: out of memory */
	uint32_t *rows;          /* n distinct rows of k */
	uint64_t *hash;
	size_t n, cap;
	uint32_t *slots;         /* open addressing: row + 1, 0 empty */
	size_t nslots;
};

static int grow(struct walk *w)
{
	size_t cap = w->cap ? 2 * w->cap : 256, ns = 2 * cap, i;
	uint32_t *rows = cp_reallocarray(w->rows, cap * w->k + 1, sizeof *rows);
	uint64_t *hash;
	uint32_t *slots;

	if (!rows)
		return -1;
	w->rows = rows;
	if (!(hash = cp_reallocarray(w->hash, cap, sizeof *hash)))
		return -1;
	w->hash = hash;
	if (!(slots = cp_calloc(ns, sizeof *slots)))
		return -1;
	for (i = 0; i < w->n; i++) {
		size_t s = w->hash[i] & (ns - 1);

		while (slots[s])
			s = (s + 1) & (ns - 1);
		slots[s] = (uint32_t)(i + 1);
	}
	cp_free(w->slots);
	w->slots = slots;
	w->nslots = ns;
	w->cap = cap;
	return 0;
}

/* A finished μpath: its counts join the rows unless already there. */
static void finish(struct walk *w)
{
	uint64_t h = w->h;
	size_t s;

	if (w->nslots) {
		for (s = h & (w->nslots - 1); w->slots[s]; s = (s + 1) & (w->nslots - 1)) {
			size_t i = w->slots[s] - 1;

			if (w->hash[i] == h &&
			    !memcmp(w->rows + i * w->k, w->vec, w->k * sizeof *w->vec))
				return;
		}
	}
	if (w->n >= w->max_rows) {
		w->stop = 1;   /* the enumeration says how many is too many */
		return;
	}
	if (2 * (w->n + 1) > w->nslots && grow(w)) {
		w->stop = -1;
		return;
	}
	for (s = h & (w->nslots - 1); w->slots[s]; s = (s + 1) & (w->nslots - 1))
		;
	memcpy(w->rows + w->n * w->k, w->vec, w->k * sizeof *w->vec);
	w->hash[w->n] = h;
	w->slots[s] = (uint32_t)(++w->n);
}

/* The counts of a chain's increments, added (sign 1) or taken off (-1);
 * 0, or 1 when an addition would pass 2^32 - 1. */
static int apply(struct walk *w, const struct udd_incr_item *it, int sign)
{
	for (; it; it = it->next) {
		uint32_t *c = &w->vec[it->index], old = *c;

		if (sign > 0) {
			if (*c > UINT32_MAX - it->mult)
				return 1;
			*c += it->mult;
		} else {
			*c -= it->mult;
		}
		w->h += udd_sig_mix((size_t)it->index, *c) -
			udd_sig_mix((size_t)it->index, old);
	}
	return 0;
}

/* From node along chains and decided decisions to the first undecided
 * decision, `done' or end; adds (sign 1) or takes off (-1) the chains'
 * counts on the way.  Returns that node, or UINT32_MAX on an overflow
 * (the counts are then abandoned with the walk). */
static uint32_t route(struct walk *w, uint32_t node, int sign)
{
	for (;; w->steps++) {
		const struct udd_node *n = &w->g->nodes[node];

		switch (n->kind) {
		case UDD_N_ACTION:
			node = n->next;
			break;
		case UDD_N_INCR:
			if (apply(w, n->items, sign))
				return UINT32_MAX;
			node = n->next;
			break;
		case UDD_N_DECIDE:
			if (w->state[n->prop] < 0)
				return node;
			node = n->succ[w->state[n->prop]];
			break;
		default:
			return node;
		}
	}
}

static int is_live(const struct walk *w, uint32_t node, uint32_t p)
{
	return (int)(w->live[(size_t)node * w->words + p / 64] >> (p % 64) & 1);
}

static void walk(struct walk *w, uint32_t from)
{
	uint32_t node = route(w, from, 1);
	const struct udd_node *n;

	if (node == UINT32_MAX || w->steps > UDD_WALK_MAX_STEPS) {
		w->stop = 1;
		return;
	}
	n = &w->g->nodes[node];
	if (n->kind == UDD_N_DONE) {
		finish(w);
	} else if (n->kind != UDD_N_DECIDE || w->depth >= UDD_WALK_MAX_DEPTH) {
		w->stop = 1;   /* no `done', or too deep: the enumeration says */
		return;
	} else {
		const struct udd_property_decl *p = w->m->properties.items[n->prop];
		size_t v, u;

		w->depth++;
		for (v = 0; v < p->n_values && !w->stop; v++) {
			/* values sharing a successor that never reads the
			 * property again lead to the same rows */
			for (u = 0; u < v && n->succ[u] != n->succ[v]; u++)
				;
			if (u < v && !is_live(w, n->succ[v], n->prop))
				continue;
			w->state[n->prop] = (int32_t)v;
			walk(w, n->succ[v]);
		}
		w->state[n->prop] = -1;
		w->depth--;
	}
	if (!w->stop)
		route(w, from, -1);
}

int udd_walk_rows(const struct udd_model *m, const struct udd_graph *g,
		  size_t max_rows, uint32_t **out, size_t *n_out)
{
	struct walk w;
	size_t u, i;
	int rc;

	*out = NULL;
	*n_out = 0;
	memset(&w, 0, sizeof w);
	w.m = m;
	w.g = g;
	w.k = m->counters.n;
	w.words = (m->properties.n + 63) / 64;
	w.max_rows = max_rows;
	w.vec = cp_calloc(w.k + 1, sizeof *w.vec);
	w.state = cp_malloc((m->properties.n + 1) * sizeof *w.state);
	w.live = udd_graph_live(m, g);
	if (!w.vec || !w.state || !w.live) {
		w.stop = -1;
	} else {
		for (i = 0; i < m->properties.n; i++)
			w.state[i] = -1;
		for (u = 0; u < g->n_uops && !w.stop; u++)
			walk(&w, g->roots[u]);
	}
	rc = w.stop;
	if (!rc) {
		*out = w.rows;
		*n_out = w.n;
		w.rows = NULL;
	}
	cp_free(w.rows);
	cp_free(w.hash);
	cp_free(w.slots);
	cp_free(w.live);
	cp_free(w.vec);
	cp_free(w.state);
	return rc;
}
