/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/explore.h: guided search of a model family's feature space.
 * Discovery adds features that relax the constraints the data violate,
 * elimination prunes features from the feasible models found, and the
 * report names the minimal feasible models and the features every one of
 * them needs.  How a model is evaluated (signatures, cone, regions, LP) is
 * the caller's business, behind struct explore_evaluator, so the search is
 * tested on synthetic evaluators whose answers are known.
 *
 * Ownership: explore_run returns a search the caller frees with
 * explore_free() (NULL is a no-op).  An evaluator fills a struct
 * explore_eval whose strings and arrays are cp_malloc'd; the search takes
 * them over (explore_eval_release frees them).  Feature names passed in
 * struct explore_space must outlive the search. */
#ifndef COUNTERPOINT_EXPLORE_H
#define COUNTERPOINT_EXPLORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"
#include "dsl/udd.h"
#include "pipeline/pipeline.h"

/* ---- what the evaluator reports for one model ---- */

/* A model constraint that some observations violate. */
struct explore_violation {
	char *constraint;   /* as printed, "load.retired_stlb_miss <= load.walk_done" */
	size_t count;       /* observations whose whole region violates it */
};

struct explore_eval {
	size_t n_observations;
	size_t n_infeasible;        /* observations whose region (at the regions'
	                             * confidence, each) misses the cone */
	/* Family-wise verdicts (family = 1): of those, the observations whose
	 * region at the level the family-wise confidence needs over all the
	 * observations (pipeline.h, "family-wise claims") misses the cone
	 * too.  The search and its claims count these; an evaluator without
	 * family-wise verdicts leaves family 0, and then n_infeasible counts. */
	int family;
	size_t n_refuting;
	size_t n_violations;        /* the most observations first, ties in
	                             * the order found */
	struct explore_violation *violations;
	size_t n_signatures;        /* the model's distinct signatures (for reports) */
	char *refuted_by;           /* names of (some) refuting observations
	                             * (infeasible ones without family-wise
	                             * verdicts), "a, b (+3 more)", or NULL */
	/* The first refuting observation, one constraint its whole region
	 * (at the family's level) breaks and its margin (sd), for proofs;
	 * NULL when not known. */
	char *witness;
	char *witness_constraint;
	double witness_margin;
};

/* The observations that count against the model: n_refuting with
 * family-wise verdicts, else n_infeasible. */
size_t explore_eval_refuting(const struct explore_eval *e);
/* Free what an evaluation holds and zero it. */
void explore_eval_release(struct explore_eval *e);
/* Append a violated constraint (copies the text).  0 or CP_ENOMEM. */
int explore_eval_add_violation(struct explore_eval *e, const char *constraint,
			       size_t count);

/* Which features can only grow the cone (explore/claims.c rests its
 * targeted checks on it).  Feature f grows the cone over a family when
 * cone(S(F)) is within cone(S(F + f)) for every model F of the family
 * without f; it shrinks it when some F loses part of its cone (a
 * signature of F outside the cone of F + f, proven by a constraint of
 * F + f that the signature breaks).  A feature in neither mask is not
 * decided (budget); the claims treat it as one that may shrink. */
struct explore_monotonicity {
	udd_features grows;
	udd_features shrinks;
	udd_features context[64];   /* for f in shrinks: the model F (without f) */
	char *lost[64];             /* for f in shrinks: the μpath F loses and
	                             * the constraint of F + f it breaks */
	size_t models;              /* feature sets compiled to decide */
};
void explore_monotonicity_release(struct explore_monotonicity *m);

/* What separates two feasible models A and B: a constraint valid on A's
 * cone that some of B's μpaths break (so an observation beyond it refutes
 * A, and only B's μpaths can reach it), which μpaths, and how far each
 * observation lies from breaking it. */
