/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hw/sim/sim_int.h: what hw/sim/run.c needs of the workloads and the
 * machine beyond mmu.h: the next μops in a batch, and the μop stream run
 * by the machine many μops a call.  Internal to hw/sim/. */
#ifndef COUNTERPOINT_HW_SIM_SIM_INT_H
#define COUNTERPOINT_HW_SIM_SIM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hw/sim/mmu.h"

/* The simulator's random numbers: SplitMix64 (the state advances by a
 * constant, and the output is a mix of the state). */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

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
	/* per μop made: 0, or 1 + k when a wrong-path μop comes first,
	 * touching the address of the μop k + 1 places after this one */
	uint8_t spec[MMU_RING];
	uint64_t next, made;      /* μops run, μops made (a multiple of MMU_BATCH) */
	/* a μop is preceded by a wrong-path μop when a draw of rng is below
	 * spec_cut, and a second draw picks k (none when spec_cut is 0) */
	uint64_t rng, spec_cut;
};

/* Make the next MMU_BATCH μops of s (at s->made, which moves on): the
 * workload's, and which of them a wrong-path μop precedes. */
void mmu_stream_fill(struct mmu_stream *s);

/* Run up to n correct-path μops of s on m, each after the wrong-path μop
 * that may come first, and stop early after a μop at whose end the
 * machine's cycles reach edge; returns the correct-path μops run.  The
 * loop runs inside the machine's copy of the μop path (one choice of
 * copy per call, none per μop). */
uint64_t mmu_stream_run(struct mmu_stream *s, struct mmu_machine *m,
			uint64_t n, uint64_t edge);


#endif
