/* SPDX-License-Identifier: GPL-3.0-or-later */
/* capi/counterpoint.h: the library for callers that see only plain C
 * types (the Python binding, through ctypes): every argument is a
 * pointer to an opaque object, a string, a number or an array of
 * numbers, so a foreign-function caller mirrors no struct but cp_error
 * (whose size counterpoint_error_size() gives, to check the mirror).
 *
 * Ownership: objects come from the modules' own constructors
 * (udd_model_parse_file, stats_dataset_load/parse, udd_sigset_build,
 * cone_build, pipe_run) and go back to their _free; strings returned as
 * char ** are the caller's, freed with counterpoint_free. */
#ifndef COUNTERPOINT_CAPI_H
#define COUNTERPOINT_CAPI_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"
#include "dsl/udd.h"
#include "pipeline/pipeline.h"
#include "stats/region.h"

/* sizeof(struct cp_error). */
size_t counterpoint_error_size(void);
/* Free a string this layer returned (NULL is a no-op). */
void counterpoint_free(void *p);

/* A constraint a.x >= 0 (a.x = 0 when is_equality) over k named counters,
 * as people read it ("load.pde_miss <= load.causes_walk"); NULL when out
 * of memory. */
char *counterpoint_constraint_text(const int64_t *a, size_t k,
				   const char *const *names, int is_equality);

/* pipe_run_on with each option a plain value: shape 0 PCA box, 1
 * independent box, 2 ellipsoid; confidence 0 for 0.99; batches 0 auto,
 * 1 none, B >= 2 batches; counters NULL for every model counter. */
int counterpoint_check(const struct udd_model *m, const char *features,
		       const struct stats_dataset *d, int shape,
		       double confidence, size_t batches, int per_interval,
		       const char *counters, size_t threads,
		       struct pipe_run **out, struct cp_error *err);
/* Observation i's result: borderline (settled exactly), undecided
 * (borderline and its exact re-check could not run: the verdict is the
 * floating-point one, not proven), the ellipsoid's
 * squared distance and p-value (NAN for boxes), and per violated
 * constraint j its margin (in standard deviations), whether it is an
 * equality, and its pipe_data_n_counters coefficients. */
int counterpoint_run_borderline(const struct pipe_run *r, size_t i);
int counterpoint_run_undecided(const struct pipe_run *r, size_t i);
double counterpoint_run_d2(const struct pipe_run *r, size_t i);
double counterpoint_run_p_value(const struct pipe_run *r, size_t i);
double counterpoint_run_margin(const struct pipe_run *r, size_t i, size_t j);
int counterpoint_run_is_equality(const struct pipe_run *r, size_t i, size_t j);
const int64_t *counterpoint_run_coefficients(const struct pipe_run *r,
					     size_t i, size_t j);
/* Where the centre of observation i's region lies against violated
 * constraint j: a.mu / sd(a.x), in standard deviations. */
double counterpoint_run_mean_sd(const struct pipe_run *r, size_t i, size_t j);
size_t counterpoint_run_n_counters(const struct pipe_run *r);
const char *counterpoint_run_counter(const struct pipe_run *r, size_t c);

/* The confidence regions of the model's counters on d, every shape, as
 * check builds them (options as counterpoint_check's); *out is freed
 * with pipe_data_free, and read with pipe_data_n_observations,
 * pipe_data_n_counters, pipe_data_names, pipe_data_unusable and: */
int counterpoint_regions(const struct udd_model *m, const struct stats_dataset *d,
			 int shape, double confidence, size_t batches,
			 int per_interval, const char *counters, size_t threads,
			 struct pipe_data **out, struct cp_error *err);
/* Observation i's region, NULL when it has none (pipe_data_unusable
 * says why): which 0 the mean (k values), 1 the independent box's
 * half-widths (k), 2 the PCA box's half-widths (k, ascending), 3 its axes
 * (k x k, row i the axis of half-width i), 4 the covariance of the mean
 * (k x k, row-major). */
const double *counterpoint_region_array(const struct pipe_data *pd, size_t i,
					int which);
/* which 0 the samples used, 1 the ellipsoid's quantile q, 2 the region's
 * confidence, 3 1 under the diagonal rule (too few samples for the full
 * covariance), 4 1 when autocorrelated and short (it may be too small);
 * NAN when observation i has no region. */
double counterpoint_region_number(const struct pipe_data *pd, size_t i, int which);

/* `counterpoint explore` on a loaded model and dataset, with explore's
 * defaults (PCA box, confidence 0.99, 5 s of cone per model): start and
 * candidates are feature lists ("a,b"; candidates NULL: every feature),
 * exhaustive as --exhaustive (at most 16 candidates outside start),
 * max_models 0 for the default.  *json (freed with counterpoint_free) is the report of
 * `explore --json` (docs/manual/json.md). */
int counterpoint_explore(const struct udd_model *m,
			 const struct stats_dataset *d, const char *start,
			 const char *candidates, int exhaustive,
			 size_t max_models, size_t threads, char **json,
			 struct cp_error *err);

/* `counterpoint flows --with features` on a loaded model and dataset:
 * region shape and confidence as counterpoint_check's (0: 0.99), batches
 * as --batches (0: auto); model_name and data_name are the names the
 * report gives them.  *json (freed with counterpoint_free) is the report
 * of `flows --json` (docs/manual/json.md). */
int counterpoint_flows(const struct udd_model *m, const char *features,
		       const struct stats_dataset *d, int shape,
		       double confidence, size_t batches, size_t threads,
		       const char *model_name, const char *data_name,
		       char **json, struct cp_error *err);

#endif
