/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/paths.c: the signature set of a model and a feature selection (the
 * enumeration itself is dsl/enum.c's), its accessors, example μpaths as
 * text, and the walk over every μpath for --all. */
#include <stdlib.h>
#include <string.h>

#include "dsl/internal.h"

/* --all recurses once per step of a μpath: bounded so that absurd models
 * fail cleanly instead of overflowing the stack. */
#define MAX_STEPS_ON_PATH 20000

struct udd_sigset {
	const struct udd_model *m;
	struct udd_graph g;
	struct udd_arena arena;      /* the examples' traces */
	size_t k, n;
	uint32_t *vec;
	uint64_t *mult;
	uint32_t *uop;
	const struct udd_trace **ex;
	size_t *by_uop_start;        /* signature j: by_uop[start[j] .. start[j+1]) */
	struct udd_uop_paths *by_uop;
	uint64_t total;
	int32_t *value_at;           /* scratch for examples: per node */
	struct cp_buf text;          /* last rendered example */
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* ==== the public signature set ==== */

/* A signature to sort: its uop and counts, read once from the
 * enumerator, so that a comparison calls nothing. */
struct sort_item {
	uint32_t uop;
	const uint32_t *sig;
	size_t entry;
};

/* order: uop of the first example, then ascending counts */
static int entry_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_item *x = a, *y = b;
	size_t k = *(const size_t *)arg, i;

	if (x->uop != y->uop)
		return x->uop < y->uop ? -1 : 1;
	for (i = 0; i < k; i++)
		if (x->sig[i] != y->sig[i])
			return x->sig[i] < y->sig[i] ? -1 : 1;
	return 0;
}

int udd_sigset_build(const struct udd_model *m, udd_features sel,
		     size_t max_signatures, struct udd_sigset **out,
		     struct cp_error *err)
{
	struct udd_enum *e = NULL;
	struct udd_sigset *s;
	const struct udd_uop_paths *bu;
	struct sort_item *order = NULL;
	size_t *rank = NULL, i, n, nbu, k = m->counters.n;
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
	rc = udd_enum_run(m, &s->g, max_signatures, 0, &e, err);
	if (rc)
		goto out;
	n = udd_enum_size(e);
	bu = udd_enum_by_uop(e, &nbu);
	/* deterministic order */
	order = cp_malloc(n * sizeof *order + 1);
	rank = cp_malloc(n * sizeof *rank + 1);
	s->vec = cp_malloc(n * k * sizeof *s->vec + 1);
	s->mult = cp_malloc(n * sizeof *s->mult + 1);
	s->uop = cp_malloc(n * sizeof *s->uop + 1);
	s->ex = cp_malloc(n * sizeof *s->ex + 1);
	s->by_uop_start = cp_calloc(n + 2, sizeof *s->by_uop_start);
	s->by_uop = cp_malloc(nbu * sizeof *s->by_uop + 1);
	s->value_at = cp_malloc(s->g.n * sizeof *s->value_at + 1);
	if (!order || !rank || !s->vec || !s->mult || !s->uop || !s->ex ||
	    !s->by_uop_start || !s->by_uop || !s->value_at) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < s->g.n; i++)
		s->value_at[i] = -1;
	for (i = 0; i < n; i++) {
		order[i].uop = udd_enum_uop(e, i);
		order[i].sig = udd_enum_signature(e, i);
		order[i].entry = i;
	}
	qsort_r(order, n, sizeof *order, entry_cmp, &k);
	for (i = 0; i < n; i++) {
		size_t o = order[i].entry;

		rank[o] = i;
		memcpy(s->vec + i * k, udd_enum_signature(e, o), k * sizeof *s->vec);
		s->mult[i] = udd_enum_multiplicity(e, o);
		s->uop[i] = udd_enum_uop(e, o);
		s->ex[i] = udd_enum_example(e, o);
		s->total = sat_add(s->total, s->mult[i]);
	}
	/* μpaths per (signature, uop): counting sort by signature keeps the
	 * uop order within each */
	for (i = 0; i < nbu; i++)
		s->by_uop_start[rank[bu[i].entry] + 2]++;
	for (i = 2; i < n + 2; i++)
		s->by_uop_start[i] += s->by_uop_start[i - 1];
	for (i = 0; i < nbu; i++) {
		struct udd_uop_paths *d = &s->by_uop[s->by_uop_start[rank[bu[i].entry] + 1]++];

		*d = bu[i];
		d->entry = rank[bu[i].entry];
	}
	s->k = k;
	s->n = n;
	/* the traces live in the enumerator's arena: keep it */
	udd_enum_take_traces(e, &s->arena);
	*out = s;
	rc = CP_OK;
out:
	cp_free(order);
	cp_free(rank);
	udd_enum_free(e);
	if (rc)
		udd_sigset_free(s);
	return rc;
}

