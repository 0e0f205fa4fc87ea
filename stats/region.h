/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/region.h: counter datasets and confidence regions.
 *
 * A dataset is the long CSV of docs/method/statistics.md (observation, interval, event,
 * value, enabled_ns, running_ns), loaded with strict validation.  For one
 * observation it yields per-interval rates; region_build turns rates into
 * the ellipsoid, PCA box and independent box that hold the observation's
 * true mean rate vector at a stated confidence (docs/method/statistics.md has the
 * formulas and the degenerate-case rule).
 *
 * Ownership: stats_dataset_load and region_build return heap objects that
 * the caller frees with stats_dataset_free / region_free (NULL is a no-op).
 * Arrays returned through pointers (rates, ...) are cp_malloc'd and freed
 * by the caller with cp_free.  Strings returned by accessors belong to the
 * dataset. */
#ifndef COUNTERPOINT_REGION_H
#define COUNTERPOINT_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"

/* ---- datasets ---- */
struct stats_dataset;

/* Load the long CSV at path.  Every bad row is reported as
 * "path:line: message": the first in err (msg), the rest in err->detail
 * as far as they fit.  Returns 0 or a negative CP_E* code. */
int stats_dataset_load(const char *path, struct stats_dataset **out,
		       struct cp_error *err);
/* The same, with every diagnostic line ("path:line: message\n") also
 * appended to diag (may be NULL): the first CP_DIAGS_MAX, then a line
 * counting the rest. */
int stats_dataset_load_diag(const char *path, struct stats_dataset **out,
			    struct cp_buf *diag, struct cp_error *err);
/* The same on `threads` threads (0: one per CPU).  The lines after the
 * header are cut into ranges, read and parsed in parallel and joined: the
 * dataset and every message, in order, are those of one thread.  A file
 * under 4 MB, or one that cannot be read at an offset (a pipe), is read
 * on one thread; so is every file by stats_dataset_load and _load_diag.
 * From a pipe or a device at most cp_stream_max() bytes are read (a
 * message at the line where that is reached, CP_EINPUT). */
int stats_dataset_load_threads(const char *path, size_t threads,
			       struct stats_dataset **out, struct cp_buf *diag,
			       struct cp_error *err);
/* The same on text in memory (one thread); name is used in messages. */
int stats_dataset_parse(const char *name, const char *text, size_t len,
			struct stats_dataset **out, struct cp_buf *diag,
			struct cp_error *err);
void stats_dataset_free(struct stats_dataset *d);

/* ---- datasets in parts (stats/reader.c) ----
 * A dataset read a part at a time, so that memory holds a part, not the
 * file: each part is the dataset of a block of the file's lines (about
 * 64 MB, more when one observation needs it), its lines numbered as in
 * the file, whose first *n_whole observations are whole (no row of
 * theirs comes later).  The caller uses observations [0, m) of a part
 * for an m that stats_reader_cut allows, passes them with
 * stats_reader_take, and the next part starts with observation m (read
 * again).  Observations come in the order of the whole file's dataset,
 * and each one's rows, messages and lines are the ones it has there.
 * A file whose observations are grouped (sim, record and import write
 * them so), or whose observations take turns in groups, is read in
 * parts; when an observation taken comes back later, stats_reader_next
 * fails (CP_EINPUT) and stats_reader_grouped says 0: such a file is read
 * by observation (stats_reader_index) or loaded whole.  path "-" reads standard input, named STATS_STDIN_NAME
 * in messages; from it, or any pipe or device, the text of an observation
 * that cannot be cut is held up to cp_stream_max() bytes (CP_EINPUT at
 * the line where that is reached).  The datasets belong to the reader. */
#define STATS_STDIN_NAME "<stdin>"
struct stats_reader;
/* part_bytes: the text a part reads at least (0: 64 MB). */
int stats_reader_open(const char *path, size_t threads, size_t part_bytes,
		      struct stats_reader **out, struct cp_error *err);
void stats_reader_close(struct stats_reader *r);
const char *stats_reader_name(const struct stats_reader *r);
/* The next part (valid until the next call), or *d NULL after the last;
 * loaded on `threads` threads (0: one per CPU) when it is large. */
int stats_reader_next(struct stats_reader *r, const struct stats_dataset **d,
		      size_t *n_whole, struct cp_error *err);
