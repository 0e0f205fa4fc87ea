/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/stats_int.h: what the stats files share (not public; the names
 * carry the stats_ prefix for `make check-symbols`). */
#ifndef CP_STATS_INT_H
#define CP_STATS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "stats/region.h"

/* The floor of the long-run quantiles' degrees of freedom (longrun.c). */
#define HAC_MIN_DOF 7.0
/* The split-half PCA box is used when its per-axis half-width quantile
 * is at most this factor above the full sample's, and its first half
 * has more than k/2 samples (stats/longrun.c); measured on simulator
 * sweeps (docs/method/statistics.md, section 8). */
#define SPLIT_MAX_PENALTY 1.25
/* The split box's axes are found in blocks of counters correlated at
 * least this much (stats/longrun.c, split_blocks); measured on simulator
 * sweeps (docs/method/statistics.md, section 8): 0.6 beat 0.3, 0.8 and
 * no blocks at 100 and 200 intervals. */
#define SPLIT_BLOCK_CORR 0.6
/* Otherwise (a short run) the frame is the counters, save blocks of
 * counters whose first-half correlations reach this, directly or through
 * others: near-identities, which even five samples show and noise
 * rarely mimics (stats/longrun.c, block_axes). */
#define SHORT_BLOCK_CORR 0.99
/* ... and only when the first half has at least this many samples (two
 * samples correlate perfectly whatever the counters, four reach 0.99 by
 * chance in one independent pair of a hundred, five in one of a
 * thousand). */
#define SHORT_BLOCK_MIN_SAMPLES 5
/* The level of the test for a counter whose spread differs between the
 * split box's halves (stats_halves_differ): beyond it, the box's widths
 * may not fall below the whole sample's along the same axes. */
#define SPLIT_STATIONARY_ALPHA 0.01
/* ... on the axes where such counters carry at least this share of the
 * variance (by the diagonal terms): below it, even a whole miss of
 * their spread moves a width by under half a per cent. */
#define SPLIT_UNSTEADY_SHARE 0.01
int stats_halves_differ(double va, double vb, double nua, double nub, size_t k);

int stats_conf_ok(double c);
double stats_quantile_for(double confidence, size_t k, size_t n,
			  enum region_rule rule, double q1);
/* The lag-1 autocorrelation of every counter of x (n x k) into out[k]
 * (stats_lag1_autocorrelation's, in one pass over the rows). */
int stats_lag1_all(const double *x, size_t n, size_t k, double *out);
/* The largest of |lag1[0..k)|, NANs skipped (NAN when every one is). */
double stats_lag1_worst(const double *lag1, size_t k);
/* *worst = the largest |lag-1 autocorrelation| of x's counters (NAN
 * when none has one). */
int stats_max_lag1(const double *x, size_t n, size_t k, double *worst);
int stats_hac_bandwidth(const double *rates, size_t n, size_t k, size_t *L);
/* Sums over rows [lo, hi) of x (n x k), row by row, each counter's or
 * pair's sum over the rows in ascending order (the same sums as one
 * column at a time, without walking the matrix once per column):
 * stats_col_sums: sum[j] of the counted values, cnt[j] how many;
 * stats_cross_sums: acc[j k + l] (l >= j) of the centred products
 * (x_j - mu_j)(x_l - mu_l) over the rows where both were counted,
 * cnt[j k + l] how many.  d: k scratch. */
void stats_col_sums(const double *x, size_t lo, size_t hi, size_t k, double *sum,
		    size_t *cnt);
void stats_cross_sums(const double *x, size_t lo, size_t hi, size_t k,
		      const double *mu, double *acc, size_t *cnt, double *d);
double stats_hac_dof(size_t n, size_t L);
double stats_prewhite_dof(double nu_hac, double rho, size_t n);
double stats_max_of(const double *a, size_t k);
int stats_block_cov(const double *x, size_t lo, size_t hi, size_t k,
		    size_t L, double *mu, double *S);
int stats_split_pca_box(struct region *r, const double *x, size_t m, size_t k,
			 size_t L, const double *rho, const size_t *njl,
			 const double *floor_, const double *cfull,
			 int per_interval, double conf, struct cp_error *err);

/* ---- the long CSV's text (csv.c) ---- */
/* A field: [p, p + len) after trimming and unquoting. */
struct stats_field {
	const char *p;
	size_t len;
};
/* Split the line [p, end) (no newline) into fields: separated by commas;
 * spaces and tabs around a field (outside its quotes) trimmed; a field
 * may be double-quoted, "" standing for a quote, its text unescaped into
 * scratch (end - p bytes suffice).  Returns the number of fields (at most
 * max stored), or a negative STATS_CSV_* (stats_csv_why says it). */
