/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pipeline/flows.c: model + feature set + dataset -> per-observation bounds
 * on each feature's flow (pipeline.h, "flows"): the (uop, signature)
 * columns, which of them need each feature, and the rate and share
 * quantities handed to the solver. */
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"
#include "pipeline/pipeline_int.h"

struct pipe_flows {
	size_t k, n;              /* counters, columns */
	uint32_t *S;              /* n x k */
	size_t *uop;              /* n: model uop index */
	size_t n_uops, n_feat;
	const char **uop_names;   /* n_uops (the model's) */
	size_t *feat;             /* n_feat model feature indices */
	const char **feat_names;
	unsigned char *needs;     /* n_feat x n */
	size_t *n_uop_cols;       /* n_uops */
	size_t *n_needing;        /* n_uops x n_feat */
	long *per;                /* n_uops: counter index among the data's, or -1 */
	const char *const *names; /* the data's counter names */
	struct feas_flows *ff;
	/* identifiability, per (uop, feature) (n_uops x n_feat): the
	 * distinct signatures of f's μpaths on the checked counters, those
	 * of them a μpath without f has too, f's μpaths that count none of
	 * them, and one shared pair (f's μpath, the other) with a model
	 * counter that tells them apart (NULL: none does); ident 0 when the
	 * μpaths were too many to compare */
	int ident;
	size_t *n_sig, *n_shared, *n_blind;
	char **pair;              /* 2 x n_uops x n_feat */
	const char **separator;
};

/* Beyond this many μpaths of the feature set, identifiability is not
 * decided (every μpath is listed, once per feature). */
#define FLOWS_MAX_PATHS 200000

/* Rows (uop, k counts) compare by uop, then bytewise; k through
 * qsort_r's context. */
struct colkey {
	size_t k;
};

static int col_cmp(const void *a, const void *b, void *ctx)
{
	const struct colkey *ck = ctx;
	const uint32_t *x = a, *y = b;

	return memcmp(x, y, (ck->k + 1) * sizeof *x);
}

/* The distinct (uop, signature on the data's counters) pairs of sel,
 * signatures that count nothing left out: rows of k + 1 words (uop
 * first), sorted. */
static int uop_columns(const struct udd_model *m, udd_features sel,
		       const struct pipe_data *pd, uint32_t **out, size_t *n_out,
		       struct cp_error *err)
{
	struct udd_sigset *ss = NULL;
	size_t k = pipe_data_n_counters(pd), j, i, u, c, n = 0, cap = 0;
	const size_t *cols = pipe_data_columns(pd);
	uint32_t *rows = NULL;
	struct colkey ck = { k };
	int rc;

	*out = NULL;
	*n_out = 0;
	if ((rc = udd_sigset_build(m, sel, 0, &ss, err)))
		return rc;
	for (j = 0; j < udd_sigset_size(ss); j++) {
		const uint32_t *sig = udd_sigset_signature(ss, j);
		int counts = 0;

		for (c = 0; c < k; c++)
			counts |= sig[cols[c]] != 0;
		if (!counts)
			continue;
		for (i = 0; i < udd_sigset_uop_count(ss, j); i++) {
			const char *name = udd_sigset_uop_name(ss, j, i);
			uint32_t *row;

			for (u = 0; u < udd_model_n_uops(m) &&
			     strcmp(udd_model_uop_name(m, u), name); u++)
				;
			if (n == cap) {
				uint32_t *nr;

				cap = cap ? 2 * cap : 64;
				nr = cp_reallocarray(rows, cap, (k + 1) * sizeof *rows);
				if (!nr) {
					cp_free(rows);
					udd_sigset_free(ss);
					return cp_error_set(err, CP_ENOMEM, "out of memory");
				}
				rows = nr;
			}
			row = rows + n++ * (k + 1);
			row[0] = (uint32_t)u;
			for (c = 0; c < k; c++)
				row[c + 1] = sig[cols[c]];
		}
	}
	udd_sigset_free(ss);
	if (n) {
		size_t d = 0;

		qsort_r(rows, n, (k + 1) * sizeof *rows, col_cmp, &ck);
		/* a projection can make distinct signatures equal */
		for (j = 0; j < n; j++)
			if (!d || col_cmp(rows + (d - 1) * (k + 1), rows + j * (k + 1), &ck))
				memmove(rows + d++ * (k + 1), rows + j * (k + 1),
					(k + 1) * sizeof *rows);
		n = d;
	}
	*out = rows;
	*n_out = n;
	return CP_OK;
}

