/* hw/sim/sim_int.h: what hw/sim/run.c needs of the workloads and the
 * machine beyond mmu.h: the next μops in a batch, and the μop stream run
 * by the machine many μops a call.  Internal to hw/sim/. */
#ifndef COUNTERPOINT_HW_SIM_SIM_INT_H
#define COUNTERPOINT_HW_SIM_SIM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hw/sim/mmu.h"

/* The next n correct-path μops, as n calls of mmu_workload_next() would
 * give them, with a call's dispatch paid once. */
void mmu_workload_fill(struct mmu_workload *w, uint64_t *va,
		       uint8_t *is_store, size_t n);

/* The μop stream with a window on its future: wrong-path μops touch an
 * address 1..MMU_SPEC_AHEAD μops ahead (a mispredicted path runs ahead on
 * the same data), so they stay inside the workload's footprint.  The
 * workload makes the μops MMU_BATCH at a time, at least MMU_BATCH ahead
 * of the one running (the same μops as one at a time: it draws on its
 * own random numbers only). */
#define MMU_SPEC_AHEAD 32
#define MMU_BATCH 64
#define MMU_RING 128          /* the μops made and not yet run: 2 batches */

struct mmu_stream {
	struct mmu_workload *w;
	uint64_t va[MMU_RING];
	uint8_t st[MMU_RING];
	uint64_t next, made;      /* μops run, μops made (a multiple of MMU_BATCH) */
	uint64_t rng, spec_cut;   /* a wrong-path μop first if rng < spec_cut */
};

/* Run up to n correct-path μops of s on m, each after the wrong-path μop
 * that may come first, and stop early after a μop at whose end the
 * machine's cycles reach edge; returns the correct-path μops run.  The
 * loop runs inside the machine's copy of the μop path (one choice of
 * copy per call, none per μop). */
uint64_t mmu_stream_run(struct mmu_stream *s, struct mmu_machine *m,
			uint64_t n, uint64_t edge);

/* The same loop compiled for AVX2 hosts (hw/sim/machine_avx2.c), which
 * mmu_stream_run() calls for a machine that runs it. */
uint64_t mmu_stream_run_avx2(struct mmu_stream *s, struct mmu_machine *m,
			     uint64_t n, uint64_t edge);

#endif
