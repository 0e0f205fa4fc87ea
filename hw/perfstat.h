/* hw/perfstat.h: import `perf stat` output (CSV from -x, or JSON lines
 * from -j) into counterpoint's long dataset format
 * (observation,interval,event,value,enabled_ns,running_ns).  With -I MS
 * each time stamp is an interval; without -I the whole run is one
 * interval (with -r N, perf's means over the runs).  -r's variance column
 * is read and dropped.
 *
 * perf prints scaled per-interval counts (value*enabled/running) and the
 * running percentage; the importer turns them back into a raw value and
 * enabled/running times whose ratio reproduces perf's estimate exactly.
 * Per-CPU (-A), per-thread (--per-thread) and per-socket/die/core/node
 * rows are summed into one row per interval and event.  `<not counted>`
 * and `<not supported>` become rows with running_ns = 0 (not counted).
 * Units: msec (task-clock, cpu-clock) is converted to ns, the event's
 * raw unit.  hw/ depends only on libc and libpfm4. */
#ifndef COUNTERPOINT_PERFSTAT_H
#define COUNTERPOINT_PERFSTAT_H

#include <stddef.h>

#include "common/cp.h"

/* What an import found, for the caller to report. */
struct hec_perfstat_summary {
	size_t intervals, events, rows;
	size_t not_counted;      /* rows written with running_ns = 0 */
	/* events that were <not supported> in every interval,
	 * comma-separated (truncated if long) */
	char unsupported[512];
};

enum {
	HEC_PERFSTAT_HEADER = 1u << 0,          /* start with the header line */
	/* drop perf's event modifiers from event names (page-faults:u ->
	 * page-faults, cpu/event=0x8/u -> cpu/event=0x8/), as record
	 * --user-only names its events */
	HEC_PERFSTAT_STRIP_MODIFIERS = 1u << 1,
};

/* Convert text (perf stat output, CSV or JSON detected from the first
 * data line) to long-format rows for observation, appended to out; flags
 * are HEC_PERFSTAT_*.  name is used in messages ("name:line: message";
 * the first bad line in err->msg, further ones in err->detail).  summary
 * may be NULL. */
int hec_perfstat_convert(const char *name, const char *text, size_t len,
			 const char *observation, unsigned flags,
			 struct cp_buf *out,
			 struct hec_perfstat_summary *summary,
			 struct cp_error *err);
/* The same, reading the file at path. */
int hec_perfstat_import(const char *path, const char *observation,
			unsigned flags, struct cp_buf *out,
			struct hec_perfstat_summary *summary,
			struct cp_error *err);

#endif
