/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dsl/check.c: semantic checks over the syntax tree.  Resolves every name
 * to its declaration, checks switches against property domains, finds
 * paths that fall off a uop or statements that can never run, and warns
 * about declarations nothing uses.  Checks ignore the feature selection:
 * both branches of every `if` are checked, so a model that passes is
 * valid for every set of features.
 *
 * Whether a path can fall off a uop is decided on the values properties
 * and features can still have at each point (per property, the set of
 * its values a path there may have decided, or "undecided"): a case no
 * path can take needs no 'done'.  Tracking each property on its own
 * over-approximates the paths, so a path reported is at worst one that
 * only correlations between properties rule out; a path never goes
 * unreported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dsl/internal.h"

#define ERR(ck, span, ...) do { if (udd_diag_add((ck)->m, 1, (span), __VA_ARGS__) < 0) return -1; } while (0)
#define WARN(ck, span, ...) do { if (udd_diag_add((ck)->m, 0, (span), __VA_ARGS__) < 0) return -1; } while (0)

/* ==== names: one hash index per namespace ==== */
struct names {
	const char **key;
	long *val;
	size_t nslots;        /* a power of two, at least twice the names */
};

static int names_init(struct names *ix, size_t n)
{
	ix->nslots = 16;
	while (ix->nslots < 2 * n + 2)
		ix->nslots *= 2;
	ix->key = cp_calloc(ix->nslots, sizeof *ix->key);
	ix->val = cp_calloc(ix->nslots, sizeof *ix->val);
	return ix->key && ix->val ? 0 : -1;
}

static void names_release(struct names *ix)
{
	cp_free(ix->key);
	cp_free(ix->val);
	memset(ix, 0, sizeof *ix);
}

static size_t names_slot(const struct names *ix, const char *name)
{
	size_t s = cp_hash(CP_HASH_SEED, name, strlen(name)) & (ix->nslots - 1);

	while (ix->key[s] && strcmp(ix->key[s], name))
		s = (s + 1) & (ix->nslots - 1);
	return s;
}

static long names_find(const struct names *ix, const char *name)
{
	size_t s;

	if (!ix->nslots)
		return -1;
	s = names_slot(ix, name);
	return ix->key[s] ? ix->val[s] : -1;
}

/* Add name -> val unless present; returns the value already there, or -1. */
static long names_add(struct names *ix, const char *name, long val)
{
	size_t s = names_slot(ix, name);

	if (ix->key[s])
		return ix->val[s];
	ix->key[s] = name;
	ix->val[s] = val;
	return -1;
}

/* ==== the checker's state ==== */
struct checker {
	struct udd_model *m;
	struct names counters, groups, properties, features, uops;
	struct names *values;     /* per property: its values */
	/* flow states: per property n_values + 1 bits (the last one:
	 * undecided), per feature 3 (off, on, undecided); one word more says
	 * whether any path reaches the point */
	size_t *poff, foff, words;
};

static unsigned line_of(const struct udd_model *m, size_t offset)
{
	unsigned line, col;

	udd_position(m, offset, &line, &col);
	return line;
}

/* Index a namespace; a name declared twice is an error at the second. */
static int index_decls(struct checker *ck, struct names *ix,
		       const struct udd_vec *v, const char *what)
{
	size_t i;

	if (names_init(ix, v->n))
		return -1;
	for (i = 0; i < v->n; i++) {
		/* every declaration struct starts with its struct udd_ident name */
		const struct udd_ident *a = v->items[i];
		long first = names_add(ix, a->text, (long)i);

		if (first >= 0)
			ERR(ck, a->span, "%s '%s' is declared twice (first at line %u)",
			    what, a->text,
			    line_of(ck->m, ((const struct udd_ident *)v->items[first])->span.start));
	}
	return 0;
}

/* A property's domain: a value listed twice is an error and counts once,
 * so that nothing else reports it again (as an uncovered case, say). */
