/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pipeline/pipeline.h: the one wiring of "model + feature set + dataset ->
 * per-observation verdicts", used by `check`, `explore` and the benches:
 *
 *   pipe_data_new:  the model's counters matched to the dataset's events
 *                   (the policy below), one confidence region per
 *                   observation (stats/), or the reason it has none;
 *   pipe_model_new: one feature set's distinct signatures on those
 *                   counters (dsl/), the cone under a budget (geometry/),
 *                   the solver model with the cone's constraints (solver/);
 *   pipe_check:     every usable observation against the model (solver/);
 *   pipe_run:       all of it in one call, from a model file, a feature
 *                   list and a dataset file (what `counterpoint check`
 *                   does), verdicts and violated constraints as text.
 *
 * Counters the dataset lacks.  Every model counter must be in the
 * dataset, or the call fails naming the missing counters and events.  To
 * test a model on part of its counters, name them (pipe_options.counters,
 * `--counters`): the cone is then projected onto them (the projection of
 * cone{S} is the cone of the projected signatures), which can only lose
 * power, never refute a consistent model.
 *
 * Observations that cannot form a region (an event never counted or
 * counted in one interval, too few intervals) are unusable: kept with
 * their reason, skipped by pipe_check, reported by the caller.
 *
 * Ownership: pipe_data and pipe_model are freed with their _free (NULL is
 * a no-op); a pipe_model refers to the pipe_data it was built for, which
 * must outlive it.  Strings and arrays from accessors belong to the
 * object. */
#ifndef COUNTERPOINT_PIPELINE_H
#define COUNTERPOINT_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"
#include "dsl/udd.h"
#include "solver/feas.h"
#include "stats/region.h"

/* The cone's budget: facets are listed only when the cone has at most
 * max_facets of them and is found within max_seconds; otherwise the
 * solver explains violations from LP certificates. */
struct pipe_budget {
	size_t max_facets;   /* 0: no cone at all (certificates only) */
	double max_seconds;  /* 0: no time limit */
};
/* `check`'s defaults: 20,000 facets, 30 s. */
#define PIPE_BUDGET_CHECK ((struct pipe_budget){ 20000, 30.0 })

struct pipe_options {
	double confidence;       /* 0: 0.99 */
	size_t batches;          /* REGION_BATCHES_AUTO (0) or a count */
	int per_interval;        /* regions for one interval, not the mean */
	enum feas_shape shape;   /* FEAS_PCA (0) by default */
	const char *counters;    /* "a,b": only these model counters; NULL:
				  * all, and every one must be in the data */
	size_t threads;          /* threads building the regions (0 or 1: the
				  * calling thread only); the regions are the
				  * same for every count */
	int shape_only;          /* the caller reads only shape's region: with
				  * shape independent or ellipsoid the
				  * split-half PCA box is not built
				  * (region_options.no_pca_box), and regions
				  * keep only what the solver reads
				  * (region_options.lean: no sigma, no
				  * axes); a report that draws every shape
				  * or a region's correlations needs 0 */
	int stream;              /* pipe_data_new builds no region:
				  * pipe_check_stream builds each as it
				  * checks them, and trims it once checked
				  * (region_trim), so memory holds the
				  * regions in flight, not all of them */
	/* A dataset in parts (stats_reader), with stream: */
	size_t n_observations;   /* the part's observations checked (0: all) */
	size_t usable_before;    /* usable observations in the parts before:
				  * the fresh LPs (feas_fresh_at) count on */
	int partial;             /* more parts follow: pipe_check_stream
				  * checks whole FEAS_CHUNKs of usable
				  * observations only, and
				  * pipe_data_n_done says how many of the
				  * observations that covers */
};

/* ---- the data side ---- */
struct pipe_data;

int pipe_data_new(const struct udd_model *m, const struct stats_dataset *d,
		  const struct pipe_options *opt, struct pipe_data **out,
		  struct cp_error *err);
