/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/sim/mmu.h: the bundled Haswell-like data-side MMU simulator.  Memory
 * μops traverse simulated structures (L1 DTLBs, STLB, paging-structure
 * caches, a page walker whose loads go through an L1/L2/L3 cache model,
 * walk MSHRs, a load/store-queue TLB prefetcher, wrong-path μops) and the
 * counters come out of that traversal, named as Haswell's events (or as
 * another processor's: struct mmu_cpu).
 *
 * Ownership: mmu_machine_new() / mmu_workload_new() return heap objects
 * that the caller frees with the matching _free() (NULL is a no-op).
 * struct mmu_config and struct mmu_run_opts live on the caller's stack
 * and are filled by the _default() functions.  No global mutable state:
 * several machines may run in parallel threads. */
#ifndef COUNTERPOINT_MMU_H
#define COUNTERPOINT_MMU_H

#include <stddef.h>
#include <stdint.h>

#include "common/cp.h"

/* ---- events: declared once (hw/sim/events.c), Haswell names ---- */
enum mmu_event {
	MMU_LOAD_CAUSES_WALK, MMU_LOAD_WALK_DONE_4K, MMU_LOAD_WALK_DONE_2M,
	MMU_LOAD_WALK_DONE_1G, MMU_LOAD_WALK_DONE, MMU_LOAD_STLB_HIT_4K,
	MMU_LOAD_STLB_HIT_2M, MMU_LOAD_STLB_HIT, MMU_LOAD_PDE_MISS,
	MMU_LOAD_WALK_DURATION,
	MMU_STORE_CAUSES_WALK, MMU_STORE_WALK_DONE_4K, MMU_STORE_WALK_DONE_2M,
	MMU_STORE_WALK_DONE_1G, MMU_STORE_WALK_DONE, MMU_STORE_STLB_HIT_4K,
	MMU_STORE_STLB_HIT_2M, MMU_STORE_STLB_HIT, MMU_STORE_PDE_MISS,
	MMU_STORE_WALK_DURATION,
	MMU_WALK_REF_L1, MMU_WALK_REF_L2, MMU_WALK_REF_L3, MMU_WALK_REF_MEM,
	MMU_RETIRED_LOADS, MMU_RETIRED_STORES, MMU_RETIRED_STLB_MISS_LOADS,
	MMU_RETIRED_STLB_MISS_STORES,
	MMU_N_EVENTS
};
/* The store events follow the load events at this distance. */
#define MMU_STORE_OFFSET (MMU_STORE_CAUSES_WALK - MMU_LOAD_CAUSES_WALK)

struct mmu_event_info {
	const char *event;  /* "DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK" */
	const char *name;   /* short name of docs/processors/haswell.md: "load.causes_walk" */
	const char *unit;   /* "walks", "loads", "cycles", ... */
	const char *desc;   /* what the simulator counts, one line */
};
/* Info of event e (< MMU_N_EVENTS). */
const struct mmu_event_info *mmu_event_info(enum mmu_event e);
/* Index of an event by Haswell name or short name; -1 if unknown. */
int mmu_event_find(const char *name);

/* ---- ground truth: the path each μop took, and the events on the way ----
 * Paths (each correct-path μop takes exactly one of dtlb_hit .. waited
 * and walk_bypassed; a wrong-path μop one of squashed, squashed_walk,
 * walk_aborted, aborted_queued) and extra events, per μop class. */
