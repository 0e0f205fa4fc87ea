/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/perfstat.h: import `perf stat` output into counterpoint's long
 * dataset format (observation,interval,event,value,enabled_ns,running_ns
 * and, for a `perf stat -r N` summary, runs,se_pct).
 *
 * Every variant perf writes is read, detected from the text: CSV (`-x
 * SEP`, any separator, the layouts of old and new perf), JSON lines (`-j`)
 * and the human-readable default output (thousands separators of any
 * locale, `(NN.NN%)` running shares, `( +- x% )` deviations), with `-I`
 * or without (the whole run is one interval), per CPU, thread, core,
 * die, socket, node or cgroup (rows summed: a sum of vectors of a cone
 * stays in it).  Metric-only lines and objects are skipped and counted;
 * `-I --summary` rows are checked against the sum of the intervals;
 * lines that are not perf's (program output, harness headers) are
 * skipped and counted, or refused under HEC_PERFSTAT_STRICT; a line
 * shaped like perf's that does not parse is an error, "name:line:".
 *
 * perf prints scaled counts (value*enabled/running) and the running
 * percentage; the importer turns them back into a raw value and
 * enabled/running times whose ratio reproduces perf's estimate exactly.
 * The human-readable output has no run times: an interval's length (the
 * -I stamps, or a run's "seconds time elapsed") is its enabled time.
 * hw/ depends only on libc and libpfm4.
 *
 * Ownership: the report is the caller's (hec_perfstat_report_init /
 * _release); the inputs are read, never kept. */
#ifndef COUNTERPOINT_PERFSTAT_H
#define COUNTERPOINT_PERFSTAT_H

#include <stddef.h>

#include "common/cp.h"

/* One input: a file's text and the observation it becomes. */
struct hec_perfstat_input {
	const char *name;         /* in messages: "name:line: message" */
	const char *text;
	size_t len;
	const char *observation;
};

enum {
	HEC_PERFSTAT_HEADER = 1u << 0,          /* start with the header line */
	/* drop perf's event modifiers from event names (page-faults:u ->
	 * page-faults, cpu/event=0x8/u -> cpu/event=0x8/), as record
	 * --user-only names its events */
	HEC_PERFSTAT_STRIP_MODIFIERS = 1u << 1,
	/* lines that are not perf's are errors, not skipped */
	HEC_PERFSTAT_STRICT = 1u << 2,
	/* every run (each input, or each run block of an input that holds
	 * several) is one interval of one observation: its counts summed
	 * over its -I intervals; every run must hold the same events */
	HEC_PERFSTAT_RUNS_AS_INTERVALS = 1u << 3,
};

struct hec_perfstat_options {
	unsigned flags;           /* HEC_PERFSTAT_* */
	const char *sep;          /* perf stat -x SEP; NULL: detected */
	/* perf stat -r N where the output does not say N (CSV and JSON do
	 * not; the human-readable header does): with it a -r total keeps
	 * perf's deviation (runs,se_pct columns); 0: unknown */
	unsigned runs;
	/* the columns of the dataset the rows join (import --append), in its
	 * order; NULL: the six of the format, and runs,se_pct when a row has
	 * them */
	const char *const *columns;
	size_t ncolumns;
};

/* What an import found, for the caller to report. */
struct hec_perfstat_report {
	size_t intervals, events, rows;
	size_t not_counted;       /* rows written with running_ns = 0 */
	unsigned runs;            /* rows are a perf stat -r summary of this
				   * many runs (runs,se_pct); 0: intervals */
	/* events that were <not supported> in every interval,
	 * comma-separated (truncated if long) */
	char unsupported[512];
	/* one line per input: the variant read ("perf stat -x; -I, 4
	 * events, 38 intervals") and what was skipped, with counts */
	struct cp_buf note;
	/* every bad line, "name:line: message\n", in input and line order */
	struct cp_buf diag;
};
void hec_perfstat_report_init(struct hec_perfstat_report *r);
void hec_perfstat_report_release(struct hec_perfstat_report *r);

/* Convert n inputs to long-format rows appended to out.  Without
 * HEC_PERFSTAT_RUNS_AS_INTERVALS each input is its own observation and
 * holds one run; with it they all name one observation.  opt may be
 * NULL; report may be NULL.  Errors: the first bad line in err (msg),
 * further ones in err->detail as far as they fit (report->diag has them
 * all); nothing is appended then. */
int hec_perfstat_convert(const struct hec_perfstat_input *in, size_t n,
			 const struct hec_perfstat_options *opt,
			 struct cp_buf *out, struct hec_perfstat_report *report,
			 struct cp_error *err);

/* Read the file at path ("-": standard input) into text. */
int hec_perfstat_read(const char *path, struct cp_buf *text,
		      struct cp_error *err);

#endif