static int check_domain(struct checker *ck, size_t i)
{
	struct udd_property_decl *p = ck->m->properties.items[i];
	struct names *ix = &ck->values[i];
	struct udd_value *v;
	size_t n = 0;

	for (v = p->values; v; v = v->next)
		n++;
	if (names_init(ix, n))
		return -1;
	n = 0;
	for (v = p->values; v; v = v->next) {
		long first = names_add(ix, v->name.text, (long)n);

		if (first >= 0) {
			v->index = first;
			ERR(ck, v->name.span, "value '%s' appears twice in property '%s'",
			    v->name.text, p->name.text);
		} else {
			v->index = (long)n++;
		}
	}
	p->n_values = n;
	p->value_names = udd_arena_alloc(&ck->m->arena, n * sizeof *p->value_names + 1);
	if (!p->value_names)
		return -1;
	for (v = p->values; v; v = v->next)
		p->value_names[v->index] = v->name.text;
	return 0;
}

static int check_declarations(struct checker *ck)
{
	struct udd_model *m = ck->m;
	size_t i;

	if (index_decls(ck, &ck->counters, &m->counters, "counter") ||
	    index_decls(ck, &ck->groups, &m->groups, "group") ||
	    index_decls(ck, &ck->properties, &m->properties, "property") ||
	    index_decls(ck, &ck->features, &m->features, "feature") ||
	    index_decls(ck, &ck->uops, &m->uops, "uop"))
		return -1;
	for (i = 0; i < m->counters.n; i++) {
		struct udd_counter_decl *c = m->counters.items[i];
		const struct udd_value *v, *w;
		size_t j;

		/* every name of the event non-empty, and naming one
		 * counter's event only (a dataset's event must find one
		 * counter); letters' case does not tell events apart */
		for (v = c->events; v; v = v->next) {
			if (!v->name.text[0])
				ERR(ck, v->name.span, "counter '%s' has an empty "
				    "event name", c->name.text);
			for (j = 0; j <= i; j++) {
				const struct udd_counter_decl *d = m->counters.items[j];

				for (w = d->events; w && w != v; w = w->next)
					if (!strcasecmp(w->name.text, v->name.text))
						break;
				if (w && w != v) {
					if (d == c)
						ERR(ck, v->name.span, "counter '%s' "
						    "names event '%s' twice",
						    c->name.text, v->name.text);
					else
						ERR(ck, v->name.span, "event '%s' "
						    "already names counter '%s'",
						    v->name.text, d->name.text);
					break;
				}
			}
		}
		if (names_find(&ck->groups, c->name.text) >= 0)
			ERR(ck, c->name.span, "'%s' names both a counter and a group",
			    c->name.text);
	}
	for (i = 0; i < m->groups.n; i++) {
		struct udd_group_decl *g = m->groups.items[i];
		struct names seen;
		struct udd_value *v;
		size_t n = 0;

		for (v = g->members; v; v = v->next)
			n++;
		if (names_init(&seen, n)) {
			names_release(&seen);
			return -1;
		}
		for (v = g->members; v; v = v->next) {
			v->index = names_find(&ck->counters, v->name.text);
			if (v->index < 0 &&
			    udd_diag_add(m, 1, v->name.span, "unknown counter '%s' in group '%s'",
					 v->name.text, g->name.text) < 0)
				break;
			if (names_add(&seen, v->name.text, 0) >= 0 &&
			    udd_diag_add(m, 1, v->name.span, "counter '%s' appears twice in group '%s'",
					 v->name.text, g->name.text) < 0)
				break;
		}
		names_release(&seen);
		if (v)
			return -1;
	}
	ck->values = cp_calloc(m->properties.n + 1, sizeof *ck->values);
	if (!ck->values)
		return -1;
	for (i = 0; i < m->properties.n; i++)
		if (check_domain(ck, i))
			return -1;
	if (m->uops.n == 0) {
		struct udd_span sp = { 0, 0 };

		ERR(ck, sp, "the model declares no uop");
	}
	return 0;
}

