/* explore/suggest_int.h: the result of a suggestion search, shared by
 * explore/suggest.c (the search) and explore/report_suggest.c (its text
 * and JSON).  Not public. */
#ifndef CP_EXPLORE_SUGGEST_INT_H
#define CP_EXPLORE_SUGGEST_INT_H

#include "explore/explore.h"

/* A constraint the model's cone satisfies and the whole region of some
 * observation breaks: a certificate of infeasibility. */
struct sg_violated {
	int64_t *a;           /* k coefficients over the data's counters */
	int is_equality;
	char *text;           /* as `check` prints it */
	size_t count;         /* observations whose region breaks it */
};

struct explore_suggest {
	const struct udd_model *model;
	udd_features sel;
	size_t k;
	const char *const *names;      /* the data's counters (the model's names) */
	struct explore_suggest_options opt;
	/* the data */
	size_t n_observations, usable, infeasible, undecided;
	const char *region;            /* "pca", ... */
	double confidence;
	size_t n_violated;
	struct sg_violated *violated;  /* the most observations first */
	/* what the search tried */
	size_t n_signatures;           /* the model's (uop, signature) pairs */
	size_t generated;              /* candidates made, repeats counted */
	size_t priced;                 /* distinct candidates priced */
	size_t favourable;             /* of them, breaking a violated constraint */
	size_t small;                  /* small signatures among the priced */
	size_t sets_checked, checks;   /* sets and observation checks (LP) */
	size_t proven;                 /* suggestions checked on every observation */
	double seconds;
	/* the claims */
	int complete;                  /* every set the certificates allow was
					* checked (else the budget stopped it) */
	int pruned_by_pricing;         /* no set of at most N priced
					* candidates breaks every certificate */
	int unpriced;                  /* an observation left without a
					* certificate to price against */
	size_t n_suggestions;
	struct explore_suggestion *suggestions;
};

#endif
