/* dsl/paths.c: μpath enumeration.  The distinct counter signatures of a
 * uop are computed bottom-up on the μDD graph without visiting every
 * μpath:
 *
 *   sigs(done)            = { 0 }
 *   sigs(incr c; next)    = sigs(next) + e_c            (shifted copy)
 *   sigs(decide p; succ)  = sigs(succ[state(p)])         if p is decided
 *                         = ∪_v sigs(succ[v]) | p := v   otherwise
 *
 * with multiplicities (how many μpaths share a signature) summed in the
 * unions.  The result of a node depends only on the values of the
 * properties that are decided already *and* decided again below it (its
 * live properties), so results are memoised on (node, values of live
 * properties).  Chains of actions and increments are folded into one
 * shift.  Each entry keeps one example μpath as a shared list of the
 * decisions taken, replayed into text only when asked for. */
#include <stdlib.h>
#include <string.h>

#include "dsl/internal.h"

#define DEFAULT_MAX_SIGNATURES 1000000
/* Enumeration recurses once per decision on a μpath, --all once per step:
 * bounded so that absurd models fail cleanly instead of overflowing the
 * stack (a thread's 8 MiB stack holds these with room to spare). */
#define MAX_DECISIONS_ON_PATH 4096
#define MAX_STEPS_ON_PATH 20000

/* One decision of an example path, shared between entries. */
struct trace {
	uint32_t node, value;
	const struct trace *next;
};

/* A set of distinct signatures with multiplicities and examples. */
struct sigtab {
	size_t n, cap;
	uint32_t *vec;               /* n × k */
	uint64_t *mult;
	const struct trace **ex;
	uint32_t *uop;               /* final table only */
	uint32_t *slots;             /* open addressing: entry + 1, 0 empty */
	size_t nslots;
	struct sigtab *next_alloc;   /* every table, for freeing */
};

struct memo_entry {
	uint32_t node;
	uint64_t hash;
	int32_t *key;                /* values of the node's live properties */
	struct sigtab *tab;
	struct memo_entry *next;
};

struct enumerator {
	const struct udd_model *m;
	const struct udd_graph *g;
	size_t k, n_props, words;
	uint64_t *live;              /* per node: bitset over properties */
	size_t *n_live;
	int32_t *state;              /* per property: value or -1 */
	struct memo_entry **buckets;
	size_t nbuckets, n_memo;
	struct sigtab *tables;
	struct udd_arena arena;      /* traces, memo keys and entries */
	size_t max_signatures;
	size_t total_entries, max_total;
	size_t depth;
	uint32_t *delta;             /* scratch: k */
	struct cp_error *err;
	int rc;
};