struct explore_path {
	char *uop;                  /* "load" (uops sharing it: "load; store") */
	char *counters;             /* "load.causes_walk, walk_ref.l1*2", as
	                             * `counterpoint paths` names a signature */
	char *example;              /* one μpath with it */
};
struct explore_margin {
	char *observation;
	double margin;              /* sd; > 0: the whole region breaks it */
	double mean_sd;             /* where the region's centre lies */
};
#define EXPLORE_MAX_PATHS 3
struct explore_separation {
	udd_features a, b;
	int within;                 /* B's cone lies within A's: nothing of
	                             * A's is broken by B (then no constraint) */
	char *constraint;           /* readable, valid on A's cone */
	int is_equality;
	size_t n_constraints;       /* A's listed constraints B breaks (0 when
	                             * A's facets were not listed) */
	size_t n_paths;             /* B's signatures that break it */
	size_t n_shown;
	struct explore_path paths[EXPLORE_MAX_PATHS];
	size_t n_margins;           /* every observation, in dataset order */
	struct explore_margin *margins;
};
void explore_separation_release(struct explore_separation *p);

/* The flow bounds of one feasible model, as `counterpoint flows --with`
 * the model computes them (pipeline.h, "flows"): the flow on the μpaths
 * each of its features adds, per observation, uop and feature, as a rate
 * and as a share of the uop's μops.  Only the observations the model is
 * feasible on are bounded (status PIPE_FLOWS_BOUNDED); under a tolerance
 * the others are PIPE_FLOWS_INFEASIBLE. */
struct explore_flows {
	udd_features features;
	struct pipe_flows *pf;              /* owned; its names are the μDD
					     * model's, which must outlive it */
	size_t n_observations;
	char **observations;                /* names, in dataset order */
	enum pipe_flow_status *status;      /* n_observations */
	struct pipe_flow_bounds *bounds;    /* n_observations x n_uops x
					     * n_features, pipe_flows_bound's */
	double seconds;                     /* wall time of the bounds */
};
void explore_flows_release(struct explore_flows *fl);

/* How a model family is evaluated.  Every callback returns 0 or a negative
 * cp code with err filled; the search stops at the first failure.
 * monotone, separate and flows are optional (NULL: monotonicity unknown,
 * no separations, no flow bounds). */
struct explore_evaluator {
	void *ctx;
	/* Test the model with features `sel` against the data; *out arrives
	 * zeroed. */
	int (*evaluate)(void *ctx, udd_features sel, struct explore_eval *out,
			struct cp_error *err);
	/* Compare the cone of `child` (parent plus features) with the cone of
	 * `parent`: *grows = 1 when the child's cone is strictly larger
	 * (some child signature lies outside the parent's cone), and
	 * relaxed[i] = 1 when the child's cone no longer satisfies the
	 * parent's violated constraint i (parent_eval->violations[i]).
	 * relaxed has parent_eval->n_violations entries, zeroed on entry. */
	int (*compare)(void *ctx, udd_features parent, udd_features child,
		       const struct explore_eval *parent_eval, int *grows,
		       unsigned char *relaxed, struct cp_error *err);
	/* Decide, for each feature of `varying`, whether it grows or shrinks
	 * the cone over the family { fixed | X : X within varying };
	 * *out arrives zeroed. */
	int (*monotone)(void *ctx, udd_features fixed, udd_features varying,
			struct explore_monotonicity *out, struct cp_error *err);
	/* Fill *out (zeroed, a and b set) for two evaluated models. */
	int (*separate)(void *ctx, udd_features a, udd_features b,
			struct explore_separation *out, struct cp_error *err);
	/* Bound the flows of an evaluated feasible model: fill *out (zeroed,
	 * features set). */
	int (*flows)(void *ctx, udd_features sel, struct explore_flows *out,
		     struct cp_error *err);
	/* Optional (last, so that evaluators written before it still
	 * initialise in order): evaluate n feature sets (none evaluated before, no two
	 * alike) as n evaluate calls in this order would, out[i] zeroed on
	 * entry, seconds[i] each one's wall time.  The search passes the
	 * lists it knows in advance (--exhaustive's models, a round of
	 * targeted checks), so that an evaluator can spread them (over MPI
	 * processes, cli/mpi.c). */
	int (*evaluate_batch)(void *ctx, const udd_features *sel, size_t n,
			      struct explore_eval *out, double *seconds,
			      struct cp_error *err);
};

/* ---- the search ---- */

struct explore_space {
	size_t n_features;          /* at most 64 */
	const char *const *names;   /* feature names, index = bit */
	udd_features start;         /* discovery starts here (default: none) */
	udd_features candidates;    /* features the search may add or prune */
};

/* --exhaustive tests 2^n models for n varying candidates (candidates not
 * in the start set); beyond this many it is refused. */
