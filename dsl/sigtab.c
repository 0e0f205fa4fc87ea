/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/sigtab.c: the enumeration's signature tables (open addressing
 * over k-count vectors, with multiplicities and example traces), its
 * budget, and the unions that build a node's table from its branches'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/enum_int.h"

int udd_enum_nomem(struct udd_enum *e)
{
	if (!e->rc)
		e->rc = cp_error_set(e->err, CP_ENOMEM, "out of memory");
	return -1;
}

/* One more live entry, memo entry or trace; fails beyond the budget. */
int udd_enum_spend(struct udd_enum *e, size_t n)
{
	e->used += n;
	if (e->used <= e->budget)
		return 0;
	if (!e->rc)
		e->rc = cp_error_set(e->err, CP_ELIMIT,
				     "%s: enumeration needs more than %zu table entries "
				     "(raise --max-signatures)",
				     e->m->file, e->budget);
	return -1;
}

int udd_enum_located(struct udd_enum *e, uint32_t node, int code,
		   const char *msg)
{
	unsigned line, col;

	struct udd_span at;

	if (e->rc)
		return -1;
	at.start = at.end = e->g->nodes[node].offset;
	udd_position(e->m, at.start, &line, &col);
	e->rc = cp_error_at(e->err, code, e->m->file, line, col, "%s", msg);
	if (e->err)
		udd_excerpt(e->m, at, e->err->detail, sizeof e->err->detail);
	return -1;
}

/* ==== signature tables ==== */
struct sigtab *udd_tab_new(struct udd_enum *e)
{
	struct sigtab *t = cp_calloc(1, sizeof *t);

	if (!t) {
		udd_enum_nomem(e);
		return NULL;
	}
	t->next = e->tables;
	if (e->tables)
		e->tables->prev = t;
	e->tables = t;
	return t;
}

void udd_tab_free(struct udd_enum *e, struct sigtab *t)
{
	if (!t)
		return;
	if (t->prev)
		t->prev->next = t->next;
	else
		e->tables = t->next;
	if (t->next)
		t->next->prev = t->prev;
	e->used -= t->n < e->used ? t->n : e->used;
	cp_free(t->mem);
	cp_free(t);
}

void udd_tab_rehash(struct udd_enum *e, struct sigtab *t)
{
	size_t i;

	memset(t->slots, 0, t->nslots * sizeof *t->slots);
	(void)e;
	for (i = 0; i < t->n; i++) {
		size_t s = t->hash[i] & (t->nslots - 1);

		while (t->slots[s])
			s = (s + 1) & (t->nslots - 1);
		t->slots[s] = (uint32_t)(i + 1);
	}
}

/* Room for cap entries (a power of two, above t->cap), every array of
 * the table in one block (one allocation per resize, not five).  Tables
 * start small: with thousands of counters an entry is large. */
static int tab_resize(struct udd_enum *e, struct sigtab *t, size_t cap)
{
	size_t k = e->k, bytes;
	char *mem;

	if (cap > UINT32_MAX / 2 ||
	    cap > (SIZE_MAX / 4) / (3 * sizeof(uint64_t) + (k + 2) * sizeof(uint32_t)))
		return udd_enum_nomem(e);
	bytes = cap * (2 * sizeof(uint64_t) + sizeof(void *) +
		       (k + 2) * sizeof(uint32_t));
	mem = cp_malloc(bytes);
	if (!mem)
		return udd_enum_nomem(e);
	{
		uint64_t *hash = (uint64_t *)(void *)mem;
		uint64_t *mult = hash + cap;
		const struct udd_trace **ex = (const struct udd_trace **)(void *)(mult + cap);
		uint32_t *vec = (uint32_t *)(void *)(ex + cap);
		uint32_t *slots = vec + cap * k;

		if (t->n) {
			memcpy(hash, t->hash, t->n * sizeof *hash);
			memcpy(mult, t->mult, t->n * sizeof *mult);
			memcpy(ex, t->ex, t->n * sizeof *ex);
			memcpy(vec, t->vec, t->n * k * sizeof *vec);
		}
		cp_free(t->mem);
		t->mem = mem;
		t->hash = hash;
		t->mult = mult;
		t->ex = ex;
		t->vec = vec;
		t->slots = slots;
	}
	t->nslots = 2 * cap;
	t->cap = cap;
	udd_tab_rehash(e, t);
	return 0;
}

