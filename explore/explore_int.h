/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/explore_int.h: what the explore files share (not public). */
#ifndef CP_EXPLORE_INT_H
#define CP_EXPLORE_INT_H

#include "explore/explore.h"

struct explore_search {
	struct explore_space space;
	struct explore_model *models;
	size_t n_models, cap_models;
	struct explore_edge *edges;
	size_t n_edges, cap_edges;
	size_t n_evaluations;
	int truncated;
	int exhaustive;
	size_t tolerance;
	int has_mono;               /* the evaluator decided monotonicity */
	struct explore_monotonicity mono;
	struct explore_separation *seps;
	size_t n_seps;
	struct explore_flows *flows;  /* the proven minimal models' bounds */
	size_t n_flows;
	char *check_command;        /* NULL: "check" */
	void (*progress)(void *ctx, const struct explore_search *s);
	void *progress_ctx;
	/* the levels (explore_options): family_level 0 when the verdicts
	 * are not family-wise */
	double confidence, family_confidence, family_level;
};

/* The two views of a model's verdict: family-wise (what the search and
 * its claims use) and each observation at the regions' confidence
 * alone (reports print it where it differs). */
enum explore_view { EXPLORE_VIEW_FAMILY = 0, EXPLORE_VIEW_EACH = 1 };
int explore_model_feasible(const struct explore_model *m, enum explore_view v);
/* Do the two views differ anywhere (some model feasible in one only)? */
int explore_views_differ(const struct explore_search *s);
/* "99% over all 32 observations" (the family-wise view) or "99% each"
 * (appended to b). */
void explore_put_view(const struct explore_search *s, enum explore_view v,
		      struct cp_buf *b);

struct explore_verdicts;

/* ---- proven claims (explore/claims.c) ----
 * A verdict is known for the models the search evaluated and for the
 * candidates it skipped because their cone provably lies inside a refuted
 * parent's (or satisfies every constraint the parent's data break):
 * those are refuted without an evaluation.  Claims rest on known
 * verdicts only. */
struct explore_claims {
	udd_features required;      /* every model without f is refuted */
	udd_features impossible;    /* every model with f is refuted */
	udd_features undecided;     /* neither, some verdicts missing */
	udd_features either;        /* neither, every verdict known: models
				     * with and without it fit the data */
	int enumerable;             /* the family was small enough to enumerate */
	size_t universe;            /* models in the family (2^candidates) */
	size_t known;               /* of them, with a known verdict */
	size_t n_feasible_known;
	size_t implied;             /* of the known, implied by monotonicity */
	size_t conflicts;           /* implied verdicts contradicting checked
				     * ones (then none is used) */
};
void explore_claims_compute(const struct explore_search *s,
			    struct explore_claims *c);
void explore_claims_compute_view(const struct explore_search *s, enum explore_view v,
				 struct explore_claims *c);
/* 1 when m (feasible) is proven minimal: every proper sub-model of the
 * family is known refuted; 0 otherwise. */
int explore_proven_minimal(const struct explore_search *s, udd_features m);
int explore_proven_minimal_in(const struct explore_verdicts *t, udd_features m);
/* The family's varying features and its fixed part. */
udd_features explore_varying(const struct explore_search *s);
udd_features explore_fixed(const struct explore_search *s);
/* Known verdict of a feature set: 1 feasible, 0 refuted, -1 unknown. */
int explore_known(const struct explore_search *s, udd_features f);

/* ---- the verdict table (explore/claims.c) ----
 * Every model of the family (fixed | subset of the varying features) with
 * its verdict: checked, refuted by containment, or implied through the
 * features that grow the cone: a model within a refuted one that differs
 * by such features only is refuted (its cone lies inside), one that
 * contains a feasible one so is feasible.  NULL when the family is too
 * large or memory runs out. */