struct udd_sigset {
	const struct udd_model *m;
	struct udd_graph g;
	struct udd_arena arena;      /* the examples' traces */
	size_t k, n;
	uint32_t *vec;
	uint64_t *mult;
	uint32_t *uop;
	const struct trace **ex;
	uint64_t total;
	struct cp_buf text;          /* last rendered example */
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* FNV-1a over 32-bit words */
static uint64_t hash_words(uint64_t h, const uint32_t *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

/* ==== signature tables ==== */
static struct sigtab *tab_new(struct enumerator *e)
{
	struct sigtab *t = cp_calloc(1, sizeof *t);

	if (!t) {
		e->rc = cp_error_set(e->err, CP_ENOMEM, "out of memory");
		return NULL;
	}
	t->next_alloc = e->tables;
	e->tables = t;
	return t;
}

static void tab_free_one(struct sigtab *t)
{
	cp_free(t->vec);
	cp_free(t->mult);
	cp_free(t->ex);
	cp_free(t->uop);
	cp_free(t->slots);
	cp_free(t);
}

static int tab_grow(struct enumerator *e, struct sigtab *t, int with_uop)
{
	size_t cap = t->cap ? 2 * t->cap : 16, i;
	uint32_t *vec = cp_reallocarray(t->vec, cap, e->k * sizeof *vec + 1);
	uint64_t *mult;
	const struct trace **ex;

	if (!vec)
		goto nomem;
	t->vec = vec;
	mult = cp_reallocarray(t->mult, cap, sizeof *mult);
	if (!mult)
		goto nomem;
	t->mult = mult;
	ex = cp_reallocarray(t->ex, cap, sizeof *ex);
	if (!ex)
		goto nomem;
	t->ex = ex;
	if (with_uop) {
		uint32_t *uop = cp_reallocarray(t->uop, cap, sizeof *uop);

		if (!uop)
			goto nomem;
		t->uop = uop;
	}
	t->cap = cap;
	/* rehash at load factor 1/2 */
	cp_free(t->slots);
	t->nslots = 2 * cap;
	t->slots = cp_calloc(t->nslots, sizeof *t->slots);
	if (!t->slots)
		goto nomem;
	for (i = 0; i < t->n; i++) {
		size_t s = hash_words(14695981039346656037ULL, t->vec + i * e->k, e->k)
			   & (t->nslots - 1);

		while (t->slots[s])
			s = (s + 1) & (t->nslots - 1);
		t->slots[s] = (uint32_t)(i + 1);
	}
	return 0;
nomem:
	e->rc = cp_error_set(e->err, CP_ENOMEM, "out of memory");
	return -1;
}

/* Add (vec, mult, ex) to t; an existing signature gains the multiplicity
 * and keeps its first example.  Returns the entry or -1. */
static long tab_insert(struct enumerator *e, struct sigtab *t,
		       const uint32_t *vec, uint64_t mult,
		       const struct trace *ex, int with_uop)
{
	size_t k = e->k, s;

	if (t->n + 1 > t->cap / 2 + t->cap / 4 || !t->cap)
		if (tab_grow(e, t, with_uop))
			return -1;
	s = hash_words(14695981039346656037ULL, vec, k) & (t->nslots - 1);
	while (t->slots[s]) {
		size_t i = t->slots[s] - 1;

		if (!memcmp(t->vec + i * k, vec, k * sizeof *vec)) {
			t->mult[i] = sat_add(t->mult[i], mult);
			return (long)i;
		}
		s = (s + 1) & (t->nslots - 1);
	}
	if (t->n >= e->max_signatures) {
		e->rc = cp_error_set(e->err, CP_ELIMIT,
				     "%s: more than %zu distinct signatures "
				     "(raise --max-signatures, or switch features off)",
				     e->m->file, e->max_signatures);
		return -1;
	}
	if (++e->total_entries > e->max_total) {
		e->rc = cp_error_set(e->err, CP_ELIMIT,
				     "%s: enumeration needs more than %zu table entries "
				     "(raise --max-signatures)",
				     e->m->file, e->max_total);
		return -1;
	}
	memcpy(t->vec + t->n * k, vec, k * sizeof *vec);
	t->mult[t->n] = mult;
	t->ex[t->n] = ex;
	t->slots[s] = (uint32_t)(t->n + 1);
	return (long)t->n++;
}

/* ==== liveness: properties decided at or below each node ==== */
static int compute_live(struct enumerator *e)
{
	const struct udd_graph *g = e->g;
	size_t i, w, v;

	e->live = cp_calloc(g->n * e->words + 1, sizeof *e->live);
	e->n_live = cp_calloc(g->n + 1, sizeof *e->n_live);
	if (!e->live || !e->n_live)
		return cp_error_set(e->err, CP_ENOMEM, "out of memory");
	/* successors have smaller indices: one forward pass suffices */
	for (i = 0; i < g->n; i++) {
		const struct udd_node *n = &g->nodes[i];
		uint64_t *l = e->live + i * e->words;

		switch (n->kind) {
		case UDD_N_ACTION:
		case UDD_N_INCR:
			memcpy(l, e->live + n->next * e->words, e->words * sizeof *l);
			break;
		case UDD_N_DECIDE: {
			const struct udd_property_decl *p = e->m->properties.items[n->prop];

			for (v = 0; v < p->n_values; v++)
				for (w = 0; w < e->words; w++)
					l[w] |= e->live[n->succ[v] * e->words + w];
			l[n->prop / 64] |= (uint64_t)1 << (n->prop % 64);
			break;
		}
		default:
			break;
		}
		for (w = 0; w < e->words; w++)
			e->n_live[i] += (size_t)__builtin_popcountll(l[w]);
	}
	return CP_OK;
}

/* ==== memoised enumeration ==== */
static struct sigtab *sigs(struct enumerator *e, uint32_t node);

static void memo_key(struct enumerator *e, uint32_t node, int32_t *key,
		     uint64_t *hash)
{
	const uint64_t *l = e->live + node * e->words;
	size_t p, j = 0;

	for (p = 0; p < e->n_props; p++)
		if (l[p / 64] >> (p % 64) & 1)
			key[j++] = e->state[p];
	*hash = hash_words(node * 0x9e3779b97f4a7c15ULL + 1, (const uint32_t *)key, j);
}

static struct sigtab *memo_find(struct enumerator *e, uint32_t node,
				const int32_t *key, uint64_t hash)
{
	struct memo_entry *me = e->buckets[hash & (e->nbuckets - 1)];

	for (; me; me = me->next)
		if (me->node == node && me->hash == hash &&
		    !memcmp(me->key, key, e->n_live[node] * sizeof *key))
			return me->tab;
	return NULL;
}

static int memo_store(struct enumerator *e, uint32_t node,
		      const int32_t *key, uint64_t hash, struct sigtab *t)
{
	struct memo_entry *me = udd_arena_alloc(&e->arena, sizeof *me);
	size_t nk = e->n_live[node];

	if (!me)
		return -1;
	me->key = udd_arena_alloc(&e->arena, nk * sizeof *me->key + 1);
	if (!me->key)
		return -1;
	memcpy(me->key, key, nk * sizeof *key);
	me->node = node;
	me->hash = hash;
	me->tab = t;
	if (e->n_memo + 1 > e->nbuckets) {   /* grow the bucket array */
		size_t nb = e->nbuckets * 2, i;
		struct memo_entry **b = cp_calloc(nb, sizeof *b);

		if (!b)
			return -1;
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

/* Fold a chain of actions and increments starting at node into delta;
 * returns the first node that is neither. */
static uint32_t fold_chain(struct enumerator *e, uint32_t node,
			   uint32_t *delta, int *nonzero)
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
			return node;
		for (it = n->items; it; it = it->next) {
			uint64_t d = (uint64_t)delta[it->index] + it->mult;

			delta[it->index] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
			*nonzero = 1;
		}
		node = n->next;
	}
}

static struct sigtab *compute(struct enumerator *e, uint32_t node)
{
	const struct udd_node *n = &e->g->nodes[node];
	struct sigtab *t = NULL, *child;
	size_t i, j, k = e->k;

	switch (n->kind) {
	case UDD_N_DONE: {
		uint32_t *zero = e->delta;

		t = tab_new(e);
		if (!t)
			return NULL;
		memset(zero, 0, k * sizeof *zero);
		if (tab_insert(e, t, zero, 1, NULL, 0) < 0)
			return NULL;
		return t;
	}
	case UDD_N_END:
		e->rc = cp_error_set(e->err, CP_EINTERNAL,
				     "%s: a path reaches the end of a uop without 'done'",
				     e->m->file);
		return NULL;
	case UDD_N_ACTION:
	case UDD_N_INCR: {
		uint32_t *delta = cp_malloc(k * sizeof *delta + 1), *vec;
		int nonzero;
		uint32_t target;

		if (!delta) {
			e->rc = cp_error_set(e->err, CP_ENOMEM, "out of memory");
			return NULL;
		}
		target = fold_chain(e, node, delta, &nonzero);
		child = sigs(e, target);
		if (!child || !nonzero) {
			cp_free(delta);
			return child;
		}
		vec = cp_malloc(k * sizeof *vec + 1);
		t = tab_new(e);
		if (!vec || !t) {
			cp_free(delta);
			cp_free(vec);
			if (!e->rc)
				e->rc = cp_error_set(e->err, CP_ENOMEM, "out of memory");
			return NULL;
		}
		for (i = 0; i < child->n; i++) {
			for (j = 0; j < k; j++) {
				uint64_t s = (uint64_t)child->vec[i * k + j] + delta[j];

				vec[j] = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
			}
			if (tab_insert(e, t, vec, child->mult[i], child->ex[i], 0) < 0) {
				cp_free(delta);
				cp_free(vec);
				return NULL;
			}
		}
		cp_free(delta);
		cp_free(vec);
		return t;
	}
	case UDD_N_DECIDE: {
		const struct udd_property_decl *p = e->m->properties.items[n->prop];
		uint32_t v;

		if (e->state[n->prop] >= 0)
			return sigs(e, n->succ[e->state[n->prop]]);
		t = tab_new(e);
		if (!t)
			return NULL;
		for (v = 0; v < p->n_values; v++) {
			struct trace *tr;

			e->state[n->prop] = (int32_t)v;
			child = sigs(e, n->succ[v]);
			e->state[n->prop] = -1;
			if (!child)
				return NULL;
			for (i = 0; i < child->n; i++) {
				tr = udd_arena_alloc(&e->arena, sizeof *tr);
				if (!tr) {
					e->rc = cp_error_set(e->err, CP_ENOMEM, "out of memory");
					return NULL;
				}
				tr->node = node;
				tr->value = v;
				tr->next = child->ex[i];
				if (tab_insert(e, t, child->vec + i * k, child->mult[i],
					       tr, 0) < 0)
					return NULL;
			}
		}
		return t;
	}
	}
	return NULL;
}

/* sigs(node) under the current state, through the memo. */
static struct sigtab *sigs(struct enumerator *e, uint32_t node)
{
	int32_t *key = cp_malloc(e->n_live[node] * sizeof *key + 1);
	uint64_t hash;
	struct sigtab *t;

	if (!key) {
		e->rc = cp_error_set(e->err, CP_ENOMEM, "out of memory");
		return NULL;
	}
	memo_key(e, node, key, &hash);
	t = memo_find(e, node, key, hash);
	if (!t && e->depth >= MAX_DECISIONS_ON_PATH) {
		unsigned line, col;

		udd_position(e->m, e->g->nodes[node].offset, &line, &col);
		e->rc = cp_error_at(e->err, CP_ELIMIT, e->m->file, line, col,
				    "a μpath passes more than %d decisions",
				    MAX_DECISIONS_ON_PATH);
	} else if (!t) {
		e->depth++;
		t = compute(e, node);
		e->depth--;
		if (t && memo_store(e, node, key, hash, t)) {
			e->rc = cp_error_set(e->err, CP_ENOMEM, "out of memory");
			t = NULL;
		}
	}
	cp_free(key);
	return t;
}

/* ==== the public signature set ==== */
struct sort_ctx {
	const uint32_t *vec, *uop;
	size_t k;
};

/* order: uop of the first example, then ascending counts */
static int entry_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b, x;

	if (c->uop[i] != c->uop[j])
		return c->uop[i] < c->uop[j] ? -1 : 1;
	for (x = 0; x < c->k; x++) {
		uint32_t u = c->vec[i * c->k + x], v = c->vec[j * c->k + x];

		if (u != v)
			return u < v ? -1 : 1;
	}
	return 0;
}

static void enumerator_release(struct enumerator *e)
{
	struct sigtab *t, *nt;

	for (t = e->tables; t; t = nt) {
		nt = t->next_alloc;
		tab_free_one(t);
	}
	cp_free(e->live);
	cp_free(e->n_live);
	cp_free(e->state);
	cp_free(e->buckets);
	cp_free(e->delta);
}

int udd_sigset_build(const struct udd_model *m, udd_features sel,
		     size_t max_signatures, struct udd_sigset **out,
		     struct cp_error *err)
{
	struct enumerator e;
	struct udd_sigset *s;
	struct sigtab *final = NULL;
	size_t *order = NULL, i, u, k = m->counters.n;
	int rc;

