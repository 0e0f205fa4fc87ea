/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/arena.c: the memory the DSL's trees, graphs and enumerations live
 * in: a bump arena freed all at once, and a growable array of pointers
 * for declaration and diagnostic lists. */
#include <stddef.h>
#include <string.h>

#include "dsl/internal.h"

struct udd_arena_block {
	struct udd_arena_block *next;
	size_t used, size;
	max_align_t data[];
};

void *udd_arena_alloc(struct udd_arena *a, size_t size)
{
	struct udd_arena_block *b = a->head;
	size_t need = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t)
		      * sizeof(max_align_t);
	void *p;

	if (a->failed)
		return NULL;
	if (!b || b->size - b->used < need) {
		size_t bsize = need > 16384 ? need : 16384;

		b = cp_malloc(sizeof *b + bsize);
		if (!b) {
			a->failed = 1;
			return NULL;
		}
		b->next = a->head;
		b->used = 0;
		b->size = bsize;
		a->head = b;
	}
	p = (char *)b->data + b->used;
	b->used += need;
	memset(p, 0, size);
	return p;
}

char *udd_arena_strndup(struct udd_arena *a, const char *s, size_t n)
{
	char *d = udd_arena_alloc(a, n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

void udd_arena_release(struct udd_arena *a)
{
	struct udd_arena_block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		cp_free(b);
	}
	a->head = NULL;
	a->failed = 0;
}

int udd_vec_push(struct udd_vec *v, void *item)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 8;
		void **items = cp_reallocarray(v->items, cap, sizeof *items);

		if (!items)
			return -1;
		v->items = items;
		v->cap = cap;
	}
	v->items[v->n++] = item;
	return 0;
}

void udd_vec_release(struct udd_vec *v)
{
	cp_free(v->items);
	memset(v, 0, sizeof *v);
}