enum { STATS_CSV_UNTERMINATED = -1, STATS_CSV_AFTER_QUOTE = -2 };
long stats_csv_split(const char *p, const char *end, struct stats_field *f,
		     size_t max, char *scratch);
const char *stats_csv_why(long rc);

enum {
	STATS_NUM_OK = 0,
	STATS_NUM_SYNTAX,      /* not in the notation */
	STATS_NUM_HEX,         /* 0x...: decimal only */
	STATS_NUM_NEGATIVE,    /* a negative number */
	STATS_NUM_ABOVE_2_53,  /* a count above 2^53 */
	STATS_NUM_ABOVE_2_64,  /* not below 2^64 */
	STATS_NUM_NOMEM,
};
/* A non-negative decimal integer below 2^64 (digits only). */
int stats_csv_u64(const char *p, size_t len, uint64_t *out);
/* A count: DIGITS[.DIGITS][(e|E)[+|-]DIGITS] (a leading '-' is
 * STATS_NUM_NEGATIVE unless the number is zero), at most 2^53, into *out
 * correctly rounded (exactly for integers). */
int stats_csv_count(const char *p, size_t len, double *out);

/* stats/dataset.c: the loader with every choice open, for the tests:
 * text in memory (len bytes), or the file called name when text is NULL,
 * on up to `threads` threads (0: one per CPU) with ranges of at least
 * min_range bytes (0: the loader's own minimum; tests lower it to cut
 * small files). */
int stats_dataset_read(const char *name, const char *text, size_t len,
		       size_t threads, size_t min_range,
		       struct stats_dataset **out, struct cp_buf *diag,
		       struct cp_error *err);

/* Which observations a load keeps: keep(arg, name, len) is 1 for a name
 * kept, 0 for one left out (its rows read as blank lines, so every line
 * keeps its number), -1 for a name not known (an error). */
struct stats_run {
	uint64_t from, to;    /* the lines that start in [from, to) */
	unsigned line;        /* the first one's number */
};
struct stats_only {
	int (*keep)(const void *arg, const char *name, size_t len);
	const void *arg;
	/* the runs of lines that may hold their rows, in order, shared out
	 * to threads by their bytes (n_run 0: every line from `from` to
	 * `to`) */
	const struct stats_run *run;
	size_t n_run;
};
/* The observation of a row whose first column is the observation: 1 and
 * its length (the bytes before the first comma) when it is plain (not
 * quoted, no blank at either end: what the loader reads as it is), 0 for
 * a blank line, -1 otherwise. */
int stats_row_observation(const char *p, const char *eol, size_t *len);

/* stats/dataset.c: a part of a file, its rows only (the file's header
 * line apart, in head): the lines of text[from, to) (fd -1), or those
 * that start in [from, to) of the regular file fd, read in blocks; its
 * first row at line skip + 2, the events of seed (may be NULL) first, the
 * rows of the observations only keeps (NULL: every row). */
/* Why a file read again, or in parts, gave fewer bytes than it had. */
#define STATS_SHORTER "it is shorter than when it was opened (another program changed it)"

int stats_dataset_read_part(const char *name, const char *head, size_t head_len,
			    int fd, const char *text, uint64_t from, uint64_t to,
			    size_t threads, unsigned skip,
			    const struct stats_dataset *seed,
			    const struct stats_only *only,
			    struct stats_dataset **out, struct cp_buf *diag,
			    struct cp_error *err);

/* stats/correlations.c: stats_correlations of the n x k rates x. */
struct stats_correlations;
int stats_correlations_rates(struct stats_correlations *cr, const double *x,
			     size_t n, size_t k, struct cp_error *err);

/* stats/observation.c: stats_observation_rates (rates not NULL) and
 * stats_observation_resolution (res not NULL) in one pass. */
struct stats_dataset;
int stats_observation_read(const struct stats_dataset *d, size_t obs,
			   const char *const *events, size_t k,
			   double **rates, size_t *n, double *res,
			   struct cp_error *err);
/* A perf stat -r summary's k mean rates, their standard errors (the
 * rate times se_pct / 100) and resolutions (one count in the mean
 * running time), for the events named (errors as for rates). */
int stats_observation_summary(const struct stats_dataset *d, size_t obs,
			      const char *const *events, size_t k, double *mu,
			      double *se, double *res, struct cp_error *err);

#endif
