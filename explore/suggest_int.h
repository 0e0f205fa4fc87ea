/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/suggest_int.h: the result of a suggestion search, shared by
 * explore/suggest*.c and explore/report_suggest.c (its text and JSON),
 * and the search's own state, shared by explore/suggest*.c.  Not
 * public. */
#ifndef CP_EXPLORE_SUGGEST_INT_H
#define CP_EXPLORE_SUGGEST_INT_H

#include "explore/explore.h"
#include "pipeline/pipeline.h"

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
	size_t refuting;               /* usable ones refuting the model at the
					* family-wise level */
	const char *region;            /* "pca", ... */
	double confidence;
	double family_confidence, family_level;   /* C, and C^(1/n) */
	char *claim;                   /* the model as a whole, as `check`
					* says it (pipe_family_put_claim) */
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

/* ==== the search's state, shared by explore/suggest.c (the search, its
 * proofs, the run), explore/suggest_cand.c (the candidates and their
 * prices) and explore/suggest_words.c (a suggestion in words) ==== */

/* The candidates, each once. */

struct store {
	size_t k, nw, n, cap;
	uint32_t *rows;            /* n x k */
	uint32_t *uop, *like;      /* like: the base it is nearest to */
	uint32_t *edits, *touched;
	uint64_t *brk;             /* n x nw: root certificates it breaks */
	unsigned char *single;     /* 0 unknown, 1 explains alone, 2 not */
	uint32_t *collat;          /* collateral(), UINT32_MAX until known */
	unsigned char *reduc;      /* shape() + 1, 0 until known */
	uint32_t *mark;            /* the last pass that listed it */
	uint32_t *table;           /* open addressing: id + 1, 0 empty */
	size_t tcap;
};

/* A (uop, signature) pair of the model, with the increments of its
 * example μpath: the steps an edit may remove. */
struct base {
	uint32_t uop, like;        /* like: the signature's sigset index */
	size_t step0, n_steps;     /* its steps in sg->steps */
};

/* A set of candidates (ids sorted ascending) and what screening found. */
struct found {
	size_t n;
	uint32_t id[EXPLORE_SUGGEST_MAX_NEW];
	size_t explains;           /* of the observations not fitted */
};

struct sg {
	const struct udd_model *m;
	udd_features sel;
	/* The regions the search checks on: at the family-wise level each
	 * observation needs (pd_c's own when that is its confidence); the
	 * kept suggestions are proven on pd_c as `check` proves a model, and
	 * then at that level through fam. */
	const struct pipe_data *pd;
	const struct pipe_data *pd_c;
	struct pipe_family *fam;
	struct explore_suggest *out;
	size_t k, n_obs, max_new, max_edits, max_checks;
	struct udd_sigset *ss;
	/* the model: S (its distinct signatures on the data's counters) */
	const struct pipe_model *pm0;
	const uint32_t *S;
	size_t mS;
	uint32_t *shash;           /* S's rows and zero, open addressing */
	size_t shcap;
	uint32_t *rows;            /* S then room for a set */
	size_t rows_cap;           /* rows it has room for */
	unsigned char *universe;   /* n_uops x k: counters each uop may count
				    * (those it counts, and those none does) */
	/* the bases: (uop, signature) pairs, rows on the data's counters */
	size_t nb;
	struct base *bases;
	uint32_t *brows;
	size_t n_steps, cap_steps;
	uint32_t *steps;           /* n_steps x k: each step's increments */
	char **step_text;          /* "+load.walk_done +load.walk_done_4k" */
	/* the prefixes of the bases' example μpaths (uop, then k counts, each
	 * cut after an increment), open addressing */
	uint32_t *prefix;
	size_t n_prefix, cap_prefix;
	uint32_t *prefix_table;
	size_t prefix_tcap;
	/* the observations the model does not fit, and their certificates
	 * (indices into out->violated, oriented in G) */
	size_t nI, *I;
	size_t nG, nw;
	int64_t *G;                /* nG x k: breaking g means g.t < 0 */
	uint64_t *R;               /* nI x nw */
	uint64_t *all;             /* nw: every certificate of I */
	size_t *kills;             /* per observation: sets it refuted */
	struct store st;
	size_t n_root;             /* store ids below it: the root pass's */
	uint32_t *rank;            /* the root ids, best first */
	size_t *breakers;          /* nG: root candidates breaking each */
	struct feas_result *res;   /* n_obs scratch results */
	const struct feas_result *res0;   /* the model's verdicts */
	size_t *scratch;           /* n_obs */
	uint32_t pass_id;
	struct found *found;
	size_t n_found, cap_found;
	struct found *seen;        /* sets visited by the search */
	size_t seen_cap, n_seen;
	struct memo **memo;        /* what the search learnt of its sets */
	size_t memo_cap, n_memo;
	struct leaf *leaves;       /* the sets of the level being searched */
	size_t n_leaves, cap_leaves;
};