/* ==== flow states ==== */
static int flow_layout(struct checker *ck)
{
	const struct udd_model *m = ck->m;
	size_t i, bits = 0;

	ck->poff = cp_malloc(m->properties.n * sizeof *ck->poff + 1);
	if (!ck->poff)
		return -1;
	for (i = 0; i < m->properties.n; i++) {
		const struct udd_property_decl *p = m->properties.items[i];

		ck->poff[i] = bits;
		bits += p->n_values + 1;
	}
	ck->foff = bits;
	bits += 3 * m->features.n;
	ck->words = (bits + 63) / 64;
	return 0;
}

static int bit(const uint64_t *f, size_t b)
{
	return (int)(f[b / 64] >> (b % 64) & 1);
}

static void set_bit(uint64_t *f, size_t b, int on)
{
	if (on)
		f[b / 64] |= (uint64_t)1 << (b % 64);
	else
		f[b / 64] &= ~((uint64_t)1 << (b % 64));
}

/* A new state: unreachable, or (start) the uop's entry, where nothing is
 * decided. */
static uint64_t *flow_new(const struct checker *ck, int start)
{
	uint64_t *f = cp_calloc(ck->words + 1, sizeof *f);
	size_t i;

	if (!f || !start)
		return f;
	for (i = 0; i < ck->m->properties.n; i++) {
		const struct udd_property_decl *p = ck->m->properties.items[i];

		set_bit(f, ck->poff[i] + p->n_values, 1);
	}
	for (i = 0; i < ck->m->features.n; i++)
		set_bit(f, ck->foff + 3 * i + 2, 1);
	f[ck->words] = 1;
	return f;
}

static int reachable(const struct checker *ck, const uint64_t *f)
{
	return f[ck->words] != 0;
}

static void flow_join(const struct checker *ck, uint64_t *dst,
		      const uint64_t *src)
{
	size_t i;

	if (!reachable(ck, src))
		return;
	for (i = 0; i <= ck->words; i++)
		dst[i] |= src[i];
}

/* Clear the bits [from, from + n). */
static void clear_bits(uint64_t *f, size_t from, size_t n)
{
	while (n && from % 64) {
		set_bit(f, from++, 0);
		n--;
	}
	for (; n >= 64; n -= 64, from += 64)
		f[from / 64] = 0;
	while (n--)
		set_bit(f, from++, 0);
}

/* dst = src where the bits [off, off + n) (values, undecided last) are
 * narrowed to the values allowed: the n_vals values of vals, or (vals
 * NULL) those not in the bitset listed.  dst is unreachable when none is
 * left.  Returns 1 when reachable.  Costs the values allowed, not the
 * domain: a switch of many cases stays linear. */
static int flow_narrow(const struct checker *ck, uint64_t *dst,
		       const uint64_t *src, size_t off, size_t n,
		       const uint32_t *vals, size_t n_vals,
		       const uint64_t *listed)
{
	int undecided = bit(src, off + n - 1), any = 0;
	size_t v;

	memcpy(dst, src, (ck->words + 1) * sizeof *dst);
	if (!reachable(ck, src))
		return 0;
	clear_bits(dst, off, n);
	if (vals) {
		for (v = 0; v < n_vals; v++)
			if (undecided || bit(src, off + vals[v])) {
				set_bit(dst, off + vals[v], 1);
				any = 1;
			}
	} else {
		for (v = 0; v + 1 < n; v++)
			if (!bit(listed, v) && (undecided || bit(src, off + v))) {
				set_bit(dst, off + v, 1);
				any = 1;
			}
	}
	if (!any)
		memset(dst, 0, (ck->words + 1) * sizeof *dst);
	return any;
}

/* ==== statements ==== */
static int check_list(struct checker *ck, struct udd_stmt *s, uint64_t *flow,
		      int *terminates);

/* The messages that need buffers are formatted out of line, so that the
 * checker's recursion (once per nested block) keeps small frames. */
static void domain_str(const struct udd_property_decl *p, char *buf,
		       size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < p->n_values && len + 4 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s",
					i ? ", " : "{", p->value_names[i]);
	if (len + 2 < size)
		snprintf(buf + len, size - len, "}");
}

