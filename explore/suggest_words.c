/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/suggest_words.c: a kept suggestion in words: its new
 * signatures as counters, the nearest μpath and the edits from it, and
 * the μDD fragment placed where the new μpath leaves that μpath's
 * example (udd_sigset_example_steps). */
#include <stdio.h>
#include <string.h>

#include "explore/family_int.h"
#include "explore/suggest_int.h"

#include "geometry/cone.h"

/* t on the data's counters as a model signature, in words. */
static char *signature_words(const struct sg *sg, const uint32_t *t, uint32_t *full)
{
	const size_t *cols = pipe_data_columns(sg->pd);
	struct cp_buf b;
	size_t c;

	memset(full, 0, udd_model_n_counters(sg->m) * sizeof *full);
	for (c = 0; c < sg->k; c++)
		full[cols[c]] = t[c];
	cp_buf_init(&b);
	udd_signature_text(sg->m, full, &b);
	return b.failed ? (cp_buf_release(&b), NULL) : b.data;
}

/* What turns base bi into t, in words: the steps it drops ("without
 * +load.walk_done +load.walk_done_4k"), then the counts it changes
 * ("+load.retired_stlb_miss", "walk_ref.l1*2->*3"). */
char *explore_sg_edit_words(const struct sg *sg, size_t bi, const uint32_t *t)
{
	const char *const *names = pipe_data_names(sg->pd);
	const struct base *b = &sg->bases[bi];
	uint32_t *s = cp_calloc(sg->k + 1, sizeof *s);
	uint64_t drop = 0;
	struct cp_buf w;
	size_t c, i;

	if (!s)
		return NULL;
	memcpy(s, sg->brows + bi * sg->k, sg->k * sizeof *s);
	explore_sg_step_distance(sg, bi, t, &drop);
	cp_buf_init(&w);
	for (i = 0; i < b->n_steps && i < 64; i++) {
		if (!((drop >> i) & 1))
			continue;
		cp_buf_printf(&w, "%swithout %s", w.len ? "; " : "",
			      sg->step_text[b->step0 + i]);
		for (c = 0; c < sg->k; c++)
			s[c] -= sg->steps[(b->step0 + i) * sg->k + c];
	}
	for (c = 0; c < sg->k; c++) {
		if (s[c] == t[c])
			continue;
		cp_buf_puts(&w, w.len ? "; " : "");
		if (!s[c])
			cp_buf_printf(&w, t[c] > 1 ? "+%s*%u" : "+%s", names[c], (unsigned)t[c]);
		else
			cp_buf_printf(&w, "%s*%u->*%u", names[c], (unsigned)s[c], (unsigned)t[c]);
	}
	if (!w.len)
		cp_buf_puts(&w, "(none)");
	cp_free(s);
	return w.failed ? (cp_buf_release(&w), NULL) : w.data;
}

/* Where on the nearest μpath the new one parts from it: after the
 * longest prefix whose counts stay within t. */
struct place {
	const struct sg *sg;
	const uint32_t *t;
	uint32_t *at;              /* the prefix's counts (data counters) */
	struct cp_buf step;        /* its last step */
	unsigned line;
};

static int place_step(void *ctx, const char *step, unsigned line, const uint32_t *counts)
{
	struct place *pl = ctx;
	const size_t *cols = pipe_data_columns(pl->sg->pd);
	size_t c;

	if (!strcmp(step, "done"))
		return 1;
	for (c = 0; c < pl->sg->k; c++)
		if (counts[cols[c]] > pl->t[c])
			return 1;
	for (c = 0; c < pl->sg->k; c++)
		pl->at[c] = counts[cols[c]];
	pl->step.len = 0;
	cp_buf_puts(&pl->step, step);
	pl->line = line;
	return 0;
}

/* The μDD text that adds t after the place: a feature of its own (one
 * per suggestion), a property per new μpath choosing it or not. */