	*out = NULL;
	s = cp_calloc(1, sizeof *s);
	if (!s)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	s->m = m;
	cp_buf_init(&s->text);
	rc = udd_graph_build(m, sel, &s->g, err);
	if (rc) {
		cp_free(s);
		return rc;
	}
	memset(&e, 0, sizeof e);
	e.m = m;
	e.g = &s->g;
	e.k = k;
	e.err = err;
	e.n_props = m->properties.n;
	e.words = (e.n_props + 63) / 64;
	e.max_signatures = max_signatures ? max_signatures : DEFAULT_MAX_SIGNATURES;
	e.max_total = e.max_signatures > SIZE_MAX / 16 ? SIZE_MAX : 16 * e.max_signatures;
	e.nbuckets = 1024;
	e.buckets = cp_calloc(e.nbuckets, sizeof *e.buckets);
	e.state = cp_malloc(e.n_props * sizeof *e.state + 1);
	e.delta = cp_malloc(k * sizeof *e.delta + 1);
	if (!e.buckets || !e.state || !e.delta) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < e.n_props; i++)
		e.state[i] = -1;
	rc = compute_live(&e);
	if (rc)
		goto out;
	final = cp_calloc(1, sizeof *final);
	if (!final) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	/* the union over uops; a signature keeps its first uop's example */
	for (u = 0; u < s->g.n_uops; u++) {
		struct sigtab *t = sigs(&e, s->g.roots[u]);

		if (!t) {
			rc = e.rc ? e.rc : cp_error_set(err, CP_EINTERNAL, "enumeration failed");
			goto out;
		}
		for (i = 0; i < t->n; i++) {
			size_t before = final->n;
			long at = tab_insert(&e, final, t->vec + i * k, t->mult[i],
					     t->ex[i], 1);

			if (at < 0) {
				rc = e.rc;
				goto out;
			}
			if (final->n > before)
				final->uop[at] = (uint32_t)u;
		}
	}
	/* deterministic order */
	order = cp_malloc(final->n * sizeof *order + 1);
	s->vec = cp_malloc(final->n * k * sizeof *s->vec + 1);
	s->mult = cp_malloc(final->n * sizeof *s->mult + 1);
	s->uop = cp_malloc(final->n * sizeof *s->uop + 1);
	s->ex = cp_malloc(final->n * sizeof *s->ex + 1);
	if (!order || !s->vec || !s->mult || !s->uop || !s->ex) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < final->n; i++)
		order[i] = i;
	{
		struct sort_ctx sc = { final->vec, final->uop, k };

		qsort_r(order, final->n, sizeof *order, entry_cmp, &sc);
	}
	for (i = 0; i < final->n; i++) {
		size_t o = order[i];

		memcpy(s->vec + i * k, final->vec + o * k, k * sizeof *s->vec);
		s->mult[i] = final->mult[o];
		s->uop[i] = final->uop[o];
		s->ex[i] = final->ex[o];
		s->total = sat_add(s->total, final->mult[o]);
	}
	s->k = k;
	s->n = final->n;
	/* the traces live in the enumerator's arena: keep it */
	s->arena = e.arena;
	memset(&e.arena, 0, sizeof e.arena);
	*out = s;
	rc = CP_OK;
