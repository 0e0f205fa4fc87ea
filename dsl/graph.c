/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/graph.c: lowering a checked model to the μDD graph of one feature
 * selection.  `if`s disappear (features are compile-time), switches become
 * decision nodes with one successor per value, and control joins after a
 * switch by sharing the continuation node.  Nodes are created from the
 * back, so every successor has a smaller index than its predecessor: the
 * node array is already in reverse topological order. */
#include <string.h>

#include "dsl/internal.h"

static uint32_t new_node(struct udd_graph *g, enum udd_node_kind kind,
			 size_t offset)
{
	struct udd_node *n;

	if (g->failed)
		return 0;
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		struct udd_node *nodes = cp_reallocarray(g->nodes, cap, sizeof *nodes);

		if (!nodes || cap > UINT32_MAX) {
			g->failed = 1;
			return 0;
		}
		g->nodes = nodes;
		g->cap = cap;
	}
	n = &g->nodes[g->n];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	n->offset = offset;
	return (uint32_t)g->n++;
}

static uint32_t lower_list(const struct udd_model *m, udd_features sel,
			   struct udd_graph *g, const struct udd_stmt *s,
			   uint32_t cont);

static uint32_t lower_stmt(const struct udd_model *m, udd_features sel,
			   struct udd_graph *g, const struct udd_stmt *s,
			   uint32_t cont)
{
	uint32_t id;

	switch (s->kind) {
	case UDD_DONE:
		return new_node(g, UDD_N_DONE, s->span.start);
	case UDD_ACTION:
		id = new_node(g, UDD_N_ACTION, s->span.start);
		if (!g->failed) {
			g->nodes[id].label = s->name.text;
			g->nodes[id].next = cont;
		}
		return id;
	case UDD_INCR:
		id = new_node(g, UDD_N_INCR, s->span.start);
		if (!g->failed) {
			g->nodes[id].items = s->items;
			g->nodes[id].next = cont;
		}
		return id;
	case UDD_IF: {
		int on = (int)(sel >> s->index & 1);

		if (s->negate)
			on = !on;
		return lower_list(m, sel, g, on ? s->then_body : s->else_body,
				  cont);
	}
	case UDD_SWITCH: {
		const struct udd_property_decl *p = m->properties.items[s->index];
		const struct udd_case *c, *dflt = NULL;
		uint32_t *succ, dflt_id = 0;
		size_t v;

		succ = udd_arena_alloc(&g->arena, p->n_values * sizeof *succ);
		if (!succ) {
			g->failed = 1;
			return 0;
		}
		for (v = 0; v < p->n_values; v++)
			succ[v] = UINT32_MAX;
		for (c = s->cases; c; c = c->next) {
			uint32_t body = lower_list(m, sel, g, c->body, cont);
			const struct udd_value *val;

			if (!c->values) {
				dflt = c;
				dflt_id = body;
			}
			for (val = c->values; val; val = val->next)
				succ[val->index] = body;
		}
		for (v = 0; v < p->n_values; v++)
			if (succ[v] == UINT32_MAX)
				succ[v] = dflt ? dflt_id : cont;
		id = new_node(g, UDD_N_DECIDE, s->span.start);
		if (!g->failed) {
			g->nodes[id].prop = (uint32_t)s->index;
			g->nodes[id].succ = succ;
		}
		return id;
	}
	}
	return cont;
}

/* From the last statement to the first, each continuing into the one
 * after it; iterative, so long blocks do not deepen the C stack. */
static uint32_t lower_list(const struct udd_model *m, udd_features sel,
			   struct udd_graph *g, const struct udd_stmt *s,
			   uint32_t cont)
{
	const struct udd_stmt **list, *x;
	size_t n = 0, i;

	for (x = s; x; x = x->next)
		n++;
	if (!n)
		return cont;
	list = cp_malloc(n * sizeof *list);
	if (!list) {
		g->failed = 1;
		return 0;
	}
	for (x = s, i = 0; x; x = x->next)
		list[i++] = x;
	for (i = n; i-- > 0;)
		cont = lower_stmt(m, sel, g, list[i], cont);
	cp_free(list);
	return cont;
}