int udd_signatures_build(const struct udd_model *m, udd_features sel,
			 size_t max_signatures, uint32_t **out, size_t *n,
			 struct cp_error *err)
{
	struct udd_graph g;
	struct udd_enum *e = NULL;
	size_t j, k = m->counters.n;
	uint32_t *v;
	int rc;

	*out = NULL;
	*n = 0;
	if ((rc = udd_graph_build(m, sel, &g, err)))
		return rc;
	/* μpath by μpath when they are few; else (or to report an error)
	 * the memoised enumeration */
	rc = udd_walk_rows(m, &g, max_signatures ? max_signatures
						 : UDD_DEFAULT_MAX_SIGNATURES, out, n);
	if (rc <= 0) {
		udd_graph_release(&g);
		return rc ? cp_error_set(err, CP_ENOMEM, "out of memory") : CP_OK;
	}
	rc = udd_enum_run(m, &g, max_signatures, 1, &e, err);
	if (!rc) {
		v = cp_malloc(udd_enum_size(e) * k * sizeof *v + 1);
		if (!v) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		} else {
			for (j = 0; j < udd_enum_size(e); j++)
				memcpy(v + j * k, udd_enum_signature(e, j), k * sizeof *v);
			*out = v;
			*n = udd_enum_size(e);
		}
	}
	udd_enum_free(e);
	udd_graph_release(&g);
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
	cp_free(s->by_uop_start);
	cp_free(s->by_uop);
	cp_free(s->value_at);
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