/* The largest m' <= m at which the part can be cut (m' <= n_whole). */
size_t stats_reader_cut(const struct stats_reader *r, size_t m);
int stats_reader_take(struct stats_reader *r, size_t m, struct cp_error *err);
int stats_reader_done(const struct stats_reader *r);
/* 1 when the part is the last (it holds the rest of the input). */
int stats_reader_last(const struct stats_reader *r);
/* m 0 (nothing could be used): the next part is read larger. */
int stats_reader_grouped(const struct stats_reader *r);
/* 1 when the input is a regular file named (it can be loaded whole
 * instead); standard input redirected from a file is read as a file but
 * cannot be loaded again from its name. */
int stats_reader_rereadable(const struct stats_reader *r);
/* 1 when the input can be read at offsets (a regular file, standard
 * input redirected from one): it can be read by observation. */
int stats_reader_seekable(const struct stats_reader *r);
/* A regular file not grouped by observation read by observation, on a
 * new reader: one pass finds where each observation's rows are, and
 * each part is then a run of observations (in the order of the whole
 * file's dataset) loaded from the blocks of lines that hold their rows
 * (on threads, as a file is), the others' rows read past; a part holds
 * at least min_obs observations (twice as many after a take of none),
 * then as many as fit in about the memory a part of a grouped file
 * takes.  *loads: the parts that makes; *reads: the bytes they read,
 * over the file's.  CP_EINPUT when the file's
 * first column is not the observation or a name is not plain (quoted,
 * or with blanks at its ends): such a file is loaded whole. */
int stats_reader_index(struct stats_reader *r, size_t min_obs, size_t *loads,
		       double *reads, struct cp_error *err);
/* How much of a regular file the parts taken have read, 0 to 1; -1 for
 * other input (its length is not known). */
double stats_reader_fraction(const struct stats_reader *r);
/* Keep the rows of the part's observations obs[0..n) for a second
 * reading (from the file, or from an unlinked temporary copy of what
 * standard input gave), after the last part: stats_reader_kept gives
 * them back in the order kept, at most max observations a dataset, with
 * idx[j] the index in it of the j-th (*n of them; 0 at the end). */
int stats_reader_keep(struct stats_reader *r, const size_t *obs, size_t n,
		      struct cp_error *err);
int stats_reader_kept(struct stats_reader *r, const struct stats_dataset **d,
		      size_t *idx, size_t max, size_t *n, struct cp_error *err);

/* Observations in order of first appearance; events likewise. */
size_t stats_dataset_n_observations(const struct stats_dataset *d);
const char *stats_dataset_observation(const struct stats_dataset *d, size_t i);
/* Index of the observation called name, or (size_t)-1. */
size_t stats_dataset_find_observation(const struct stats_dataset *d,
				      const char *name);
size_t stats_dataset_n_events(const struct stats_dataset *d);
const char *stats_dataset_event(const struct stats_dataset *d, size_t e);
/* Index of the event called name (exactly), or (size_t)-1. */
size_t stats_dataset_find_event(const struct stats_dataset *d, const char *name);
/* The dataset's event an edit or two from name (cp_closest), or NULL:
 * for "did you mean" in messages about an event it lacks. */
const char *stats_dataset_closest_event(const struct stats_dataset *d,
					const char *name);
/* The name the dataset was loaded under (its path), as messages give it. */
const char *stats_dataset_path(const struct stats_dataset *d);
/* The line of observation obs's first row (1-based; 0 for no such
 * observation). */
unsigned stats_dataset_observation_line(const struct stats_dataset *d,
					size_t obs);
/* The one form of every message about one observation (its region, an
 * event it never counted): err gets code, the dataset's path and the line
 * of the observation's first row, and "observation 'NAME': " + fmt, so
 * that it prints as "data.csv:17: observation 'o1': ...".  Returns code. */