static int fragment(struct sg *sg, struct explore_new_path *p, const char *feature,
		    char letter, int first, struct cp_error *err)
{
	const char *const *names = pipe_data_names(sg->pd);
	const char *uop = udd_model_uop_name(sg->m, p->uop);
	struct place pl;
	struct cp_buf b, w;
	size_t c, n1 = 0;
	int rc;

	memset(&pl, 0, sizeof pl);
	pl.sg = sg;
	pl.t = p->counts;
	pl.at = cp_calloc(sg->k + 1, sizeof *pl.at);
	if (!pl.at)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	cp_buf_init(&pl.step);
	cp_buf_init(&b);
	cp_buf_init(&w);
	rc = udd_sigset_example_steps(sg->ss, p->like, place_step, &pl);
	if (rc < 0) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	rc = CP_OK;
	if (!pl.step.len) {
		cp_buf_printf(&w, "at the start of uop %s", uop);
	} else if (strchr(pl.step.data, '=') && !strchr(pl.step.data, '+')) {
		const char *eq = strchr(pl.step.data, '=');

		cp_buf_printf(&w, "at the start of 'case %s:' in the switch on '%.*s' at line %u",
			      eq + 1, (int)(eq - pl.step.data), pl.step.data, pl.line);
	} else {
		cp_buf_printf(&w, "after '%s' at line %u", pl.step.data, pl.line);
	}
	p->line = pl.line;
	if (first)
		cp_buf_printf(&b, "feature %s \"suggested by counterpoint suggest\";\n", feature);
	cp_buf_printf(&b, "property %s_%c { no, yes };\n", feature, letter);
	cp_buf_printf(&b, "// in uop %s, %s (on the way of μpath [%zu]):\n", uop,
		      w.data ? w.data : "", p->like + 1);
	cp_buf_printf(&b, "if (%s) {\n\tswitch (%s_%c) {\n\tcase yes:\n", feature,
		      feature, letter);
	/* what the prefix has not counted yet: ones together, others alone */
	for (c = 0; c < sg->k; c++)
		if (p->counts[c] - pl.at[c] == 1)
			cp_buf_printf(&b, n1++ ? ", %s" : "\t\tincr %s", names[c]);
	if (n1)
		cp_buf_puts(&b, ";\n");
	for (c = 0; c < sg->k; c++)
		if (p->counts[c] - pl.at[c] > 1)
			cp_buf_printf(&b, "\t\tincr %s %u;\n", names[c],
				      (unsigned)(p->counts[c] - pl.at[c]));
	cp_buf_printf(&b, "\t\tdone;\n\tcase no:\n\t\tnot_%s_%c;\n\t}\n}\n", feature, letter);
	if (b.failed || w.failed) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	p->place = w.data;
	p->fragment = b.data;
	w.data = b.data = NULL;
out:
	cp_buf_release(&b);
	cp_buf_release(&w);
	cp_buf_release(&pl.step);
	cp_free(pl.at);
	return rc;
}

/* The words of suggestion number `rank` (1 first). */
int explore_sg_describe(struct sg *sg, struct explore_suggestion *s, size_t rank,
		    const size_t *shown, struct cp_error *err)
{
	uint32_t *full = cp_calloc(udd_model_n_counters(sg->m) + 1, sizeof *full);
	uint32_t *like = cp_calloc(sg->k + 1, sizeof *like);
	const size_t *cols = pipe_data_columns(sg->pd);
	char feature[64];
	size_t j, g, c, n = 0;
	int rc = CP_OK;

	if (!full || !like)
		goto nomem;
	/* a feature name the model does not use */
	snprintf(feature, sizeof feature, "suggest_%zu", rank);
	while (udd_model_feature_find(sg->m, feature) >= 0 && strlen(feature) < 60)
		strcat(feature, "_");
	for (j = 0; j < s->n_new && !rc; j++) {
		struct explore_new_path *p = &s->paths[j];
		const uint32_t *ls = udd_sigset_signature(sg->ss, p->like);

		for (c = 0; c < sg->k; c++)
			like[c] = ls[cols[c]];
		if (!(p->counters = signature_words(sg, p->counts, full)) ||
		    !(p->like_counters = signature_words(sg, like, full)) ||
		    !(p->like_example = cp_strdup(udd_sigset_example(sg->ss, p->like))))
			goto nomem;
		rc = fragment(sg, p, feature, (char)('a' + j), j == 0, err);
	}
	if (rc)
		goto out;
	/* the violated constraints it relaxes, in the report's order */
	s->relaxed = cp_calloc(sg->nG + 1, sizeof *s->relaxed);
	if (!s->relaxed)
		goto nomem;
	for (g = 0; g < sg->nG; g++)
		for (j = 0; j < s->n_new; j++)
			if (cone_dot_exact(sg->G + shown[g] * sg->k, s->paths[j].counts,
					      sg->k) < 0) {
				s->relaxed[n++] = g;
				break;
			}
	s->n_relaxed = n;
	goto out;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	cp_free(full);
	cp_free(like);
	return rc;
}