static __attribute__((noinline)) int
not_a_value(struct udd_model *m, const struct udd_property_decl *p,
	    const struct udd_value *v)
{
	char dom[256];

	domain_str(p, dom, sizeof dom);
	return udd_diag_add(m, 1, v->name.span, "'%s' is not a value of property '%s' %s",
			    v->name.text, p->name.text, dom);
}

static __attribute__((noinline)) int
not_covered(struct udd_model *m, const struct udd_stmt *s,
	    const struct udd_property_decl *p, const uint64_t *listed,
	    size_t n_missing)
{
	char missing[512];
	size_t i, len = 0;

	missing[0] = '\0';
	for (i = 0; i < p->n_values; i++)
		if (!bit(listed, i) && len + 8 < sizeof missing)
			len += (size_t)snprintf(missing + len, sizeof missing - len,
						"%s'%s'", len ? ", " : "",
						p->value_names[i]);
	return udd_diag_add(m, 1, s->span, "switch on '%s' does not cover %s (add %s or a 'default')",
			    p->name.text, missing, n_missing > 1 ? "cases" : "a case");
}

/* The values of one case, as indices (a misspelt one is left out). */
static size_t case_values(const struct udd_case *c, uint32_t *vals)
{
	const struct udd_value *v;
	size_t n = 0;

	for (v = c->values; v; v = v->next)
		if (v->index >= 0)
			vals[n++] = (uint32_t)v->index;
	return n;
}

/* Names, values, duplicates and coverage of one switch; then each case
 * from the paths that can take it.  flow: in, then out (the join of the
 * cases and of the values no case covers).  *terminates is set when every
 * case ends in done. */
static int check_switch(struct checker *ck, struct udd_stmt *s,
			uint64_t *flow, int *terminates)
{
	struct udd_model *m = ck->m;
	struct udd_property_decl *p = NULL;
	struct udd_case *c, *dflt = NULL;
	uint64_t *listed = NULL, *entry = NULL, *out = NULL;
	uint32_t *vals = NULL;
	size_t *seen_at = NULL, n_missing = 0, i;
	int all_term = 1, t, rc = -1, bad_value = 0;

	s->index = names_find(&ck->properties, s->name.text);
	if (s->index < 0) {
		if (udd_diag_add(m, 1, s->name.span, "unknown property '%s'", s->name.text) < 0)
			return -1;
	} else {
		p = m->properties.items[s->index];
		p->used = 1;
	}
	listed = cp_calloc((p ? p->n_values : 0) / 64 + 2, sizeof *listed);
	vals = cp_calloc((p ? p->n_values : 0) + 1, sizeof *vals);
	seen_at = cp_calloc((p ? p->n_values : 0) + 1, sizeof *seen_at);
	entry = flow_new(ck, 0);
	out = flow_new(ck, 0);
	if (!listed || !vals || !seen_at || !entry || !out)
		goto out;
	for (c = s->cases; c; c = c->next) {
		struct udd_value *v;

		if (!c->values) {
			if (dflt && udd_diag_add(m, 1, c->span, "switch has two 'default' cases (first at line %u)",
						 line_of(m, dflt->span.start)) < 0)
				goto out;
			dflt = c;
		}
		for (v = c->values; p && v; v = v->next) {
			v->index = names_find(&ck->values[s->index], v->name.text);
			if (v->index < 0) {
				bad_value = 1;
				if (not_a_value(m, p, v) < 0)
					goto out;
			} else if (bit(listed, (size_t)v->index)) {
				if (udd_diag_add(m, 1, v->name.span, "duplicate case '%s' (first at line %u)",
						 v->name.text, line_of(m, seen_at[v->index])) < 0)
					goto out;
			} else {
				set_bit(listed, (size_t)v->index, 1);
				seen_at[v->index] = v->name.span.start;
			}
		}
	}
	if (p)
		for (i = 0; i < p->n_values; i++)
			n_missing += !bit(listed, i);
	/* a case with a misspelt value leaves its value uncovered: that is
	 * the misspelling, reported already */
	if (p && n_missing && !dflt && !bad_value) {
		if (not_covered(m, s, p, listed, n_missing) < 0)
			goto out;
	} else if (p && !n_missing && dflt) {
		if (udd_diag_add(m, 0, dflt->span, "'default' is never taken: every value of '%s' has a case",
				 p->name.text) < 0)
			goto out;
	}
	for (c = s->cases; c; c = c->next) {
		const struct udd_value *v;
		int taken = 1, misspelt = 0;

		for (v = c->values; v; v = v->next)
			misspelt |= v->index < 0;
		/* a case with a misspelt value or on an unknown property is
		 * taken as it stands: no guess about which paths reach it */
		if (p && !misspelt) {
			size_t nv = c->values ? case_values(c, vals) : 0;

			taken = flow_narrow(ck, entry, flow, ck->poff[s->index],
					    p->n_values + 1, c->values ? vals : NULL,
					    nv, listed);
			if (!taken && reachable(ck, flow) && (c->values || n_missing) &&
			    udd_diag_add(m, 0, c->span, "%s is never taken: every path here has decided '%s' otherwise",
					 c->values ? "this case" : "'default'", p->name.text) < 0)
				goto out;
		} else {
			memcpy(entry, flow, (ck->words + 1) * sizeof *entry);
		}
		if (check_list(ck, c->body, entry, &t))
			goto out;
		flow_join(ck, out, entry);
		if (!t)
			all_term = 0;
	}
	/* values no case lists continue after the switch (none when the
	 * property or a value is misspelt: that is what was meant) */
	if (p && !dflt && n_missing && !bad_value) {
		flow_narrow(ck, entry, flow, ck->poff[s->index], p->n_values + 1,
			    NULL, 0, listed);
		flow_join(ck, out, entry);
	}
	memcpy(flow, out, (ck->words + 1) * sizeof *flow);
	*terminates = all_term;
	rc = 0;
out:
	cp_free(listed);
	cp_free(vals);
	cp_free(seen_at);
	cp_free(entry);
	cp_free(out);
	return rc;
}