/* ==== identifiability ==== */

/* A set of byte strings, each with a value: open addressing (FNV-1a),
 * the keys back to back in one buffer. */
struct keyset {
	struct cp_buf keys;
	size_t *off, *len, *val;   /* per entry */
	size_t *slot;              /* entry + 1, 0 when empty */
	size_t n, cap, n_slots;
};

static uint64_t key_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 14695981039346656037ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static void keyset_free(struct keyset *ks)
{
	cp_buf_release(&ks->keys);
	cp_free(ks->off);
	cp_free(ks->len);
	cp_free(ks->val);
	cp_free(ks->slot);
	memset(ks, 0, sizeof *ks);
}

/* The entry of key, or SIZE_MAX. */
static size_t keyset_find(const struct keyset *ks, const void *key, size_t len)
{
	size_t i;

	if (!ks->n_slots)
		return SIZE_MAX;
	for (i = key_hash(key, len) % ks->n_slots; ks->slot[i]; i = (i + 1) % ks->n_slots) {
		size_t e = ks->slot[i] - 1;

		if (ks->len[e] == len && !memcmp(ks->keys.data + ks->off[e], key, len))
			return e;
	}
	return SIZE_MAX;
}

/* Add key with value val unless it is there; its entry, or SIZE_MAX
 * when memory runs out. */
static size_t keyset_add(struct keyset *ks, const void *key, size_t len, size_t val)
{
	size_t e = keyset_find(ks, key, len), i;

	if (e != SIZE_MAX)
		return e;
	if (2 * (ks->n + 1) > ks->n_slots) {
		size_t ns = ks->n_slots ? 2 * ks->n_slots : 1024, *slot = cp_calloc(ns, sizeof *slot);

		if (!slot)
			return SIZE_MAX;
		for (e = 0; e < ks->n; e++) {
			for (i = key_hash(ks->keys.data + ks->off[e], ks->len[e]) % ns; slot[i];
			     i = (i + 1) % ns)
				;
			slot[i] = e + 1;
		}
		cp_free(ks->slot);
		ks->slot = slot;
		ks->n_slots = ns;
	}
	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? 2 * ks->cap : 256;
		size_t *o = cp_reallocarray(ks->off, cap, sizeof *o);

		if (o)
			ks->off = o;
		o = o ? cp_reallocarray(ks->len, cap, sizeof *o) : NULL;
		if (o)
			ks->len = o;
		o = o ? cp_reallocarray(ks->val, cap, sizeof *o) : NULL;
		if (!o)
			return SIZE_MAX;
		ks->val = o;
		ks->cap = cap;
	}
	e = ks->n++;
	ks->off[e] = ks->keys.len;
	ks->len[e] = len;
	ks->val[e] = val;
	cp_buf_append(&ks->keys, (const char *)key, len);
	if (ks->keys.failed)
		return SIZE_MAX;
	for (i = key_hash(key, len) % ks->n_slots; ks->slot[i]; i = (i + 1) % ks->n_slots)
		;
	ks->slot[i] = e + 1;
	return e;
}

/* Every μpath of a feature set: its uop, its text (the decisions and
 * increments, which name it) and its signature over the model's km
 * counters. */
struct pathlist {
	const struct udd_model *m;
	size_t km;
	struct cp_buf text;
	size_t *uop, *text_off, *text_len;
	uint32_t *sig;              /* n x km */
	size_t n, cap, max;
	int over;                   /* more than max μpaths */
};

static int path_add(void *ctx, const char *uop, const char *path, const uint32_t *sig)
{
	struct pathlist *pl = ctx;
	size_t u;

	if (pl->n == pl->max) {
		pl->over = 1;
		return CP_ELIMIT;
	}
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? 2 * pl->cap : 1024, *a;
		uint32_t *sg;

		if (!(a = cp_reallocarray(pl->uop, cap, sizeof *a)))
			return CP_ENOMEM;
		pl->uop = a;
		if (!(a = cp_reallocarray(pl->text_off, cap, sizeof *a)))
			return CP_ENOMEM;
		pl->text_off = a;
		if (!(a = cp_reallocarray(pl->text_len, cap, sizeof *a)))
			return CP_ENOMEM;
		pl->text_len = a;
		if (!(sg = cp_reallocarray(pl->sig, cap, (pl->km + 1) * sizeof *sg)))
			return CP_ENOMEM;
		pl->sig = sg;
		pl->cap = cap;
	}
	for (u = 0; u < udd_model_n_uops(pl->m) && strcmp(udd_model_uop_name(pl->m, u), uop); u++)
		;
	pl->uop[pl->n] = u;
	pl->text_off[pl->n] = pl->text.len;
	pl->text_len[pl->n] = strlen(path);
	cp_buf_puts(&pl->text, path);
	memcpy(pl->sig + pl->n * pl->km, sig, pl->km * sizeof *sig);
	pl->n++;
	return pl->text.failed ? CP_ENOMEM : 0;
}

