/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/wire.c: a model's evaluation as text, for the processes of an
 * MPI run (cli/mpi.c carries the text; docs/manual/mpi.md): the packing
 * side (explore_family_evaluate_packed) and the reading side
 * (explore_entry_adopt).  The evaluator (family.c) knows nothing of it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/explore.h"
#include "explore/family_int.h"
#include "pipeline/pipeline.h"

/* An evaluation as text: numbers (doubles in %a, exact), strings as
 * "length:bytes", violations with their vectors.  Only processes of one
 * build exchange it. */
static void pack_string(struct cp_buf *b, const char *s)
{
	if (!s) {
		cp_buf_puts(b, "-\n");
		return;
	}
	cp_buf_printf(b, "%zu:", strlen(s));
	cp_buf_puts(b, s);
	cp_buf_puts(b, "\n");
}

int explore_family_evaluate_packed(struct explore_family *f, udd_features sel,
				   size_t cone_limit, struct cp_buf *out,
				   struct cp_error *err)
{
	struct entry *e;
	size_t i, j;
	int rc;

	if (cone_limit < f->cone_over_m)
		f->cone_over_m = cone_limit;
	rc = explore_family_entry(f, sel, &e, err);
	if (!rc)
		rc = explore_entry_evaluate(f, e, err);
	if (rc)
		return rc;
	cp_buf_printf(out, "%zu %zu %zu %zu %d %zu %a %a %zu\n", e->eval.n_observations,
		      e->eval.n_infeasible, e->eval.n_refuting, e->n_inexact,
		      pipe_model_has_facets(e->pm) || e->remote_facets,
		      f->cone_over_m, e->seconds, e->eval.witness_margin,
		      e->eval.n_violations);
	pack_string(out, e->eval.refuted_by);
	pack_string(out, e->eval.witness);
	pack_string(out, e->eval.witness_constraint);
	/* the verdicts, which the flow bounds of a minimal model start from */
	for (i = 0; i < f->n_obs; i++)
		cp_buf_puts(out, e->feasible && e->feasible[i] ? "1" : "0");
	cp_buf_puts(out, "\n");
	for (i = 0; i < f->n_obs; i++)
		cp_buf_puts(out, e->refutes && e->refutes[i] ? "1" : "0");
	cp_buf_puts(out, "\n");
	for (i = 0; i < e->eval.n_violations; i++) {
		cp_buf_printf(out, "%zu %d", e->eval.violations[i].count, e->viol_eq[i]);
		for (j = 0; j < f->k; j++)
			cp_buf_printf(out, " %lld", (long long)e->viol[i * f->k + j]);
		cp_buf_puts(out, "\n");
		pack_string(out, e->eval.violations[i].constraint);
	}
	return out->failed ? cp_error_set(err, CP_ENOMEM, "out of memory") : 0;
}

/* The reading side; *p advances.  0, or -1 on malformed text. */
static int unpack_string(const char **p, const char *end, char **out)
{
	char *q;
	unsigned long long n;

	*out = NULL;
	if (*p < end && **p == '-') {
		*p += 2;
		return *p <= end ? 0 : -1;
	}
	n = strtoull(*p, &q, 10);
	if (q >= end || *q != ':' || n > (unsigned long long)(end - q - 1))
		return -1;
	*out = cp_malloc((size_t)n + 1);
	if (!*out)
		return -1;
	memcpy(*out, q + 1, (size_t)n);
	(*out)[n] = 0;
	*p = q + 1 + n + 1;
	return *p <= end ? 0 : -1;
}

static int unpack_numbers(const char **p, const char *end, const char *fmt, ...)
{
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	char line[64 + 24 * 64];
	va_list ap;
	int want = 0, got;
	const char *c;

	if (!nl || (size_t)(nl - *p) >= sizeof line)
		return -1;
	memcpy(line, *p, (size_t)(nl - *p));
	line[nl - *p] = 0;
	for (c = fmt; *c; c++)
		want += *c == '%';
	va_start(ap, fmt);
	got = vsscanf(line, fmt, ap);
	va_end(ap);
	*p = nl + 1;
	return got == want ? 0 : -1;
}

int explore_entry_adopt(struct explore_family *f, struct entry *e,
		       const struct cp_buf *in, struct cp_error *err)
{
	const char *p = in->data, *end = in->data + in->len;
	size_t nv, cone, i, j;
	int facets;
	char *text = NULL;

	if (e->evaluated)
		return 0;    /* evaluated here */
	if (unpack_numbers(&p, end, "%zu %zu %zu %zu %d %zu %la %la %zu",
			   &e->eval.n_observations, &e->eval.n_infeasible,
			   &e->eval.n_refuting, &e->n_inexact, &facets, &cone, &e->seconds,
			   &e->eval.witness_margin, &nv) ||
	    unpack_string(&p, end, &e->eval.refuted_by) ||
	    unpack_string(&p, end, &e->eval.witness) ||
	    unpack_string(&p, end, &e->eval.witness_constraint))
		goto bad;
	if ((size_t)(end - p) < f->n_obs + 1 || p[f->n_obs] != '\n' ||
	    !(e->feasible = cp_malloc(f->n_obs + 1)))
		goto bad;
	for (i = 0; i < f->n_obs; i++) {
		if (p[i] != '0' && p[i] != '1')
			goto bad;
		e->feasible[i] = p[i] == '1';
	}
	p += f->n_obs + 1;
	if ((size_t)(end - p) < f->n_obs + 1 || p[f->n_obs] != '\n' ||
	    !(e->refutes = cp_malloc(f->n_obs + 1)))
		goto bad;
	for (i = 0; i < f->n_obs; i++) {
		if (p[i] != '0' && p[i] != '1')
			goto bad;
		e->refutes[i] = p[i] == '1';
	}
	p += f->n_obs + 1;
	e->eval.family = 1;
	if (nv > in->len)
		goto bad;
	e->viol = cp_calloc(nv * f->k + 1, sizeof *e->viol);
	e->viol_eq = cp_calloc(nv + 1, 1);
	if (!e->viol || !e->viol_eq)
		goto bad;
	for (i = 0; i < nv; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char *q;
		size_t count = (size_t)strtoull(p, &q, 10);
		long eq = strtol(q, &q, 10);

		if (!nl)
			goto bad;
		for (j = 0; j < f->k; j++)
			e->viol[i * f->k + j] = (int64_t)strtoll(q, &q, 10);
		if (q != nl)
			goto bad;
		p = nl + 1;
		e->viol_eq[i] = (unsigned char)(eq != 0);
		if (unpack_string(&p, end, &text) || !text ||
		    explore_eval_add_violation(&e->eval, text, count))
			goto bad;
		cp_free(text);
		text = NULL;
	}
	if (cone < f->cone_over_m)
		f->cone_over_m = cone;
	e->remote_facets = facets && !pipe_model_has_facets(e->pm);
	f->checks += f->n_obs;
	e->evaluated = 1;
	return 0;
bad:
	cp_free(text);
	explore_eval_release(&e->eval);
	cp_free(e->viol);
	cp_free(e->viol_eq);
	cp_free(e->viol_ok);
	cp_free(e->feasible);
	cp_free(e->refutes);
	e->viol = NULL;
	e->viol_eq = NULL;
	e->viol_ok = NULL;
	e->feasible = NULL;
	e->refutes = NULL;
	return cp_error_set(err, CP_EINTERNAL, "a malformed evaluation came back "
			    "for a model");
}