out:
	if (final)
		tab_free_one(final);
	cp_free(order);
	enumerator_release(&e);
	udd_arena_release(&e.arena);
	if (rc)
		udd_sigset_free(s);
	return rc;
}

void udd_sigset_free(struct udd_sigset *s)
{
	if (!s)
		return;
	udd_graph_release(&s->g);
	udd_arena_release(&s->arena);
	cp_free(s->vec);
	cp_free(s->mult);
	cp_free(s->uop);
	cp_free(s->ex);
	cp_buf_release(&s->text);
	cp_free(s);
}

size_t udd_sigset_n_counters(const struct udd_sigset *s)
{
	return s->k;
}

size_t udd_sigset_size(const struct udd_sigset *s)
{
	return s->n;
}

const char *udd_sigset_counter_name(const struct udd_sigset *s, size_t i)
{
	return udd_model_counter_name(s->m, i);
}

const char *udd_sigset_counter_event(const struct udd_sigset *s, size_t i)
{
	return udd_model_counter_event(s->m, i);
}

const uint32_t *udd_sigset_signature(const struct udd_sigset *s, size_t j)
{
	return s->vec + j * s->k;
}

const uint32_t *udd_sigset_matrix(const struct udd_sigset *s)
{
	return s->vec;
}

uint64_t udd_sigset_multiplicity(const struct udd_sigset *s, size_t j)
{
	return s->mult[j];
}