static void pathlist_free(struct pathlist *pl)
{
	cp_buf_release(&pl->text);
	cp_free(pl->uop);
	cp_free(pl->text_off);
	cp_free(pl->text_len);
	cp_free(pl->sig);
}

/* Every μpath of sel; *over when there are more than max. */
static int paths_of(const struct udd_model *m, udd_features sel, size_t max,
		    struct pathlist *pl, struct cp_error *err)
{
	int rc;

	memset(pl, 0, sizeof *pl);
	pl->m = m;
	pl->km = udd_model_n_counters(m);
	pl->max = max;
	cp_buf_init(&pl->text);
	rc = udd_model_each_path(m, sel, path_add, pl, err);
	if (rc == CP_ELIMIT && pl->over) {
		cp_error_clear(err);
		return CP_OK;
	}
	if (rc == CP_ENOMEM)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	return rc;
}

/* The key of path i: its uop, then its text. */
static size_t path_key(const struct pathlist *pl, size_t i, struct cp_buf *b)
{
	uint32_t u = (uint32_t)pl->uop[i];

	b->len = 0;
	cp_buf_append(b, (const char *)&u, sizeof u);
	cp_buf_append(b, pl->text.data + pl->text_off[i], pl->text_len[i]);
	return b->len;
}

/* The key of path i's column: its uop, then its counts on the checked
 * counters; *zero when it counts none of them. */
static size_t column_key(const struct pathlist *pl, size_t i, const size_t *cols,
			 size_t k, struct cp_buf *b, int *zero)
{
	uint32_t u = (uint32_t)pl->uop[i];
	size_t c;

	b->len = 0;
	*zero = 1;
	cp_buf_append(b, (const char *)&u, sizeof u);
	for (c = 0; c < k; c++) {
		uint32_t v = pl->sig[i * pl->km + cols[c]];

		*zero &= v == 0;
		cp_buf_append(b, (const char *)&v, sizeof v);
	}
	return b->len;
}

static char *path_text(const struct pathlist *pl, size_t i)
{
	char *t = cp_malloc(pl->text_len[i] + 1);

	if (t) {
		memcpy(t, pl->text.data + pl->text_off[i], pl->text_len[i]);
		t[pl->text_len[i]] = 0;
	}
	return t;
}

/* The key of path i's full column: its uop, then its whole signature. */
static size_t full_key(const struct pathlist *pl, size_t i, struct cp_buf *b)
{
	uint32_t u = (uint32_t)pl->uop[i];

	b->len = 0;
	cp_buf_append(b, (const char *)&u, sizeof u);
	cp_buf_append(b, (const char *)(pl->sig + i * pl->km), pl->km * sizeof *pl->sig);
	return b->len;
}

/* The next ", "-separated token of a path's text at *p (before end): its
 * start, and its length in *n; *p moves past it. */
static const char *next_token(const char **p, const char *end, size_t *n)
{
	const char *t = *p, *q = t;

	while (q + 1 < end && !(q[0] == ',' && q[1] == ' '))
		q++;
	if (q + 1 >= end)
		q = end;
	*n = (size_t)(q - t);
	*p = q < end ? q + 2 : end;
	return t;
}

/* Feature f (the f-th of sel, model feature fi).  A μpath of sel is f's
 * when sel without f has no μpath doing what it does: its text (its
 * decisions, actions and increments, in order) is not one of theirs,
 * and stays so once the decisions and actions that only sel's μpaths
 * make (those of properties read under f, like pml4=miss) are dropped.
 * So a μpath that never reads f is not f's, nor is one that reads it and
 * then does what the model without f does (a PML4E-cache miss beside
 * no cache, a load that issues no prefetch); a PML4E-cache hit, which
 * saves a reference, is.  The columns (uop, counts on the checked
 * counters) of f's μpaths are its signatures; shared when a μpath
 * without f has the column too (the data cannot tell their flows
 * apart); f's μpaths that count none of the checked counters are blind.
 * For one shared column per uop, a pair: f's μpath and one without f,
 * the pair a model counter separates when one does. */