void pipe_data_free(struct pipe_data *pd);

const struct pipe_options *pipe_data_options(const struct pipe_data *pd);
/* "pca", "independent", "ellipsoid": the words of --region and of the
 * JSON reports. */
const char *pipe_region_name(enum feas_shape s);
/* What a verdict's line adds to it: "undecided: ..." when its exact
 * re-check could not run, "borderline" when it settled it, else NULL. */
const char *pipe_verdict_note(const struct feas_result *res);
const struct stats_dataset *pipe_data_dataset(const struct pipe_data *pd);
/* The k counters checked, in model order: their model indices and names. */
size_t pipe_data_n_counters(const struct pipe_data *pd);
const size_t *pipe_data_columns(const struct pipe_data *pd);
const char *const *pipe_data_names(const struct pipe_data *pd);
size_t pipe_data_n_observations(const struct pipe_data *pd);
/* NULL when observation i is unusable; then pipe_data_unusable says why. */
const struct region *pipe_data_region(const struct pipe_data *pd, size_t i);
const struct feas_query *pipe_data_query(const struct pipe_data *pd, size_t i);
const char *pipe_data_unusable(const struct pipe_data *pd, size_t i);
size_t pipe_data_n_unusable(const struct pipe_data *pd);

/* With opt.partial: the observations [0, n) whose verdicts are final
 * after pipe_check_stream (its chunks were whole); the rest are to be
 * checked in the next part. */
size_t pipe_data_n_done(const struct pipe_data *pd);

/* With opt.stream: NULL for every observation until pipe_check_stream
 * has run, then as without it, except that the regions keep only their
 * numbers (region_trim) and pipe_data_query is NULL. */

/* ---- the model side ---- */
struct pipe_model;

/* budget NULL: no cone (certificates only).  The signatures are the
 * feature set's distinct signatures restricted to the data's counters,
 * repeats removed, rows sorted (bytewise), so equal sets compare equal. */
int pipe_model_new(const struct udd_model *m, udd_features sel,
		   const struct pipe_data *pd, const struct pipe_budget *budget,
		   struct pipe_model **out, struct cp_error *err);
/* Those signatures alone: *S (*n rows of pipe_data_n_counters, freed by
 * the caller with cp_free), as pipe_model_new makes them. */
int pipe_signatures(const struct udd_model *m, udd_features sel,
		    const struct pipe_data *pd, uint32_t **S, size_t *n,
		    struct cp_error *err);
/* pipe_model_new on signatures already made (pipe_signatures' rows for
 * sel, borrowed: S must outlive the model, which never writes or frees
 * it): callers that meet one signature set under several feature sets
 * enumerate it once and keep it once. */
int pipe_model_new_from(udd_features sel, const uint32_t *S, size_t n,
			const struct pipe_data *pd, const struct pipe_budget *budget,
			struct pipe_model **out, struct cp_error *err);
void pipe_model_free(struct pipe_model *pm);
/* List the cone's constraints under budget, for a model built with none
 * (a search builds many models and lists facets only for those it
 * checks).  Call before the model's first pipe_check; a second call does
 * nothing. */
int pipe_model_list_facets(struct pipe_model *pm, const struct pipe_budget *budget,
			   struct cp_error *err);

size_t pipe_model_n_signatures(const struct pipe_model *pm);
const uint32_t *pipe_model_signatures(const struct pipe_model *pm);
/* The solver's model of the signatures (and listed constraints), made
 * on first use (the first check, or these calls), so that models only
 * compared, never checked, cost no LP.  make_solver says why it could
 * not be made; pipe_model_solver then returns NULL. */
int pipe_model_make_solver(struct pipe_model *pm, struct cp_error *err);
struct feas_model *pipe_model_solver(struct pipe_model *pm);
/* Free the solver's model and its LPs (their warm starts with them); the
 * signatures and listed constraints stay, and pipe_model_solver makes a
 * fresh one if it is needed again.  For callers that keep many models. */