enum mmu_path {
	MMU_P_DTLB_HIT,      /* translated by an L1 DTLB */
	MMU_P_STLB_HIT,      /* missed the L1 DTLB, hit the STLB */
	MMU_P_WALK_1REF,     /* own walk, completed, n walker references */
	MMU_P_WALK_2REF, MMU_P_WALK_3REF, MMU_P_WALK_4REF,
	MMU_P_MERGED,        /* joined another request's walk, which completed */
	MMU_P_WAITED,        /* found no free walker, then hit the fill */
	MMU_P_SQUASHED,      /* wrong path, no own walk (never retires) */
	MMU_P_WALK_ABORTED,  /* wrong path: its walk started, then aborted */
	MMU_P_REPLAYED,      /* event: re-walked at retirement (replay) */
	MMU_P_PF_WALK,       /* event: prefetch walk it triggered completed */
	MMU_P_PF_ABSENT,     /* event: ... aborted at an absent entry */
	MMU_P_PF_DROPPED,    /* event: prefetch not needed or no free walker */
	MMU_P_WALK_BYPASSED, /* own walk, completed, >= 1 reference bypassed */
	MMU_P_ABORTED_QUEUED,/* wrong path: aborted waiting for a walker */
	MMU_P_PF_ABIT,       /* event: prefetch aborted at a clear accessed bit */
	MMU_P_MERGE_REWALK,  /* event: merged into a walk that aborted, walked */
	MMU_P_PSC_PDE,       /* event: demand walk below a PDE-cache hit */
	MMU_P_PSC_PDPTE,     /* event: ... below a PDPTE-cache hit */
	MMU_P_PSC_PML4,      /* event: ... below a PML4E-cache hit */
	MMU_P_PSC_NONE,      /* event: ... from the root */
	MMU_P_PDE_NOWALK,    /* event: counted PDE lookup that started no walk */
	MMU_P_PDE_NOWALK_MISS, /* event: ... and missed */
	MMU_P_REFS_BYPASSED, /* event: references served by the fill buffer */
	MMU_P_REPLAY_REFS,   /* event: references of replay walks (uncounted) */
	MMU_P_SQUASHED_WALK, /* wrong path: its own walk completed */
	MMU_N_PATHS
};
/* Per μop class: truth counts are indexed [class][path]. */
enum mmu_class { MMU_C_LOAD, MMU_C_STORE, MMU_N_CLASSES };
const char *mmu_path_name(enum mmu_path p);
/* Whether p is a path (1: the μops taking it sum to the μops issued) or
 * an extra event (0). */
int mmu_path_is_path(enum mmu_path p);

/* ---- features: switches named as the μDD family names them ---- */
enum mmu_feature {
	MMU_F_PREFETCH = 1u << 0,   /* LSQ-side TLB prefetcher */
	MMU_F_MERGE = 1u << 1,      /* walks to one page merge in the MSHRs */
	MMU_F_PDE_EARLY = 1u << 2,  /* PDE-cache lookup before the merge */
	MMU_F_PML4_CACHE = 1u << 3, /* root-level paging-structure cache */
	MMU_F_ABORT = 1u << 4,      /* squashed μops' walks are aborted */
	MMU_F_REPLAY = 1u << 5,     /* out-of-order translations re-walked at retirement */
	MMU_F_BYPASS = 1u << 6,     /* walker reads served by its fill buffer, uncounted */
	MMU_F_PF_DTLB_MISS = 1u << 7, /* prefetcher triggered on a DTLB miss only */
	MMU_F_PF_STLB_MISS = 1u << 8, /* ... on an STLB miss only (wins) */
	MMU_F_PF_STORES = 1u << 9,  /* stores trigger the prefetcher too */
};
#define MMU_N_FEATURES 10
#define MMU_F_ALL ((1u << MMU_N_FEATURES) - 1)
/* Parse "prefetch,merge" (or "" / "none" / "all") into a bitset. */
int mmu_features_parse(const char *list, unsigned *out, struct cp_error *err);
/* Write the names of the set bits, comma-separated ("none" if empty). */
void mmu_features_format(unsigned features, char *buf, size_t size);

/* ---- page sizes: one for the whole run, or a 4K / 2M mix ---- */
enum mmu_page { MMU_PAGE_4K, MMU_PAGE_2M, MMU_PAGE_1G, MMU_PAGE_MIX };
#define MMU_N_PAGES 3          /* page sizes */
#define MMU_N_PAGE_MODES 4     /* ... and the mix (mix_2m_share of 2M regions) */
const char *mmu_page_name(enum mmu_page p);   /* "4k", "2m", "1g", "mix" */
int mmu_page_parse(const char *text, enum mmu_page *out);

/* ---- processors: the events each one has, from the same machine ----
 * A processor's event is a sum of the machine's events and of the μops
 * of a class that took any path (dispatched, wrong path included); what a
 * processor cannot count is not among its events.  The machine is the
 * same for every processor: only the counters written differ. */
struct mmu_cpu_event {
	const char *event;     /* as the processor names it */
	const char *name;      /* a short name (Haswell's), or NULL */
	uint32_t sum;          /* bits of enum mmu_event added */
	unsigned dispatched;   /* bits of enum mmu_class: their μops added */
};
struct mmu_cpu {
	const char *name;      /* "haswell", "skylake", ... */
	const char *desc;      /* the processors it stands for */
	const char *pmu;       /* libpfm4's PMU name: "hsw", "skl", ... */
	size_t counters;       /* general counters per thread: the default P */
	const struct mmu_cpu_event *events;
	size_t n_events;       /* at most MMU_MAX_CPU_EVENTS */
};
#define MMU_MAX_CPU_EVENTS 32
/* The i-th processor (NULL past the last; 0 is Haswell, whose events are
 * the machine's own, one for one), or one by name (NULL: unknown). */