uint64_t udd_sigset_total_paths(const struct udd_sigset *s)
{
	return s->total;
}

const char *udd_sigset_uop(const struct udd_sigset *s, size_t j)
{
	return udd_model_uop_name(s->m, s->uop[j]);
}

/* ==== rendering paths as text ==== */

/* Append one node's text to b ("dtlb=miss", "+load.causes_walk*2",
 * "walk", "done"). */
static void render_node(const struct udd_model *m, const struct udd_node *n,
			uint32_t value, struct cp_buf *b)
{
	const struct udd_incr_item *it;

	if (b->len)
		cp_buf_puts(b, ", ");
	switch (n->kind) {
	case UDD_N_ACTION:
		cp_buf_puts(b, n->label);
		break;
	case UDD_N_INCR:
		for (it = n->items; it; it = it->next) {
			cp_buf_printf(b, "%s+%s", it == n->items ? "" : " ",
				      udd_model_counter_name(m, (size_t)it->index));
			if (it->mult != 1)
				cp_buf_printf(b, "*%u", (unsigned)it->mult);
		}
		break;
	case UDD_N_DECIDE: {
		const struct udd_property_decl *p = m->properties.items[n->prop];

		cp_buf_printf(b, "%s=%s", p->name.text, p->value_names[value]);
		break;
	}
	case UDD_N_DONE:
		cp_buf_puts(b, "done");
		break;
	case UDD_N_END:
		cp_buf_puts(b, "(end)");
		break;
	}
}