static int tab_grow(struct udd_enum *e, struct sigtab *t)
{
	return tab_resize(e, t, t->cap ? 2 * t->cap : 2);
}

/* Room for n entries in all, so that a union grows its table once
 * rather than doubling its way there (n bounds what will be inserted). */
static int tab_reserve(struct udd_enum *e, struct sigtab *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 2;

	while (n > cap / 2 + cap / 4 && cap <= UINT32_MAX / 2)
		cap *= 2;
	return cap > t->cap ? tab_resize(e, t, cap) : 0;
}

/* Add (vec, mult, ex) to t.  An existing signature gains the
 * multiplicity and keeps its example, unless prefer_ex (the new one comes
 * from an earlier branch).  Returns the entry or -1. */
long udd_tab_insert(struct udd_enum *e, struct sigtab *t,
		    const uint32_t *vec, uint64_t hash, uint64_t mult,
		    const struct udd_trace *ex, int prefer_ex)
{
	size_t k = e->k, s;

	if (t->n + 1 > t->cap / 2 + t->cap / 4 || !t->cap)
		if (tab_grow(e, t))
			return -1;
	s = hash & (t->nslots - 1);
	while (t->slots[s]) {
		size_t i = t->slots[s] - 1;

		if (t->hash[i] == hash &&
		    !memcmp(t->vec + i * k, vec, k * sizeof *vec)) {
			t->mult[i] = udd_sat_add(t->mult[i], mult);
			if (prefer_ex)
				t->ex[i] = ex;
			return (long)i;
		}
		s = (s + 1) & (t->nslots - 1);
	}
	if (t->n >= e->max_signatures) {
		if (!e->rc)
			e->rc = cp_error_set(e->err, CP_ELIMIT,
					     "%s: more than %zu distinct signatures "
					     "(raise --max-signatures, or switch features off)",
					     e->m->file, e->max_signatures);
		return -1;
	}
	if (udd_enum_spend(e, 1))
		return -1;
	memcpy(t->vec + t->n * k, vec, k * sizeof *vec);
	t->hash[t->n] = hash;
	t->mult[t->n] = mult;
	t->ex[t->n] = ex;
	t->slots[s] = (uint32_t)(t->n + 1);
	return (long)t->n++;
}

/* dst = src + delta (dst may be src) with its hash updated, or an error
 * located at node when a count would pass 2^32 - 1. */
int udd_add_delta(struct udd_enum *e, uint32_t *dst, uint64_t *hash,
		  const uint32_t *src, const struct udd_delta *delta,
		  uint32_t node)
{
	size_t i;

	if (dst != src)
		memcpy(dst, src, e->k * sizeof *dst);
	for (i = 0; i < delta->n_nz; i++) {
		uint32_t j = delta->nz[i], old = dst[j];
		uint64_t s = (uint64_t)old + delta->d[j];

		if (s > UINT32_MAX) {
			char msg[300];

			snprintf(msg, sizeof msg,
				 "counter '%s' would count more than 4294967295 on one μpath",
				 udd_model_counter_name(e->m, j));
			return udd_enum_located(e, node, CP_ESEMANTIC, msg);
		}
		dst[j] = (uint32_t)s;
		*hash += udd_sig_mix(j, (uint32_t)s) - udd_sig_mix(j, old);
	}
	return 0;
}

/* Fill delta->nz from delta->d (nz has room for k). */
int udd_delta_index(struct udd_enum *e, struct udd_delta *delta)
{
	size_t j;

	delta->n_nz = 0;
	for (j = 0; j < e->k; j++)
		if (delta->d[j])
			delta->nz[delta->n_nz++] = (uint32_t)j;
	return 0;
}

struct udd_trace *udd_trace_new(struct udd_enum *e, uint32_t node,
				   uint32_t value,
				   const struct udd_trace *next)
{
	struct udd_trace *tr;

	if (udd_enum_spend(e, 1))
		return NULL;
	tr = udd_arena_alloc(&e->arena, sizeof *tr);
	if (!tr) {
		udd_enum_nomem(e);
		return NULL;
	}
	tr->node = node;
	tr->value = value;
	tr->next = next;
	return tr;
}

/* ==== unions ==== */