int stats_observation_error(const struct stats_dataset *d, size_t obs, int code,
			    struct cp_error *err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Number of distinct intervals of observation obs. */
size_t stats_dataset_n_intervals(const struct stats_dataset *d, size_t obs);
/* Number of samples of observation obs in which event e was counted:
 * intervals (running_ns > 0), or, for a perf stat -r summary
 * (stats_dataset_runs), its runs when the event was counted. */
size_t stats_dataset_n_counted(const struct stats_dataset *d, size_t obs,
			       size_t e);
/* The same for every event at once, in one pass over the observation's
 * samples: counts[e] for e < stats_dataset_n_events(d). */
void stats_dataset_counted(const struct stats_dataset *d, size_t obs,
			   size_t *counts);
/* A perf stat -r summary's number of runs: the observation's rows carry
 * runs and se_pct (docs/method/statistics.md), one interval of means and their
 * relative standard errors; 0 for an observation of intervals. */
unsigned stats_dataset_runs(const struct stats_dataset *d, size_t obs);

/* Where observation obs was read from: its rows are n_line_runs runs of
 * consecutive lines of the file (line 1 the header), run j from
 * *first_line for *n_lines lines; the header and the runs' lines, in
 * this order, load as the same observation (so a part of a dataset can
 * be passed on as text). */
size_t stats_dataset_n_line_runs(const struct stats_dataset *d, size_t obs);
void stats_dataset_line_run(const struct stats_dataset *d, size_t obs, size_t j,
			    size_t *first_line, size_t *n_lines);

/* Per-interval rates of observation obs for the k named events: n x k,
 * row-major, intervals in ascending order of their number.  The rate is
 * the scaled count per second of enabled time,
 *     (value * enabled/running) / (enabled * 1e-9) = value * 1e9 / running,
 * and NAN where the event was not counted (running_ns = 0 or no row).
 * Errors: an event the dataset lacks (named), an event never counted in
 * this observation (named). */
int stats_observation_rates(const struct stats_dataset *d, size_t obs,
			    const char *const *events, size_t k,
			    double **rates, size_t *n, struct cp_error *err);
/* Rate resolution of each event in observation obs: one count scaled to a
 * rate, 1e9/running_ns, as a root mean square over the counted intervals
 * (k values into res).  region_options.resolution takes it. */
int stats_observation_resolution(const struct stats_dataset *d, size_t obs,
				 const char *const *events, size_t k,
				 double *res, struct cp_error *err);

/* ---- models: the μDD's counters read the events they declare ---- */
struct udd_sigset;
struct udd_model;
/* The dataset's event that counter i of m reads: the one whose name is
 * one of the counter's event's names as perf may spell it
 * (hec_event_name_matches(): any case, modifiers, raw codes).  *e is its
 * index, or (size_t)-1 when the dataset has none; CP_EINPUT when it has
 * two (the message names both). */
int stats_model_counter_event(const struct stats_dataset *d,
			      const struct udd_model *m, size_t i, size_t *e,
			      struct cp_error *err);
/* The dataset's events that no counter of the model reads (every counter
 * the model declares, whichever of them are checked), in the dataset's
 * order: returns how many; the first max of their names are appended to
 * names as "a, b, c" (then ", ..."; names may be NULL). */
size_t stats_model_unread_events(const struct stats_dataset *d,
				 const struct udd_model *m, size_t max,
				 struct cp_buf *names);
/* The event names of the k = udd_sigset_n_counters(s) model counters, in
 * counter order, into events (k pointers owned by s).  Error naming the
 * counter and its event when the dataset lacks the event or observation
 * obs never counted it. */
int stats_sigset_events(const struct stats_dataset *d, size_t obs,
			const struct udd_sigset *s, const char **events,
			struct cp_error *err);

/* ---- regions ---- */
/* A region's counters at most: its covariance, axes and correlations are
 * k x k, its eigen-decomposition O(k^3) (256 counters over 2,000
 * intervals: 4 s; 1,024: 4 minutes). */
#define REGION_MAX_COUNTERS 256
enum region_kind { REGION_PCA, REGION_INDEPENDENT, REGION_ELLIPSOID };

/* How the region was built (docs/method/statistics.md, "degenerate cases"). */
enum region_rule {
	REGION_RULE_HOTELLING = 0, /* full covariance, Hotelling T^2 */
	REGION_RULE_DIAGONAL = 1,  /* too few samples (n <= k, or Hotelling's
				    * quantile larger than this rule's):
				    * per-counter t intervals (Sidak), the
				    * ellipsoid circumscribing them */
};
/* The rule for k counters and n samples: Hotelling iff n > k and its
 * quantile at 0.99 is no larger than the diagonal rule's (depends on k and
 * n only, never on the data). */
enum region_rule region_rule_for(size_t k, size_t n);

#define REGION_BATCHES_AUTO 0

struct region_options {
	double confidence;         /* 0 => 0.99 */
	/* Autocorrelated intervals.  REGION_BATCHES_AUTO (0, the default):
	 * every interval is a sample, and when their lag-1 autocorrelation
	 * is significant the covariance is the long-run (Newey-West,
	 * Bartlett kernel, Andrews' bandwidth) estimate with its equivalent
	 * degrees of freedom; 1 = every interval a sample, plain covariance;
	 * b >= 2 = batch means over b consecutive batches (docs). */
	size_t batches;
	/* Per-interval (prediction) region for one new interval instead of
	 * the region for the mean: covariance Sigma*(1 + 1/n). */
	int per_interval;
	/* k rate resolutions (stats_observation_resolution); the per-interval
	 * variance floor of counter j is resolution[j]^2/12.  NULL => 1 for
	 * every counter (one count per second). */
	const double *resolution;
	/* k counter names for messages; NULL => "counter j" */
	const char *const *names;
	/* The caller reads only the independent box and the ellipsoid: the
	 * split-half PCA box (most of a region's time) is not built, and
	 * box_axes/half_pca hold the independent box in variance order
	 * instead (pca_box 0). */
	int no_pca_box;
	/* Keep only what the solver reads (mu, cov, lambda, the boxes, q):
	 * sigma and axes, which reports and region_contains(REGION_ELLIPSOID)
	 * read, are freed (NULL), and with no_pca_box, or a PCA box along
	 * the counters (pca_on_counters), so are box_axes and half_pca.  A region of 26 counters then holds 6 KB to 11 KB
	 * instead of 22 KB, which 10^5 observations feel. */
	int lean;
	/* When not NULL (stats_observation_region): the rates' correlations
	 * (stats_correlations) too, from the same reading of them. */
	struct stats_correlations *correlations;
};

struct region {           /* public, read by the solver */
	size_t k, n;          /* counters; samples used (min over counters of
			       * the intervals, or batches, where counted) */
	double confidence;
	enum region_rule rule;
	double *mu;           /* k: mean */
	double *cov;          /* k*k row-major: covariance of the mean (Sigma/n)
			       * after the degenerate-case floor; positive
			       * definite (diagonal under REGION_RULE_DIAGONAL) */
	double *axes;         /* k*k row-major: row i is unit eigenvector v_i of cov */
	double *lambda;       /* k: eigenvalues of cov, ascending */
	double *box_axes;     /* k*k row-major: the PCA box's axes (unit rows,
			       * ascending half-width): principal axes of
			       * the first half's covariance */
	double *half_pca;     /* k: |box_axes_i.(x-mu)| <= half_pca[i], the
			       * Sidak box in the principal frame, widths
			       * from the second half (docs/method/statistics.md);
			       * diagonal rule or too few samples: the
			       * independent box in variance order */
	double *half_ind;     /* k: |x_j - mu_j| <= half_ind[j] */
	double q;             /* ellipsoid: (x-mu)^T cov^{-1} (x-mu) <= q */
	double q1;            /* per-counter quantile: half_ind[j]^2 = q1*cov[jj] */
	double *sigma;        /* k*k: sample covariance of the samples (no floor,
			       * pairwise over counted intervals), for reports */
	size_t *n_counted;    /* k: samples in which counter j was counted */
	size_t batch_size;    /* intervals per sample (1 = no batching) */
	size_t n_samples;     /* samples actually used (n is the effective
			       * count the quantiles see: equal unless the
			       * covariance is long-run) */
	int prewhitened;      /* the covariance is long-run: AR(1)
			       * prewhitened, Bartlett kernel with this
			       * bandwidth on the residuals (0: none) */
	size_t bandwidth;
	int dof_floored;      /* too short for its autocorrelation: the
			       * long-run quantiles were floored, the region
			       * may be too small */
	double lag1;          /* largest |lag-1 autocorrelation| over the
			       * counters of the samples used (NAN if unknown) */
	int pca_box;          /* box_axes/half_pca are the PCA box (1), or the
			       * independent box because the caller asked for
			       * none (region_options.no_pca_box: 0) */
	size_t runs;          /* built from a perf stat -r summary of this many
			       * runs (region_build_summary): means and
			       * standard errors only, correlations unknown,
			       * so the independent box is the region (rule
			       * diagonal); 0 for a region of samples */
	int pca_on_counters;  /* box_axes are the counters and half_pca the
			       * independent box's widths (in variance
			       * order): the PCA box is the independent box
			       * (its halves too short, or none built) */
};

/* rates: n x k row-major, NAN = not counted.  opt may be NULL. */
int region_build(const double *rates, size_t n, size_t k,
		 const struct region_options *opt, struct region **out,
		 struct cp_error *err);
void region_free(struct region *r);
/* The region of k means mu with standard errors of the mean se over
 * runs >= 2 runs each (perf stat -r: its "+- x%" is se/mu): the
 * independent box, each counter |x_j - mu_j| <= t_{runs-1} se_j at the
 * Sidak level, plus the counting-resolution floor.  The correlations
 * are unknown: the PCA box is that box and the ellipsoid the one
 * through its corners, as under REGION_RULE_DIAGONAL (r->runs says
 * so).  opt as for region_build (batches ignored). */
int region_build_summary(const double *mu, const double *se, size_t runs,
			 size_t k, const struct region_options *opt,
			 struct region **out, struct cp_error *err);
/* Free r's arrays (mu, cov, axes, the boxes, sigma, n_counted: all NULL
 * after), keeping its numbers (k, n, q, rule, dof_floored, ...): what a
 * report of verdicts reads once the region has been checked.  A trimmed
 * region is no longer a region the solver can read. */
void region_trim(struct region *r);
/* Rates, resolution and region of one observation in one call. */
int stats_observation_region(const struct stats_dataset *d, size_t obs,
			     const char *const *events, size_t k,
			     const struct region_options *opt,
			     struct region **out, struct cp_error *err);

/* The region of observation obs over the model's counters (events as
 * stats_sigset_events; counter names in messages). */
int stats_sigset_region(const struct stats_dataset *d, size_t obs,
			const struct udd_sigset *s,
			const struct region_options *opt, struct region **out,
			struct cp_error *err);

/* The ellipsoid quantile q for a confidence level, k counters and n
 * samples: Hotelling k(n-1)/(n-k) F_{k,n-k}(c) or the diagonal rule
 * k * F_{1,n-1}(c^{1/k}) as region_rule_for(k, n) says, chi^2_k(c) when
 * n == 0 (known covariance).  NAN for n == 1 or c outside (0, 1). */
double region_quantile(double confidence, size_t k, size_t n);
/* Its inverse: the confidence level at which a squared Mahalanobis
 * distance d2 lies on the boundary (0 for d2 <= 0). */
double region_confidence_of(double d2, size_t k, size_t n);
/* The per-counter quantile: F_{1,n-1}(c^{1/k}) (Sidak-corrected squared
 * t), chi^2_1(c^{1/k}) for n == 0. */
double region_quantile1(double confidence, size_t k, size_t n);

/* Is x (k values) inside the region of the given kind?  1 or 0; -1 when a
 * lean region (region_options.lean) lacks what that kind needs. */
int region_contains(const struct region *r, enum region_kind kind,
		    const double *x);
/* Squared Mahalanobis distance (x-mu)^T cov^{-1} (x-mu). */
double region_mahalanobis2(const struct region *r, const double *x);   /* needs axes */

/* ---- descriptive helpers for reports ---- */
/* Eigen-decomposition of a symmetric k x k matrix a (row-major): ascending
 * eigenvalues into w, row i of v = unit eigenvector i.  LAPACKE dsyevd. */
int stats_symmetric_eigen(const double *a, size_t k, double *w, double *v,
			  struct cp_error *err);
/* Lag-1 autocorrelation of column j of rates (n x k, NANs skipped in
 * pairs); NAN if fewer than 3 usable pairs or zero variance. */
double stats_lag1_autocorrelation(const double *rates, size_t n, size_t k,
				  size_t j);
/* Is a lag-1 autocorrelation of n samples significant (beyond three
 * standard errors of white noise, 3/sqrt(n))?  The one rule: batch means
 * use it, reports say it.  0 for NAN. */
int stats_lag1_significant(double lag1, size_t n);

/* ---- how counters move together (stats/correlations.c) ---- */
/* Correlations of the counters are computed over the intervals (not a
 * region's batch means): for each pair of counters that vary, Pearson's
 * r over the intervals in which both were counted, with those intervals'
 * own means and spreads, so |r| <= 1 whatever multiplexing left out.  A
 * pair counted together in fewer than STATS_CORR_MIN_SHARED intervals
 * (or constant over them) is not compared. */
#define STATS_CORR_MIN_SHARED 10u
/* The correlation matrix of the counters that vary over their counted
 * intervals (idx[0..m) are their indices; NAN where a pair is not
 * compared), and, when every pair was compared, the cumulative variance
 * share of its top principal components (at most 3). */
struct stats_correlations {
	size_t m, n_share;
	size_t n_pairs, n_uncompared;   /* pairs of varying counters */
	size_t *idx;
	double *c;          /* m*m */
	double share[3];    /* percent */
};
void stats_correlations_release(struct stats_correlations *cr);
/* Pearson's r of each pair of observation obs's counters events[0..k)
 * that vary, over the intervals where both were counted (at least 10;
 * NAN otherwise), and when every pair was compared the variance share
 * of the top principal components. */
int stats_correlations(struct stats_correlations *cr,
		       const struct stats_dataset *d, size_t obs,
		       const char *const *events, size_t k, struct cp_error *err);

#endif