/* Replay an example: decisions on undecided properties come from the
 * trace; repeated decisions follow the earlier value and print nothing. */
const char *udd_sigset_example(const struct udd_sigset *s, size_t j)
{
	const struct udd_model *m = s->m;
	const struct trace *tr = s->ex[j];
	int32_t *state = cp_malloc(m->properties.n * sizeof *state + 1);
	uint32_t node = s->g.roots[s->uop[j]];
	struct cp_buf *b = (struct cp_buf *)&s->text;
	size_t i;

	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
	if (!state)
		return "(out of memory)";
	for (i = 0; i < m->properties.n; i++)
		state[i] = -1;
	for (;;) {
		const struct udd_node *n = &s->g.nodes[node];

		if (n->kind == UDD_N_DECIDE) {
			uint32_t v;

			if (state[n->prop] >= 0) {
				node = n->succ[state[n->prop]];
				continue;
			}
			v = tr && tr->node == node ? tr->value : 0;
			if (tr)
				tr = tr->next;
			state[n->prop] = (int32_t)v;
			render_node(m, n, v, b);
			node = n->succ[v];
			continue;
		}
		render_node(m, n, 0, b);
		if (n->kind == UDD_N_DONE || n->kind == UDD_N_END)
			break;
		node = n->next;
	}
	cp_free(state);
	return b->failed ? "(out of memory)" : b->data;
}

