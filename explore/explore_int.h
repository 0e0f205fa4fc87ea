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
};

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
};
void explore_claims_compute(const struct explore_search *s,
			    struct explore_claims *c);
/* 1 when m (feasible) is proven minimal: every proper sub-model of the
 * family is known refuted; 0 otherwise. */
int explore_proven_minimal(const struct explore_search *s, udd_features m);
/* Known verdict of a feature set: 1 feasible, 0 refuted, -1 unknown. */
int explore_known(const struct explore_search *s, udd_features f);

#endif