static int feature_identifiability(struct pipe_flows *pf, const struct udd_model *m,
				   udd_features sel, const struct pathlist *all,
				   const struct pipe_data *pd, size_t f, size_t fi,
				   struct cp_error *err)
{
	struct pathlist off;
	struct keyset named, toks, cols, fulls, fcols;
	struct cp_buf key;
	const size_t *dc = pipe_data_columns(pd);
	size_t k = pf->k, i, nf = pf->n_feat;
	long *best = NULL;   /* per uop: the pair's μpath of f, -1 none */
	size_t *partner = NULL;
	int *best_sep = NULL, rc, zero;

	memset(&named, 0, sizeof named);
	memset(&toks, 0, sizeof toks);
	memset(&cols, 0, sizeof cols);
	memset(&fulls, 0, sizeof fulls);
	memset(&fcols, 0, sizeof fcols);
	cp_buf_init(&key);
	if ((rc = paths_of(m, sel & ~((udd_features)1 << fi), FLOWS_MAX_PATHS, &off, err)))
		goto out;
	if (off.over) {
		pf->ident = 0;
		goto out;
	}
	best = cp_malloc((pf->n_uops + 1) * sizeof *best);
	best_sep = cp_calloc(pf->n_uops + 1, sizeof *best_sep);
	partner = cp_calloc(pf->n_uops + 1, sizeof *partner);
	if (!best || !best_sep || !partner)
		goto nomem;
	for (i = 0; i < pf->n_uops; i++)
		best[i] = -1;
	/* the model without f: its μpaths by text, their columns and whole
	 * signatures (the first μpath of each), the tokens of its texts */
	for (i = 0; i < off.n; i++) {
		const char *p = off.text.data + off.text_off[i], *end = p + off.text_len[i];
		size_t len = path_key(&off, i, &key);

		if (key.failed || keyset_add(&named, key.data, len, i) == SIZE_MAX)
			goto nomem;
		len = column_key(&off, i, dc, k, &key, &zero);
		if (key.failed || keyset_add(&cols, key.data, len, i) == SIZE_MAX)
			goto nomem;
		len = full_key(&off, i, &key);
		if (key.failed || keyset_add(&fulls, key.data, len, i) == SIZE_MAX)
			goto nomem;
		while (p < end) {
			size_t n;
			const char *t = next_token(&p, end, &n);

			if (keyset_add(&toks, t, n, 0) == SIZE_MAX)
				goto nomem;
		}
	}
	for (i = 0; i < all->n; i++) {
		size_t u = all->uop[i], cell = u * nf + f, len, e, o;
		uint32_t uu = (uint32_t)u;
		int sep;

		len = path_key(all, i, &key);
		if (key.failed)
			goto nomem;
		if (keyset_find(&named, key.data, len) != SIZE_MAX)
			continue;   /* the same μpath without f */
		/* its text without the decisions and actions no μpath
		 * without f makes (its increments all kept, so the
		 * signature stays) */
		{
			struct cp_buf t;
			const char *p = all->text.data + all->text_off[i];
			const char *end = p + all->text_len[i];
			int first = 1;

			cp_buf_init(&t);
			cp_buf_append(&t, (const char *)&uu, sizeof uu);
			while (p < end) {
				size_t n;
				const char *tk = next_token(&p, end, &n);

				if (*tk == '+' || keyset_find(&toks, tk, n) != SIZE_MAX) {
					if (!first)
						cp_buf_append(&t, ", ", 2);
					cp_buf_append(&t, tk, n);
					first = 0;
				}
			}
			e = t.failed ? SIZE_MAX - 1 : keyset_find(&named, t.data, t.len);
			cp_buf_release(&t);
			if (e == SIZE_MAX - 1)
				goto nomem;
			if (e != SIZE_MAX)
				continue;   /* it does what a μpath without f does */
		}
		len = column_key(all, i, dc, k, &key, &zero);
		if (key.failed)
			goto nomem;
		if (zero) {
			pf->n_blind[cell]++;
			continue;
		}
		o = keyset_find(&cols, key.data, len);
		if (keyset_find(&fcols, key.data, len) == SIZE_MAX) {
			if (keyset_add(&fcols, key.data, len, 0) == SIZE_MAX)
				goto nomem;
			pf->n_sig[cell]++;
			pf->n_shared[cell] += o != SIZE_MAX;
		}
		if (o == SIZE_MAX || (best[u] >= 0 && best_sep[u]))
			continue;
		/* a pair: separable when no μpath without f has its whole
		 * signature (then one with its column differs somewhere) */
		len = full_key(all, i, &key);
		if (key.failed)
			goto nomem;
		e = keyset_find(&fulls, key.data, len);
		sep = e == SIZE_MAX;
		if (best[u] < 0 || sep) {
			best[u] = (long)i;
			best_sep[u] = sep;
			partner[u] = sep ? cols.val[o] : fulls.val[e];
		}
	}
	for (i = 0; i < pf->n_uops; i++) {
		size_t cell = i * nf + f, o = partner[i], j;

		if (best[i] < 0)
			continue;
		pf->pair[2 * cell] = path_text(all, (size_t)best[i]);
		pf->pair[2 * cell + 1] = path_text(&off, o);
		if (!pf->pair[2 * cell] || !pf->pair[2 * cell + 1])
			goto nomem;
		for (j = 0; best_sep[i] && j < all->km; j++)
			if (all->sig[(size_t)best[i] * all->km + j] != off.sig[o * off.km + j]) {
				pf->separator[cell] = udd_model_counter_name(m, j);
				break;
			}
	}
	goto out;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	cp_buf_release(&key);
	keyset_free(&named);
	keyset_free(&toks);
	keyset_free(&cols);
	keyset_free(&fulls);
	keyset_free(&fcols);
	cp_free(best);
	cp_free(best_sep);
	cp_free(partner);
	pathlist_free(&off);
	return rc;
}