enum { PASS_ANY, PASS_ALL, PASS_COVER };

struct pass {
	const int64_t *G;          /* nG x k */
	size_t nG, nw;
	int mode;
	int root;                  /* G is the root's: bits are the store's brk */
	const uint64_t *R;         /* PASS_COVER: n_targets x nw */
	size_t n_targets;
	size_t *cstart, *cg;       /* per counter, the certificates using it */
	__int128 *d;               /* g.t for the row being made */
	uint32_t *t;
	uint64_t *bits;
	size_t base;               /* the row's base (nearest, for small ones) */
	int small;
	uint32_t id;
	size_t n_out, cap_out;
	uint32_t *out, *score;
};


/* A list of distinct certificates (k each) and, per observation, which. */
struct certs {
	size_t n, cap, nw;
	int64_t *g;
	unsigned char *eq;
	size_t *count;
};


/* ---- explore/suggest_cand.c ---- */
/* The bases (the model's (uop, signature) pairs with their example's
 * steps and prefixes) and the uops' counters; the model's rows' table. */
int explore_sg_bases(struct sg *sg, struct cp_error *err);
int explore_sg_model_rows(struct sg *sg);
/* The candidate t, or -1; the store freed. */
long explore_sg_store_find(const struct store *s, const uint32_t *t);
void explore_sg_store_release(struct store *s);
/* A pricing pass over every candidate against nG certificates (oriented:
 * a candidate breaks g when g.t < 0): PASS_ANY keeps those that break
 * one, PASS_ALL those that break all, PASS_COVER (p->R, p->n_targets
 * set after init) those that break every certificate of some target,
 * scored by how many.  Kept candidates join the store; p->out lists
 * them once each.  CP_ENOMEM. */
int explore_sg_pass_init(struct sg *sg, struct pass *p, const int64_t *G, size_t nG,
			 int mode);
int explore_sg_pass_run(struct sg *sg, struct pass *p);
void explore_sg_pass_release(struct pass *p);
/* The certificates of observations obs[0..n) in res, oriented, each once,
 * and per observation a bitset over them (*R, n x c->nw).  CP_ENOMEM. */
int explore_sg_certs_of(struct sg *sg, const size_t *obs, size_t n,
			const struct feas_result *res, struct certs *c, uint64_t **R);
void explore_sg_certs_release(struct certs *c);
/* The fewest edits from base bi to t, and the steps they drop (*drop may
 * be NULL). */
size_t explore_sg_step_distance(const struct sg *sg, size_t bi, const uint32_t *t,
				uint64_t *drop);
/* Candidate id's ranking words: the model's constraints it breaks that
 * the data do not; its shape (0 a μpath cut short, 1 a μpath with more
 * increments, 2 neither).  Memoised in the store. */
size_t explore_sg_collateral(struct sg *sg, uint32_t id);
size_t explore_sg_shape(struct sg *sg, uint32_t id);

/* ---- explore/suggest_words.c ---- */
/* What turns base bi into t, in words (cp_malloc'd; NULL: no memory). */
char *explore_sg_edit_words(const struct sg *sg, size_t bi, const uint32_t *t);
/* Suggestion number rank's counters, nearest μpath, fragments and the
 * violated constraints it relaxes (shown: the report's order of them). */
int explore_sg_describe(struct sg *sg, struct explore_suggestion *s, size_t rank,
			const size_t *shown, struct cp_error *err);

#endif
