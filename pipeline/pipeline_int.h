/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pipeline/pipeline_int.h: what the pipeline's files share (not public). */
#ifndef CP_PIPELINE_INT_H
#define CP_PIPELINE_INT_H

#include "pipeline/pipeline.h"

/* How pd's regions are built, and the events of its k counters. */
const struct region_options *pipe_data_region_options(const struct pipe_data *pd);
const char *const *pipe_data_events(const struct pipe_data *pd);

/* Check n queries against pm's solver model (made), into r: on threads
 * through feas_check_batch (fresh: in one of its threads, from a fresh
 * LP), or in turn on pm's own LP where the batch cannot settle a
 * borderline verdict exactly, counting such verdicts in *inexact. */
int pipe_check_queries(struct pipe_model *pm, const struct feas_query *q, size_t n,
		       unsigned flags, size_t threads, int fresh, struct feas_result *r,
		       size_t *inexact, void (*progress)(void *, size_t, size_t),
		       void *progress_ctx, struct cp_error *err);

/* Is row (width counts) among the n sorted rows of that width?  Rows
 * out of order only make a miss. */
int pipe_row_find(const uint32_t *row, const uint32_t *rows, size_t n, size_t width);

#endif