#define EXPLORE_EXHAUSTIVE_MAX 16
size_t explore_space_n_varying(const struct explore_space *sp);

struct explore_search;

struct explore_options {
	int exhaustive;             /* test every subset of the candidates */
	size_t tolerance;           /* a model with at most this many infeasible
	                             * observations counts as feasible (0) */
	int deep;                   /* keep discovering past the first level
	                             * that holds a feasible model */
	size_t max_models;          /* stop evaluating after this many (0 = 4096) */
	int no_targeted;            /* skip the targeted checks and the
	                             * dualization (below) */
	int no_flows;               /* do not bound the minimal models' flows */
	/* The levels of the verdicts, for the reports: each region's
	 * confidence (0: 0.99) and, with family-wise verdicts, the
	 * family-wise confidence over the observations and each
	 * observation's level for it (explore_family_level). */
	double confidence, family_confidence, family_level;
	/* "counterpoint check MODEL DATA [region options]": the reports print
	 * each undecided claim's deciding check as this plus --with F,...
	 * (NULL: "check --with F,..."). */
	const char *check_command;
	/* Optional: called after every model the evaluator tested (after
	 * each part of a batch), on the search thread, with the search so
	 * far (for progress on a terminal: explore_n_evaluations,
	 * explore_claim_basis). */
	void (*progress)(void *ctx, const struct explore_search *s);
	void *progress_ctx;
};

/* How a model entered the search. */
enum explore_origin {
	EXPLORE_START = 0,
	EXPLORE_DISCOVERY = 1,      /* a feature added to an infeasible model */
	EXPLORE_ELIMINATION = 2,    /* a feature pruned from a feasible model */
	EXPLORE_EXHAUSTIVE = 3,
	EXPLORE_TARGETED = 4,       /* a largest model with or without a
	                             * feature, checked to decide a claim */
	EXPLORE_DUALIZATION = 5,    /* checked to learn an alternative's
	                             * minimal feasible and maximal refuted
	                             * sets (explore/dualize.c) */
};

struct explore_model {
	udd_features features;
	struct explore_eval eval;
	enum explore_origin origin;
	size_t parent;              /* index of the model it came from (origin 1, 2) */
	int feasible;               /* explore_eval_refuting(&eval) <= tolerance:
	                             * what the search and its claims use */
	int feasible_each;          /* eval.n_infeasible <= tolerance: at the
	                             * regions' confidence, each observation
	                             * alone (for reports) */
	int minimal;                /* feasible, and proven minimal: every proper
	                             * sub-model of the family is known refuted */
	double seconds;             /* wall time of its evaluation */
};

/* One step of the search: a feature added (discovery) or pruned
 * (elimination), or a candidate skipped without being evaluated. */
enum explore_step {
	EXPLORE_ADDED = 0,
	EXPLORE_PRUNED = 1,
	EXPLORE_SKIP_SAME_CONE = 2,       /* the cone did not grow */
	EXPLORE_SKIP_NO_RELAXATION = 3,   /* grew, but relaxes no violated constraint */
};

struct explore_edge {
	size_t from, to;            /* model indices (to is unused for skips) */
	size_t feature;
	enum explore_step step;
};

/* Run the search.  0 with *out set, or a negative code (evaluator
 * failures are passed through; CP_ELIMIT when max_models is reached
 * before the search ends is NOT an error: see explore_truncated). */
int explore_run(const struct explore_space *space,
		const struct explore_evaluator *ev,
		const struct explore_options *opt,
		struct explore_search **out, struct cp_error *err);
void explore_free(struct explore_search *s);

/* ---- results ---- */
size_t explore_n_models(const struct explore_search *s);
const struct explore_model *explore_model_at(const struct explore_search *s,
					     size_t i);
size_t explore_n_edges(const struct explore_search *s);
const struct explore_edge *explore_edge_at(const struct explore_search *s,
					   size_t i);
/* How many times the evaluator's evaluate callback ran (= models). */
size_t explore_n_evaluations(const struct explore_search *s);
/* 1 when max_models stopped the search early. */
int explore_truncated(const struct explore_search *s);
size_t explore_n_feasible(const struct explore_search *s);
/* Proven claims over the family (explore/claims.c): required features
 * (every model without the feature refuted), impossible ones (every
 * model with it refuted), and the candidates neither is proven for.
 * Verdicts count when evaluated, or when the search skipped a candidate
 * whose cone provably lies within a refuted parent's. */