void pipe_model_drop_solver(struct pipe_model *pm);
/* Constraints listed from the cone: 1 when the budget allowed them.  Then
 * the equalities come first, then the facets. */
int pipe_model_has_facets(const struct pipe_model *pm);
size_t pipe_model_n_equalities(const struct pipe_model *pm);
size_t pipe_model_n_facets(const struct pipe_model *pm);
const int64_t *pipe_model_constraint(const struct pipe_model *pm, size_t i);
/* Why the facets are not listed (NULL when they are): the budget, or the
 * cone's error message. */
const char *pipe_model_no_facets(const struct pipe_model *pm);
/* 1 when the cone went over the budget (CP_ELIMIT), as opposed to
 * max_facets = 0 or a numerical failure. */
int pipe_model_over_budget(const struct pipe_model *pm);
/* The exact equalities of span(S) (always; from the cone when it was
 * built), for readable constraints; NULL when beyond 64 bits. */
size_t pipe_model_n_span_equalities(const struct pipe_model *pm);
const int64_t *pipe_model_span_equalities(const struct pipe_model *pm);

/* Is the signature s (the model's counters, counts) in pm's cone?  The
 * one point-in-cone test.  *inside = 1 or 0 when decided, -1 when not.
 * Decided exactly by pm's listed constraints when it has them; else s is
 * one of pm's signatures; else the solver takes s as a zero-width box
 * (its borderline verdicts settled exactly).  Without a budget the
 * solver's verdict stands.  With one, only an outside verdict that names
 * a constraint of the cone which s breaks (checked in integers against
 * every signature) stands; the exact cone built under the budget decides
 * the rest, -1 beyond it.  a (k entries, with *is_eq; may be NULL, and
 * then so may is_eq) gets the constraint s breaks when the budget is
 * given and s is outside. */
int pipe_model_contains(struct pipe_model *pm, const uint32_t *s,
			const struct pipe_budget *budget, int *inside,
			int64_t *a, int *is_eq, struct cp_error *err);

/* ---- checking ----
 * res: pipe_data_n_observations results, each feas_result_init'ed; those
 * of unusable observations are left as they are (feasible = 0, no
 * violations): callers test pipe_data_region first.  threads 0: one per
 * CPU, 1: in the calling thread.  Borderline verdicts whose exact
 * re-check fails keep the floating-point verdict and are counted in
 * *n_inexact (may be NULL) rather than stopping everything. */
int pipe_check(struct pipe_model *pm, const struct pipe_data *pd,
	       unsigned flags, size_t threads, struct feas_result *res,
	       size_t *n_inexact, void (*progress)(void *, size_t, size_t),
	       void *progress_ctx, struct cp_error *err);
/* The same for pd made with opt.stream: builds the regions (on `threads`
 * threads, as pipe_data_new would have) and checks them in one pass, each
 * chunk of FEAS_CHUNK usable observations as soon as its regions are
 * built; the verdicts, explanations and reasons are pipe_check's on a
 * pipe_data_new without stream, and so is an error building a region (a
 * check's error names its observation as stats_observation_error does).
 * Once.  progress gets the observations done of all of them, from the
 * calling thread, every 50 ms at most. */
int pipe_check_stream(struct pipe_model *pm, struct pipe_data *pd,
		      unsigned flags, size_t threads, struct feas_result *res,
		      size_t *n_inexact, void (*progress)(void *, size_t, size_t),
		      void *progress_ctx, struct cp_error *err);

/* pipe_check's work in parts, for spreading it beyond one process (the
 * MPI runs of `check`): with T threads pipe_check checks its usable
 * observations in pipe_check_n_lanes lanes, each in order from a fresh
 * LP (a warm start can change a certificate's explanation, never a
 * verdict); pipe_check_lane lists lane l's observations (obs: room for
 * pipe_data_n_observations), and pipe_check_some checks a list so, in
 * one thread, filling res at the observations' indices.  Checking every
 * lane with pipe_check_some gives pipe_check's results (for T = 1:
 * pipe_check on a model not checked before).
 *
 * pipe_check and pipe_check_some accept a pipe_data other than the one
 * pm was built on when it has the same counters (same model, options and
 * events; the count is checked): a part of a dataset is checked with the
 * model (its cone) built once. */
