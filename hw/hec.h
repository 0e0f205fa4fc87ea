/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/hec.h: hardware event counters from real machines.  Event names are
 * resolved through libpfm4 (vendor, libpfm and perf names, raw codes);
 * `hec_record` runs a command under perf_event_open and appends its counts
 * to a long-CSV dataset, one row per event per interval.
 *
 * Ownership: hec_eventlist_new() returns a list the caller frees with
 * hec_eventlist_free() (NULL is a no-op).  Strings returned by accessors
 * belong to the list.  Functions return 0 or a negative CP_E* code and
 * fill the caller's struct cp_error; nothing here prints.  libpfm4 keeps
 * process-wide tables: hec_init() initialises them once (thread-safe after
 * the first call returns). */
#ifndef COUNTERPOINT_HEC_H
#define COUNTERPOINT_HEC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/cp.h"

/* ---- the machine ---- */

/* Initialise libpfm4 (idempotent).  CP_EUNSUPPORTED when it fails. */
int hec_init(struct cp_error *err);
/* 1 when the kernel exposes a hardware PMU (a hardware event can be
 * opened, or libpfm4 sees an active core PMU), 0 when not. */
int hec_machine_has_hw_pmu(void);
/* /proc/sys/kernel/perf_event_paranoid, or INT32_MIN when unreadable. */
int hec_perf_paranoid(void);
/* 1 when this process may count user space (a user-only software event
 * opens), 0 when the kernel refuses it permission, -1 when unknown. */
int hec_user_only_allowed(void);

/* The one message for machines without a hardware PMU. */
#define HEC_NO_PMU_MSG "this machine exposes no hardware counters " \
	"(virtual machine?): only software events can be recorded"

/* ---- one event name ---- */

enum {
	HEC_USER_ONLY = 1u << 0  /* count user space only (exclude_kernel) */
};

/* How an event name is opened: the perf_event_attr fields that matter. */
struct hec_encoding {
	uint32_t type;              /* PERF_TYPE_* or a dynamic PMU type */
	uint64_t config, config1, config2;
	unsigned exclude_kernel : 1, exclude_user : 1, exclude_hv : 1;
	unsigned hardware : 1;      /* needs a hardware PMU */
	char pmu[32];               /* libpfm4 PMU ("perf", "hsw"); "" if none */
	unsigned pmu_counters;      /* that PMU's generic + fixed counters, 0 unknown */
	char canonical[256];        /* libpfm4's fully qualified name */
};

/* Resolve one event name: libpfm4 names with or without a `pmu::` prefix
 * and modifiers (`DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK:u`), vendor dotted
 * names (`DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK`, mapped to libpfm's colon
 * form), raw codes (`r108`), perf's generic names (`page-faults`,
 * `instructions`) and perf's PMU syntax (`cpu/event=0x08,umask=0x01/`,
 * hec_pmu_terms_encode).  Errors: CP_EINPUT for an unknown name (with close
 * matches), CP_EUNSUPPORTED for a hardware event this machine cannot
 * count (HEC_NO_PMU_MSG when it has no hardware PMU at all). */
int hec_event_encode(const char *name, unsigned flags,
		     struct hec_encoding *out, struct cp_error *err);

/* One event that goes by several names (a model's counter: its event and
 * its aliases), resolved for pmu (a libpfm4 PMU name; NULL: this
 * machine's): the first name that encodes, *chosen its index.  A name
 * without a "pmu::" prefix is tried on pmu first, and with pmu given it
 * must not resolve to another processor's event ("'X' is unknown to
 * libpfm4 for PMU hsw (near: ...); libpfm4 has it for skl").  A raw code
 * or PMU terms after other names stands in for them only if each of those
 * libpfm4 knows for that processor has the code's event select, and none
 * is known only for other processors (then the counter is theirs:
 * CP_EUNSUPPORTED).  On a machine without any PMU the first name's reason
 * stands.  When a later name is used, note says why ("for 'X', which
 * libpfm4 does not encode for PMU hsw").  Errors: the first name's,
 * with the last alias's reason. */
int hec_event_encode_any(const char *const *names, size_t n, const char *pmu,
			 unsigned flags, struct hec_encoding *out, size_t *chosen,
			 char *note, size_t note_size, struct cp_error *err);

/* libpfm4's PMU pmu: 1 on this machine, 0 known but not here, -1 unknown. */
int hec_pmu_status(const char *pmu);
/* This machine's core PMU as libpfm4 names it ("skl"), or NULL. */
const char *hec_machine_core_pmu(void);
/* May events be encoded for pmu here?  Yes when it is this machine's, or
 * when LIBPFM_ENCODE_INACTIVE is set (for --dry-run); else CP_EUNSUPPORTED
 * naming this machine's PMU (or its lack of one), CP_EINPUT for a name
 * libpfm4 does not know. */
int hec_pmu_check(const char *pmu, struct cp_error *err);

