/* dsl/check.c: semantic checks over the syntax tree.  Resolves every name
 * to its declaration, checks switches against property domains, finds
 * paths that fall off a uop or statements that can never run, and warns
 * about declarations nothing uses.  Checks ignore the feature selection:
 * both branches of every `if` are checked, so a model that passes is
 * valid for every set of features. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/internal.h"

#define ERR(m, span, ...) do { if (udd_diag_add((m), 1, (span), __VA_ARGS__) < 0) return -1; } while (0)
#define WARN(m, span, ...) do { if (udd_diag_add((m), 0, (span), __VA_ARGS__) < 0) return -1; } while (0)

static long find_decl(const struct udd_vec *v, const char *name)
{
	size_t i;

	/* every declaration struct starts with its struct udd_ident name */
	for (i = 0; i < v->n; i++)
		if (!strcmp(((const struct udd_ident *)v->items[i])->text, name))
			return (long)i;
	return -1;
}

static unsigned line_of(const struct udd_model *m, size_t offset)
{
	unsigned line, col;

	udd_position(m, offset, &line, &col);
	return line;
}

/* A name declared twice in one namespace is an error at the second. */
static int check_unique(struct udd_model *m, const struct udd_vec *v,
			const char *what)
{
	size_t i, j;

	for (i = 1; i < v->n; i++) {
		const struct udd_ident *a = v->items[i];

		for (j = 0; j < i; j++) {
			const struct udd_ident *b = v->items[j];

			if (!strcmp(a->text, b->text)) {
				ERR(m, a->span, "%s '%s' is declared twice (first at line %u)",
				    what, a->text, line_of(m, b->span.start));
				break;
			}
		}
	}
	return 0;
}

static int check_declarations(struct udd_model *m)
{
	size_t i;

	if (check_unique(m, &m->counters, "counter") ||
	    check_unique(m, &m->groups, "group") ||
	    check_unique(m, &m->properties, "property") ||
	    check_unique(m, &m->features, "feature") ||
	    check_unique(m, &m->uops, "uop"))
		return -1;
	for (i = 0; i < m->counters.n; i++) {
		struct udd_counter_decl *c = m->counters.items[i];

		if (!c->event[0])
			ERR(m, c->event_span, "counter '%s' has an empty event name",
			    c->name.text);
		if (find_decl(&m->groups, c->name.text) >= 0)
			ERR(m, c->name.span, "'%s' names both a counter and a group",
			    c->name.text);
	}
	for (i = 0; i < m->groups.n; i++) {
		struct udd_group_decl *g = m->groups.items[i];
		struct udd_value *v, *w;

		for (v = g->members; v; v = v->next) {
			v->index = find_decl(&m->counters, v->name.text);
			if (v->index < 0)
				ERR(m, v->name.span, "unknown counter '%s' in group '%s'",
				    v->name.text, g->name.text);
			for (w = g->members; w != v; w = w->next)
				if (!strcmp(w->name.text, v->name.text)) {
					ERR(m, v->name.span, "counter '%s' appears twice in group '%s'",
					    v->name.text, g->name.text);
					break;
				}
		}
	}
	for (i = 0; i < m->properties.n; i++) {
		struct udd_property_decl *p = m->properties.items[i];
		struct udd_value *v, *w;
		size_t n = 0;

		for (v = p->values; v; v = v->next) {
			for (w = p->values; w != v; w = w->next)
				if (!strcmp(w->name.text, v->name.text)) {
					ERR(m, v->name.span, "value '%s' appears twice in property '%s'",
					    v->name.text, p->name.text);
					break;
				}
			v->index = (long)n++;
		}
		p->n_values = n;
		p->value_names = udd_arena_alloc(&m->arena, n * sizeof *p->value_names);
		if (!p->value_names)
			return -1;
		for (v = p->values, n = 0; v; v = v->next)
			p->value_names[n++] = v->name.text;
	}
	if (m->uops.n == 0) {
		struct udd_span sp = { 0, 0 };

		ERR(m, sp, "the model declares no uop");
	}
	return 0;
}

static long find_value(const struct udd_property_decl *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n_values; i++)
		if (!strcmp(p->value_names[i], name))
			return (long)i;
	return -1;
}

/* "{a, b, c}" of a property, for messages. */
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

static int check_list(struct udd_model *m, struct udd_stmt *s,
		      int *terminates);

/* The messages that need buffers are formatted out of line, so that the
 * checker's recursion (once per nested block) keeps small frames. */
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
	    const struct udd_property_decl *p, const unsigned char *seen,
	    size_t n_missing)
{
	char missing[512];
	size_t i, len = 0;

	missing[0] = '\0';
	for (i = 0; i < p->n_values; i++)
		if (!seen[i] && len + 8 < sizeof missing)
			len += (size_t)snprintf(missing + len, sizeof missing - len,
						"%s'%s'", len ? ", " : "",
						p->value_names[i]);
	return udd_diag_add(m, 1, s->span, "switch on '%s' does not cover %s (add %s or a 'default')",
			    p->name.text, missing, n_missing > 1 ? "cases" : "a case");
}

/* One switch: names, values, duplicates, coverage.  *terminates is set
 * when every way through it ends in done. */