size_t pipe_check_n_lanes(const struct pipe_data *pd, size_t threads);
size_t pipe_check_lane(const struct pipe_data *pd, size_t threads, size_t lane,
		       size_t *obs);
int pipe_check_some(struct pipe_model *pm, const struct pipe_data *pd,
		    const size_t *obs, size_t n, unsigned flags,
		    struct feas_result *res, size_t *n_inexact, struct cp_error *err);

/* ---- family-wise claims ----
 * A region holds its observation's true mean with probability c (the
 * regions' confidence), so a model true for every observation is
 * refuted by one of n observations with probability up to 1 - c^n (28%
 * at n = 32).  A claim about the model as a whole (refuted, or not)
 * holds at the family-wise confidence C when an observation counts as
 * refuting it only if its region at c_n = C^(1/n) misses the cone too
 * (Sidak; the observations are independent runs): with probability at
 * least C every region at c_n holds its true mean at once, and then no
 * model whose cone holds the true means is refuted by any of them.
 * (When c_n would be below c, it is c: a claim at level c then holds at
 * C or more.)  pipe_family checks again, at c_n, the observations
 * pipe_check found infeasible; their regions at c_n are built on first
 * need (from the dataset, as pipe_data's at c) and kept for the models
 * checked after.  docs/method/statistics.md, section 10.
 *
 * Ownership: pipe_family_free (NULL no-op); it refers to pd, which must
 * outlive it. */
struct pipe_family;

/* C^(1/n), or c when that is larger (n <= 1: the larger of C and c). */
double pipe_family_level_for(double family_confidence, double confidence, size_t n);
/* family_confidence 0: 0.99.  n: the observations the claims rest on
 * (those usable: pipe_data_n_observations - pipe_data_n_unusable). */
int pipe_family_new(const struct pipe_data *pd, double family_confidence, size_t n,
		    struct pipe_family **out, struct cp_error *err);
void pipe_family_free(struct pipe_family *fam);
double pipe_family_confidence(const struct pipe_family *fam);
/* Each observation's level, c_n. */
double pipe_family_level(const struct pipe_family *fam);
size_t pipe_family_n(const struct pipe_family *fam);
/* Observation i's region at c_n as a query; NULL until a check built it
 * (or when c_n is c and pd has no queries: a streamed pd). */
const struct feas_query *pipe_family_query(const struct pipe_family *fam, size_t i);
/* res: pipe_check's (or pipe_check_stream's) verdicts of pm at c.
 * refutes (pipe_data_n_observations entries): 1 where the observation is
 * infeasible at c and its region at c_n misses the cone too; *n_refuting
 * counts them.  Borderline verdicts at c_n whose exact re-check failed
 * keep the floating-point answer and are counted in *n_inexact (may be
 * NULL).  threads as pipe_check's. */
int pipe_family_check(struct pipe_family *fam, struct pipe_model *pm,
		      const struct feas_result *res, size_t threads,
		      unsigned char *refutes, size_t *n_refuting, size_t *n_inexact,
		      struct cp_error *err);

/* A confidence as a percentage for reports ("99%", "99.9685%"): at most
 * 4 decimals, never rounded up (a level printed is one that holds). */
void pipe_put_level(struct cp_buf *b, double confidence);
/* The claim about a model as a whole, one line for people ("model as a
 * whole: REFUTED at 99% over the 36 usable observations (21 infeasible
 * at 99% each, 20 of them at 99.972%, the level each needs for 99% over
 * 36)"): infeasible at the regions' confidence, n_refuting at the
 * family's level (pipe_family_check's count).  `check` and `suggest`
 * print it. */