/* Identifiability of every feature of sel (pf->ident 0 when sel or one
 * of its sub-models has more than FLOWS_MAX_PATHS μpaths). */
static int identifiability(struct pipe_flows *pf, const struct udd_model *m,
			   udd_features sel, const struct pipe_data *pd,
			   struct cp_error *err)
{
	struct pathlist all;
	size_t cells = pf->n_uops * pf->n_feat, f, i;
	int rc;

	pf->n_sig = cp_calloc(cells + 1, sizeof *pf->n_sig);
	pf->n_shared = cp_calloc(cells + 1, sizeof *pf->n_shared);
	pf->n_blind = cp_calloc(cells + 1, sizeof *pf->n_blind);
	pf->pair = cp_calloc(2 * cells + 1, sizeof *pf->pair);
	pf->separator = cp_calloc(cells + 1, sizeof *pf->separator);
	if (!pf->n_sig || !pf->n_shared || !pf->n_blind || !pf->pair || !pf->separator)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if ((rc = paths_of(m, sel, FLOWS_MAX_PATHS, &all, err)))
		goto out;
	pf->ident = !all.over;
	for (f = 0, i = 0; pf->ident && !rc && i < udd_model_n_features(m); i++)
		if ((sel >> i) & 1)
			rc = feature_identifiability(pf, m, sel, &all, pd, f++, i, err);
out:
	pathlist_free(&all);
	return rc;
}

/* sel's columns, then n_extra more (rows of uop and k counts): with
 * none, each feature of sel marks the columns that need it; with some,
 * extra column j alone needs pseudo-feature j, named names[j], and no
 * feature of sel is bounded. */
static int flows_new(const struct udd_model *m, udd_features sel,
		     const struct pipe_data *pd, const uint32_t *extra,
		     size_t n_extra, const char *const *names,
		     struct pipe_flows **out, struct cp_error *err)
{
	struct pipe_flows *pf;
	uint32_t *rows = NULL, *off = NULL;
	size_t k = pipe_data_n_counters(pd), n = 0, n_sel, n_off, c, f, u, i;
	int rc;