struct explore_verdicts {
	size_t nc;                  /* varying features */
	size_t cand[64];            /* their feature indices */
	udd_features fixed;
	udd_features mono;          /* varying features that grow the cone */
	signed char *v;             /* 2^nc: 1 feasible, 0 refuted, -1 unknown */
	size_t implied, conflicts;
};
/* Families of up to 2^24 models have a verdict table (explore/claims.c). */
#define EXPLORE_CLAIMS_MAX_CANDIDATES 24
/* The family's verdicts as a table, or NULL: out of memory, or a family
 * beyond the table's limit (explore_claims_enumerable). */
struct explore_verdicts *explore_verdicts_new(const struct explore_search *s);
/* Whether the family is small enough for a verdict table (at most
 * EXPLORE_CLAIMS_MAX_CANDIDATES varying features); beyond, no claim is
 * proven and no model is proven minimal. */
int explore_claims_enumerable(const struct explore_search *s);

struct explore_verdicts *explore_verdicts_new_view(const struct explore_search *s,
						   enum explore_view v);
void explore_verdicts_free(struct explore_verdicts *t);
/* The family's model for table entry sub (bit i of sub: the i-th varying
 * feature, cand[i]). */
udd_features explore_verdicts_model(const struct explore_verdicts *t, uint64_t sub);
/* The verdict of feature set f (-1 when unknown or outside the family). */
int explore_verdict(const struct explore_verdicts *t, udd_features f);
/* The largest models of the family with feature f (with = 1) or without
 * it: every varying feature that grows the cone on, every assignment of
 * the others (the alternatives).  Up to max written to out; returns how
 * many there are. */
size_t explore_tops(const struct explore_verdicts *t, size_t f, int with,
		    udd_features *out, size_t max);
/* A checked model (index into s->models) that refutes feature set f:
 * f itself, or a refuted model containing it by cone-growing features
 * only, or the refuted parent of a skipped f; -1 when none. */
long explore_refuting_model(const struct explore_search *s,
			    const struct explore_verdicts *t, udd_features f);
/* "counterpoint check ... --with F,..." for feature set f (appended). */
void explore_check_line(const struct explore_search *s, udd_features f,
			struct cp_buf *b);

/* A feature set as a JSON array of names (explore/report_json.c). */
void explore_features_json(const struct explore_search *s, udd_features sel,
			   struct cp_buf *b);

/* ---- reports of the proofs (explore/report_claims.c) ---- */
/* Monotonicity, the proof of each required, impossible and either-way
 * feature, and each undecided claim's deciding checks. */
void explore_report_proofs(const struct explore_search *s, struct cp_buf *b);
/* What separates the proven minimal models, pair by pair. */
void explore_report_alternatives(const struct explore_search *s, struct cp_buf *b);
/* The largest models without (with = 0) or with feature f, each with the
 * checked model, observation and constraint that refute it, as a JSON
 * array (empty when monotonicity is not known). */
void explore_json_refuted_tops(const struct explore_search *s, size_t f,
			       int with, struct cp_buf *b);
/* The JSON keys monotonicity, implied_verdicts, proofs, undecided_checks
 * and alternatives, each preceded by ",\n". */
void explore_json_claims_extra(const struct explore_search *s, struct cp_buf *b);

/* Model m's "flows" value in explore --json (explore/report_flows.c):
 * null without bounds, else flows --json's columns, uops, observations
 * and summary. */
void explore_json_flows(const struct explore_search *s, size_t m, struct cp_buf *b);

/* explore/explore.c: evaluate sel unless it was (its row in *index), or
 * *index = -1 when the model budget is spent. */
int explore_get_model(struct explore_search *s, const struct explore_evaluator *ev,
		      size_t max_models, udd_features sel, enum explore_origin origin,
		      long *index, struct cp_error *err);
/* explore/dualize.c: check models until every verdict of the family is
 * known (within each alternative of the cone-shrinking features, the
 * minimal feasible and maximal refuted sets learnt together), or the
 * budget is spent; nothing when monotonicity is not known. */
int explore_dualize(struct explore_search *s, const struct explore_evaluator *ev,
		    size_t max_models, struct cp_error *err);

/* explore/explore.c: index of the model with exactly these features, or
 * -1 (linear: a search tests at most a few thousand models). */
long explore_find_model(const struct explore_search *s, udd_features sel);

#endif