const struct mmu_cpu *mmu_cpu_at(size_t i);
const struct mmu_cpu *mmu_cpu_find(const char *name);
/* cpu's events' values from the machine's cumulative counts and truth
 * (mmu_counts, mmu_truth) into out[cpu->n_events]. */
void mmu_cpu_values(const struct mmu_cpu *cpu, const uint64_t *count,
		    const uint64_t *truth, uint64_t *out);
/* What an event is, in the machine's short names ("load.walk_done_4k +
 * store.walk_done_4k"). */
void mmu_cpu_event_format(const struct mmu_cpu_event *ev, char *buf,
			  size_t size);

/* ---- machine parameters (defaults: public Haswell figures) ---- */
#define MMU_CONFIG_MAX_PARAMS 48
struct mmu_config {
	/* TLBs: entries and ways (sets = entries / ways, a power of two) */
	unsigned dtlb_4k_entries, dtlb_4k_ways;
	unsigned dtlb_2m_entries, dtlb_2m_ways;
	unsigned dtlb_1g_entries, dtlb_1g_ways;
	unsigned stlb_entries, stlb_ways;        /* 4K and 2M translations */
	/* paging-structure caches */
	unsigned pde_entries, pde_ways;
	unsigned pdpte_entries, pdpte_ways;
	unsigned pml4_entries, pml4_ways;        /* with feature pml4_cache */
	/* data caches (bytes, ways; 64-byte lines) and latencies (cycles) */
	unsigned l1_bytes, l1_ways, l2_bytes, l2_ways, l3_bytes, l3_ways;
	unsigned lat_l1, lat_l2, lat_l3, lat_mem;
	/* core */
	unsigned walkers;          /* walk MSHRs: walks in flight at once */
	unsigned window;           /* in-flight memory μops (load buffer) */
	unsigned uop_cycles;       /* nominal issue cost of a memory μop */
	unsigned walk_setup;       /* cycles before a walk's first reference */
	double ghz;                /* cycles per simulated ns */
	/* speculation */
	double spec_share;         /* wrong-path μops per correct-path μop */
	unsigned squash_cycles;    /* mean delay from issue to squash */
	int abort_after_refs;      /* >= 0: aborted walks stop after n refs */
	unsigned bypass_cycles;    /* bypass: a fetched paging line stays this long */
	/* the OS */
	unsigned abit_clear_ns;    /* clears every leaf's accessed bit this often (0: never) */
	double mix_2m_share;       /* pages mix: share of 2M regions mapped by a 2M page */
	/* prefetcher trigger: line pairs within a 4K page */
	unsigned pf_up_from, pf_up_to, pf_down_from, pf_down_to;
	/* where each parameter (in mmu_config_format's order) was last set:
	 * line[i] of file by mmu_config_load, 0 a default or mmu_config_set;
	 * mmu_config_check's errors name it */
	const char *file;
	unsigned line[MMU_CONFIG_MAX_PARAMS];
};
void mmu_config_default(struct mmu_config *cfg);
/* Set one parameter by name ("stlb_entries", "8"). */
int mmu_config_set(struct mmu_config *cfg, const char *key,
		   const char *value, struct cp_error *err);
/* Read "key = value" lines (# comments; any length) from path, which
 * must outlive cfg (messages name it); errors at path:line. */
int mmu_config_load(struct mmu_config *cfg, const char *path,
		    struct cp_error *err);
/* Check sizes (powers of two, ways dividing entries, ...); an error names
 * the parameters and, when a file set them, the file and line. */
int mmu_config_check(const struct mmu_config *cfg, struct cp_error *err);
/* Text of every parameter, "key = value" a line (for docs and --help):
 * a file mmu_config_load reads back into the same machine. */
void mmu_config_format(const struct mmu_config *cfg, struct cp_buf *out);

/* ---- the machine ---- */
struct mmu_machine;
struct mmu_machine *mmu_machine_new(const struct mmu_config *cfg,
				    unsigned features, enum mmu_page page,
				    uint64_t seed, struct cp_error *err);
void mmu_machine_free(struct mmu_machine *m);
/* One correct-path memory μop at virtual address va (47-bit); with feature
 * replay, a replay it needs happens at its retirement, during later calls
 * (or mmu_drain()). */
void mmu_access(struct mmu_machine *m, uint64_t va, int is_store);
/* One wrong-path μop: translated (walks aborted at its squash with feature
 * abort), never retired.  mmu_run() injects spec_share of them. */