	*out = NULL;
	pf = cp_calloc(1, sizeof *pf);
	if (!pf)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	pf->k = k;
	pf->names = pipe_data_names(pd);
	if ((rc = uop_columns(m, sel, pd, &rows, &n, err)))
		goto fail;
	n_sel = n;
	if (n_extra) {
		uint32_t *nr = cp_reallocarray(rows, n + n_extra, (k + 1) * sizeof *rows);

		if (!nr) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			goto fail;
		}
		rows = nr;
		memcpy(rows + n * (k + 1), extra, n_extra * (k + 1) * sizeof *rows);
		n += n_extra;
	}
	if (!n) {
		rc = cp_error_set(err, CP_EINPUT, "the model's μpaths count none of the "
				  "checked counters");
		goto fail;
	}
	pf->n = n;
	pf->n_uops = udd_model_n_uops(m);
	if (n_extra)
		pf->n_feat = n_extra;
	else
		for (f = 0; f < udd_model_n_features(m); f++)
			pf->n_feat += (sel >> f) & 1;
	pf->S = cp_malloc(n * k * sizeof *pf->S);
	pf->uop = cp_malloc(n * sizeof *pf->uop);
	pf->uop_names = cp_calloc(pf->n_uops + 1, sizeof *pf->uop_names);
	pf->feat = cp_calloc(pf->n_feat + 1, sizeof *pf->feat);
	pf->feat_names = cp_calloc(pf->n_feat + 1, sizeof *pf->feat_names);
	pf->needs = cp_calloc(pf->n_feat * n + 1, 1);
	pf->n_uop_cols = cp_calloc(pf->n_uops + 1, sizeof *pf->n_uop_cols);
	pf->n_needing = cp_calloc(pf->n_uops * pf->n_feat + 1, sizeof *pf->n_needing);
	pf->per = cp_calloc(pf->n_uops + 1, sizeof *pf->per);
	if (!pf->S || !pf->uop || !pf->uop_names || !pf->feat || !pf->feat_names ||
	    !pf->needs || !pf->n_uop_cols || !pf->n_needing || !pf->per) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	for (c = 0; c < n; c++) {
		pf->uop[c] = rows[c * (k + 1)];
		if (pf->uop[c] >= pf->n_uops) {
			rc = cp_error_set(err, CP_EINPUT, "column %zu: uop %zu of %zu", c,
					  pf->uop[c], pf->n_uops);
			goto fail;
		}
		memcpy(pf->S + c * k, rows + c * (k + 1) + 1, k * sizeof *pf->S);
		pf->n_uop_cols[pf->uop[c]]++;
	}
	for (u = 0; u < pf->n_uops; u++) {
		const char *name = udd_model_uop_name(m, u);
		size_t len = strlen(name);

		pf->uop_names[u] = name;
		pf->per[u] = -1;
		/* "<uop>.retired" among the checked counters */
		for (i = 0; i < k; i++)
			if (!strncmp(pf->names[i], name, len) &&
			    !strcmp(pf->names[i] + len, ".retired"))
				pf->per[u] = (long)i;
	}
	for (f = 0; f < n_extra; f++) {
		c = n_sel + f;
		pf->feat[f] = SIZE_MAX;
		pf->feat_names[f] = names[f];
		pf->needs[f * n + c] = 1;
		pf->n_needing[pf->uop[c] * pf->n_feat + f]++;
	}
	/* a column needs f when sel without f has no such (uop, signature) */
	for (f = 0, i = 0; !n_extra && i < udd_model_n_features(m); i++) {
		if (!((sel >> i) & 1))
			continue;
		pf->feat[f] = i;
		pf->feat_names[f] = udd_model_feature_name(m, i);
		if ((rc = uop_columns(m, sel & ~((udd_features)1 << i), pd, &off, &n_off, err)))
			goto fail;
		for (c = 0; c < n; c++)
			if (!n_off || !pipe_row_find(rows + c * (k + 1), off, n_off, k + 1)) {
				pf->needs[f * n + c] = 1;
				pf->n_needing[pf->uop[c] * pf->n_feat + f]++;
			}
		cp_free(off);
		off = NULL;
		f++;
	}
	/* (extra columns are not features: nothing to attribute) */
	if (!n_extra && (rc = identifiability(pf, m, sel, pd, err)))
		goto fail;
	if ((rc = feas_flows_new(k, n, pf->S, &pf->ff, err)))
		goto fail;
	cp_free(rows);
	*out = pf;
	return CP_OK;
fail:
	cp_free(rows);
	cp_free(off);
	pipe_flows_free(pf);
	return rc;
}

int pipe_flows_new(const struct udd_model *m, udd_features sel,
		   const struct pipe_data *pd, struct pipe_flows **out,
		   struct cp_error *err)
{
	return flows_new(m, sel, pd, NULL, 0, NULL, out, err);
}

int pipe_flows_new_extra(const struct udd_model *m, udd_features sel,
			 const struct pipe_data *pd, const uint32_t *extra,
			 size_t n_extra, const char *const *names,
			 struct pipe_flows **out, struct cp_error *err)
{
	if (!n_extra) {
		*out = NULL;
		return cp_error_set(err, CP_EINPUT, "no extra column to bound");
	}
	return flows_new(m, sel, pd, extra, n_extra, names, out, err);
}