void pipe_family_put_claim(struct cp_buf *b, const struct pipe_family *fam,
			   size_t infeasible, size_t n_refuting);

/* ---- the whole pipeline in one call ----
 * Parse the model, select the features ("a,b"; NULL or "": none), load
 * the dataset, build the regions, the signatures and the cone (under
 * PIPE_BUDGET_CHECK, as `check`), and check every usable observation,
 * explaining the infeasible ones.  opt NULL: check's defaults (PCA box,
 * confidence 0.99, batches auto, every model counter); threads as
 * pipe_check's, which load the dataset too.  Errors: the model's first error (CP_ESYNTAX/CP_ESEMANTIC,
 * located, the source excerpt in err->detail), an unknown feature, the
 * dataset's first bad row (CP_EINPUT, located), counters the dataset
 * lacks; a dataset whose observations are all unusable is not an error
 * (every verdict is PIPE_UNUSABLE).  The thread that calls it may call
 * feas_thread_end at its end, as for feas_check. */
struct pipe_run;
enum pipe_verdict { PIPE_FEASIBLE = 0, PIPE_INFEASIBLE = 1, PIPE_UNUSABLE = 2 };

int pipe_run(const char *model_path, const char *features,
	     const char *data_path, const struct pipe_options *opt,
	     size_t threads, struct pipe_run **out, struct cp_error *err);
/* The same on a model and a dataset already loaded (borrowed: they must
 * outlive the run). */
int pipe_run_on(const struct udd_model *m, const char *features,
		const struct stats_dataset *d, const struct pipe_options *opt,
		size_t threads, struct pipe_run **out, struct cp_error *err);
void pipe_run_free(struct pipe_run *r);

size_t pipe_run_n_observations(const struct pipe_run *r);
const char *pipe_run_observation(const struct pipe_run *r, size_t i);
enum pipe_verdict pipe_run_verdict(const struct pipe_run *r, size_t i);
/* Why observation i has no region (NULL when it has one). */
const char *pipe_run_unusable(const struct pipe_run *r, size_t i);
/* The violated constraints of an infeasible observation, as `check`
 * prints them ("load.walk_done <= load.causes_walk"), the largest margin
 * first (`check` lists the first --violations of them); the numbers
 * (coefficients over pipe_data_names, margins, borderline, p-values) are
 * in its feas_result. */
size_t pipe_run_n_violations(const struct pipe_run *r, size_t i);
const char *pipe_run_violation(const struct pipe_run *r, size_t i, size_t j);
const struct feas_result *pipe_run_result(const struct pipe_run *r, size_t i);
/* The objects the run built, for anything more (counter names, regions,
 * the cone's constraints); they live as long as r. */
const struct pipe_data *pipe_run_data(const struct pipe_run *r);
const struct pipe_model *pipe_run_model(const struct pipe_run *r);
const struct udd_model *pipe_run_udd_model(const struct pipe_run *r);

/* ---- flows: how much of each feature the data need ----
 * For a feature set sel, the flow columns are the distinct (uop,
 * signature) pairs of its μpaths on the data's counters (signatures
 * that count nothing are left out: no data bound their flow).  A column
 * needs feature f (f in sel) when no μpath of the same uop has that
 * signature with f off (sel without f): every μpath of the column then
 * goes through f.  Per observation, uop u and feature f, pipe_flows_bound
 * bounds over region ∩ cone (solver/feas.h, feas_flows_*):
 *   rate:  the flow on u's columns that need f, per second (the
 *          regions' unit: counts per second of enabled time);
 *   share: that flow over u's μops: the counter "<u>.retired" when it is
 *          checked (retired μops), else the flow on all of u's columns.
 * A μpath of f whose signature also comes from a μpath without f (a
 * squashed merged load counts what a squashed DTLB hit counts) is not in
 * f's columns: the rate's lower bound is a lower bound of the flow on f's
 * μpaths; the upper bound is the most the data allow on f's own
 * signatures.
 *
 * Ownership: pipe_flows_free (NULL no-op); it refers to pd, which must
 * outlive it. */