/* ==== every μpath, depth first (for --all) ==== */
struct walk {
	const struct udd_model *m;
	const struct udd_graph *g;
	int32_t *state;
	uint32_t *sig;
	struct cp_buf path;
	const char *uop;
	udd_path_fn fn;
	void *ctx;
	size_t depth;
};

static int walk_from(struct walk *w, uint32_t node)
{
	if (++w->depth > MAX_STEPS_ON_PATH)
		return CP_ELIMIT;
	for (;;) {
		const struct udd_node *n = &w->g->nodes[node];
		size_t mark = w->path.len;
		int rc;

		if (n->kind == UDD_N_DECIDE) {
			const struct udd_property_decl *p = w->m->properties.items[n->prop];
			uint32_t v;

			if (w->state[n->prop] >= 0) {
				node = n->succ[w->state[n->prop]];
				continue;
			}
			for (v = 0; v < p->n_values; v++) {
				w->state[n->prop] = (int32_t)v;
				render_node(w->m, n, v, &w->path);
				rc = walk_from(w, n->succ[v]);
				w->depth--;
				w->path.len = mark;
				if (w->path.data)
					w->path.data[mark] = '\0';
				if (rc) {
					w->state[n->prop] = -1;
					return rc;
				}
			}
			w->state[n->prop] = -1;
			return 0;
		}
		render_node(w->m, n, 0, &w->path);
		if (w->path.failed)
			return CP_ENOMEM;
		if (n->kind == UDD_N_INCR) {
			const struct udd_incr_item *it;

			for (it = n->items; it; it = it->next)
				w->sig[it->index] += it->mult;
		}
		if (n->kind == UDD_N_DONE || n->kind == UDD_N_END) {
			rc = n->kind == UDD_N_END ? CP_EINTERNAL
						  : w->fn(w->ctx, w->uop, w->path.data, w->sig);
			w->path.len = mark;
			w->path.data[mark] = '\0';
			return rc;
		}
		rc = walk_from(w, n->next);
		w->depth--;
		if (n->kind == UDD_N_INCR) {
			const struct udd_incr_item *it;

			for (it = n->items; it; it = it->next)
				w->sig[it->index] -= it->mult;
		}
		w->path.len = mark;
		w->path.data[mark] = '\0';
		return rc;
	}
}

int udd_model_each_path(const struct udd_model *m, udd_features sel,
			udd_path_fn fn, void *ctx, struct cp_error *err)
{
	struct udd_graph g;
	struct walk w;
	size_t i, u;
	int rc;

	rc = udd_graph_build(m, sel, &g, err);
	if (rc)
		return rc;
	memset(&w, 0, sizeof w);
	w.m = m;
	w.g = &g;
	w.fn = fn;
	w.ctx = ctx;
	cp_buf_init(&w.path);
	w.state = cp_malloc(m->properties.n * sizeof *w.state + 1);
	w.sig = cp_calloc(m->counters.n + 1, sizeof *w.sig);
	if (!w.state || !w.sig) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < m->properties.n; i++)
		w.state[i] = -1;
	for (u = 0; u < g.n_uops && !rc; u++) {
		w.uop = udd_model_uop_name(m, u);
		w.depth = 0;
		rc = walk_from(&w, g.roots[u]);
	}
	if (rc == CP_ENOMEM)
		cp_error_set(err, rc, "out of memory");
	else if (rc == CP_ELIMIT)
		cp_error_set(err, rc, "%s: a μpath has more than %d steps",
			     m->file, MAX_STEPS_ON_PATH);
	else if (rc == CP_EINTERNAL)
		cp_error_set(err, rc, "a path reaches the end of a uop without 'done'");
out:
	cp_free(w.state);
	cp_free(w.sig);
	cp_buf_release(&w.path);
	udd_graph_release(&g);
	return rc;
}