udd_features explore_required(const struct explore_search *s);
udd_features explore_impossible(const struct explore_search *s);
udd_features explore_undecided(const struct explore_search *s);
/* What the claims rest on, for reports that show their proofs: the
 * family's size (2^varying candidates; 0 when too large to enumerate),
 * how many of its models have a known verdict, and the features the data
 * allow either way (models with and without them fit). */
struct explore_claim_basis {
	int enumerable;
	size_t universe, known;
	udd_features either;
};
void explore_claim_basis(const struct explore_search *s,
			 struct explore_claim_basis *out);
/* The monotonicity the claims used (NULL when the evaluator has none). */
const struct explore_monotonicity *explore_monotonicity(const struct explore_search *s);
/* The separations of the proven minimal models, pair by pair. */
size_t explore_n_separations(const struct explore_search *s);
const struct explore_separation *explore_separation_at(const struct explore_search *s,
						       size_t i);

/* The flow bounds of model i (explore_model_at), computed for every
 * proven minimal model unless options.no_flows; NULL when there are none. */
const struct explore_flows *explore_model_flows(const struct explore_search *s,
						size_t i);

/* ---- output ---- */
/* "start", "discovery", "elimination", "exhaustive" (the JSON's words). */
const char *explore_origin_name(enum explore_origin o);
/* The search and its proven claims as JSON (docs/processors/haswell.md), naming the
 * model and the data (NULL: null). */
void explore_report_json(const struct explore_search *s, const char *model,
			 const char *data, struct cp_buf *b);
/* "{a,b}" or "{}" for a feature set (appended to b). */
void explore_format_features(const struct explore_search *s,
			     udd_features sel, struct cp_buf *b);
/* The report for people: every model tested, skipped candidates, minimal
 * feasible models, required features and a conclusion in plain words. */
void explore_report(const struct explore_search *s, struct cp_buf *b);
/* The same, listing at most max_violations violated constraints a model,
 * those the most observations violate first, and how many more there are
 * (0: every one, as explore_report() does). */
void explore_report_n(const struct explore_search *s, size_t max_violations,
		      struct cp_buf *b);
/* The flow bounds of the minimal models, for people: per model, per
 * (uop, feature) the envelope of its bounds over the observations, then
 * each observation's bounds as `counterpoint flows` prints them (part of
 * explore_report; nothing when no model has bounds). */
void explore_report_flows(const struct explore_search *s, struct cp_buf *b);
/* Just the closing conclusion (one paragraph). */
void explore_conclusion(const struct explore_search *s, struct cp_buf *b);
/* The search as a Graphviz digraph: models as nodes (feasible ones green,
 * minimal ones double-bordered), added and pruned features as edges. */
void explore_dot(const struct explore_search *s, struct cp_buf *b);

/* ---- suggest: the μpaths a refuted model lacks (explore/suggest.c) ----
 * For a model (a feature set) some observations refute, sets T of at
 * most max_new new signatures, each made from a signature of one of the
 * model's uops by at most max_edits edits (remove a counter, add one,
 * change a multiplicity by one), or a signature of one or two counters
 * of the violated constraints.  Each violated constraint is a
 * certificate (valid on the cone, broken by the whole region), so a
 * candidate helps only an observation whose certificates it breaks, and
 * T explains the data only if its signatures break them all: the search
 * branches on the certificate with the fewest breakers, so every set
 * that explains every observation is found (unless max_checks stops it:
 * then complete is 0).  A suggestion "explains" an observation when the
 * observation does not refute cone(S u T) by `check`'s rule: pipe_check
 * on every usable observation, then pipe_family_check at the family-wise
 * confidence (the observations that refute the model are those whose
 * region at C^(1/n) misses the cone too; the search itself works on those
 * regions); when no set explains them all, the sets that explain the
 * most found by a beam search are kept instead.  Kept suggestions carry their flow bounds
 * (pipe_flows_new_extra, as `flows`), the nearest μpath of the same uop
 * (`counterpoint paths --with` numbers it like + 1), the edits, and a
 * μDD fragment placed on that μpath.  Ranked: explains the most, then
 * fewer new signatures, fewer edits, the smallest flow the data force on
 * them, fewer counters touched, fewer of the model's constraints broken
 * that no observation breaks, and new μpaths shaped like the model's:
 * a μpath cut short first, then a μpath with more increments, then the
 * rest.
 *
 * Ownership: explore_suggest_free (NULL no-op); it refers to the model,
 * which must outlive it. */