struct pipe_flows;

int pipe_flows_new(const struct udd_model *m, udd_features sel,
		   const struct pipe_data *pd, struct pipe_flows **out,
		   struct cp_error *err);
void pipe_flows_free(struct pipe_flows *pf);
/* The flows of columns a model does not have (`counterpoint suggest`'s
 * new μpaths): sel's columns plus n_extra more, rows of k + 1 words (the
 * model's uop index, then the counts on the data's counters).  Extra
 * column j alone needs pseudo-feature j, named names[j] (borrowed: they
 * must outlive pf), so pipe_flows_bound bounds each extra column's flow
 * as a feature's; sel's features are not bounded.  n_extra >= 1. */
int pipe_flows_new_extra(const struct udd_model *m, udd_features sel,
			 const struct pipe_data *pd, const uint32_t *extra,
			 size_t n_extra, const char *const *names,
			 struct pipe_flows **out, struct cp_error *err);

size_t pipe_flows_n_columns(const struct pipe_flows *pf);
/* The model's uops and the features of sel (model order). */
size_t pipe_flows_n_uops(const struct pipe_flows *pf);
const char *pipe_flows_uop(const struct pipe_flows *pf, size_t u);
size_t pipe_flows_n_features(const struct pipe_flows *pf);
const char *pipe_flows_feature(const struct pipe_flows *pf, size_t f);
/* Columns of uop u, and those of them that need feature f. */
size_t pipe_flows_n_uop_columns(const struct pipe_flows *pf, size_t u);
size_t pipe_flows_n_needing(const struct pipe_flows *pf, size_t u, size_t f);
/* The denominator of u's shares: a counter's name, or NULL for the flow
 * on all of u's columns. */
const char *pipe_flows_per(const struct pipe_flows *pf, size_t u);
/* Identifiability.  f's μpaths are those of sel that sel without f does
 * not have (a μpath that never reads f is the same in both).  Their
 * distinct signatures on the checked counters (per uop) are f's; those a
 * μpath without f has too are shared, and the flow on them cannot be
 * attributed to f by these counters; f's μpaths that count none of the
 * checked counters are blind (no data bound their flow, and no bound
 * includes it, as for every such column).  The bounds are of the flow on
 * f's other signatures, the columns that need f: all of f's flow the
 * counters see when it is attributable (nothing shared); otherwise the
 * reports label them the identifiable part.  Decided when sel and each
 * sub-model without one of its features have at most 200,000 μpaths
 * (pipe_flows_identifiability_known; else every count below is 0). */
int pipe_flows_identifiability_known(const struct pipe_flows *pf);
size_t pipe_flows_n_signatures_of(const struct pipe_flows *pf, size_t u, size_t f);
size_t pipe_flows_n_shared(const struct pipe_flows *pf, size_t u, size_t f);
size_t pipe_flows_n_blind(const struct pipe_flows *pf, size_t u, size_t f);
int pipe_flows_attributable(const struct pipe_flows *pf, size_t u, size_t f);
/* One shared pair: f's μpath (other 0) and a μpath without f (other 1)
 * with the same signature on the checked counters, as `paths` writes
 * them; and a model counter (not checked) that counts them differently,
 * NULL when none does.  NULL when nothing is shared. */
const char *pipe_flows_shared_pair(const struct pipe_flows *pf, size_t u, size_t f,
				   int other);
const char *pipe_flows_separator(const struct pipe_flows *pf, size_t u, size_t f);

enum pipe_flow_status {
	PIPE_FLOWS_BOUNDED = 0,
	PIPE_FLOWS_UNUSABLE = 1,    /* no region (pipe_data_unusable) */
	PIPE_FLOWS_INFEASIBLE = 2,  /* the verdict says infeasible */
	PIPE_FLOWS_NO_FLOW = 3,     /* feasible, but the LP finds no flow
				     * (a borderline verdict) */
};

