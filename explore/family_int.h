/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/family_int.h: the real evaluator's state, shared by
 * explore/family.c (evaluations, cone growth), explore/monotone.c (which
 * features grow the cone) and explore/alternatives.c (what separates two
 * feasible models).  Not public. */
#ifndef CP_EXPLORE_FAMILY_INT_H
#define CP_EXPLORE_FAMILY_INT_H

#include "explore/explore.h"
#include "pipeline/pipeline.h"

/* One feature set's model, built once. */
struct entry {
	udd_features sel;
	struct pipe_model *pm;
	/* The evaluation, kept so that compare() can test the violated
	 * constraints' vectors, parallel to eval.violations. */
	int evaluated;
	struct explore_eval eval;
	int64_t *viol;            /* eval.n_violations x k */
	unsigned char *viol_eq;
	/* Does each violated constraint hold on every signature of this
	 * model (integer check, made on first comparison; then a child's
	 * signatures that are also this model's cannot relax it)?  Made for
	 * viol_ok_of / viol_ok_n; made again when those change. */
	unsigned char *viol_ok;
	const int64_t *viol_ok_of;
	size_t viol_ok_n;
	size_t n_inexact;         /* verdicts left to floating point */
	unsigned char *feasible;  /* per observation, once evaluated: the
				   * verdicts the flow bounds start from */
	unsigned char *refutes;   /* per observation: refutes it at the
				   * family's level (pipe_family_check) */
	double seconds;           /* wall time of its evaluation */
	/* Evaluated by another process that listed its facets: listed here
	 * too when a comparison needs them (entry_facets_here). */
	int remote_facets;
};

struct explore_family {
	const struct udd_model *model;
	const struct stats_dataset *data;
	struct pipe_data *pd;     /* counters, regions, queries */
	struct pipe_family *family;  /* the regions at the family-wise level */
	size_t k, n_obs;
	const char *const *names; /* k counter names (owned by the model) */
	size_t n_missing;
	size_t *missing;          /* model counters left out by --counters */
	struct explore_family_options opt;
	struct entry *entries;
	size_t n_entries, cap_entries;
	size_t checks;
	/* The fewest signatures whose facets went over budget: larger models
	 * (which in a family are mostly supersets) are not tried again. */
	size_t cone_over_m;
	/* Each signature set met, enumerated once: a feature set that agrees
	 * with key on mask (the features lowering reads,
	 * udd_model_consulted) has the same graph, so the same rows. */
	struct sigset_seen {
		udd_features mask, key;
		uint32_t *S;      /* m rows of k, as pipe_signatures */
		size_t m;
	} *seen;
	size_t n_seen, cap_seen;
	/* CPU seconds per phase; the current one runs since phase_t0 */
	double phase_cpu[EXPLORE_N_PHASES], phase_t0;
	enum explore_phase phase;
	/* the LPs of every model checked here, summed before each is freed */
	struct feas_stats solver;
	/* evaluations spread elsewhere (explore_family_set_dispatch) */
	explore_dispatch_fn dispatch;
	void *dispatch_ctx;
};

/* Charge the CPU time so far to the current phase and make p current;
 * returns the phase to give back to explore_phase_leave. */
enum explore_phase explore_phase_enter(struct explore_family *f,
				       enum explore_phase p);
void explore_phase_leave(struct explore_family *f, enum explore_phase prev);

/* List an entry's facets here when the process that evaluated it did
 * (before any check on this process's LP of it). */
int explore_entry_facets_here(struct explore_family *f, struct entry *e,
			      struct cp_error *err);

/* sel's signatures on the data's counters (pipe_signatures), enumerated
 * on first use of their graph; *S stays the family's. */
int explore_family_signatures(struct explore_family *f, udd_features sel,
			      const uint32_t **S, size_t *m, struct cp_error *err);
/* The entry of sel, built on first use (may move the table). */
int explore_family_entry(struct explore_family *f, udd_features sel,
			 struct entry **out, struct cp_error *err);
/* Evaluate entry e here (its checks, verdicts and violations), once. */
int explore_entry_evaluate(struct explore_family *f, struct entry *e,
			   struct cp_error *err);
/* explore/wire.c: take the evaluation another process packed for entry e
 * (explore_family_evaluate_packed's text); a malformed one is
 * CP_EINTERNAL. */
int explore_entry_adopt(struct explore_family *f, struct entry *e,
			const struct cp_buf *in, struct cp_error *err);
/* Is signature s (the family's k counters) in the cone of entry p? */
int explore_family_in_cone(struct explore_family *f, struct entry *p,
			   const uint32_t *s, int *inside, struct cp_error *err);
/* Is s in cone(S) (m rows of the family's k counters), exactly?  *inside
 * = 1 or 0 when decided, -1 when not (the exact cone over budget); when
 * outside, a (k entries) gets a constraint valid on every row of S that
 * s breaks (checked in integers), *is_eq whether it is an equality. */
int explore_point_in_cone(struct explore_family *f, const uint32_t *S, size_t m,
			  const uint32_t *s, int *inside, int64_t *a, int *is_eq,
			  struct cp_error *err);

/* The evaluator's monotone, separate and flows callbacks. */
int explore_family_monotone(void *ctx, udd_features fixed, udd_features varying,
			    struct explore_monotonicity *out, struct cp_error *err);
int explore_family_separate(void *ctx, udd_features a, udd_features b,
			    struct explore_separation *out, struct cp_error *err);
int explore_family_flows(void *ctx, udd_features sel, struct explore_flows *out,
			 struct cp_error *err);

#endif
