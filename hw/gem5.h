/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/gem5.h: import gem5's statistics (stats.txt) into counterpoint's long
 * dataset format (observation,interval,event,value,enabled_ns,running_ns).
 *
 * Each dump, the lines between `Begin Simulation Statistics` and `End
 * Simulation Statistics`, is one interval; each `name value [pdf%
 * [cdf%]] [# description] [(unit)]` line is one statistic, vectors and
 * distributions by the names gem5 gives their elements (`::total`,
 * `::samples`, `::0-1`); the percent columns are read and dropped.  The
 * interval lasts the dump's ticks (sim_ticks/simTicks, or the difference
 * of running totals) at sim_freq/simFreq ticks per second; a statistic
 * missing from a dump is not counted there (running_ns = 0).
 *
 * Dumps are deltas when gem5 reset the statistics at each dump and
 * running totals when it did not; final_tick/finalTick - sim_ticks is
 * where a dump's counting began, which tells them apart (or
 * HEC_GEM5_DUMPS_* says which).  Running totals are differenced.
 *
 * What is an event: with no selection, every statistic whose values are
 * all integers (counts); a statistic with a fraction, nan or inf in some
 * dump, or whose unit is a rate, ratio or level ("(Byte/Second)",
 * "(bytes/s)", "(Ratio)", "(Volt)"), is left out (counted in the
 * summary).  A selection (globs) keeps exactly the statistics it matches,
 * and each of them must hold integers.  Either way a negative integer (an
 * overflowed counter) or one beyond 2^53 is an error at its line.
 * hw/ depends only on libc and libpfm4. */
#ifndef COUNTERPOINT_GEM5_H
#define COUNTERPOINT_GEM5_H

#include <stddef.h>

#include "common/cp.h"

/* How consecutive dumps relate. */
enum hec_gem5_dumps {
	HEC_GEM5_DUMPS_AUTO = 0,    /* from the tick counters, dump by dump */
	HEC_GEM5_DUMPS_DELTA,       /* statistics reset at every dump */
	HEC_GEM5_DUMPS_CUMULATIVE,  /* never reset: running totals */
};

struct hec_gem5_options {
	const char *observation;    /* the dataset's observation column */
	const char *events;         /* "GLOB,GLOB..." (fnmatch, case
				     * sensitive); NULL: every count */
	enum hec_gem5_dumps dumps;
	int header;                 /* start with the dataset's header line */
	struct cp_buf *messages;    /* not NULL: on CP_EINPUT every message
				     * ("name:line: message\n", line order),
				     * where err holds only the first ones */
};

/* What an import found, for the caller to report. */
struct hec_gem5_summary {
	size_t dumps;               /* intervals written */
	size_t deltas, totals;      /* dumps after the first read as deltas
				     * and as running totals (differenced) */
	size_t statistics;          /* distinct statistic names */
	size_t events;              /* kept: the dataset's events */
	size_t not_counts;          /* left out: a fraction, nan or inf, or
				     * a rate by its unit */
	size_t not_totals;          /* left out: decreases between running
				     * totals */
	size_t one_line;            /* left out: one-line vectors, whose
				     * elements stats.txt leaves unnamed */
	size_t rows, not_counted;   /* rows written; of them running_ns = 0 */
	size_t missing;             /* kept events not counted in some dump
				     * (missing there, or in the dump
				     * before when that one is differenced) */
	size_t short_dumps;         /* dumps shorter than 1 ns (not counted) */
};

/* Convert text (a stats.txt) to long-format rows appended to out.  name
 * is used in messages ("name:line: message"; the first bad line in
 * err->msg, the others in err->detail, in line order).  summary may be
 * NULL.  On an error nothing is appended. */
int hec_gem5_convert(const char *name, const char *text, size_t len,
		     const struct hec_gem5_options *opt, struct cp_buf *out,
		     struct hec_gem5_summary *summary, struct cp_error *err);
/* The same, reading the file at path. */
int hec_gem5_import(const char *path, const struct hec_gem5_options *opt,
		    struct cp_buf *out, struct hec_gem5_summary *summary,
		    struct cp_error *err);

#endif