/* if (f) / if (!f) and its else-if chain, each branch from the paths
 * whose features can take it. */
static int check_if(struct checker *ck, struct udd_stmt *s, uint64_t *flow,
		    int *terminates)
{
	uint64_t *then_f = flow_new(ck, 0), *else_f = flow_new(ck, 0);
	const uint32_t on = 1, off = 0;
	int t1 = 0, t2 = 0, rc = -1;

	if (!then_f || !else_f)
		goto out;
	s->index = names_find(&ck->features, s->name.text);
	if (s->index < 0) {
		if (udd_diag_add(ck->m, 1, s->name.span, "unknown feature '%s'", s->name.text) < 0)
			goto out;
		memcpy(then_f, flow, (ck->words + 1) * sizeof *flow);
		memcpy(else_f, flow, (ck->words + 1) * sizeof *flow);
	} else {
		size_t off_bit = ck->foff + 3 * (size_t)s->index;

		((struct udd_feature_decl *)ck->m->features.items[s->index])->used = 1;
		flow_narrow(ck, then_f, flow, off_bit, 3, s->negate ? &off : &on, 1, NULL);
		flow_narrow(ck, else_f, flow, off_bit, 3, s->negate ? &on : &off, 1, NULL);
	}
	if (check_list(ck, s->then_body, then_f, &t1) ||
	    check_list(ck, s->else_body, else_f, &t2))
		goto out;
	memset(flow, 0, (ck->words + 1) * sizeof *flow);
	flow_join(ck, flow, then_f);
	flow_join(ck, flow, else_f);
	*terminates = t1 && t2 && s->has_else;
	rc = 0;
out:
	cp_free(then_f);
	cp_free(else_f);
	return rc;
}