void pipe_flows_free(struct pipe_flows *pf)
{
	size_t i;

	if (!pf)
		return;
	feas_flows_free(pf->ff);
	cp_free(pf->S);
	cp_free(pf->uop);
	cp_free(pf->uop_names);
	cp_free(pf->feat);
	cp_free(pf->feat_names);
	cp_free(pf->needs);
	cp_free(pf->n_uop_cols);
	cp_free(pf->n_needing);
	cp_free(pf->per);
	cp_free(pf->n_sig);
	cp_free(pf->n_shared);
	cp_free(pf->n_blind);
	for (i = 0; pf->pair && i < 2 * pf->n_uops * pf->n_feat; i++)
		cp_free(pf->pair[i]);
	cp_free(pf->pair);
	cp_free(pf->separator);
	cp_free(pf);
}

size_t pipe_flows_n_columns(const struct pipe_flows *pf) { return pf->n; }
size_t pipe_flows_n_uops(const struct pipe_flows *pf) { return pf->n_uops; }
const char *pipe_flows_uop(const struct pipe_flows *pf, size_t u) { return pf->uop_names[u]; }
size_t pipe_flows_n_features(const struct pipe_flows *pf) { return pf->n_feat; }
const char *pipe_flows_feature(const struct pipe_flows *pf, size_t f) { return pf->feat_names[f]; }
size_t pipe_flows_n_uop_columns(const struct pipe_flows *pf, size_t u) { return pf->n_uop_cols[u]; }

size_t pipe_flows_n_needing(const struct pipe_flows *pf, size_t u, size_t f)
{
	return pf->n_needing[u * pf->n_feat + f];
}

int pipe_flows_identifiability_known(const struct pipe_flows *pf) { return pf->ident; }

size_t pipe_flows_n_signatures_of(const struct pipe_flows *pf, size_t u, size_t f)
{
	return pf->ident ? pf->n_sig[u * pf->n_feat + f] : 0;
}

size_t pipe_flows_n_shared(const struct pipe_flows *pf, size_t u, size_t f)
{
	return pf->ident ? pf->n_shared[u * pf->n_feat + f] : 0;
}

size_t pipe_flows_n_blind(const struct pipe_flows *pf, size_t u, size_t f)
{
	return pf->ident ? pf->n_blind[u * pf->n_feat + f] : 0;
}

const char *pipe_flows_shared_pair(const struct pipe_flows *pf, size_t u, size_t f,
				   int other)
{
	return pf->ident ? pf->pair[2 * (u * pf->n_feat + f) + (other != 0)] : NULL;
}

const char *pipe_flows_separator(const struct pipe_flows *pf, size_t u, size_t f)
{
	return pf->ident ? pf->separator[u * pf->n_feat + f] : NULL;
}

int pipe_flows_attributable(const struct pipe_flows *pf, size_t u, size_t f)
{
	return pf->ident && !pf->n_shared[u * pf->n_feat + f];
}

const char *pipe_flows_per(const struct pipe_flows *pf, size_t u)
{
	return pf->per[u] >= 0 ? pf->names[pf->per[u]] : NULL;
}

/* ==== bounds ==== */

/* The quantities, uop by uop (so one denominator comes in a row):
 * for each (u, f) with columns, the rate a_uf (indicator of u's columns
 * that need f) and the share a_uf / b_u.  b_u: the per counter's count in
 * each column, or the indicator of u's columns. */
static int quantities(const struct pipe_flows *pf, double **weights,
		      struct feas_flow_quantity **qs, size_t **slot, size_t *nq,
		      struct cp_error *err)
{
	size_t n = pf->n, nu = pf->n_uops, nf = pf->n_feat, u, f, c, m = 0, j = 0;
	double *wt;

	for (u = 0; u < nu; u++)
		for (f = 0; f < nf; f++)
			m += pf->n_needing[u * nf + f] > 0;
	*weights = wt = cp_calloc((nu + m) * n + 1, sizeof *wt);
	*qs = cp_calloc(2 * m + 1, sizeof **qs);
	*slot = cp_calloc(2 * m + 1, sizeof **slot);
	if (!wt || !*qs || !*slot)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (u = 0; u < nu; u++) {
		double *b = wt + u * n;

		for (c = 0; c < n; c++)
			if (pf->uop[c] == u || pf->per[u] >= 0)
				b[c] = pf->per[u] >= 0 ? pf->S[c * pf->k + (size_t)pf->per[u]] : 1;
	}
	for (u = 0; u < nu; u++)
		for (f = 0; f < nf; f++) {
			double *a;

			if (!pf->n_needing[u * nf + f])
				continue;
			a = wt + (nu + j / 2) * n;
			for (c = 0; c < n; c++)
				a[c] = pf->uop[c] == u && pf->needs[f * n + c];
			(*qs)[j].a = a;
			(*qs)[j].b = NULL;
			(*slot)[j++] = 2 * (u * nf + f);
			(*qs)[j].a = a;
			(*qs)[j].b = wt + u * n;
			(*slot)[j++] = 2 * (u * nf + f) + 1;
		}
	*nq = j;
	return CP_OK;
}