#define EXPLORE_SUGGEST_MAX_NEW 3

struct explore_suggest_options {
	size_t max_new;        /* N: 1 .. EXPLORE_SUGGEST_MAX_NEW */
	size_t max_edits;      /* E (`suggest`'s default: 2) */
	size_t keep;           /* suggestions kept, best first (0: 5) */
	size_t max_checks;     /* observation checks of the search
				* (0: 50,000) */
	size_t threads;        /* the kept ones' checks and bounds (0: one
				* per CPU) */
	double family_confidence;   /* the claims' level over the usable
				     * observations, as `check`'s (0: 0.99) */
};

/* One new signature of a suggestion. */
struct explore_new_path {
	size_t uop;                /* the model's uop index */
	uint32_t *counts;          /* on the data's counters */
	char *counters;            /* "load.retired, load.retired_stlb_miss" */
	size_t like;               /* the nearest signature of the uop, as
				    * udd_sigset_build orders them */
	char *like_counters, *like_example;
	size_t edits;              /* from it */
	char *edit;                /* "+load.retired_stlb_miss -load.stlb_hit
				    * walk_ref.l1*2->*3" */
	unsigned line;             /* the fragment's place: after this line */
	char *place;               /* what is there ("after +load.retired") */
	char *fragment;            /* μDD text, marked as a suggestion */
	/* Its flow as a share of the uop's μops over the observations the
	 * suggestion explains: lo the largest certified lower bound (the
	 * data force at least lo in observation lo_at), hi the largest
	 * upper bound; defined 0 when no observation bounds it. */
	int flow_defined;
	double flow_lo, flow_hi;
	char *flow_lo_at;
	const char *flow_per;      /* the share's denominator ("load.retired"),
				    * or NULL: the uop's flow on every column */
};

struct explore_suggestion {
	size_t n_new;
	struct explore_new_path paths[EXPLORE_SUGGEST_MAX_NEW];
	/* Usable observations that do not refute the model with the new
	 * signatures at the family-wise level (pipe_family_check, as
	 * `check`'s summary): feasible at the regions' confidence, or at
	 * the level each needs for the family-wise confidence over all of
	 * them; of: the usable ones. */
	size_t explains, of;
	size_t feasible_each;      /* feasible at the regions' own confidence */
	size_t undecided;          /* feasible, but left to floating point */
	size_t n_unexplained;      /* the usable observations that refute it,
				    * by name (at most 20 listed) */
	char **unexplained;
	size_t edits, touched;     /* summed over its paths */
	size_t collateral;         /* the model's listed constraints its paths
				    * break that the data do not (summed) */
	size_t shape;              /* how its paths resemble the model's, summed:
				    * 0 a μpath cut short, 1 a μpath with more
				    * increments, 2 neither */
	int flow_defined;
	double flow_lo, flow_hi;   /* the largest of its paths' */
	size_t n_relaxed;          /* violated constraints its paths break */
	size_t *relaxed;           /* indices (explore_suggest_violated) */
};

struct explore_suggest;

/* res: pipe_check's verdicts for every observation of pd on the model
 * sel (with FEAS_EXPLAIN: the certificates), or NULL to have them made
 * as `check` makes them.  pd must not be streamed. */
int explore_suggest_run(const struct udd_model *m, udd_features sel,
			const struct pipe_data *pd, const struct feas_result *res,
			const struct explore_suggest_options *opt,
			struct explore_suggest **out, struct cp_error *err);
void explore_suggest_free(struct explore_suggest *s);

size_t explore_suggest_n(const struct explore_suggest *s);
const struct explore_suggestion *explore_suggest_at(const struct explore_suggest *s,
						    size_t i);
/* Usable observations; of them those the model does not fit at the
 * regions' confidence, and those that refute it at the family-wise
 * level. */