int udd_graph_build(const struct udd_model *m, udd_features sel,
		    struct udd_graph *g, struct cp_error *err)
{
	size_t i;

	memset(g, 0, sizeof *g);
	if (m->n_errors)
		return cp_error_set(err, CP_ESEMANTIC, "%s: model has errors",
				    m->file);
	g->roots = cp_calloc(m->uops.n, sizeof *g->roots);
	if (!g->roots)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	g->n_uops = m->uops.n;
	for (i = 0; i < m->uops.n; i++) {
		const struct udd_uop_decl *u = m->uops.items[i];
		/* the end of a uop: unreachable in a checked model */
		uint32_t end = new_node(g, UDD_N_END, u->close.start);

		g->roots[i] = lower_list(m, sel, g, u->body, end);
	}
	if (g->failed || g->arena.failed) {
		udd_graph_release(g);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	return CP_OK;
}

/* Properties decided at or below each node: (n_props + 63) / 64 words a
 * node.  Successors have smaller indices than their predecessors, so one
 * forward pass suffices. */
uint64_t *udd_graph_live(const struct udd_model *m, const struct udd_graph *g)
{
	size_t words = (m->properties.n + 63) / 64, i, w, v;
	uint64_t *live = cp_calloc(g->n * words + 1, sizeof *live);

	if (!live)
		return NULL;
	for (i = 0; i < g->n; i++) {
		const struct udd_node *n = &g->nodes[i];
		uint64_t *l = live + i * words;

		if (n->kind == UDD_N_ACTION || n->kind == UDD_N_INCR) {
			memcpy(l, live + (size_t)n->next * words, words * sizeof *l);
		} else if (n->kind == UDD_N_DECIDE) {
			const struct udd_property_decl *p = m->properties.items[n->prop];

			for (v = 0; v < p->n_values; v++)
				for (w = 0; w < words; w++)
					l[w] |= live[(size_t)n->succ[v] * words + w];
			l[n->prop / 64] |= (uint64_t)1 << (n->prop % 64);
		}
	}
	return live;
}

void udd_graph_release(struct udd_graph *g)
{
	cp_free(g->nodes);
	cp_free(g->roots);
	udd_arena_release(&g->arena);
	memset(g, 0, sizeof *g);
}

struct stmt_stack {
	const struct udd_stmt **items;
	size_t n, cap;
};

static int stack_push(struct stmt_stack *st, const struct udd_stmt *s)
{
	if (!s)
		return 0;
	if (st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 64;
		const struct udd_stmt **items = cp_reallocarray(st->items, cap,
								sizeof *items);

		if (!items)
			return -1;
		st->items = items;
		st->cap = cap;
	}
	st->items[st->n++] = s;
	return 0;
}

/* The `if`s lower_list takes for sel, through every switch case; an
 * explicit stack of statement lists, as lowering keeps the C stack
 * shallow. */
udd_features udd_model_consulted(const struct udd_model *m, udd_features sel)
{
	struct stmt_stack st = { NULL, 0, 0 };
	const struct udd_stmt *x;
	const struct udd_case *c;
	udd_features read = 0;
	size_t i;
	int failed = 0;

	for (i = 0; i < m->uops.n && !failed; i++)
		failed = stack_push(&st, ((const struct udd_uop_decl *)m->uops.items[i])->body);
	while (st.n && !failed) {
		for (x = st.items[--st.n]; x && !failed; x = x->next) {
			if (x->kind == UDD_IF) {
				int on = (int)(sel >> x->index & 1) ^ (x->negate != 0);

				read |= (udd_features)1 << x->index;
				failed = stack_push(&st, on ? x->then_body : x->else_body);
			} else if (x->kind == UDD_SWITCH) {
				for (c = x->cases; c && !failed; c = c->next)
					failed = stack_push(&st, c->body);
			}
		}
	}
	cp_free(st.items);
	return failed ? ~(udd_features)0 : read;   /* all of them: no sharing */
}