/* perf's PMU syntax, "pmu/term=value,.../modifiers" (cpu/event=0x08,
 * umask=0x01/u, msr/tsc/), encoded from sysfs as perf does: the PMU's
 * type, the bits its format/ files give each term (config=, config1=,
 * config2= set those fields whole), its events/ aliases; modifiers u
 * (user space only) and k (kernel only).  hec_event_encode calls it for
 * every name with a '/'. */
int hec_pmu_terms_encode(const char *name, unsigned flags,
			 struct hec_encoding *out, struct cp_error *err);

/* Whether `name`, an event as perf printed it (a dataset's), is the
 * event `want` (a model's counter names it): the same name in any case
 * (perf prints names as typed: dtlb_load_misses.walk_completed), with
 * perf's modifiers that want does not give (page-faults:u, cpu/.../u),
 * or want inside a PMU's slashes (cpu/dtlb_load_misses.walk_completed/);
 * raw codes and PMU terms compare by value (r0108 is r108, and
 * cpu/umask=0x1,event=0x08/ is cpu/event=0x8,umask=0x01/). */
int hec_event_name_matches(const char *name, const char *want);
/* The length of an event name without perf's modifiers (page-faults:u,
 * r108:uk, cpu/event=0x8/u); a tracepoint's "sched:sched_switch" keeps
 * its colon. */
size_t hec_event_name_base(const char *name);

/* Up to max close matches of an unknown name (edit distance over the
 * software names and libpfm4's event tables), written to buf as
 * "'a', 'b' or 'c'"; returns how many were found. */
size_t hec_event_suggest(const char *name, size_t max, char *buf,
			 size_t size);

/* ---- what a machine can count ---- */

struct hec_event_desc {
	const char *name;     /* as record accepts it: "page-faults",
			       * "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK",
			       * "hsw::..." for a PMU not on this machine */
	int hardware;         /* needs a hardware PMU */
	int present;          /* this machine can count it */
	const char *pmu;      /* libpfm4 PMU name */
	const char *desc;     /* one line */
};
/* Call fn for every software event and every event (and event.umask) of
 * this machine's PMUs; with all, also for the PMUs libpfm4 knows that are
 * not on this machine.  Stops when fn returns non-zero and returns that
 * value. */
typedef int (*hec_event_fn)(void *ctx, const struct hec_event_desc *d);
int hec_events_each(int all, hec_event_fn fn, void *ctx, struct cp_error *err);

/* ---- event lists: "a,{b,c},d" (braces make a group) ---- */
struct hec_eventlist;

struct hec_eventlist *hec_eventlist_new(void);
void hec_eventlist_free(struct hec_eventlist *l);
/* Append the events of spec; each brace pair is one group, every other
 * event its own group; commas between the slashes of perf's PMU syntax
 * (cpu/event=0x08,umask=0x01/) belong to the name.  CP_EINPUT for
 * unbalanced braces or slashes, empty names or an event named twice. */
int hec_eventlist_parse(struct hec_eventlist *l, const char *spec,
			struct cp_error *err);
/* Append one event that goes by n names (hec_event_encode_any picks the
 * one to open), in a group of its own; label names it in errors
 * ("model.udd: counter 'load.walk_done_1g'"; NULL: none).  CP_EINPUT for
 * an empty name or a name already in the list. */
int hec_eventlist_add(struct hec_eventlist *l, const char *const *names,
		      size_t n, const char *label, struct cp_error *err);
/* After hec_eventlist_encode: make the n events from first (each in a
 * group of its own, at the end of the list) one group when their hardware
 * events fit one PMU's counters (all software events always fit), so they
 * are read at the same instant.  1 when grouped, 0 when left apart. */
int hec_eventlist_group_if_fits(struct hec_eventlist *l, size_t first,
				size_t n);
/* Resolve names without a "pmu::" prefix on this PMU first (e.g. "hsw",
 * with LIBPFM_ENCODE_INACTIVE=1 to encode for a processor this machine is
 * not); names that PMU does not know resolve as usual.  NULL: no default. */
int hec_eventlist_set_pmu(struct hec_eventlist *l, const char *pmu);
/* Encode every event (flags as for hec_event_encode) and check that no
 * group holds more hardware events than its PMU has counters. */
int hec_eventlist_encode(struct hec_eventlist *l, unsigned flags,
			 struct cp_error *err);
size_t hec_eventlist_size(const struct hec_eventlist *l);
/* The name as given (after hec_eventlist_encode: the one it opens): the
 * dataset's `event` column. */
const char *hec_eventlist_name(const struct hec_eventlist *l, size_t i);
/* After hec_eventlist_encode: why event i opens a name other than its
 * first (hec_event_encode_any's note), or "". */
const char *hec_eventlist_note(const struct hec_eventlist *l, size_t i);
/* Group index of event i (groups are numbered from 0 in order). */
size_t hec_eventlist_group(const struct hec_eventlist *l, size_t i);
size_t hec_eventlist_n_groups(const struct hec_eventlist *l);
/* After hec_eventlist_encode: event i's encoding. */
const struct hec_encoding *hec_eventlist_encoding(const struct hec_eventlist *l,
						  size_t i);

/* ---- error messages (exposed so tests can feed them any errno) ---- */