static int check_switch(struct udd_model *m, struct udd_stmt *s,
			int *terminates)
{
	struct udd_property_decl *p = NULL;
	struct udd_case *c, *dflt = NULL;
	unsigned char *seen = NULL;
	size_t *seen_at = NULL;
	int all_term = 1, t, rc = 0;

	s->index = find_decl(&m->properties, s->name.text);
	if (s->index < 0)
		ERR(m, s->name.span, "unknown property '%s'", s->name.text);
	else {
		p = m->properties.items[s->index];
		p->used = 1;
		seen = cp_calloc(p->n_values, 1);
		seen_at = cp_calloc(p->n_values, sizeof *seen_at);
		if (!seen || !seen_at) {
			rc = -1;
			goto out;
		}
	}
	for (c = s->cases; c; c = c->next) {
		struct udd_value *v;

		if (!c->values) {
			if (dflt) {
				if (udd_diag_add(m, 1, c->span, "switch has two 'default' cases (first at line %u)",
						 line_of(m, dflt->span.start)) < 0) {
					rc = -1;
					goto out;
				}
			}
			dflt = c;
		}
		for (v = c->values; p && v; v = v->next) {
			v->index = find_value(p, v->name.text);
			if (v->index < 0) {
				if (not_a_value(m, p, v) < 0) {
					rc = -1;
					goto out;
				}
			} else if (seen[v->index]) {
				if (udd_diag_add(m, 1, v->name.span, "duplicate case '%s' (first at line %u)",
						 v->name.text, line_of(m, seen_at[v->index])) < 0) {
					rc = -1;
					goto out;
				}
			} else {
				seen[v->index] = 1;
				seen_at[v->index] = v->name.span.start;
			}
		}
		if (check_list(m, c->body, &t)) {
			rc = -1;
			goto out;
		}
		if (!t)
			all_term = 0;
	}
	if (p) {
		size_t i, n_missing = 0;

		for (i = 0; i < p->n_values; i++)
			n_missing += !seen[i];
		if (n_missing && !dflt) {
			if (not_covered(m, s, p, seen, n_missing) < 0) {
				rc = -1;
				goto out;
			}
		} else if (!n_missing && dflt) {
			if (udd_diag_add(m, 0, dflt->span, "'default' is never taken: every value of '%s' has a case",
					 p->name.text) < 0) {
				rc = -1;
				goto out;
			}
		}
	}
	*terminates = all_term;
out:
	cp_free(seen);
	cp_free(seen_at);
	return rc;
}

/* A statement list: check each statement; anything after a statement that
 * always ends in done can never run. */
static int check_list(struct udd_model *m, struct udd_stmt *s,
		      int *terminates)
{
	int term = 0, t1, t2;

	for (; s; s = s->next) {
		if (term) {
			ERR(m, s->span, "statement is never reached (every path before it ends in 'done')");
			break;
		}
		switch (s->kind) {
		case UDD_ACTION:
			break;
		case UDD_DONE:
			term = 1;
			break;
		case UDD_INCR: {
			struct udd_incr_item *it;

			for (it = s->items; it; it = it->next) {
				it->index = find_decl(&m->counters, it->counter.text);
				if (it->index < 0) {
					if (find_decl(&m->groups, it->counter.text) >= 0)
						ERR(m, it->counter.span, "'%s' is a group; increment its counters one by one",
						    it->counter.text);
					else
						ERR(m, it->counter.span, "unknown counter '%s'",
						    it->counter.text);
				} else {
					((struct udd_counter_decl *)m->counters.items[it->index])->used = 1;
				}
				if (it->mult == 0)
					ERR(m, it->mult_span, "an increment must be at least 1");
			}
			break;
		}
		case UDD_SWITCH:
			if (check_switch(m, s, &t1))
				return -1;
			term = t1;
			break;
		case UDD_IF:
			s->index = find_decl(&m->features, s->name.text);
			if (s->index < 0)
				ERR(m, s->name.span, "unknown feature '%s'", s->name.text);
			else
				((struct udd_feature_decl *)m->features.items[s->index])->used = 1;
			if (check_list(m, s->then_body, &t1) ||
			    check_list(m, s->else_body, &t2))
				return -1;
			term = t1 && t2 && s->has_else;
			break;
		}
	}
	*terminates = term;
	return 0;
}

int udd_check(struct udd_model *m)
{
	size_t i;
	int term;

	if (check_declarations(m))
		return -1;
	for (i = 0; i < m->uops.n; i++) {
		struct udd_uop_decl *u = m->uops.items[i];

		if (check_list(m, u->body, &term))
			return -1;
		if (!term)
			ERR(m, u->close, "a path of uop '%s' reaches the end without 'done'",
			    u->name.text);
	}
	for (i = 0; i < m->counters.n; i++) {
		struct udd_counter_decl *c = m->counters.items[i];

		if (!c->used && find_decl(&m->counters, c->name.text) == (long)i)
			WARN(m, c->name.span, "counter '%s' is never incremented",
			     c->name.text);
	}
	for (i = 0; i < m->properties.n; i++) {
		struct udd_property_decl *p = m->properties.items[i];

		if (!p->used && find_decl(&m->properties, p->name.text) == (long)i)
			WARN(m, p->name.span, "property '%s' is never decided",
			     p->name.text);
	}
	for (i = 0; i < m->features.n; i++) {
		struct udd_feature_decl *f = m->features.items[i];

		if (!f->used && find_decl(&m->features, f->name.text) == (long)i)
			WARN(m, f->name.span, "feature '%s' is never tested",
			     f->name.text);
	}
	if (m->features.n > 64) {
		struct udd_feature_decl *f = m->features.items[64];

		ERR(m, f->name.span, "too many features (at most 64)");
	}
	return 0;
}
