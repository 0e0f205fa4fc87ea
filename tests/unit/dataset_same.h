/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/dataset_same.h: whether two loads of one text came out the
 * same, field by field of the loader's layout (stats/dataset_int.h): the
 * status, the error with its detail, every message, and the dataset's
 * names, groups (their samples by value, wherever they are stored) and
 * per-observation index.  The loader's tests on threads and its fuzz
 * target (tests/fuzz/fuzz_dataset.c) both compare with it. */
#ifndef DATASET_SAME_H
#define DATASET_SAME_H

#include <string.h>

#include "common/cp.h"
#include "stats/stats_int.h"
#include "stats/dataset_int.h"

struct load_result {
	int rc;
	struct stats_dataset *d;
	struct cp_error err;
	struct cp_buf diag;
};

/* stats_dataset_read into r (text NULL: the file called name). */
static inline void load_result_read(struct load_result *r, const char *name,
				    const char *text, size_t len,
				    size_t threads, size_t min_range)
{
	cp_error_clear(&r->err);
	cp_buf_init(&r->diag);
	r->d = NULL;
	r->rc = stats_dataset_read(name, text, len, threads, min_range, &r->d,
				   &r->diag, &r->err);
}

static inline void load_result_release(struct load_result *r)
{
	stats_dataset_free(r->d);
	cp_buf_release(&r->diag);
	r->d = NULL;
}

static inline int names_same(const struct names *a, const struct names *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (a->len[i] != b->len[i] || memcmp(a->name[i], b->name[i], a->len[i]))
			return 0;
	return 1;
}

/* NULL when a and b are the same, else what differs first. */
static inline const char *load_result_diff(const struct load_result *a,
					   const struct load_result *b)
{
	const struct stats_dataset *x = a->d, *y = b->d;
	size_t i, j;

	if (a->rc != b->rc)
		return "status";
	if (a->err.code != b->err.code || a->err.line != b->err.line ||
	    a->err.col != b->err.col || strcmp(a->err.file, b->err.file) ||
	    strcmp(a->err.msg, b->err.msg) || strcmp(a->err.detail, b->err.detail))
		return "error";
	if (a->diag.len != b->diag.len || a->diag.failed != b->diag.failed ||
	    (a->diag.len && memcmp(a->diag.data, b->diag.data, a->diag.len)))
		return "messages";
	if (!x || !y)
		return !x && !y ? NULL : "dataset";
	if (strcmp(x->path, y->path))
		return "path";
	if (!names_same(&x->obs, &y->obs))
		return "observations";
	if (!names_same(&x->ev, &y->ev))
		return "events";
	if (x->n_g != y->n_g)
		return "number of groups";
	for (i = 0; i < x->n_g; i++) {
		const struct group *g = &x->g[i], *h = &y->g[i];

		if (g->interval != h->interval || g->obs != h->obs ||
		    g->n != h->n || g->line != h->line || g->dup != h->dup)
			return "group";
		for (j = 0; j < g->n; j++) {
			double v = S_VALUE(x, g->start + j), w = S_VALUE(y, h->start + j);

			if (S_EV(x, g->start + j) != S_EV(y, h->start + j) ||
			    memcmp(&v, &w, sizeof v) ||
			    S_RUNNING(x, g->start + j) != S_RUNNING(y, h->start + j))
				return "sample";
		}
	}
	for (i = 0; i <= x->obs.n; i++)
		if (x->obs_g[i] != y->obs_g[i] || x->obs_nint[i] != y->obs_nint[i] ||
		    x->obs_line[i] != y->obs_line[i])
			return "observation index";
	if (x->n_sr != y->n_sr || !x->obs_runs != !y->obs_runs)
		return "summary rows";
	for (i = 0; i < x->n_sr; i++)
		if (x->sr[i].line != y->sr[i].line || x->sr[i].runs != y->sr[i].runs ||
		    memcmp(&x->sr[i].se_pct, &y->sr[i].se_pct, sizeof x->sr[i].se_pct))
			return "summary row";
	for (i = 0; x->obs_runs && i < x->obs.n; i++)
		if (x->obs_runs[i] != y->obs_runs[i])
			return "summary runs";
	return NULL;
}

#endif