/* Where an event was opened: the recorded command, a running process
 * attached to (-p: id is its thread), or a whole CPU (-a, -C: id). */
enum { HEC_TARGET_COMMAND, HEC_TARGET_PROCESS, HEC_TARGET_CPU };
struct hec_open_target {
	int kind;
	int id;
};

/* Explain why perf_event_open failed for event `name` (encoded as enc)
 * on `where` (NULL: the command) with errno errnum: permission (with the
 * perf_event_paranoid value and what its levels allow, user_only_ok as
 * hec_user_only_allowed() says, CAP_PERFMON, and what to do; counting a
 * CPU and attaching to another user's process have their own rules), no
 * hardware PMU, no such process, too many events in a group of
 * group_size, the PMU's counters taken, or the system's own words.
 * Returns the CP_E* code. */
int hec_open_error(struct cp_error *err, const char *name,
		   const struct hec_encoding *enc, int errnum, int paranoid,
		   int user_only_ok, int has_hw_pmu, size_t group_size,
		   const struct hec_open_target *where);

/* ---- recording ---- */

struct hec_record_opts {
	const char *observation;   /* the dataset's observation column */
	unsigned interval_ms;      /* read every interval_ms (>= 1) */
	int out_fd;                /* dataset rows go here (one write per interval) */
	int write_header;          /* start with the CSV header line */
	int stdout_to_stderr;      /* the command's stdout goes to our stderr */
	volatile sig_atomic_t *stop; /* non-zero: forward that signal to the
				      * command and finish; without a
				      * command, finish (may be NULL) */
	const pid_t *pids;         /* attach to these running processes
				    * (every thread; those they start count
				    * too) instead of the command ... */
	size_t n_pids;
	const int *cpus;           /* ... or count these CPUs whole (every
				    * process; wins over pids) */
	size_t n_cpus;
	/* called after each interval's rows are written, with how many
	 * intervals are (may be NULL; it may change out_fd); an error stops
	 * the recording */
	int (*written)(void *arg, size_t intervals, struct cp_error *err);
	void *written_arg;
};

struct hec_record_result {
	int exited;         /* the command exited: status is its exit code */
	int status;
	int signaled;       /* the command was killed: signal is the number */
	int signal;
	size_t intervals;   /* intervals written */
	uint64_t elapsed_ns;
};

/* Run argv (argv[0] looked up in PATH) with every event of l (encoded)
 * opened on it: counting mode, enable_on_exec, inherit (threads and
 * children count), groups read together.  With o->pids or o->cpus the
 * events are opened on those instead, once per thread or CPU, all started
 * together, and each row sums them (counts, enabled and running times, as
 * perf stat's aggregate); the recording then lasts while argv runs, or
 * without argv (NULL or empty) until the processes exit or *o->stop is
 * set (never ending them).  Writes one row per event per
 * interval (raw deltas of value, enabled and running time) to out_fd,
 * each interval in one write, so a killed command leaves a valid dataset
 * up to its last interval.  Intervals in which no event was enabled are
 * not written.  Errors: CP_EINPUT when the command cannot be executed,
 * the hec_open_error codes when an event cannot be opened, CP_EIO when
 * the dataset cannot be written. */
int hec_record(const struct hec_eventlist *l, const char *const argv[],
	       const struct hec_record_opts *o, struct hec_record_result *res,
	       struct cp_error *err);

/* CPUs as perf's -C takes them ("0,2-3"; NULL: every online CPU, as -a
 * counts), into a new array (cp_free) of *n numbers.  CP_EINPUT for a
 * malformed list or a CPU that is not online. */
int hec_cpus_parse(const char *spec, int **cpus, size_t *n,
		   struct cp_error *err);

/* ---- microbenchmarks to record (counterpoint bench-workload) ---- */

enum { HEC_WORKLOAD_LINEAR = 0, HEC_WORKLOAD_RANDOM = 1 };

struct hec_workload {
	int kind;              /* HEC_WORKLOAD_LINEAR or _RANDOM */
	size_t footprint;      /* bytes touched */
	size_t stride;         /* linear: bytes between accesses (multiple of 8) */
	int descending;        /* linear: walk downwards */
	double store_ratio;    /* fraction of accesses that are stores, [0, 1] */
	uint64_t accesses;     /* how many accesses to time */
	unsigned page_kb;      /* 4, 2048 or 1048576 (hugetlb for the last two) */
	uint64_t seed;         /* random: the address sequence's seed */
};

struct hec_workload_result {
	double seconds;        /* the timed accesses only */
	uint64_t loads, stores;
	size_t bytes;          /* mapped (footprint rounded up to pages) */
	uint64_t checksum;     /* sum of the loaded values (keeps loads alive) */
};

/* Map the footprint (every page touched before timing), run the accesses,
 * unmap.  CP_EUNSUPPORTED with the reason and the fix when the asked page
 * size is not available (no such pages, or none reserved). */
int hec_workload_run(const struct hec_workload *w,
		     struct hec_workload_result *res, struct cp_error *err);

#endif