static int check_incr(struct checker *ck, struct udd_stmt *s)
{
	struct udd_incr_item *it;

	for (it = s->items; it; it = it->next) {
		it->index = names_find(&ck->counters, it->counter.text);
		if (it->index < 0) {
			if (names_find(&ck->groups, it->counter.text) >= 0)
				ERR(ck, it->counter.span, "'%s' is a group; increment its counters one by one",
				    it->counter.text);
			else
				ERR(ck, it->counter.span, "unknown counter '%s'",
				    it->counter.text);
		} else {
			((struct udd_counter_decl *)ck->m->counters.items[it->index])->used = 1;
		}
		if (it->mult == 0)
			ERR(ck, it->mult_span, "an increment must be at least 1");
	}
	return 0;
}

/* A statement list: check each statement; anything after a statement that
 * always ends in done can never run.  flow: in, then out. */
static int check_list(struct checker *ck, struct udd_stmt *s, uint64_t *flow,
		      int *terminates)
{
	int term = 0, t;

	for (; s; s = s->next) {
		if (term) {
			ERR(ck, s->span, "statement is never reached (every path before it ends in 'done')");
			break;
		}
		switch (s->kind) {
		case UDD_ACTION:
			break;
		case UDD_DONE:
			term = 1;
			memset(flow, 0, (ck->words + 1) * sizeof *flow);
			break;
		case UDD_INCR:
			if (check_incr(ck, s))
				return -1;
			break;
		case UDD_SWITCH:
			if (check_switch(ck, s, flow, &t))
				return -1;
			term = t;
			break;
		case UDD_IF:
			if (check_if(ck, s, flow, &t))
				return -1;
			term = t;
			break;
		}
	}
	*terminates = term;
	return 0;
}

/* ==== the whole model ==== */
static int check_model(struct checker *ck)
{
	struct udd_model *m = ck->m;
	size_t i;
	int term;

	if (check_declarations(ck) || flow_layout(ck))
		return -1;
	for (i = 0; i < m->uops.n; i++) {
		struct udd_uop_decl *u = m->uops.items[i];
		uint64_t *flow = flow_new(ck, 1);

		if (!flow || check_list(ck, u->body, flow, &term)) {
			cp_free(flow);
			return -1;
		}
		if (reachable(ck, flow) &&
		    udd_diag_add(m, 1, u->close, "a path of uop '%s' reaches the end without 'done'",
				 u->name.text) < 0) {
			cp_free(flow);
			return -1;
		}
		cp_free(flow);
	}
	for (i = 0; i < m->counters.n; i++) {
		struct udd_counter_decl *c = m->counters.items[i];

		if (!c->used && names_find(&ck->counters, c->name.text) == (long)i)
			WARN(ck, c->name.span, "counter '%s' is never incremented",
			     c->name.text);
	}
	for (i = 0; i < m->properties.n; i++) {
		struct udd_property_decl *p = m->properties.items[i];

		if (!p->used && names_find(&ck->properties, p->name.text) == (long)i)
			WARN(ck, p->name.span, "property '%s' is never decided",
			     p->name.text);
	}
	for (i = 0; i < m->features.n; i++) {
		struct udd_feature_decl *f = m->features.items[i];

		if (!f->used && names_find(&ck->features, f->name.text) == (long)i)
			WARN(ck, f->name.span, "feature '%s' is never tested",
			     f->name.text);
	}
	if (m->features.n > 64) {
		struct udd_feature_decl *f = m->features.items[64];

		ERR(ck, f->name.span, "too many features (at most 64)");
	}
	return 0;
}

int udd_check(struct udd_model *m)
{
	struct checker ck;
	size_t i;
	int rc;

	memset(&ck, 0, sizeof ck);
	ck.m = m;
	rc = check_model(&ck);
	names_release(&ck.counters);
	names_release(&ck.groups);
	names_release(&ck.properties);
	names_release(&ck.features);
	names_release(&ck.uops);
	if (ck.values)
		for (i = 0; i < m->properties.n; i++)
			names_release(&ck.values[i]);
	cp_free(ck.values);
	cp_free(ck.poff);
	return rc;
}