size_t explore_suggest_usable(const struct explore_suggest *s);
size_t explore_suggest_infeasible(const struct explore_suggest *s);
size_t explore_suggest_refuting(const struct explore_suggest *s);
/* 1 when the first suggestion explains every usable observation (or
 * the model fits them all already: nothing to suggest). */
int explore_suggest_explains_all(const struct explore_suggest *s);
/* The violated constraints, the most observations first. */
size_t explore_suggest_n_violated(const struct explore_suggest *s);
const char *explore_suggest_violated(const struct explore_suggest *s, size_t i,
				     size_t *observations);
/* -v: "priced P candidates (F favourable), checked C sets (O observation
 * checks), proven K" (appended to b). */
void explore_suggest_counts(const struct explore_suggest *s, struct cp_buf *b);

/* explore's suggestions when no model of the family fits: the search
 * above on the tested model refuted by the fewest observations (the
 * first of them), on the family's model and regions, at the family's
 * family-wise confidence unless opt gives one.  *best gets its
 * features. */
struct explore_family;
int explore_family_suggest(struct explore_family *f, const struct explore_search *s,
			   const struct explore_suggest_options *opt, udd_features *best,
			   struct explore_suggest **out, struct cp_error *err);

/* The report for people (explore/report_suggest.c): the violated
 * constraints, what was tried, and the first max suggestions (0: all)
 * with their μpaths, edits, flows and fragments; brief: one line a
 * suggestion and its new μpaths (explore's report). */
void explore_suggest_report(const struct explore_suggest *s, size_t max, int brief,
			    struct cp_buf *b);
/* `suggest --json` (docs/manual/suggest.md), with the model's and the data's
 * names as given. */
void explore_suggest_json(const struct explore_suggest *s, const char *model,
			  const char *data, struct cp_buf *b);

/* ---- evaluating a μDD model family against a dataset ----
 * The real evaluator: for a feature set, the model's distinct signatures
 * (udd_sigset_build), optionally its exact constraints (cone_build, under
 * a time and facet budget), and the solver's feasibility LP (feas_*) run
 * on every observation's confidence region.  Everything built for a
 * feature set is cached, and feature sets that compile to the same
 * signatures share one evaluation.  Without the cone's facets (budget
 * spent), violated constraints come from the LP's certificates and cone
 * growth from exact membership tests, so the search works either way. */
struct stats_dataset;

struct explore_family_options {
	double confidence;          /* 0 => 0.99 */
	double family_confidence;   /* the claims' level over all the
	                             * observations (pipeline.h); 0 => 0.99 */
	int region;                 /* enum region_kind: 0 PCA box (default),
	                             * 1 independent box, 2 ellipsoid */
	size_t batches;             /* batch means (stats/region.h); 0 = auto */
	int per_interval;           /* regions for one interval, not the mean */
	double cone_seconds;        /* facet budget per model; 0 => 5 s;
	                             * < 0: never compute facets */
	size_t max_facets;          /* 0 => 5000 */
	size_t threads;             /* observations in parallel; 0: one per CPU */
	const char *counters;       /* "a,b,c": use only these model counters
	                             * (the cones are projected); NULL = all */
	size_t monotone_models;     /* decide monotonicity only for families of
	                             * at most this many models (0 => 1024);
	                             * to never decide, clear the evaluator's
	                             * monotone callback */
};

struct explore_family;

/* The model and dataset are borrowed and must outlive the family.
 * Regions for every observation are built here (they do not depend on
 * the feature set: all of a model's counters exist in every selection),
 * through the library pipeline and its policy for counters the dataset
 * lacks (pipeline/pipeline.h): CP_EINPUT naming them, unless
 * options.counters selects a subset; CP_EINPUT when options.counters
 * names a counter the model does not declare, or an observation cannot
 * form a region. */
int explore_family_new(const struct udd_model *m,
		       const struct stats_dataset *d,
		       const struct explore_family_options *opt,
		       struct explore_family **out, struct cp_error *err);
/* Frees the family's LPs; GLPK's per-thread environment stays until the
 * caller's feas_thread_end(). */
void explore_family_free(struct explore_family *f);
/* An evaluator whose ctx is f (valid while f lives). */
void explore_family_evaluator(struct explore_family *f,
			      struct explore_evaluator *ev);