void mmu_access_wrong(struct mmu_machine *m, uint64_t va, int is_store);
/* CP_OK; CP_ENOMEM if a page-table allocation failed during the run;
 * CP_ELIMIT if the run needed more than the machine's physical memory
 * (data in more than MMU_DATA_HI_GB distinct 1G regions above 4 TB, or
 * 2 TB of page tables), so that its counts mean nothing. */
int mmu_machine_status(const struct mmu_machine *m);
/* The simulated machine's physical memory for data: virtual addresses
 * below 4 TB are their own physical addresses; each 1G region above gets
 * a 1G frame (from 6 TB on, in order) when its data is first touched. */
#define MMU_DATA_HI_GB 2048
/* The physical address the data caches see for va (47-bit), giving its
 * region a frame if it needs one and has none. */
uint64_t mmu_data_pa(struct mmu_machine *m, uint64_t va);
/* Complete every walk in flight (fills applied); counts are final. */
void mmu_drain(struct mmu_machine *m);
/* Cumulative counts, indexed by enum mmu_event. */
const uint64_t *mmu_counts(const struct mmu_machine *m);
/* Cumulative ground truth, indexed [class * MMU_N_PATHS + path]. */
const uint64_t *mmu_truth(const struct mmu_machine *m);
/* Simulated time so far, in cycles and in ns. */
uint64_t mmu_cycles(const struct mmu_machine *m);
uint64_t mmu_ns(const struct mmu_machine *m);

/* ---- workloads ---- */
struct mmu_workload;
/* "linear:footprint=1G,stride=64,dir=up,stores=0.2",
 * "random:footprint=1G,stores=0.2", "trace:FILE[,stores=...]" (lackey
 * text, optionally .xz-compressed; read once, at most MMU_TRACE_MAX
 * memory records, held in memory). */
#define MMU_TRACE_MAX (1u << 28)
struct mmu_workload *mmu_workload_new(const char *spec, uint64_t seed,
				      struct cp_error *err);
void mmu_workload_free(struct mmu_workload *w);
/* Back to the state mmu_workload_new(spec, seed) gives (a trace is not
 * read again). */
void mmu_workload_restart(struct mmu_workload *w, uint64_t seed);
/* The trace files w reads (phases: each phase's), up to max into files;
 * returns how many there are. */
size_t mmu_workload_files(const struct mmu_workload *w, const char **files,
			  size_t max);
/* Next correct-path μop. */
void mmu_workload_next(struct mmu_workload *w, uint64_t *va, int *is_store);
/* Short label for observation names: "linear-up", "random", "trace-sort". */
const char *mmu_workload_label(const struct mmu_workload *w);

/* ---- runs: multiplexed counting into the long CSV dataset ---- */
struct mmu_run_opts {
	size_t intervals;          /* samples per observation */
	size_t interval_uops;      /* correct-path μops per interval */
	size_t counters;           /* physical counters P (perf: 4) */
	uint64_t mux_ns;           /* simulated ns per multiplexing slice */
	uint64_t warmup_uops;      /* simulated before counting starts */
	uint64_t seed;
	uint32_t events;           /* bitset over cpu's events; 0 = all */
	const struct mmu_cpu *cpu; /* whose events are written; NULL: Haswell */
};
void mmu_run_opts_default(struct mmu_run_opts *o);
/* Parse an event list ("DTLB_LOAD_MISSES.STLB_HIT,load.retired") into a
 * bitset over cpu's events (NULL: Haswell's, by name or short name). */
int mmu_events_parse(const struct mmu_cpu *cpu, const char *list,
		     uint32_t *out, struct cp_error *err);
/* The dataset header line ("observation,interval,event,...\n"). */
void mmu_dataset_header(struct cp_buf *out);
void mmu_truth_header(struct cp_buf *out);
/* Run one observation named obs (a name cp_csv_name_check accepts):
 * append its rows to dataset and, when truth is not NULL, per-interval
 * path counts to truth.  mmu_run makes the workload from its spec;
 * mmu_run_workload runs w, restarted with opts->seed. */
int mmu_run(const struct mmu_config *cfg, unsigned features,
	    enum mmu_page page, const char *workload,
	    const struct mmu_run_opts *opts, const char *obs,
	    struct cp_buf *dataset, struct cp_buf *truth,
	    struct cp_error *err);
int mmu_run_workload(const struct mmu_config *cfg, unsigned features,
		     enum mmu_page page, struct mmu_workload *w,
		     const struct mmu_run_opts *opts, const char *obs,
		     struct cp_buf *dataset, struct cp_buf *truth,
		     struct cp_error *err);
/* The default sweep: workload specs (NULL-terminated) × page sizes. */
const char *const *mmu_sweep_workloads(void);

#endif