struct pipe_flow_bounds {
	struct feas_bound rate, share;
};

/* verdicts: pipe_check's results for pd (feasibility decides which
 * observations are bounded).  out: n_observations x n_uops x n_features
 * entries, out[(i * n_uops + u) * n_features + f], filled where
 * status[i] is PIPE_FLOWS_BOUNDED and pipe_flows_n_needing(u, f) > 0.
 * threads as pipe_check's. */
int pipe_flows_bound(struct pipe_flows *pf, const struct pipe_data *pd,
		     const struct feas_result *verdicts, size_t threads,
		     struct pipe_flow_bounds *out, enum pipe_flow_status *status,
		     struct cp_error *err);

/* What `counterpoint flows --with sel` computes on pd: the verdicts
 * (feasibility only, no cone), then the bounds.  *pf, *out and *status
 * (as pipe_flows_bound's) are the caller's to free (pipe_flows_free,
 * cp_free); all NULL on failure. */
int pipe_flows_run(const struct udd_model *m, udd_features sel,
		   const struct pipe_data *pd, size_t threads,
		   struct pipe_flows **pf, struct pipe_flow_bounds **out,
		   enum pipe_flow_status **status, struct cp_error *err);

/* ---- flows as text and JSON (pipeline/flows_report.c) ----
 * The one writer of `counterpoint flows`' report, which explore's
 * reports reuse for its minimal models.  Everything is appended to b. */
/* "bounded", "unusable", "infeasible", "no_flow" (the JSON's words). */
const char *pipe_flows_status_name(enum pipe_flow_status s);
/* v with `digits` significant digits, rounded down (dir < 0) or up (dir
 * > 0): the printed decimal, read back, lies on the right side of v. */
void pipe_flows_put_bound(struct cp_buf *b, double v, int digits, int dir);
/* "[lo, hi]" of lo*scale and hi*scale, 4 digits, rounded outward, unit
 * after each number ("%" with scale 100 for shares). */
void pipe_flows_put_interval(struct cp_buf *b, double lo, double hi, double scale,
			     const char *unit);
/* One line per uop with columns (its columns, the share's denominator,
 * what each feature adds), each after indent; returns how many (uop,
 * feature) pairs have columns (0: a line says there is nothing to
 * bound). */
size_t pipe_flows_text_columns(const struct pipe_flows *pf, const char *indent,
			       struct cp_buf *b);
/* A bounded observation's table: a header, then one line per (uop,
 * feature) with columns: rate and share, rounded outward.  row: its
 * n_uops x n_features entries of pipe_flows_bound's out. */
void pipe_flows_text_rows(const struct pipe_flows *pf,
			  const struct pipe_flow_bounds *row, const char *indent,
			  struct cp_buf *b);
/* `flows --json`'s "uops" object: per uop its columns, "per" and the
 * columns each feature adds. */
void pipe_flows_json_uops(const struct pipe_flows *pf, struct cp_buf *b);
/* One element of `flows --json`'s "observations": name, status, the
 * unusable reason when unusable, and for a bounded one "uops" with the
 * certified and attained bounds of row (as in pipe_flows_text_rows). */
void pipe_flows_json_observation(const struct pipe_flows *pf, const char *name,
				 const char *unusable, enum pipe_flow_status status,
				 const struct pipe_flow_bounds *row, struct cp_buf *b);

/* The whole of `flows --json` (docs/method/checking.md, docs/manual/json.md), with the
 * model's and the data's names as given; counts each status into
 * n_status (4 entries, by enum pipe_flow_status; NULL: not wanted). */
void pipe_flows_json_report(const struct pipe_flows *pf,
			    const struct pipe_data *pd, const char *model,
			    const char *data, const struct pipe_flow_bounds *out,
			    const enum pipe_flow_status *status,
			    size_t *n_status, struct cp_buf *b);

#endif