/* Transform an owned table in place. */
static int part_in_place(struct udd_enum *e, struct part *pt)
{
	struct sigtab *t = pt->t;
	size_t i, k = e->k;

	for (i = 0; i < t->n; i++) {
		if (pt->delta && udd_add_delta(e, t->vec + i * k, &t->hash[i],
					       t->vec + i * k, pt->delta,
					       pt->delta_node))
			return -1;
		t->mult[i] = udd_sat_mul(t->mult[i], pt->factor);
		if (pt->node != NO_NODE && !e->no_examples) {
			t->ex[i] = udd_trace_new(e, pt->node, pt->value, t->ex[i]);
			if (!t->ex[i])
				return -1;
		}
	}
	if (pt->delta && t->n)
		udd_tab_rehash(e, t);
	return 0;
}

static int part_insert(struct udd_enum *e, struct sigtab *dst,
		       const struct part *pt, int prefer_ex, uint32_t *scratch)
{
	const struct sigtab *t = pt->t;
	size_t i, k = e->k;

	for (i = 0; i < t->n; i++) {
		const uint32_t *vec = t->vec + i * k;
		const struct udd_trace *ex = t->ex[i];
		uint64_t hash = t->hash[i];

		if (pt->delta) {
			if (udd_add_delta(e, scratch, &hash, vec, pt->delta,
					  pt->delta_node))
				return -1;
			vec = scratch;
		}
		if (pt->node != NO_NODE && !e->no_examples) {
			ex = udd_trace_new(e, pt->node, pt->value, ex);
			if (!ex)
				return -1;
		}
		if (udd_tab_insert(e, dst, vec, hash, udd_sat_mul(t->mult[i], pt->factor),
				   ex, prefer_ex) < 0)
			return -1;
	}
	return 0;
}

static int union_one(struct udd_enum *e, struct sigtab *dst,
		     struct part *pt, int prefer_ex, uint32_t *scratch)
{
	if (part_insert(e, dst, pt, prefer_ex, scratch))
		return -1;
	if (pt->owned)
		udd_tab_free(e, pt->t);
	pt->t = NULL;
	return 0;
}

/* The union of parts, in branch order (an earlier branch's example wins).
 * The largest owned part becomes the result in place; the others are
 * copied into it and freed when owned.  The parts are consumed. */
struct sigtab *udd_union_parts(struct udd_enum *e, struct part *parts,
				  size_t n, int *owned)
{
	struct sigtab *t = NULL;
	uint32_t *scratch = NULL;
	size_t i, base = n;
	int rc = -1;

	*owned = 1;
	if (n == 1 && !parts[0].delta && parts[0].factor == 1 &&
	    parts[0].node == NO_NODE) {
		*owned = parts[0].owned;
		return parts[0].t;
	}
	for (i = 0; i < n; i++)
		if (parts[i].owned && (base == n || parts[i].t->n > parts[base].t->n))
			base = i;
	scratch = cp_malloc(e->k * sizeof *scratch + 1);
	if (!scratch) {
		udd_enum_nomem(e);
		goto out;
	}
	if (base < n) {
		t = parts[base].t;
		parts[base].t = NULL;
		if (part_in_place(e, &(struct part){ t, 1, parts[base].delta,
			parts[base].delta_node, parts[base].factor,
			parts[base].node, parts[base].value }))
			goto out;
	} else {
		t = udd_tab_new(e);
		if (!t)
			goto out;
	}
	{
		size_t total = t->n;

		for (i = 0; i < n; i++)
			if (i != base && parts[i].t)
				total += parts[i].t->n;
		if (tab_reserve(e, t, total))
			goto out;
	}
	/* branches before the base go in last first, so that the earliest
	 * one's example is the one that stays; those after keep the base's */
	for (i = base < n ? base : 0; i-- > 0;)
		if (union_one(e, t, &parts[i], 1, scratch))
			goto out;
	for (i = base < n ? base + 1 : 0; i < n; i++)
		if (union_one(e, t, &parts[i], 0, scratch))
			goto out;
	rc = 0;
out:
	cp_free(scratch);
	for (i = 0; i < n; i++)
		if (parts[i].t && parts[i].owned)
			udd_tab_free(e, parts[i].t);
	if (rc) {
		udd_tab_free(e, t);
		return NULL;
	}
	return t;
}
