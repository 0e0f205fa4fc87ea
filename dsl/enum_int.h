/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/enum_int.h: what dsl/enum.c (the memoised enumeration) and
 * dsl/sigtab.c (its signature tables and unions) share. */
#ifndef UDD_ENUM_INT_H
#define UDD_ENUM_INT_H

#include <stdint.h>

#include "dsl/internal.h"

/* A set of distinct signatures with multiplicities and examples. */
struct sigtab {
	size_t n, cap;
	void *mem;                   /* one block: hash, mult, ex, vec, slots */
	uint32_t *vec;               /* n × k */
	uint64_t *hash;              /* per entry: udd_sig_hash of its vector */
	uint64_t *mult;
	const struct udd_trace **ex;
	uint32_t *slots;             /* open addressing: entry + 1, 0 empty */
	size_t nslots;
	struct sigtab *prev, *next;  /* every live table, for freeing */
};

struct memo_entry {
	uint32_t node;
	uint64_t hash;
	int32_t *key;                /* states of the node's live properties */
	struct sigtab *tab;
	struct memo_entry *next;
};

struct udd_enum {
	int no_examples;             /* leave every entry's example NULL */
	const struct udd_model *m;
	const struct udd_graph *g;
	size_t k, n_props, words;
	uint64_t *live;              /* per node: bitset over properties */
	size_t *n_live;
	uint64_t *pend;              /* bitset: properties now pending */
	uint32_t *pend_target;       /* per decision: the shared chain target, or NO_NODE */
	struct udd_delta **pend_delta;   /* per pending-able decision: one per value, lazily */
	uint32_t **group;            /* per decision: values sharing a successor */
	unsigned char *single;       /* per node: each key asked for at most once */
	int32_t *state;              /* per property */
	struct memo_entry **buckets;
	size_t nbuckets, n_memo;
	struct sigtab *tables;
	struct udd_arena arena;      /* traces, memo keys and entries, deltas */
	size_t max_signatures;
	size_t budget, used;         /* live entries + memo entries + traces */
	size_t depth;
	struct cp_error *err;
	int rc;
	/* the result: every uop's signatures merged */
	struct sigtab *final;
	uint32_t *final_uop;         /* per final entry: its first uop */
	struct udd_uop_paths *by_uop;   /* (entry, uop, μpaths), uop order */
	size_t n_by_uop, cap_by_uop;
};

/* A table a result is made of, and how: shifted by delta (NULL: not),
 * multiplicities times factor, each example behind the decision
 * (node, value) (node NO_NODE: none).  owned: nobody else holds it. */
struct part {
	struct sigtab *t;
	int owned;
	const struct udd_delta *delta;
	uint32_t delta_node;         /* where an overflow is reported */
	uint64_t factor;
	uint32_t node, value;
};

/* The counts a chain of increments adds: dense, and the counters it
 * touches, so that adding it costs what it touches. */
struct udd_delta {
	uint32_t *d;                 /* k counts */
	uint32_t *nz;                /* the j with d[j] != 0 */
	size_t n_nz;
};

/* A signature's hash is a sum over its nonzero counts, so adding a delta
 * updates it in the delta's size, not the signature's. */
static inline uint64_t udd_sig_mix(size_t j, uint32_t x)
{
	uint64_t z;

	if (!x)
		return 0;
	z = ((uint64_t)j << 32 | x) + 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
#define NO_NODE UINT32_MAX

static inline uint64_t udd_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t udd_sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}


int udd_enum_nomem(struct udd_enum *e);
int udd_enum_spend(struct udd_enum *e, size_t n);
int udd_enum_located(struct udd_enum *e, uint32_t node, int code,
		   const char *msg);
struct sigtab *udd_tab_new(struct udd_enum *e);
void udd_tab_free(struct udd_enum *e, struct sigtab *t);
void udd_tab_rehash(struct udd_enum *e, struct sigtab *t);
long udd_tab_insert(struct udd_enum *e, struct sigtab *t,
		    const uint32_t *vec, uint64_t hash, uint64_t mult,
		    const struct udd_trace *ex, int prefer_ex);
int udd_add_delta(struct udd_enum *e, uint32_t *dst, uint64_t *hash,
		  const uint32_t *src, const struct udd_delta *delta,
		  uint32_t node);
int udd_delta_index(struct udd_enum *e, struct udd_delta *delta);
struct udd_trace *udd_trace_new(struct udd_enum *e, uint32_t node,
				   uint32_t value,
				   const struct udd_trace *next);
struct sigtab *udd_union_parts(struct udd_enum *e, struct part *parts,
				  size_t n, int *owned);

#endif