size_t explore_family_n_observations(const struct explore_family *f);
/* The family-wise confidence of its verdicts, and the level each
 * observation's region is checked at for it. */
double explore_family_confidence(const struct explore_family *f);
double explore_family_level(const struct explore_family *f);
/* For reports: the verdict on each observation (1 feasible, 0 not;
 * explore_family_n_observations of them, in dataset order) of the
 * evaluated feature set sel, owned by the family; NULL when sel was not
 * evaluated in it. */
const unsigned char *explore_family_verdicts(const struct explore_family *f,
					     udd_features sel);
/* Model counters left out because options.counters does not name them:
 * every cone is projected onto the others (the projection of a cone is
 * the cone of the projected signatures), so the data test what the model
 * says about the rest. */
size_t explore_family_n_missing(const struct explore_family *f);
/* Region checks whose borderline verdict could not be settled exactly
 * (the solver's exact LP failed) and kept the floating-point verdict. */
size_t explore_family_n_inexact(const struct explore_family *f);
const char *explore_family_missing(const struct explore_family *f, size_t i);
/* Spreading a family's evaluations over processes (the MPI runs of
 * `explore`, cli/mpi.c).  Every process builds a family on the same
 * model, data and options.  With a dispatch set, the family's
 * evaluate_batch hands dispatch the feature sets it must check (in the
 * search's order; those sharing signatures with an earlier one are
 * copied, not sent); dispatch fills out[i] with the bytes that
 * explore_family_evaluate_packed wrote for sel[i] in some process, or
 * leaves out[i] empty to have it evaluated here.  cone_limit: the
 * fewest signatures of a cone gone over budget so far in the process
 * that dispatches (explore_family_cone_limit; SIZE_MAX: none), so that
 * larger cones are not tried there either.  The verdicts, explanations
 * and statistics equal a single process's; which cones get facets can
 * differ only once one goes over its budget. */
typedef int (*explore_dispatch_fn)(void *ctx, const udd_features *sel, size_t n,
				   struct cp_buf *out, struct cp_error *err);
void explore_family_set_dispatch(struct explore_family *f, explore_dispatch_fn fn,
				 void *ctx);
size_t explore_family_cone_limit(const struct explore_family *f);
int explore_family_evaluate_packed(struct explore_family *f, udd_features sel,
				   size_t cone_limit, struct cp_buf *out,
				   struct cp_error *err);
/* For reports: feature sets compiled (evaluated ones and candidates
 * compared), how many got their facets, how many were checked against
 * the data (feature sets sharing signatures count once), region checks. */
void explore_family_stats(const struct explore_family *f, size_t *models,
			  size_t *with_facets, size_t *checked, size_t *checks);

/* Where a family's CPU time goes (the process's, every thread's), by
 * phase; each second is charged to exactly one phase, so they sum to the
 * CPU time since explore_family_new began. */
enum explore_phase {
	EXPLORE_PHASE_REGIONS,     /* the dataset's confidence regions */
	EXPLORE_PHASE_SIGNATURES,  /* lowering and enumerating feature sets */
	EXPLORE_PHASE_MODELS,      /* the solver's models (span, LP rows) */
	EXPLORE_PHASE_MONOTONE,    /* monotonicity proofs, past their signatures */
	EXPLORE_PHASE_CONES,       /* exact facets */
	EXPLORE_PHASE_CHECKS,      /* region checks and their explanations */
	EXPLORE_PHASE_TEXT,        /* violated constraints in readable form */
	EXPLORE_PHASE_GROWTH,      /* which added features grow the cone */
	EXPLORE_PHASE_SEPARATE,    /* what separates two minimal models */
	EXPLORE_PHASE_FLOWS,       /* the minimal models' flow bounds */
	EXPLORE_PHASE_SEARCH,      /* the rest: search, claims, reports */
	EXPLORE_N_PHASES
};
/* "regions", "signatures", ...: a word for each phase. */
const char *explore_phase_name(enum explore_phase p);
/* cpu[EXPLORE_N_PHASES]: seconds charged to each phase up to now. */
void explore_family_phases(const struct explore_family *f, double *cpu);
/* What the solver did for the models this process checked (-v). */
void explore_family_solver_stats(const struct explore_family *f,
				 struct feas_stats *st);

#endif