const struct udd_model *udd_sigset_model(const struct udd_sigset *s)
{
	return s->m;
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

size_t udd_sigset_uop_count(const struct udd_sigset *s, size_t j)
{
	return s->by_uop_start[j + 1] - s->by_uop_start[j];
}

const char *udd_sigset_uop_name(const struct udd_sigset *s, size_t j,
				size_t i)
{
	return udd_model_uop_name(s->m, s->by_uop[s->by_uop_start[j] + i].uop);
}

uint64_t udd_sigset_uop_paths(const struct udd_sigset *s, size_t j, size_t i)
{
	return s->by_uop[s->by_uop_start[j] + i].paths;
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

/* Replay an example: the trace says which value each decision on an
 * undecided property took (in any order: a pending decision is recorded
 * where it was taken); repeated decisions follow the earlier value and
 * print nothing.  Each step's text goes to b (after ", " when b is not
 * empty); with fn, b is emptied before each step and fn sees it with the
 * step's source line and the counts so far (counts: k entries, zeroed
 * here).  Returns fn's first non-zero value, CP_ENOMEM, or 0. */
static int replay(const struct udd_sigset *s, size_t j, struct cp_buf *b,
		  uint32_t *counts, udd_step_fn fn, void *ctx)
{
	const struct udd_model *m = s->m;
	const struct udd_trace *tr;
	int32_t *state = cp_malloc(m->properties.n * sizeof *state + 1);
	int32_t *value_at = s->value_at;
	uint32_t node = s->g.roots[s->uop[j]];
	size_t i;
	int rc = 0;

	if (!state)
		return CP_ENOMEM;
	for (i = 0; i < m->properties.n; i++)
		state[i] = -1;
	if (counts)
		memset(counts, 0, s->k * sizeof *counts);
	for (tr = s->ex[j]; tr; tr = tr->next)
		value_at[tr->node] = (int32_t)tr->value;
	for (;;) {
		const struct udd_node *n = &s->g.nodes[node];
		const struct udd_incr_item *it;
		uint32_t v = 0;
		unsigned line, col;

		if (n->kind == UDD_N_DECIDE) {
			if (state[n->prop] >= 0) {
				node = n->succ[state[n->prop]];
				continue;
			}
			v = value_at[node] >= 0 ? (uint32_t)value_at[node] : 0;
			state[n->prop] = (int32_t)v;
		}
		if (fn) {
			b->len = 0;
			if (b->data)
				b->data[0] = '\0';
		}
		render_node(m, n, v, b);
		if (n->kind == UDD_N_INCR && counts)
			for (it = n->items; it; it = it->next)
				counts[it->index] += it->mult;   /* the signature's: fits */
		if (fn) {
			if (b->failed) {
				rc = CP_ENOMEM;
				break;
			}
			udd_position(m, n->offset, &line, &col);
			if ((rc = fn(ctx, b->data, line, counts)))
				break;
		}
		if (n->kind == UDD_N_DONE || n->kind == UDD_N_END)
			break;
		node = n->kind == UDD_N_DECIDE ? n->succ[v] : n->next;
	}
	for (tr = s->ex[j]; tr; tr = tr->next)
		value_at[tr->node] = -1;
	cp_free(state);
	return rc;
}

const char *udd_sigset_example(const struct udd_sigset *s, size_t j)
{
	struct cp_buf *b = (struct cp_buf *)&s->text;

	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
	if (replay(s, j, b, NULL, NULL, NULL) || b->failed)
		return "(out of memory)";
	return b->data;
}

int udd_sigset_example_steps(const struct udd_sigset *s, size_t j,
			     udd_step_fn fn, void *ctx)
{
	struct cp_buf b;
	uint32_t *counts = cp_calloc(s->k + 1, sizeof *counts);
	int rc;

	if (!counts)
		return CP_ENOMEM;
	cp_buf_init(&b);
	rc = replay(s, j, &b, counts, fn, ctx);
	cp_buf_release(&b);
	cp_free(counts);
	return rc;
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
	const struct udd_node *overflow;     /* the increment that overflowed */
	const char *overflow_counter;
};

/* Add (sign 1) or take back (sign -1) a node's increments; adding fails
 * with nothing added when a count would pass 2^32 - 1. */
static int walk_count(struct walk *w, const struct udd_node *n, int sign)
{
	const struct udd_incr_item *it, *undo;

	for (it = n->items; it; it = it->next) {
		if (sign < 0) {
			w->sig[it->index] -= it->mult;
			continue;
		}
		if (w->sig[it->index] > UINT32_MAX - it->mult) {
			for (undo = n->items; undo != it; undo = undo->next)
				w->sig[undo->index] -= undo->mult;
			w->overflow = n;
			w->overflow_counter = it->counter.text;
			return CP_ELIMIT;
		}
		w->sig[it->index] += it->mult;
	}
	return 0;
}

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
		if (n->kind == UDD_N_INCR && walk_count(w, n, 1)) {
			w->path.len = mark;
			w->path.data[mark] = '\0';
			return CP_ELIMIT;
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
		if (n->kind == UDD_N_INCR)
			walk_count(w, n, -1);
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
	else if (rc == CP_ELIMIT && w.overflow) {
		struct udd_span at = { w.overflow->offset, w.overflow->offset };
		unsigned line, col;

		udd_position(m, at.start, &line, &col);
		rc = cp_error_at(err, CP_ESEMANTIC, m->file, line, col,
				 "counter '%s' would count more than 4294967295 on one μpath",
				 w.overflow_counter);
		if (err)
			udd_excerpt(m, at, err->detail, sizeof err->detail);
	} else if (rc == CP_ELIMIT)
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