int pipe_flows_bound(struct pipe_flows *pf, const struct pipe_data *pd,
		     const struct feas_result *verdicts, size_t threads,
		     struct pipe_flow_bounds *out, enum pipe_flow_status *status,
		     struct cp_error *err)
{
	size_t no = pipe_data_n_observations(pd), cells = pf->n_uops * pf->n_feat;
	size_t nq = 0, i, j;
	double *wt = NULL;
	struct feas_flow_quantity *qs = NULL;
	struct feas_query *q = NULL;
	struct feas_bound *b = NULL;
	unsigned char *skip = NULL;
	size_t *slot = NULL;
	int *feasible = NULL, rc;

	if ((rc = quantities(pf, &wt, &qs, &slot, &nq, err)))
		goto out;
	q = cp_calloc(no + 1, sizeof *q);
	skip = cp_calloc(no + 1, 1);
	feasible = cp_calloc(no + 1, sizeof *feasible);
	b = cp_calloc(no * nq + 1, sizeof *b);
	if (!q || !skip || !feasible || !b) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < no; i++) {
		const struct feas_query *qi = pipe_data_query(pd, i);

		status[i] = !qi ? PIPE_FLOWS_UNUSABLE : !verdicts[i].feasible ?
			PIPE_FLOWS_INFEASIBLE : PIPE_FLOWS_BOUNDED;
		skip[i] = status[i] != PIPE_FLOWS_BOUNDED;
		if (qi)
			q[i] = *qi;   /* the others stay zero: skipped */
	}
	if (threads == 1 || no == 1) {
		for (i = 0; i < no && !rc; i++)
			if (!skip[i])
				rc = feas_flows_bound(pf->ff, &q[i], nq, qs, b + i * nq,
						      &feasible[i], err);
	} else {
		rc = feas_flows_batch(pf->ff, no, q, skip, nq, qs, threads, b,
				      feasible, err);
	}
	if (rc)
		goto out;
	for (i = 0; i < no; i++) {
		if (skip[i])
			continue;
		if (!feasible[i]) {
			status[i] = PIPE_FLOWS_NO_FLOW;
			continue;
		}
		for (j = 0; j < nq; j++) {
			struct pipe_flow_bounds *o = &out[i * cells + slot[j] / 2];

			if (slot[j] % 2)
				o->share = b[i * nq + j];
			else
				o->rate = b[i * nq + j];
		}
	}
out:
	cp_free(wt);
	cp_free(qs);
	cp_free(slot);
	cp_free(q);
	cp_free(skip);
	cp_free(feasible);
	cp_free(b);
	return rc;
}

int pipe_flows_run(const struct udd_model *m, udd_features sel,
		   const struct pipe_data *pd, size_t threads,
		   struct pipe_flows **pf, struct pipe_flow_bounds **out,
		   enum pipe_flow_status **status, struct cp_error *err)
{
	size_t n = pipe_data_n_observations(pd), i;
	struct pipe_model *pm = NULL;
	struct feas_result *res = NULL;
	int rc;

	*pf = NULL;
	*out = NULL;
	*status = NULL;
	if ((rc = pipe_model_new(m, sel, pd, NULL, &pm, err)) ||
	    (rc = pipe_flows_new(m, sel, pd, pf, err)))
		goto out;
	res = cp_calloc(n + 1, sizeof *res);
	*status = cp_calloc(n + 1, sizeof **status);
	*out = cp_calloc(n * pipe_flows_n_uops(*pf) * pipe_flows_n_features(*pf) + 1,
			 sizeof **out);
	if (!res || !*status || !*out) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		feas_result_init(&res[i]);
	rc = pipe_check(pm, pd, 0, threads, res, NULL, NULL, NULL, err);
	if (!rc)
		rc = pipe_flows_bound(*pf, pd, res, threads, *out, *status, err);
	for (i = 0; i < n; i++)
		feas_result_release(&res[i]);
out:
	cp_free(res);
	pipe_model_free(pm);
	if (rc) {
		pipe_flows_free(*pf);
		cp_free(*out);
		cp_free(*status);
		*pf = NULL;
		*out = NULL;
		*status = NULL;
	}
	return rc;
}
